/* libevent writes a bufferevent's output with writev (), which raises
 * SIGPIPE when the peer has closed: the whole process dies, a GStreamer
 * application included, unless it happened to ignore the signal.  A
 * library must not change the process's signal dispositions, so the loop
 * runs with SIGPIPE blocked in its thread (the write then fails with
 * EPIPE, which the bufferevent reports), and what the loop raised is
 * taken back before the thread's mask is restored: libpq's way. */
#ifndef DONAR_LINK_SIGPIPE_H
#define DONAR_LINK_SIGPIPE_H

#include <glib.h>
#include <signal.h>

G_BEGIN_DECLS

typedef struct
{
  sigset_t saved_mask;
  /* Pending before: not ours to take. */
  gboolean was_pending;
} DonarSigpipeGuard;

void donar_sigpipe_block (DonarSigpipeGuard * guard);
void donar_sigpipe_unblock (DonarSigpipeGuard * guard);

G_END_DECLS

#endif /* DONAR_LINK_SIGPIPE_H */
