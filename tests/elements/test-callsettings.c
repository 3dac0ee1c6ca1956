/* The call settings.  The `call` name is scoped to a pipeline: two
 * pipelines of one process that both say call=c make two calls (each
 * callee publishes its own address), and elements of one call that
 * disagree on dialing or answering fail the state change rather than
 * silently becoming the other.  A setting changed during a call is
 * refused with a warning, and taken once the element is back in READY;
 * every call property is flagged changeable in READY, and one set there
 * makes the call.  A running tor's password and cookie file are refused
 * without one, and setup-timeout bounds a setup that hangs.  Direct calls
 * (no Tor). */
#include "elements-test.h"

#include <gst/gst.h>
#include <glib/gstdio.h>
#include <string.h>

#define SETUP_TIMEOUT (10 * GST_SECOND)
/* A direct call's address: nothing listens there, and nothing dials it
 * before the state change has failed. */
#define DIRECT_ADDRESS "donar://127.0.0.1:9?secret=" \
  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

static GstElement *
launch (const gchar * description)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);

  g_assert_no_error (error);
  return pipeline;
}

/* The callee address that the pipeline's call publishes. */
static gchar *
callee_address (GstElement * pipeline)
{
  gchar *address;

  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  address = elements_test_wait_address (pipeline, SETUP_TIMEOUT);
  g_assert_true (g_str_has_prefix (address, "donar://127.0.0.1:"));
  return address;
}

static void
test_two_pipelines (void)
{
  const gchar *description = "audiotestsrc is-live=true ! opusenc "
      "bitrate=32000 frame-size=40 ! rtpopuspay ! donarsink call=c "
      "tor-control=direct";
  GstElement *a = launch (description), *b = launch (description);
  gchar *address_a = callee_address (a), *address_b = callee_address (b);

  /* One shared call would have one address (and one secret). */
  g_assert_cmpstr (address_a, !=, address_b);
  gst_element_set_state (a, GST_STATE_NULL);
  gst_element_set_state (b, GST_STATE_NULL);
  gst_object_unref (a);
  gst_object_unref (b);
  g_free (address_a);
  g_free (address_b);
}

/* The state change fails with an error whose debug text has `reason`. */
static void
check_refused (const gchar * description, const gchar * reason)
{
  GstElement *pipeline = launch (description);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;

  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), ==,
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  gst_message_parse_error (msg, &error, &debug);
  g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS);
  g_assert_nonnull (strstr (debug, reason));
  g_clear_error (&error);
  g_free (debug);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

static void
test_disagreement (void)
{
  /* The sink starts first and answers; the src would dial. */
  check_refused ("audiotestsrc is-live=true ! opusenc bitrate=32000 "
      "frame-size=40 ! rtpopuspay ! donarsink call=m tor-control=direct  "
      "donarsrc call=m tor-control=direct address=\"" DIRECT_ADDRESS "\" ! "
      "fakesink", "this element dials an address, the call is a callee");
  /* The sink dials; the src says it is a callee. */
  check_refused ("audiotestsrc is-live=true ! opusenc bitrate=32000 "
      "frame-size=40 ! rtpopuspay ! donarsink call=m tor-control=direct "
      "address=\"" DIRECT_ADDRESS "\"  donarsrc call=m tor-control=direct "
      "callee=true ! fakesink",
      "this element is a callee, the call dials an address");
}

/* The next warning on the pipeline's bus, or NULL after timeout. */
static gchar *
next_warning (GstElement * pipeline, GstClockTime timeout)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_WARNING);
  GError *error = NULL;
  gchar *text;

  gst_object_unref (bus);
  if (msg == NULL)
    return NULL;
  gst_message_parse_warning (msg, &error, NULL);
  text = g_strdup (error->message);
  g_error_free (error);
  gst_message_unref (msg);
  return text;
}

static void
test_live_change (void)
{
  GstElement *pipeline = launch ("audiotestsrc is-live=true ! opusenc "
      "bitrate=32000 frame-size=40 ! rtpopuspay ! donarsink name=sink "
      "call=l tor-control=direct budget=2.0");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gchar *address = callee_address (pipeline), *warning;
  gdouble budget;

  g_object_set (sink, "budget", 1.5, NULL);
  g_object_get (sink, "budget", &budget, NULL);
  g_assert_cmpfloat (budget, ==, 2.0);
  warning = next_warning (pipeline, 5 * GST_SECOND);
  g_assert_nonnull (warning);
  g_assert_nonnull (strstr (warning, "\"budget\" cannot change during a "
          "call"));
  g_free (warning);

  /* The call stops at PAUSED to READY. */
  gst_element_set_state (pipeline, GST_STATE_READY);
  g_object_set (sink, "budget", 1.5, NULL);
  g_object_get (sink, "budget", &budget, NULL);
  g_assert_cmpfloat (budget, ==, 1.5);
  g_assert_null (next_warning (pipeline, 0));
  gst_element_set_state (pipeline, GST_STATE_NULL);

  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (address);
}

/* setup-timeout, tor-password, tor-cookie-file: their defaults, the
 * password never read back, and what cannot work refused at the state
 * change with the reason. */
static void
test_tor_auth (void)
{
  GstElement *src = gst_element_factory_make ("donarsrc", NULL);
  GParamSpec *password = g_object_class_find_property (G_OBJECT_GET_CLASS
      (src), "tor-password");
  guint timeout;
  gchar *cookie;

  g_object_get (src, "setup-timeout", &timeout, "tor-cookie-file", &cookie,
      NULL);
  g_assert_cmpuint (timeout, ==, 120);
  g_assert_cmpstr (cookie, ==, "");
  g_assert_nonnull (password);
  g_assert_false (password->flags & G_PARAM_READABLE);
  g_assert_true (password->flags & G_PARAM_WRITABLE);
  g_object_set (src, "tor-password", "secret", NULL);
  g_free (cookie);
  gst_object_unref (src);

  check_refused ("donarsrc callee=true tor-password=secret ! fakesink",
      "tor-password is for a running tor's control port");
  check_refused ("donarsrc callee=true tor-control=direct "
      "tor-cookie-file=/etc/hostname ! fakesink",
      "tor-cookie-file is for a running tor's control port");
  check_refused ("donarsrc callee=true tor-control=9 "
      "tor-cookie-file=/nonexistent/control_auth_cookie ! fakesink",
      "tor-cookie-file: \"/nonexistent/control_auth_cookie\" is not a file");
}

/* setup-timeout bounds a step of the setup: a control port that takes the
 * connection and never answers fails the call after it, not after 120 s. */
static void
test_setup_timeout (void)
{
  guint16 port;
  GSocketListener *listener = elements_test_silent_port (&port);
  GstElement *pipeline;
  GstBus *bus;
  GstMessage *msg;
  gchar *description;
  gint64 start;

  description = g_strdup_printf ("donarsrc tor-control=%u callee=true "
      "setup-timeout=1 ! fakesink", port);
  pipeline = launch (description);
  bus = gst_element_get_bus (pipeline);
  start = g_get_monotonic_time ();
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
  g_print ("# setup-timeout=1: the error after %.1f s\n",
      (g_get_monotonic_time () - start) / (gdouble) G_USEC_PER_SEC);
  gst_message_unref (msg);
  gst_object_unref (bus);
  elements_test_stop (pipeline);
  g_free (description);
  g_socket_listener_close (listener);
  g_object_unref (listener);
}

/* Every call property says "changeable in NULL or READY" (gst-inspect-1.0),
 * and so it is: a value set in READY makes the call.  An address-file set
 * in READY is written by the call that starts at PAUSED. */
static void
test_ready_change (void)
{
  const gchar *names[] = { "donarsink", "donarsrc" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElement *element = gst_element_factory_make (names[i], NULL);
    guint n_specs;
    GParamSpec **specs =
        g_object_class_list_properties (G_OBJECT_GET_CLASS (element),
        &n_specs);

    for (guint j = 0; j < n_specs; j++) {
      /* Every property of the call is one of GstDonarCallSettings. */
      if (specs[j]->owner_type != G_OBJECT_TYPE (element) ||
          !(specs[j]->flags & G_PARAM_WRITABLE))
        continue;
      g_assert_true (specs[j]->flags & GST_PARAM_MUTABLE_READY);
    }
    g_free (specs);
    gst_object_unref (element);
  }

  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    gchar *description = g_strdup_printf (g_str_equal (names[i],
            "donarsink") ? "audiotestsrc is-live=true ! opusenc "
        "bitrate=32000 frame-size=40 ! rtpopuspay ! donarsink name=e "
        "tor-control=direct" : "donarsrc name=e tor-control=direct ! "
        "fakesink");
    GstElement *pipeline = launch (description);
    GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), "e");
    gchar *dir = g_dir_make_tmp ("donar-ready-XXXXXX", NULL);
    gchar *path = g_build_filename (dir, "address", NULL);
    gchar *address, *written;

    g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_READY), ==,
        GST_STATE_CHANGE_SUCCESS);
    g_object_set (element, "address-file", path, NULL);
    g_assert_null (next_warning (pipeline, 0));
    address = callee_address (pipeline);
    g_assert_true (g_file_get_contents (path, &written, NULL, NULL));
    g_assert_cmpstr (g_strchomp (written), ==, address);

    gst_element_set_state (pipeline, GST_STATE_NULL);
    g_unlink (path);
    g_rmdir (dir);
    g_free (written);
    g_free (address);
    g_free (path);
    g_free (dir);
    g_free (description);
    gst_object_unref (element);
    gst_object_unref (pipeline);
  }
}

int
main (int argc, char **argv)
{
  gboolean check_leaks = elements_test_init (&argc, &argv);
  int ret;

  g_test_add_func ("/callsettings/two-pipelines", test_two_pipelines);
  g_test_add_func ("/callsettings/disagreement", test_disagreement);
  g_test_add_func ("/callsettings/tor-auth", test_tor_auth);
  g_test_add_func ("/callsettings/setup-timeout", test_setup_timeout);
  g_test_add_func ("/callsettings/live-change", test_live_change);
  g_test_add_func ("/callsettings/ready-change", test_ready_change);
  ret = g_test_run ();
  return elements_test_finish (ret, check_leaks);
}
