/* Shared fate learned from what the links do (issue 24).
 *
 * Tor tells a side only its own half of each circuit, and the callee not
 * even that (no STREAM events for an onion service's streams); a trace
 * replay knows nothing.  But links through one relay spike together: a
 * relay's queue delays every circuit through it from the same moment
 * (seed 000, section 3; seed 004).  So two links whose delays jump at the
 * same time, within about a one-way delay (their news comes by different
 * ways), are taken to share a relay; and one that jumps while the other,
 * known of at that very time, stays calm, not to.  The evidence lasts as
 * long as both circuits do: a link that goes down forgets it. */
#ifndef DONAR_FATE_H
#define DONAR_FATE_H

#include "donar.h"

G_BEGIN_DECLS

typedef struct
{
  guint n_links;
  /* Whether each link was in a spike at its last news, and when its last
   * spike began (when the news of it was measured); G_MININT64: none. */
  gboolean in_spike[DONAR_MAX_LINKS];
  gint64 onset_us[DONAR_MAX_LINKS];
  /* Bit b of together[a]: a and b jumped together (a itself included). */
  guint32 together[DONAR_MAX_LINKS];
  /* Links that jumped together lately, and when the last of them did: the
   * call's links in trouble at once. */
  guint64 joint_onsets;
  gint64 joint_onset_us;
} DonarFate;

void donar_fate_init (DonarFate * fate, guint n_links);
/* The link's circuit is new (or gone): what it did says nothing now. */
void donar_fate_forget_link (DonarFate * fate, guint link);
/* The link's news, measured at fresh_us: in a spike (its delay well above
 * its base) or calm.  `calm` are the links whose news is as fresh and
 * calm at this time; `window_us` how close two onsets must be to count as
 * one.  Returns TRUE when this onset joins another's. */
gboolean donar_fate_note (DonarFate * fate, guint link, gboolean spike,
    gint64 fresh_us, guint32 calm, gint64 window_us);
/* Bit b set for each link b seen to jump with `link` (itself included). */
static inline guint32
donar_fate_together (const DonarFate * fate, guint link)
{
  return fate->together[link];
}

G_END_DECLS

#endif /* DONAR_FATE_H */
