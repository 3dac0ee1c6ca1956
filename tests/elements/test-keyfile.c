/* key-file and client-auth-dir, the callee's lasting address: over
 * donar-torsim, two callees in turn with one key file post the same
 * address (the file made mode 0600 by the first), and a caller of the
 * first one's address reaches the second.  A key file other users may
 * read, a key file or contacts on a direct call, and a contacts directory
 * that is not there fail start() at once with the reason. */
#include "elements-test.h"

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <string.h>
#include <sys/stat.h>

#define SETUP_TIMEOUT (20 * GST_SECOND)

/* A callee with the key file: its address. */
static gchar *
answer (const gchar * control, const gchar * key_file)
{
  gchar *desc = g_strdup_printf ("donarsrc tor-control=%s key-file=\"%s\" "
      "! fakesink", control, key_file);
  GstElement *callee = elements_test_play (desc);
  gchar *address = elements_test_wait_address (callee, SETUP_TIMEOUT);

  elements_test_stop (callee);
  g_free (desc);
  return address;
}

static void
test_lasting (void)
{
  ElementsTestTorsim torsim;
  gchar *dir, *key_file, *first, *second, *desc;
  GstElement *callee, *caller;
  GstMessage *msg;
  GStatBuf st;

  if (!elements_test_torsim_start (&torsim, "keyfile"))
    return;
  dir = g_dir_make_tmp ("keyfile-XXXXXX", NULL);
  g_assert_nonnull (dir);
  key_file = g_build_filename (dir, "callee.key", NULL);

  first = answer (torsim.control, key_file);
  g_assert_cmpint (g_stat (key_file, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  second = answer (torsim.control, key_file);
  g_assert_cmpstr (first, ==, second);

  /* The first callee is gone: its saved address reaches the next one. */
  desc = g_strdup_printf ("donarsrc tor-control=%s key-file=\"%s\" ! "
      "fakesink", torsim.control, key_file);
  callee = elements_test_play (desc);
  g_free (desc);
  g_free (elements_test_wait_address (callee, SETUP_TIMEOUT));
  desc = g_strdup_printf ("donarsrc tor-control=%s address=\"%s\" ! "
      "fakesink", torsim.control, first);
  caller = elements_test_play (desc);
  g_free (desc);
  msg = elements_test_wait_message (caller, "donar-ready", SETUP_TIMEOUT);
  g_assert_nonnull (msg);
  gst_message_unref (msg);
  elements_test_stop (caller);
  elements_test_stop (callee);

  g_assert_cmpint (g_unlink (key_file), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  elements_test_torsim_stop (&torsim);
  g_free (first);
  g_free (second);
  g_free (key_file);
  g_free (dir);
}

/* start () fails, and the element error's debug text holds reason. */
static void
assert_refused (const gchar * description, const gchar * reason)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);
  GstMessage *msg;
  gchar *debug = NULL;
  GstBus *bus;

  g_assert_no_error (error);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), ==,
      GST_STATE_CHANGE_FAILURE);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 0, GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  gst_message_parse_error (msg, &error, &debug);
  g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS);
  if (strstr (debug, reason) == NULL)
    g_error ("\"%s\" not in \"%s\"", reason, debug);
  g_clear_error (&error);
  g_free (debug);
  gst_message_unref (msg);
  gst_object_unref (bus);
  elements_test_stop (pipeline);
}

static void
test_refused (void)
{
  gchar *dir = g_dir_make_tmp ("keyfile-XXXXXX", NULL);
  gchar *key_file = g_build_filename (dir, "open.key", NULL);
  gchar *desc;
  GError *error = NULL;

  g_assert_nonnull (dir);
  g_file_set_contents_full (key_file, "onion-key=x\n", -1,
      G_FILE_SET_CONTENTS_NONE, 0644, &error);
  g_assert_no_error (error);
  /* No tor-control: a tor of our own would be launched if start () let
   * the call through. */
  desc = g_strdup_printf ("donarsrc key-file=\"%s\" ! fakesink", key_file);
  assert_refused (desc, "mode 0644 lets other users read or change it");
  g_free (desc);
  desc = g_strdup_printf ("donarsrc tor-control=direct key-file=\"%s\" ! "
      "fakesink", key_file);
  assert_refused (desc, "a direct call has none");
  g_free (desc);
  desc = g_strdup_printf ("appsrc ! donarsink client-auth-dir=\"%s/none\"",
      dir);
  assert_refused (desc, "contacts directory");
  g_free (desc);

  g_assert_cmpint (g_unlink (key_file), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_free (key_file);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  gboolean check_leaks = elements_test_init (&argc, &argv);
  int ret;

  g_test_add_func ("/keyfile/refused", test_refused);
  g_test_add_func ("/keyfile/lasting", test_lasting);
  ret = g_test_run ();
  return elements_test_finish (ret, check_leaks);
}
