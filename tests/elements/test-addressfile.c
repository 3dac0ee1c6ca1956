/* address-file: a callee writes its call address there (mode 0600, a
 * newline after it), the address of its donar-call-address message, and a
 * caller that dials what the file says gets through.  A caller ignores the
 * property.  A file that cannot be written is a warning naming it, and the
 * call goes on.  Direct calls (no Tor). */
#include "elements-test.h"

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <string.h>
#include <sys/stat.h>

#define SETUP_TIMEOUT (10 * GST_SECOND)
#define CALLEE "audiotestsrc is-live=true ! opusenc bitrate=32000 " \
  "frame-size=40 ! rtpopuspay ! donarsink tor-control=direct"

static GstElement *
launch_callee (const gchar * address_file)
{
  gchar *desc = g_strdup_printf (CALLEE " address-file=\"%s\"",
      address_file);
  GstElement *pipeline = elements_test_play (desc);

  g_free (desc);
  return pipeline;
}

static guint
links_up (GstElement * element)
{
  GstStructure *stats = NULL;
  guint n = 0;

  g_object_get (element, "stats", &stats, NULL);
  if (stats) {
    gst_structure_get_uint (stats, "links-up", &n);
    gst_structure_free (stats);
  }
  return n;
}

static void
test_written (void)
{
  gchar *dir = g_dir_make_tmp ("addressfile-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "address", NULL);
  gchar *ignored = g_build_filename (dir, "caller-address", NULL);
  gchar *desc, *address, *contents = NULL, *dialed;
  GstElement *callee, *caller, *src;
  GError *error = NULL;
  GstMessage *msg;
  GStatBuf st;
  gint64 deadline;

  g_assert_nonnull (dir);
  callee = launch_callee (path);
  address = elements_test_wait_address (callee, SETUP_TIMEOUT);

  /* Written before the message is posted. */
  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  dialed = g_strconcat (address, "\n", NULL);
  g_assert_cmpstr (contents, ==, dialed);
  g_free (dialed);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);

  /* What a script would do: the file's first line, as it is. */
  dialed = g_strndup (contents, strcspn (contents, "\n"));
  desc = g_strdup_printf ("donarsrc name=src tor-control=direct "
      "address=\"%s\" address-file=\"%s\" ! fakesink", dialed, ignored);
  caller = elements_test_play (desc);
  g_free (desc);
  msg = elements_test_wait_message (caller, "donar-ready", SETUP_TIMEOUT);
  g_assert_nonnull (msg);
  gst_message_unref (msg);
  src = gst_bin_get_by_name (GST_BIN (caller), "src");
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (links_up (src) == 0 && g_get_monotonic_time () < deadline)
    g_usleep (50 * 1000);
  g_assert_cmpuint (links_up (src), >, 0);
  gst_object_unref (src);
  /* A caller's address would only spread its secret. */
  g_assert_false (g_file_test (ignored, G_FILE_TEST_EXISTS));

  elements_test_stop (caller);
  elements_test_stop (callee);
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_free (contents);
  g_free (dialed);
  g_free (address);
  g_free (ignored);
  g_free (path);
  g_free (dir);
}

static void
test_unwritable (void)
{
  gchar *dir = g_dir_make_tmp ("addressfile-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "missing", "address", NULL);
  gchar *warning = NULL;
  gboolean address = FALSE, ready = FALSE;
  GstElement *callee;
  GstBus *bus;
  gint64 deadline;

  g_assert_nonnull (dir);
  callee = launch_callee (path);

  /* Not elements_test_wait_message (): it drops the warnings it passes. */
  bus = gst_element_get_bus (callee);
  deadline = g_get_monotonic_time () + SETUP_TIMEOUT / GST_USECOND;
  while (!(warning && address && ready) && g_get_monotonic_time () < deadline) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 50 * GST_MSECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_WARNING | GST_MESSAGE_ELEMENT);
    GError *error = NULL;

    if (msg == NULL)
      continue;
    g_assert_cmpint (GST_MESSAGE_TYPE (msg), !=, GST_MESSAGE_ERROR);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (msg, &error, NULL);
      g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE);
      g_assert_null (warning);
      warning = g_strdup (error->message);
      g_clear_error (&error);
    } else if (gst_message_has_name (msg, "donar-call-address")) {
      address = TRUE;
    } else if (gst_message_has_name (msg, "donar-ready")) {
      ready = TRUE;
    }
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  g_assert_nonnull (warning);
  g_assert_nonnull (strstr (warning, path));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  /* The call goes on: the address is still given, and the call is up. */
  g_assert_true (address);
  g_assert_true (ready);
  g_assert_cmpint (GST_STATE (callee), ==, GST_STATE_PLAYING);

  elements_test_stop (callee);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_free (warning);
  g_free (path);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  gboolean check_leaks = elements_test_init (&argc, &argv);
  int ret;

  g_test_add_func ("/addressfile/written", test_written);
  g_test_add_func ("/addressfile/unwritable", test_unwritable);
  ret = g_test_run ();
  return elements_test_finish (ret, check_leaks);
}
