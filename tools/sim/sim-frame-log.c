/* The fate of every frame of a call, for offline scoring of playout and
 * voice quality (donar-playout-eval, docs/jitterbuffer.md): one CSV file
 * per call and direction. */
#include "sim-frame-log.h"
#include "frame-log-writer.h"

static gboolean
write_direction (const char *dir, guint index, guint direction,
    const SimCallResult * result, gint64 frame_period_us, GError ** error)
{
  g_autofree gchar *name = g_strdup_printf ("call%u-dir%u.csv", index,
      direction);
  g_autofree gchar *path = g_build_filename (dir, name, NULL);
  FrameLogWriter *writer = frame_log_writer_new (path);

  for (guint f = 0; f < result->n_frames; f++) {
    gint64 sent_us = (gint64) f * frame_period_us;
    gint32 latency_us = result->latency_us[direction][f];

    if (latency_us != SIM_LOST)
      frame_log_writer_add (writer, f, sent_us / 1000.0,
          (sent_us + latency_us) / 1000.0);
    else
      frame_log_writer_add_lost (writer, f, sent_us / 1000.0);
  }
  return frame_log_writer_finish (writer, error);
}

gboolean
sim_write_frame_log (const char *dir, guint index,
    const SimCallResult * result, gint64 frame_period_us, GError ** error)
{
  return write_direction (dir, index, 0, result, frame_period_us, error) &&
      write_direction (dir, index, 1, result, frame_period_us, error);
}

gboolean
sim_write_send_log (const char *dir, guint index,
    const SimCallResult * result, GError ** error)
{
  g_autofree gchar *name = g_strdup_printf ("call%u-sends.csv", index);
  g_autofree gchar *path = g_build_filename (dir, name, NULL);

  return g_file_set_contents (path, result->sends->str,
      (gssize) result->sends->len, error);
}
