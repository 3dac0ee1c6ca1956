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

void
frame_log_writer_add (FrameLogWriter * writer, guint seq, gdouble sent_ms,
    gdouble arrival_ms)
{
  g_string_append_printf (writer->text, "%u,%.3f,%.3f\n", seq, sent_ms,
      arrival_ms);
}

void
frame_log_writer_add_lost (FrameLogWriter * writer, guint seq, gdouble sent_ms)
{
  g_string_append_printf (writer->text, "%u,%.3f,\n", seq, sent_ms);
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
