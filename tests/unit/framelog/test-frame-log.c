/* The frame log's writer (tools/framelog/frame-log-writer.h) on hand
 * values: the exact text the tools have always written (three decimals
 * of printf's rounding, nothing after the comma of a lost frame), and a
 * log that frame_log_load () reads back as written. */
#include "frame-log.h"
#include "frame-log-writer.h"

#include <glib/gstdio.h>
#include <string.h>

static gchar *
write_and_read (const gchar * dir, const gchar * name,
    void (*fill) (FrameLogWriter *), gchar ** path)
{
  FrameLogWriter *writer;
  GError *error = NULL;
  gchar *text = NULL;

  *path = g_build_filename (dir, name, NULL);
  writer = frame_log_writer_new (*path);
  fill (writer);
  g_assert_true (frame_log_writer_finish (writer, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (*path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

static void
fill_edges (FrameLogWriter * w)
{
  frame_log_writer_add (w, 0, 0.0, 100.0);
  frame_log_writer_add_lost (w, 1, 40.0);
  /* Below the µs: rounded to three decimals, down then up. */
  frame_log_writer_add (w, 2, 80.0004, 180.0006);
  /* donar-demo's ns / 1e6. */
  frame_log_writer_add (w, 3, 1234567891 / 1e6, 1234.5674);
  /* Negative times keep their sign, even when they round to zero. */
  frame_log_writer_add (w, 4, -2.5, -0.0004);
  frame_log_writer_add (w, G_MAXUINT, 1e9, 1e9 + 0.25);
}

static void
test_text (gconstpointer dir)
{
  gchar *path;
  gchar *text = write_and_read (dir, "edges.csv", fill_edges, &path);

  g_assert_cmpstr (text, ==, "seq,sent_ms,arrival_ms\n"
      "0,0.000,100.000\n"
      "1,40.000,\n"
      "2,80.000,180.001\n"
      "3,1234.568,1234.567\n"
      "4,-2.500,-0.000\n" "4294967295,1000000000.000,1000000000.250\n");
  g_free (text);
  g_unlink (path);
  g_free (path);
}

static void
fill_nothing (FrameLogWriter * w)
{
}

/* donar-call with no frame of the peer: the header alone. */
static void
test_empty (gconstpointer dir)
{
  gchar *path;
  gchar *text = write_and_read (dir, "empty.csv", fill_nothing, &path);

  g_assert_cmpstr (text, ==, "seq,sent_ms,arrival_ms\n");
  g_free (text);
  g_unlink (path);
  g_free (path);
}

static void
fill_call (FrameLogWriter * w)
{
  frame_log_writer_add (w, 5, 0.0, 150.0);
  frame_log_writer_add_lost (w, 6, 40.0);
  frame_log_writer_add (w, 7, 80.0, 199.999);
  frame_log_writer_add (w, 8, 120.001, 300.5);
}

static void
test_round_trip (gconstpointer dir)
{
  gchar *path;
  gchar *text = write_and_read (dir, "call3-dir1.csv", fill_call, &path);
  GError *error = NULL;
  FrameLog *log = frame_log_load (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (log);
  g_assert_cmpstr (log->name, ==, "call3-dir1");
  g_assert_cmpint (log->call, ==, 3);
  g_assert_cmpint (log->direction, ==, 1);
  g_assert_cmpuint (log->n, ==, 4);
  g_assert_cmpint (log->send_us[0], ==, 0);
  g_assert_cmpint (log->arrival_us[0], ==, 150000);
  g_assert_cmpint (log->send_us[1], ==, 40000);
  g_assert_true (log->arrival_us[1] == FRAME_LOG_LOST);
  g_assert_cmpint (log->send_us[2], ==, 80000);
  g_assert_cmpint (log->arrival_us[2], ==, 199999);
  g_assert_cmpint (log->send_us[3], ==, 120001);
  g_assert_cmpint (log->arrival_us[3], ==, 300500);
  frame_log_free (log);
  g_free (text);
  g_unlink (path);
  g_free (path);
}

/* Nothing is written where the directory is missing; the error names the
 * file. */
static void
test_error (gconstpointer dir)
{
  g_autofree gchar *path = g_build_filename (dir, "missing", "call0-dir0.csv",
      NULL);
  FrameLogWriter *writer = frame_log_writer_new (path);
  GError *error = NULL;

  frame_log_writer_add (writer, 0, 0.0, 100.0);
  g_assert_false (frame_log_writer_finish (writer, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_nonnull (strstr (error->message, path));
  g_error_free (error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

int
main (int argc, char **argv)
{
  gchar *dir;
  int ret;

  g_test_init (&argc, &argv, NULL);
  dir = g_dir_make_tmp ("test-frame-log-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_test_add_data_func ("/frame-log/writer/text", dir, test_text);
  g_test_add_data_func ("/frame-log/writer/empty", dir, test_empty);
  g_test_add_data_func ("/frame-log/writer/round-trip", dir, test_round_trip);
  g_test_add_data_func ("/frame-log/writer/error", dir, test_error);
  ret = g_test_run ();
  g_rmdir (dir);
  g_free (dir);
  return ret;
}
