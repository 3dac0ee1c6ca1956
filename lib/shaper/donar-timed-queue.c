/* Chunks in flight both ways, each due at a time (donar-timed-queue.h). */
#include "donar-timed-queue.h"

typedef struct
{
  gint64 due_us;
  gsize bytes;
  gpointer data;
} Chunk;

struct _DonarTimedQueue
{
  GQueue fifo[2];               /* Chunk, in the order pushed */
  gsize bytes[2];
  GDestroyNotify free_data;
  DonarTimedQueueHoldFunc hold;
  gpointer user_data;
};

DonarTimedQueue *
donar_timed_queue_new (GDestroyNotify free_data, DonarTimedQueueHoldFunc hold,
    gpointer user_data)
{
  DonarTimedQueue *q = g_new0 (DonarTimedQueue, 1);

  g_queue_init (&q->fifo[0]);
  g_queue_init (&q->fifo[1]);
  q->free_data = free_data;
  q->hold = hold;
  q->user_data = user_data;
  return q;
}

void
donar_timed_queue_free (DonarTimedQueue * q)
{
  if (q == NULL)
    return;
  donar_timed_queue_clear (q);
  g_free (q);
}

gboolean
donar_timed_queue_push (DonarTimedQueue * q, guint dir, gint64 due_us,
    gpointer data, gsize bytes)
{
  Chunk *chunk;

  g_return_val_if_fail (q != NULL && dir < 2, FALSE);
  chunk = g_new (Chunk, 1);
  chunk->due_us = due_us;
  chunk->bytes = bytes;
  chunk->data = data;
  g_queue_push_tail (&q->fifo[dir], chunk);
  q->bytes[dir] += bytes;
  return q->fifo[dir].length == 1;
}

static gint64
due_time (DonarTimedQueue * q, Chunk * chunk)
{
  if (q->hold == NULL)
    return chunk->due_us;
  return MAX (chunk->due_us, q->hold (chunk->data, q->user_data));
}

gint64
donar_timed_queue_next_due (DonarTimedQueue * q, guint dir)
{
  Chunk *head;

  g_return_val_if_fail (q != NULL && dir < 2, G_MAXINT64);
  head = g_queue_peek_head (&q->fifo[dir]);
  return head != NULL ? due_time (q, head) : G_MAXINT64;
}

gboolean
donar_timed_queue_pop_due (DonarTimedQueue * q, guint dir, gint64 now_us,
    gpointer * data, gint64 * due_us)
{
  Chunk *head;

  g_return_val_if_fail (q != NULL && dir < 2 && data != NULL, FALSE);
  head = g_queue_peek_head (&q->fifo[dir]);
  if (head == NULL || due_time (q, head) > now_us)
    return FALSE;
  g_queue_pop_head (&q->fifo[dir]);
  q->bytes[dir] -= head->bytes;
  *data = head->data;
  if (due_us != NULL)
    *due_us = head->due_us;
  g_free (head);
  return TRUE;
}

gsize
donar_timed_queue_bytes (DonarTimedQueue * q, guint dir)
{
  g_return_val_if_fail (q != NULL && dir < 2, 0);
  return q->bytes[dir];
}

void
donar_timed_queue_foreach (DonarTimedQueue * q, guint dir, GFunc func,
    gpointer user_data)
{
  g_return_if_fail (q != NULL && dir < 2 && func != NULL);
  for (GList * e = q->fifo[dir].head; e != NULL; e = e->next)
    func (((Chunk *) e->data)->data, user_data);
}

void
donar_timed_queue_clear (DonarTimedQueue * q)
{
  g_return_if_fail (q != NULL);
  for (guint dir = 0; dir < 2; dir++) {
    Chunk *chunk;

    while ((chunk = g_queue_pop_head (&q->fifo[dir])) != NULL) {
      if (chunk->data != NULL && q->free_data != NULL)
        q->free_data (chunk->data);
      g_free (chunk);
    }
    q->bytes[dir] = 0;
  }
}
