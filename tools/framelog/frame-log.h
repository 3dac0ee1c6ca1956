/* A frame log, as frame-log-writer.h writes it (donar-sim, donar-call
 * and donar-demo --frame-log, donar-playout-gen): a CSV file with the
 * header seq,sent_ms,arrival_ms and one row per frame in send order,
 * arrival_ms empty for a frame that never came.  Read by the tools that
 * replay frame fates (donar-playout-eval, donar-quality-replay). */
#ifndef FRAME_LOG_H
#define FRAME_LOG_H

#include <glib.h>

G_BEGIN_DECLS

#define FRAME_LOG_LOST G_MININT64

typedef struct
{
  gchar *path;
  gchar *name;                  /* the file name without .csv */
  /* From a name callN-dirD.csv, else -1. */
  gint call;
  gint direction;
  guint n;
  gint64 *send_us;
  gint64 *arrival_us;           /* FRAME_LOG_LOST if it never arrived */
} FrameLog;

/* Strict: the header, three fields a row, seq one more than the row
 * before, send times not going back, at least one frame; an error names
 * the file and line. */
FrameLog *frame_log_load (const char *path, GError ** error);
void frame_log_free (FrameLog * log);

/* Adds the log of a file, or the *.csv of a directory in name order, to
 * logs (which frees them with frame_log_free). */
gboolean frame_log_add_path (GPtrArray * logs, const char *path,
    GError ** error);

/* A decimal number of milliseconds, as the logs write them, in µs. */
gboolean frame_log_parse_ms (const char *s, gint64 * us);

G_END_DECLS

#endif /* FRAME_LOG_H */
