#include "frame-log-writer.h"

struct _FrameLogWriter
{
  gchar *path;
  GString *text;
};

FrameLogWriter *
frame_log_writer_new (const char *path)
{
  FrameLogWriter *writer = g_new (FrameLogWriter, 1);

  writer->path = g_strdup (path);
  writer->text = g_string_new ("seq,sent_ms,arrival_ms\n");
  return writer;
}

/* g_ascii_formatd, not printf: under a locale with a decimal comma printf
 * would write "12,500" and split the field, and the reader parses with
 * g_ascii_strtod. */
static void
append_ms (GString * text, gdouble ms)
{
  gchar buffer[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (text, g_ascii_formatd (buffer, sizeof buffer, "%.3f", ms));
}

void
frame_log_writer_add (FrameLogWriter * writer, guint seq, gdouble sent_ms,
    gdouble arrival_ms)
{
  g_string_append_printf (writer->text, "%u,", seq);
  append_ms (writer->text, sent_ms);
  g_string_append_c (writer->text, ',');
  append_ms (writer->text, arrival_ms);
  g_string_append_c (writer->text, '\n');
}

void
frame_log_writer_add_lost (FrameLogWriter * writer, guint seq, gdouble sent_ms)
{
  g_string_append_printf (writer->text, "%u,", seq);
  append_ms (writer->text, sent_ms);
  g_string_append (writer->text, ",\n");
}

gboolean
frame_log_writer_finish (FrameLogWriter * writer, GError ** error)
{
  gboolean ok = g_file_set_contents (writer->path, writer->text->str,
      (gssize) writer->text->len, error);

  g_string_free (writer->text, TRUE);
  g_free (writer->path);
  g_free (writer);
  return ok;
}
