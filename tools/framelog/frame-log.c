#include "frame-log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
frame_log_free (FrameLog * log)
{
  g_free (log->path);
  g_free (log->name);
  g_free (log->send_us);
  g_free (log->arrival_us);
  g_free (log);
}

gboolean
frame_log_parse_ms (const char *s, gint64 * us)
{
  gchar *end = NULL;
  gdouble v;

  errno = 0;
  v = g_ascii_strtod (s, &end);
  if (end == s || *end != '\0' || errno != 0 || !isfinite (v) ||
      fabs (v) > 1e12)
    return FALSE;
  *us = (gint64) llround (v * 1000.0);
  return TRUE;
}

static gboolean
parse_seq (const char *s, guint64 * seq)
{
  gchar *end = NULL;

  errno = 0;
  if (!g_ascii_isdigit (*s))
    return FALSE;
  *seq = g_ascii_strtoull (s, &end, 10);
  return *end == '\0' && errno == 0;
}

FrameLog *
frame_log_load (const char *path, GError ** error)
{
  g_autofree gchar *contents = NULL;
  g_auto (GStrv) lines = NULL;
  g_autofree gchar *base = g_path_get_basename (path);
  FrameLog *log;
  guint n = 0, n_lines, call, direction;
  guint64 first_seq = 0;
  char tail;

  if (!g_file_get_contents (path, &contents, NULL, error))
    return NULL;
  lines = g_strsplit (contents, "\n", -1);
  if (lines[0] == NULL ||
      strcmp (g_strstrip (lines[0]), "seq,sent_ms,arrival_ms") != 0) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s:1: expected the header seq,sent_ms,arrival_ms", path);
    return NULL;
  }

  n_lines = g_strv_length (lines);
  log = g_new0 (FrameLog, 1);
  log->path = g_strdup (path);
  log->name = g_str_has_suffix (base, ".csv") ?
      g_strndup (base, strlen (base) - 4) : g_strdup (base);
  if (sscanf (base, "call%u-dir%u.cs%c", &call, &direction, &tail) == 3
      && tail == 'v') {
    log->call = (gint) call;
    log->direction = (gint) direction;
  } else {
    log->call = log->direction = -1;
  }
  log->send_us = g_new (gint64, n_lines);
  log->arrival_us = g_new (gint64, n_lines);
  for (guint i = 1; lines[i]; i++) {
    g_auto (GStrv) f = NULL;
    gchar *line = g_strstrip (lines[i]);
    guint64 seq;

    if (*line == '\0')
      continue;
    f = g_strsplit (line, ",", -1);
    if (g_strv_length (f) != 3 || !parse_seq (f[0], &seq) ||
        !frame_log_parse_ms (f[1], &log->send_us[n]) ||
        (*f[2] != '\0' && !frame_log_parse_ms (f[2], &log->arrival_us[n]))) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
          "%s:%u: expected seq,sent_ms,arrival_ms (arrival_ms empty if "
          "lost), got \"%s\"", path, i + 1, line);
      frame_log_free (log);
      return NULL;
    }
    if (*f[2] == '\0')
      log->arrival_us[n] = FRAME_LOG_LOST;
    if (n == 0)
      first_seq = seq;
    if (seq != first_seq + n) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
          "%s:%u: seq %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT
          " (one row per frame, in send order)", path, i + 1, seq,
          first_seq + n);
      frame_log_free (log);
      return NULL;
    }
    if (n > 0 && log->send_us[n] < log->send_us[n - 1]) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
          "%s:%u: frames must be in send order", path, i + 1);
      frame_log_free (log);
      return NULL;
    }
    n++;
  }
  log->n = n;
  if (n == 0) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: no frames",
        path);
    frame_log_free (log);
    return NULL;
  }
  return log;
}

/* g_ptr_array_sort () passes pointers to the elements. */
static gint
cmp_path (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const gchar * const *) a, *(const gchar * const *) b);
}

gboolean
frame_log_add_path (GPtrArray * logs, const char *path, GError ** error)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR)) {
    g_autoptr (GDir) dir = g_dir_open (path, 0, error);
    g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
    const char *name;

    if (dir == NULL)
      return FALSE;
    while ((name = g_dir_read_name (dir)))
      if (g_str_has_suffix (name, ".csv"))
        g_ptr_array_add (names, g_build_filename (path, name, NULL));
    if (names->len == 0) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
          "%s: no .csv frame logs in this directory", path);
      return FALSE;
    }
    g_ptr_array_sort (names, cmp_path);
    for (guint i = 0; i < names->len; i++) {
      FrameLog *log = frame_log_load (g_ptr_array_index (names, i), error);

      if (log == NULL)
        return FALSE;
      g_ptr_array_add (logs, log);
    }
    return TRUE;
  } else {
    FrameLog *log = frame_log_load (path, error);

    if (log)
      g_ptr_array_add (logs, log);
    return log != NULL;
  }
}
