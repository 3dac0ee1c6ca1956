/* ADAPTIVE, beyond the paper: each frame on the link predicted to deliver
 * it first, a second copy only where the prediction is unsure and the
 * budget allows, copies of one frame on links with no relay in common, and
 * links left idle measured again now and then. */
#ifndef DONAR_ADAPTIVE_H
#define DONAR_ADAPTIVE_H

#include "donar-delays.h"
#include "donar-fate.h"
#include "donar-groups.h"
#include "donar-paths.h"

G_BEGIN_DECLS

typedef struct
{
  gdouble budget;               /* sends a frame on average, 1 to 2 */
  gdouble credit;               /* sends saved for frames that need two */
  gint64 probed_us[DONAR_MAX_LINKS];
  /* How long a stale link waits between probes: doubled while each probe
   * finds it slow (a spike can last a minute), reset when it is fast. */
  gint64 probe_interval_us[DONAR_MAX_LINKS];
  /* The link's predicted delay above its base when last known. */
  gint64 last_excess_us[DONAR_MAX_LINKS];
  gboolean last_was_probe;
  guint frames_since_probe;
  /* The median base of the last frame, the links up then (a mask) and the
   * delays' floor_changes then: recomputed only when one of them moves.
   * An adaptive goes with one DonarDelays, the session's. */
  gboolean prior_known;
  gint64 prior;
  guint32 prior_up;
  guint64 prior_floor_changes;
  /* The bound on what is in flight: a frame later than deadline_us is
   * worth nothing. */
  gint64 deadline_us;
  /* The links over their bound at the last frame (a mask), those known to
   * deliver in time, and whether none was; since when some link has been
   * (G_MININT64: since the start); the last probe while none was. */
  guint32 over_bound;
  guint32 in_time;
  gboolean no_link_in_time;
  gint64 in_time_since;
  gint64 stalled_since;
  gint64 stall_probe_us;
  guint64 stalled_frames;
  guint64 stalls;
  guint64 frames_withheld;
  /* Links seen to spike together, where tor tells nothing. */
  DonarFate fate;
  gboolean spread_copies;       /* DonarConfig's */
} DonarAdaptive;

void donar_adaptive_init (DonarAdaptive * adaptive, gdouble budget,
    gint64 deadline_us);

/* Fills links[] (at most 2) for the frame handed over at now, whose
 * predecessor went on prev[0 .. n_prev). */
guint donar_adaptive_pick (DonarAdaptive * adaptive,
    const DonarDelays * delays, const DonarGroups * groups,
    const DonarPaths * paths, const guint * prev, guint n_prev, gint64 now,
    guint * links);

/* The most our frames in flight on a link may have been delayed beyond
 * the least round trip (donar_delays_in_flight_excess) before the link is
 * over its bound: the oldest of them has then missed the deadline.
 * G_MAXINT64 while no round trip is known (no acknowledgement yet). */
gint64 donar_adaptive_bound (const DonarAdaptive * adaptive,
    const DonarDelays * delays);

G_END_DECLS

#endif /* DONAR_ADAPTIVE_H */
