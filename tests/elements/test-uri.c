/* The donar:// URI's parameters (docs/elements.md, "The donar:// URI"):
 * each sets its property as gst-launch-1.0 would, the callee form makes a
 * callee, the URI reads back what it set, and an unknown parameter, a bad
 * value or a URI during a call is refused without a change; the uri
 * property does the same, a refused one failing start ().  Then a
 * gst-launch-1.0 line of two URIs, a caller of the address a callee wrote
 * to its address-file, sets up a call over donar-torsim and carries
 * frames. */
#include "elements-test.h"

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <string.h>

#define ONION "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion"
#define ADDRESS "donar://" ONION ":5004?secret=" \
  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define SETUP_TIMEOUT (20 * GST_SECOND)

/* Every parameter, none at its default, in the order the URI gives
 * back. */
#define EVERY_PARAMETER "call=c1&tor-control=9051&tor-socks=9050&" \
  "tor-socks-path=/run/tor/socks&tor-cookie-file=/run/tor/control.authcookie&" \
  "setup-timeout=30&guards=4&security=1way&links=6&n1st=2&n2nd=1&" \
  "window=1000&policy=double-send&budget=1.5&spread-copies=false&" \
  "redundancy=2&" \
  "peer-timeout=20&client-auth=true&key-file=callee.key&" \
  "client-auth-dir=contacts&address-file=address.txt&stats-interval=500"

static GstElement *
from_uri (GstURIType type, const gchar * uri)
{
  GError *error = NULL;
  GstElement *e = gst_element_make_from_uri (type, uri, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (e);
  return e;
}

static void
assert_uri (GstElement * e, const gchar * expected)
{
  gchar *uri = gst_uri_handler_get_uri (GST_URI_HANDLER (e)), *prop;

  g_object_get (e, "uri", &prop, NULL);
  g_assert_cmpstr (uri, ==, expected);
  g_assert_cmpstr (prop, ==, expected);
  g_free (uri);
  g_free (prop);
}

static const gchar *
enum_nick (GstElement * e, const gchar * name)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      name);
  gint value;

  g_object_get (e, name, &value, NULL);
  return g_enum_get_value (G_PARAM_SPEC_ENUM (pspec)->enum_class,
      value)->value_nick;
}

static void
check_every_parameter (GstURIType type)
{
  GstElement *e = from_uri (type, "donar://callee?" EVERY_PARAMETER);
  gchar *call, *tor_control, *socks_path, *cookie, *key_file, *contacts;
  gchar *address_file, *address;
  guint socks, setup, guards, links, n1st, n2nd, window, redundancy, peer;
  guint interval;
  gboolean callee, client_auth, spread;
  gdouble budget;

  g_object_get (e, "callee", &callee, "address", &address, "call", &call,
      "tor-control", &tor_control, "tor-socks", &socks, "tor-socks-path",
      &socks_path, "tor-cookie-file", &cookie, "setup-timeout", &setup,
      "guards", &guards, "links", &links, "n1st", &n1st, "n2nd", &n2nd,
      "window", &window, "budget", &budget, "spread-copies", &spread,
      "redundancy", &redundancy, "peer-timeout", &peer, "client-auth",
      &client_auth, "key-file", &key_file, "client-auth-dir", &contacts,
      "address-file", &address_file, "stats-interval", &interval, NULL);
  g_assert_true (callee);
  g_assert_cmpstr (address, ==, "");
  g_assert_cmpstr (call, ==, "c1");
  g_assert_cmpstr (tor_control, ==, "9051");
  g_assert_cmpuint (socks, ==, 9050);
  g_assert_cmpstr (socks_path, ==, "/run/tor/socks");
  g_assert_cmpstr (cookie, ==, "/run/tor/control.authcookie");
  g_assert_cmpuint (setup, ==, 30);
  g_assert_cmpuint (guards, ==, 4);
  g_assert_cmpuint (links, ==, 6);
  g_assert_cmpuint (n1st, ==, 2);
  g_assert_cmpuint (n2nd, ==, 1);
  g_assert_cmpuint (window, ==, 1000);
  g_assert_cmpfloat (budget, ==, 1.5);
  g_assert_false (spread);
  g_assert_cmpuint (redundancy, ==, 2);
  g_assert_cmpuint (peer, ==, 20);
  g_assert_true (client_auth);
  g_assert_cmpstr (key_file, ==, "callee.key");
  g_assert_cmpstr (contacts, ==, "contacts");
  g_assert_cmpstr (address_file, ==, "address.txt");
  g_assert_cmpuint (interval, ==, 500);
  g_assert_cmpstr (enum_nick (e, "policy"), ==, "double-send");
  g_assert_cmpstr (enum_nick (e, "security"), ==, "1way");
  assert_uri (e, "donar://callee?" EVERY_PARAMETER);

  /* What the URI reads back follows the properties set after it. */
  g_object_set (e, "links", 8, "tor-control", "/run/tor/control", NULL);
  {
    gchar *uri = gst_uri_handler_get_uri (GST_URI_HANDLER (e));

    g_assert_nonnull (strstr (uri, "&tor-control=/run/tor/control&"));
    g_assert_nonnull (strstr (uri, "&links=8&"));
    g_free (uri);
  }
  g_free (call);
  g_free (tor_control);
  g_free (socks_path);
  g_free (cookie);
  g_free (key_file);
  g_free (contacts);
  g_free (address_file);
  g_free (address);
  gst_object_unref (e);
}

static void
test_parameters (void)
{
  GstElement *e;
  gchar *address, *tor_control;
  gboolean callee;
  GError *error = NULL;

  check_every_parameter (GST_URI_SRC);
  check_every_parameter (GST_URI_SINK);

  /* A caller: the address property is the address alone; the URI all of
   * it, secret included. */
  e = from_uri (GST_URI_SINK, ADDRESS "&tor-control=9051&policy=alternate");
  g_object_get (e, "address", &address, "callee", &callee, "tor-control",
      &tor_control, NULL);
  g_assert_cmpstr (address, ==, ADDRESS);
  g_assert_false (callee);
  g_assert_cmpstr (tor_control, ==, "9051");
  assert_uri (e, ADDRESS "&tor-control=9051&policy=alternate");
  g_free (address);
  g_free (tor_control);

  /* Another URI: the callee form, its own parameters read back (the
   * first's keep their values, as properties set before). */
  g_assert_true (gst_uri_handler_set_uri (GST_URI_HANDLER (e),
          "donar://callee?links=4", &error));
  g_assert_no_error (error);
  g_object_get (e, "address", &address, "callee", &callee, "tor-control",
      &tor_control, NULL);
  g_assert_cmpstr (address, ==, "");
  g_assert_true (callee);
  g_assert_cmpstr (tor_control, ==, "9051");
  assert_uri (e, "donar://callee?links=4");
  g_free (address);
  g_free (tor_control);

  /* And back to a caller: callee is unset. */
  g_object_set (e, "uri", ADDRESS, NULL);
  g_object_get (e, "callee", &callee, NULL);
  g_assert_false (callee);
  assert_uri (e, ADDRESS);
  gst_object_unref (e);

  /* A fresh element is a callee. */
  e = gst_element_factory_make ("donarsrc", NULL);
  assert_uri (e, "donar://callee");
  gst_object_unref (e);
}

static void
test_refused (void)
{
  const struct
  {
    const gchar *uri;
    const gchar *reason;
  } bad[] = {
    {"donar://callee?links=6&colour=blue", "unknown donar:// URI parameter "
          "\"colour\""},
    {"donar://callee?address=" ADDRESS, "unknown donar:// URI parameter "
          "\"address\""},
    {"donar://callee?callee=true", "\"callee\""},
    {"donar://callee?stats=1", "\"stats\""},
    {"donar://callee?tor-password=x", "tor-password is not a donar:// URI"},
    {"donar://callee?links=0", "links: \"0\" is not a whole number from 1 "
          "to 32"},
    {"donar://callee?links=6x", "links: \"6x\""},
    {"donar://callee?tor-socks=65536", "tor-socks: \"65536\""},
    {"donar://callee?peer-timeout=-1", "peer-timeout: \"-1\""},
    {"donar://callee?policy=fast", "policy: \"fast\" is not one of simple, "
          "torfone, alternate, double-send, adaptive"},
    {"donar://callee?security=7", "security: \"7\" is not one of default, "
          "2hop, 1way"},
    {"donar://callee?budget=2.5", "budget: \"2.5\" is not a number from 1 "
          "to 2"},
    {"donar://callee?budget=nan", "budget: \"nan\""},
    {"donar://callee?client-auth=maybe", "client-auth: \"maybe\" is not "
          "true or false"},
    {"donar://callee?secret=00", "the callee form takes no secret"},
    {"donar://callee?links=6&links=6", "repeated parameter \"links\""},
    {"donar://" ONION ":5004?tor-control=9051", "no secret"},
    {"donar:callee", "starts with donar://"},
  };
  GstElement *e = from_uri (GST_URI_SRC, ADDRESS "&links=3");

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    GError *error = NULL;
    guint links;

    if (gst_uri_handler_set_uri (GST_URI_HANDLER (e), bad[i].uri, &error))
      g_error ("%s taken", bad[i].uri);
    g_assert_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI);
    if (strstr (error->message, bad[i].reason) == NULL)
      g_error ("%s: \"%s\" not in \"%s\"", bad[i].uri, bad[i].reason,
          error->message);
    /* Never the secret, whatever is wrong. */
    g_assert_null (strstr (error->message, "0001020304"));
    g_clear_error (&error);
    /* Taken whole or not at all. */
    g_object_get (e, "links", &links, NULL);
    g_assert_cmpuint (links, ==, 3);
    assert_uri (e, ADDRESS "&links=3");
  }
  gst_object_unref (e);
}

/* The uri property: refused, it fails start () with the reason; during a
 * call, as every call property, it is refused with a warning. */
static void
test_property (void)
{
  GstElement *pipeline, *src;
  GstBus *bus;
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;

  pipeline = gst_parse_launch ("donarsrc name=src "
      "uri=donar://callee?tor-control=direct&links=0 ! fakesink", &error);
  g_assert_no_error (error);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), ==,
      GST_STATE_CHANGE_FAILURE);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 0, GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  gst_message_parse_error (msg, &error, &debug);
  g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS);
  g_assert_nonnull (strstr (error->message, "uri: donar:// URI parameter "
          "links: \"0\""));
  g_clear_error (&error);
  g_free (debug);
  gst_message_unref (msg);

  /* A good one clears it; a direct callee is set up at once. */
  gst_element_set_state (pipeline, GST_STATE_NULL);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  g_object_set (src, "uri", "donar://callee?tor-control=direct", NULL);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  msg = elements_test_wait_message (pipeline, "donar-ready", SETUP_TIMEOUT);
  g_assert_nonnull (msg);
  gst_message_unref (msg);

  g_assert_false (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "donar://callee?links=6", &error));
  g_assert_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_STATE);
  g_clear_error (&error);
  g_object_set (src, "uri", "donar://callee?links=6", NULL);
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_WARNING);
  g_assert_nonnull (msg);
  gst_message_parse_warning (msg, &error, NULL);
  g_assert_nonnull (strstr (error->message, "\"uri\" cannot change during a "
          "call"));
  g_clear_error (&error);
  gst_message_unref (msg);
  assert_uri (src, "donar://callee?tor-control=direct");

  gst_object_unref (src);
  gst_object_unref (bus);
  elements_test_stop (pipeline);
}

static gboolean
file_appears (const gchar * path, gint64 timeout_us)
{
  gint64 deadline = g_get_monotonic_time () + timeout_us;

  while (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    if (g_get_monotonic_time () > deadline)
      return FALSE;
    g_usleep (50 * 1000);
  }
  return TRUE;
}

static GstPadProbeReturn
count_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  g_atomic_int_inc ((gint *) user_data);
  return GST_PAD_PROBE_OK;
}

/* gst-launch-1.0 as docs/elements.md writes it, two URIs and the ports of
 * a donar-torsim, in one process: the callee writes its address to a file,
 * the caller dials what the file says with tor-control after it. */
static void
test_launch (void)
{
  ElementsTestTorsim torsim;
  gchar *dir, *path, *desc, *contents = NULL, *address;
  GstElement *callee, *caller, *out;
  GstPad *pad;
  GstMessage *msg;
  gint frames = 0;
  gint64 deadline;

  if (!elements_test_torsim_start (&torsim, "uri"))
    return;
  dir = g_dir_make_tmp ("uri-XXXXXX", NULL);
  g_assert_nonnull (dir);
  path = g_build_filename (dir, "address.txt", NULL);

  desc = g_strdup_printf ("donar://callee?tor-control=%s&address-file=%s "
      "! rtpopusdepay ! opusdec ! fakesink name=out", torsim.control, path);
  callee = elements_test_play (desc);
  g_free (desc);
  out = gst_bin_get_by_name (GST_BIN (callee), "out");
  pad = gst_element_get_static_pad (out, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffer, &frames,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (out);
  g_assert_true (file_appears (path, 20 * G_USEC_PER_SEC));
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  address = g_strndup (contents, strcspn (contents, "\n"));

  desc = g_strdup_printf ("audiotestsrc is-live=true ! opusenc "
      "bitrate=32000 frame-size=40 ! rtpopuspay ! %s&tor-control=%s",
      address, torsim.control);
  caller = elements_test_play (desc);
  g_free (desc);
  msg = elements_test_wait_message (caller, "donar-ready", SETUP_TIMEOUT);
  g_assert_nonnull (msg);
  gst_message_unref (msg);
  /* A second of 40-ms frames, decoded at the callee. */
  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (g_atomic_int_get (&frames) < 25 && g_get_monotonic_time () < deadline)
    g_usleep (50 * 1000);
  g_assert_cmpint (g_atomic_int_get (&frames), >=, 25);

  elements_test_stop (caller);
  elements_test_stop (callee);
  elements_test_torsim_stop (&torsim);
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_free (address);
  g_free (contents);
  g_free (path);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  gboolean check_leaks = elements_test_init (&argc, &argv);
  int ret;

  g_test_add_func ("/uri/parameters", test_parameters);
  g_test_add_func ("/uri/refused", test_refused);
  g_test_add_func ("/uri/property", test_property);
  g_test_add_func ("/uri/launch", test_launch);
  ret = g_test_run ();
  return elements_test_finish (ret, check_leaks);
}
