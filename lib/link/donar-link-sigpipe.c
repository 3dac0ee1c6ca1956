#include "donar-link-sigpipe.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

static void
sigpipe_set (sigset_t * set)
{
  sigemptyset (set);
  sigaddset (set, SIGPIPE);
}

void
donar_sigpipe_block (DonarSigpipeGuard * guard)
{
  sigset_t sigpipe, pending;

  sigpipe_set (&sigpipe);
  pthread_sigmask (SIG_BLOCK, &sigpipe, &guard->saved_mask);
  sigpending (&pending);
  guard->was_pending = sigismember (&pending, SIGPIPE) == 1;
}

void
donar_sigpipe_unblock (DonarSigpipeGuard * guard)
{
  sigset_t sigpipe, pending;

  sigpipe_set (&sigpipe);
  if (!guard->was_pending && sigpending (&pending) == 0 &&
      sigismember (&pending, SIGPIPE) == 1) {
    const struct timespec now = { 0, 0 };
    int r;

    do
      r = sigtimedwait (&sigpipe, NULL, &now);
    while (r < 0 && errno == EINTR);
  }
  pthread_sigmask (SIG_SETMASK, &guard->saved_mask, NULL);
}
