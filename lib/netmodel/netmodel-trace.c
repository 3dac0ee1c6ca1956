/* Trace replay: a link follows a recorded delay trace instead of the model,
 * so that runs can be repeated on data the model did not make.
 *
 * Format (docs/netmodel.md): one row `send_ms,delay_ms` a line, send_ms
 * strictly increasing; an empty delay_ms means the circuit failed then.
 * Blank lines, lines starting with '#' and a first line `send_ms,delay_ms`
 * are skipped.  Numbers may have decimals. */
#include <math.h>
#include <string.h>

#include "netmodel-private.h"

static gboolean
parse_ms (const char *text, gdouble * out)
{
  char *end = NULL;
  gdouble value;

  if (*text == '\0')
    return FALSE;
  value = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0' || !isfinite (value))
    return FALSE;
  *out = value;
  return TRUE;
}

static gboolean
bad_row (GError ** error, const char *path, guint line, const char *what,
    const char *text)
{
  g_set_error (error, DONAR_NET_MODEL_ERROR, DONAR_NET_MODEL_ERROR_BAD_ROW,
      "%s:%u: %s: '%s'", path, line, what, text);
  return FALSE;
}

/* Parses one row into *row; *failed when its delay is empty. */
static gboolean
parse_row (char *text, const char *path, guint line, DonarTraceRow * row,
    gboolean * failed, GError ** error)
{
  char *comma = strchr (text, ',');
  char *send_text, *delay_text;
  gdouble send_ms, delay_ms;

  if (comma == NULL)
    return bad_row (error, path, line, "expected send_ms,delay_ms", text);
  if (strchr (comma + 1, ',') != NULL)
    return bad_row (error, path, line, "more than 2 fields", text);
  *comma = '\0';
  send_text = g_strstrip (text);
  delay_text = g_strstrip (comma + 1);

  if (!parse_ms (send_text, &send_ms))
    return bad_row (error, path, line, "send_ms is not a number", send_text);
  row->send_us = (gint64) llround (send_ms * 1000.0);

  *failed = *delay_text == '\0';
  row->delay_us = -1;
  if (!*failed) {
    if (!parse_ms (delay_text, &delay_ms))
      return bad_row (error, path, line, "delay_ms is not a number",
          delay_text);
    if (delay_ms < 0.0)
      return bad_row (error, path, line, "delay_ms is negative", delay_text);
    row->delay_us = (gint64) llround (delay_ms * 1000.0);
  }
  return TRUE;
}

DonarTrace *
donar_trace_load (const char *path, gint64 origin_us, GError ** error)
{
  DonarTrace *trace;
  char *contents = NULL;
  char **lines;
  gboolean seen_row = FALSE, ok = TRUE;
  gint64 previous_send_us = 0;
  guint i;

  if (!g_file_get_contents (path, &contents, NULL, error))
    return NULL;

  trace = g_new0 (DonarTrace, 1);
  trace->rows = g_array_new (FALSE, FALSE, sizeof (DonarTraceRow));
  trace->failure_us = G_MAXINT64;

  lines = g_strsplit (contents, "\n", -1);
  for (i = 0; ok && lines[i] != NULL; i++) {
    char *text = g_strstrip (lines[i]);
    DonarTraceRow row;
    gboolean failed;

    if (*text == '\0' || *text == '#')
      continue;
    if (!seen_row && g_ascii_strncasecmp (text, "send_ms", 7) == 0)
      continue;

    /* Still parse the rows after a failure, so that a broken file is
     * reported rather than half used. */
    ok = parse_row (text, path, i + 1, &row, &failed, error);
    if (!ok)
      break;
    if (seen_row && row.send_us <= previous_send_us) {
      g_set_error (error, DONAR_NET_MODEL_ERROR,
          DONAR_NET_MODEL_ERROR_BAD_ROW,
          "%s:%u: send_ms does not increase", path, i + 1);
      ok = FALSE;
      break;
    }
    if (!seen_row && failed) {
      g_set_error (error, DONAR_NET_MODEL_ERROR,
          DONAR_NET_MODEL_ERROR_BAD_ROW,
          "%s:%u: the first row needs a delay", path, i + 1);
      ok = FALSE;
      break;
    }
    seen_row = TRUE;
    previous_send_us = row.send_us;
    row.send_us += origin_us;
    if (trace->failure_us != G_MAXINT64)
      continue;
    if (failed)
      trace->failure_us = row.send_us;
    else
      g_array_append_val (trace->rows, row);
  }

  if (ok && !seen_row) {
    g_set_error (error, DONAR_NET_MODEL_ERROR, DONAR_NET_MODEL_ERROR_BAD_ROW,
        "%s:%u: no rows", path, i);
    ok = FALSE;
  }

  g_strfreev (lines);
  g_free (contents);
  if (!ok) {
    donar_trace_free (trace);
    return NULL;
  }
  return trace;
}

void
donar_trace_free (DonarTrace * trace)
{
  if (trace == NULL)
    return;
  g_array_unref (trace->rows);
  g_free (trace);
}

gint64
donar_trace_delay (const DonarTrace * trace, gint64 t, guint * cursor,
    gboolean advance)
{
  const DonarTraceRow *rows = (const DonarTraceRow *) trace->rows->data;
  guint len = trace->rows->len;
  guint i = *cursor;

  /* The row in force at t is the last one with send_us <= t; before the
   * first row, the first one. */
  while (i > 0 && rows[i].send_us > t)
    i--;
  while (i + 1 < len && rows[i + 1].send_us <= t)
    i++;
  if (advance)
    *cursor = i;
  return rows[i].delay_us;
}
