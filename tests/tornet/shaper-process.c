/* donar-shaper as a subprocess of a test, and its log parsed. */
#include "shaper-process.h"

#include "test-spawn.h"

#include <glib/gstdio.h>
#include <signal.h>

#define START_TIMEOUT_MS 10000

ShaperProcess *
shaper_process_start (const gchar * const *args)
{
  const gchar *exe = g_getenv ("DONAR_SHAPER");
  ShaperProcess *p = g_new0 (ShaperProcess, 1);
  GPtrArray *argv = g_ptr_array_new ();
  GError *error = NULL;
  GDataInputStream *out;
  gchar *line, **ports;

  g_assert_nonnull (exe);
  p->dir = g_dir_make_tmp ("donar-shaper-XXXXXX", &error);
  g_assert_no_error (error);
  p->log_path = g_build_filename (p->dir, "shaper.log", NULL);
  g_ptr_array_add (argv, (gpointer) exe);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, (gpointer) "--log");
  g_ptr_array_add (argv, p->log_path);
  g_ptr_array_add (argv, NULL);
  p->process = test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE,
      (const gchar * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_ptr_array_unref (argv);

  /* The ready line comes once every port listens; a blocking read is
   * bounded by the shaper exiting on a setup error. */
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (p->process));
  line = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  g_assert_true (g_str_has_prefix (line, "ready origin_us="));
  p->origin_us = g_ascii_strtoll (line + strlen ("ready origin_us="), NULL, 10);
  ports = g_strsplit (strstr (line, "ports=") + strlen ("ports="), ",", -1);
  p->n_relays = g_strv_length (ports);
  g_assert_cmpuint (p->n_relays, <=, SHAPER_MAX_RELAYS);
  for (guint i = 0; i < p->n_relays; i++)
    p->ports[i] = (guint16) g_ascii_strtoull (ports[i], NULL, 10);
  g_strfreev (ports);
  g_free (line);
  g_object_unref (out);
  return p;
}

static gint64
field (gchar ** words, const gchar * key)
{
  gsize n = strlen (key);

  for (guint i = 1; words[i] != NULL; i++)
    if (strncmp (words[i], key, n) == 0 && words[i][n] == '=')
      return g_ascii_strtoll (words[i] + n + 1, NULL, 10);
  return -1;
}

static GArray *
read_log (const gchar * path)
{
  GArray *events = g_array_new (FALSE, TRUE, sizeof (ShaperEvent));
  gchar *text = NULL, **lines;
  GError *error = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++) {
    gchar **w = g_strsplit (lines[i], " ", -1);
    ShaperEvent e = { 0 };

    if (w[0] != NULL && w[0][0] != '\0') {
      g_strlcpy (e.kind, w[0], sizeof e.kind);
      e.relay = field (w, "relay");
      e.conn = field (w, "conn");
      e.dir = field (w, "dir");
      e.bytes = field (w, "bytes");
      e.recv_us = field (w, "recv_us");
      e.delay_us = field (w, "delay_us");
      e.release_us = field (w, "release_us");
      e.written_us = field (w, "written_us");
      e.start_us = field (w, "start_us");
      e.end_us = field (w, "end_us");
      g_array_append_val (events, e);
    }
    g_strfreev (w);
  }
  g_strfreev (lines);
  g_free (text);
  return events;
}

GArray *
shaper_process_stop (ShaperProcess * p)
{
  GError *error = NULL;
  GArray *events;

  /* By PID: g_subprocess_send_signal targets this process only. */
  g_subprocess_send_signal (p->process, SIGTERM);
  g_assert_true (g_subprocess_wait (p->process, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (p->process));
  g_assert_cmpint (g_subprocess_get_exit_status (p->process), ==, 0);
  events = read_log (p->log_path);
  g_unlink (p->log_path);
  g_rmdir (p->dir);
  g_object_unref (p->process);
  g_free (p->log_path);
  g_free (p->dir);
  g_free (p);
  return events;
}
