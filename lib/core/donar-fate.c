/* Links that spike together, as far as the policy is concerned. */
#include "donar-fate.h"

#include <string.h>

void
donar_fate_init (DonarFate * fate, guint n_links)
{
  memset (fate, 0, sizeof *fate);
  fate->n_links = n_links;
  fate->joint_onset_us = G_MININT64;
  for (guint link = 0; link < DONAR_MAX_LINKS; link++)
    donar_fate_forget_link (fate, link);
}

void
donar_fate_forget_link (DonarFate * fate, guint link)
{
  fate->in_spike[link] = FALSE;
  fate->onset_us[link] = G_MININT64;
  for (guint other = 0; other < DONAR_MAX_LINKS; other++)
    fate->together[other] &= ~(1u << link);
  fate->together[link] = 1u << link;
}

gboolean
donar_fate_note (DonarFate * fate, guint link, gboolean spike,
    gint64 fresh_us, guint32 calm, gint64 window_us)
{
  gboolean joined = FALSE;
  gboolean onset = spike && !fate->in_spike[link];

  fate->in_spike[link] = spike;
  if (!onset)
    return FALSE;
  fate->onset_us[link] = fresh_us;
  for (guint other = 0; other < fate->n_links; other++) {
    guint32 bit = 1u << other, own = 1u << link;

    if (other == link)
      continue;
    if (fate->in_spike[other] && fate->onset_us[other] != G_MININT64 &&
        ABS (fresh_us - fate->onset_us[other]) <= window_us) {
      fate->together[link] |= bit;
      fate->together[other] |= own;
      joined = TRUE;
    } else if (calm & bit) {
      /* Known calm while this one jumped: no relay of this spike in
       * common. */
      fate->together[link] &= ~bit;
      fate->together[other] &= ~own;
    }
  }
  if (joined) {
    fate->joint_onsets++;
    fate->joint_onset_us = fresh_us;
  }
  return joined;
}
