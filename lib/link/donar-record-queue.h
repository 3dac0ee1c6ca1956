/* The records waiting for one link's socket, bounded in bytes.
 *
 * Voice frames are worth nothing once late, and a stalled link must not
 * hold the memory of the call: when the cap is reached the oldest records
 * go first.  Whole records only, so the stream stays framed. */
#ifndef DONAR_RECORD_QUEUE_H
#define DONAR_RECORD_QUEUE_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  GQueue records;               /* GBytes, oldest first */
  gsize bytes;
  gsize cap;
  guint64 dropped_records;
  guint64 dropped_bytes;
} DonarRecordQueue;

void donar_record_queue_init (DonarRecordQueue * queue, gsize cap);
void donar_record_queue_clear (DonarRecordQueue * queue);
/* Appends a copy; returns how many older records it pushed out.  A record
 * larger than the cap is taken alone (the queue empties for it). */
guint donar_record_queue_push (DonarRecordQueue * queue,
    const guint8 * record, gsize length);
/* The oldest record, or NULL; the caller owns it. */
GBytes *donar_record_queue_pop (DonarRecordQueue * queue);
gboolean donar_record_queue_is_full (const DonarRecordQueue * queue,
    gsize next_length);

G_END_DECLS

#endif /* DONAR_RECORD_QUEUE_H */
