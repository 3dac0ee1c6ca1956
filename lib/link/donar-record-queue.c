/* A byte-bounded FIFO of whole records (donar-record-queue.h). */
#include "donar-record-queue.h"

void
donar_record_queue_init (DonarRecordQueue * queue, gsize cap)
{
  g_queue_init (&queue->records);
  queue->bytes = 0;
  queue->cap = cap;
  queue->dropped_records = 0;
  queue->dropped_bytes = 0;
}

void
donar_record_queue_clear (DonarRecordQueue * queue)
{
  g_queue_clear_full (&queue->records, (GDestroyNotify) g_bytes_unref);
  queue->bytes = 0;
}

static void
drop_oldest (DonarRecordQueue * queue)
{
  GBytes *oldest = g_queue_pop_head (&queue->records);
  gsize length = g_bytes_get_size (oldest);

  queue->bytes -= length;
  queue->dropped_records++;
  queue->dropped_bytes += length;
  g_bytes_unref (oldest);
}

gboolean
donar_record_queue_is_full (const DonarRecordQueue * queue, gsize next_length)
{
  return queue->bytes + next_length > queue->cap;
}

guint
donar_record_queue_push (DonarRecordQueue * queue, const guint8 * record,
    gsize length)
{
  guint dropped = 0;

  while (!g_queue_is_empty (&queue->records) &&
      donar_record_queue_is_full (queue, length)) {
    drop_oldest (queue);
    dropped++;
  }
  g_queue_push_tail (&queue->records, g_bytes_new (record, length));
  queue->bytes += length;
  return dropped;
}

GBytes *
donar_record_queue_pop (DonarRecordQueue * queue)
{
  GBytes *record = g_queue_pop_head (&queue->records);

  if (record)
    queue->bytes -= g_bytes_get_size (record);
  return record;
}
