/* Chunks in flight both ways between two ends, each due at a time: one FIFO
 * per direction (0 and 1, independent).  A chunk leaves when its time has
 * come and never before; the chunks behind it wait for it (head-of-line,
 * as on a TCP connection or a circuit), so they leave in the order they
 * were pushed.  The bytes queued per direction are counted, for the
 * caller's back-pressure.
 *
 * Sans-I/O: no socket, no clock, no timer.  Times are µs from any origin,
 * passed in; the caller arms its own timer at donar_timed_queue_next_due ()
 * and pops what is due when it fires.  The relays of donar-shaper
 * (tools/tornet/shaper-conn.c) and the links of donar-torsim
 * (tools/torsim/torsim-link.c) queue their chunks here. */
#ifndef DONAR_TIMED_QUEUE_H
#define DONAR_TIMED_QUEUE_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct _DonarTimedQueue DonarTimedQueue;

/* A time before which the chunk carrying data may not leave, whatever its
 * own due time: G_MININT64 when nothing holds it.  Asked again each time
 * the head's due time is needed, so a hold may change while it waits. */
typedef gint64 (*DonarTimedQueueHoldFunc) (gpointer data, gpointer user_data);

/* free_data (may be NULL) frees the data of the chunks still inside when
 * the queue is cleared or freed; a chunk's data may be NULL (a close, for
 * instance), which is never passed to it.  hold (may be NULL) delays
 * chunks beyond their due time, with user_data. */
DonarTimedQueue *donar_timed_queue_new (GDestroyNotify free_data,
    DonarTimedQueueHoldFunc hold, gpointer user_data);
void donar_timed_queue_free (DonarTimedQueue * q);

/* Appends data, `bytes` long, to direction dir, due at due_us.  TRUE when
 * it is the head of its direction (the queue was empty): the caller arms
 * its timer at donar_timed_queue_next_due (). */
gboolean donar_timed_queue_push (DonarTimedQueue * q, guint dir,
    gint64 due_us, gpointer data, gsize bytes);

/* When the head of direction dir is due, its hold included; G_MAXINT64
 * when the direction is empty. */
gint64 donar_timed_queue_next_due (DonarTimedQueue * q, guint dir);

/* Takes the head of direction dir if it is due at now_us: TRUE, and its
 * data in *data (the caller owns it now) and the due time it was pushed
 * with in *due_us (may be NULL).  FALSE when nothing is due. */
gboolean donar_timed_queue_pop_due (DonarTimedQueue * q, guint dir,
    gint64 now_us, gpointer * data, gint64 * due_us);

/* The bytes in direction dir: the sum of what its chunks were pushed with. */
gsize donar_timed_queue_bytes (DonarTimedQueue * q, guint dir);

/* Calls func (data, user_data) on each chunk of direction dir, head first;
 * func may change what data points to, not the queue. */
void donar_timed_queue_foreach (DonarTimedQueue * q, guint dir, GFunc func,
    gpointer user_data);

/* Drops every chunk of both directions, freeing their data. */
void donar_timed_queue_clear (DonarTimedQueue * q);

G_END_DECLS

#endif /* DONAR_TIMED_QUEUE_H */
