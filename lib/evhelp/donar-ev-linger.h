/* Closing a libevent connection without losing what it still has to write,
 * and timers at an absolute time.  Shared by donar-torsim and donar-shaper,
 * which both forward bytes between sockets on one loop. */
#ifndef DONAR_EV_LINGER_H
#define DONAR_EV_LINGER_H

#include <glib.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

G_BEGIN_DECLS

/* The bufferevents of one loop that are closing. */
typedef struct _DonarLinger DonarLinger;

/* A closing bufferevent waits at most `seconds` for its peer. */
DonarLinger *donar_linger_new (guint seconds);
/* Closes at once whatever still lingers. */
void donar_linger_free (DonarLinger * l);
void donar_linger_close_all (DonarLinger * l);

/* Takes bev (NULL: nothing): its output goes out, then its write side is
 * shut, then what the peer still sends is read and dropped until it
 * closes, so that closing never resets the connection over bytes the peer
 * has not read.  Freed then, or after the timeout. */
void donar_linger_close (DonarLinger * l, struct bufferevent *bev);

/* Adds timer so that it fires at at_us of g_get_monotonic_time () (at once
 * when that is past).  libevent adds a timeout to its cached time: the
 * cache is refreshed first, so that a timer never fires early or late
 * because the loop was busy. */
void donar_ev_timer_at (struct event_base *base, struct event *timer,
    gint64 at_us);

G_END_DECLS

#endif /* DONAR_EV_LINGER_H */
