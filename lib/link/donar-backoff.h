/* How long a link waits before it dials again.
 *
 * Exponential, so that a callee that is gone or an onion whose descriptor
 * is not yet published is not hammered, and jittered, so that the twelve
 * links of a call do not all knock at the same instant. */
#ifndef DONAR_BACKOFF_H
#define DONAR_BACKOFF_H

#include <glib.h>

G_BEGIN_DECLS

/* attempt 0 is the first retry; jitter in [0, 1) scales the delay between
 * its half and its whole. */
static inline gint64
donar_backoff_delay (guint attempt, gint64 min_us, gint64 max_us,
    gdouble jitter)
{
  gint64 delay = min_us;

  while (attempt-- > 0 && delay < max_us)
    delay *= 2;
  if (delay > max_us)
    delay = max_us;
  return delay / 2 + (gint64) (jitter * (gdouble) (delay / 2));
}

G_END_DECLS

#endif /* DONAR_BACKOFF_H */
