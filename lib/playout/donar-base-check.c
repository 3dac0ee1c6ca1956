/* The plausibility check of a base delay against the observed delays;
 * donar-base-check.h says why the rule is a majority past the deadline. */
#include "donar-base-check.h"
#include "donar-versioned.h"

DONAR_VERSIONED_DEFINE (check_versions, DonarBaseCheck,
    sizeof (DonarBaseCheck));

static void
base_check (const DonarPlayout * playout, gint64 base_delay_us,
    DonarBaseCheck * check)
{
  DonarPlayoutConfig config;
  DonarPlayoutStats stats;

  donar_playout_get_config (playout, &config);
  donar_playout_get_stats (playout, &stats);
  check->frames = stats.window_frames;
  check->past_deadline = 0;
  if (check->frames < DONAR_BASE_CHECK_MIN_FRAMES) {
    check->verdict = DONAR_BASE_CHECK_PENDING;
    return;
  }
  /* Without a deadline the estimator makes no use of the base delay. */
  if (config.deadline_us == 0) {
    check->verdict = DONAR_BASE_CHECK_AGREES;
    return;
  }
  /* Frame i is past the deadline with B if B + (d_i - base) > deadline. */
  check->past_deadline = donar_playout_count_above (playout,
      config.deadline_us - base_delay_us);
  check->verdict = 2 * (guint64) check->past_deadline > check->frames ?
      DONAR_BASE_CHECK_CONTRADICTED : DONAR_BASE_CHECK_AGREES;
}

void
donar_base_check_versioned (const DonarPlayout * playout,
    gint64 base_delay_us, gint check_version, DonarBaseCheck * check)
{
  DonarBaseCheck latest;

  g_return_if_fail (playout != NULL);
  base_check (playout, base_delay_us, &latest);
  donar_versioned_copy (&check_versions, check_version, &latest, check);
}
