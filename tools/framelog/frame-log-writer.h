/* The writer of frame logs (frame-log.h's format): donar-sim --frame-log,
 * donar-call --frame-log, donar-demo --frame-log and donar-playout-gen
 * all write through it, so that every log reads back the same way. */
#ifndef FRAME_LOG_WRITER_H
#define FRAME_LOG_WRITER_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct _FrameLogWriter FrameLogWriter;

/* A log for path, with its header; nothing is written before
 * frame_log_writer_finish (). */
FrameLogWriter *frame_log_writer_new (const char *path);

/* One row each, in send order; times in ms, written with three decimals
 * (to the µs). */
void frame_log_writer_add (FrameLogWriter * writer, guint seq,
    gdouble sent_ms, gdouble arrival_ms);
void frame_log_writer_add_lost (FrameLogWriter * writer, guint seq,
    gdouble sent_ms);

/* Writes the file at once (g_file_set_contents: a reader never sees half
 * a log; an error names the file) and frees the writer. */
gboolean frame_log_writer_finish (FrameLogWriter * writer, GError ** error);

G_END_DECLS
#endif /* FRAME_LOG_WRITER_H */
