/* The plausibility check of a base delay (docs/jitterbuffer.md, "Checking
 * the base delay"): is the absolute one-way delay of the fastest frames
 * that someone claims (donarsrc's estimate from its links' round trips)
 * one the estimator can use, given the relative delays it observes?
 *
 * Relative delays (arrival - send, with an unknown clock offset) cannot
 * refute an absolute delay by themselves: with any base delay B, frame i's
 * one-way delay would be B + (d_i - base).  What they show is what B
 * implies: the frames B puts past the deadline, which the estimator's cap
 * (deadline - B) will conceal.  B is contradicted when it puts more than
 * half of the window's frames past the deadline.  Then either B is wrong
 * (a link opened on a circuit still being built: 1245 ms where the frames
 * took 150), and the cap conceals most frames for nothing; or B is right
 * and most frames miss the deadline whatever the playout, and the cap only
 * adds concealment to lateness.  Either way the estimator does better
 * without B.  With half or fewer past it, B is kept: bounding that
 * minority is what the deadline is for.
 *
 * Sans-I/O like the estimator. */
#ifndef DONAR_BASE_CHECK_H
#define DONAR_BASE_CHECK_H

#include "donar-api.h"
#include "donar-playout.h"

G_BEGIN_DECLS

/* Frames the window needs before a base delay is judged: 1 s of 40-ms
 * frames, the second donarsrc waits anyway before its first estimate. */
#define DONAR_BASE_CHECK_MIN_FRAMES 25

typedef enum
{
  DONAR_BASE_CHECK_PENDING,     /* too few frames in the window yet */
  DONAR_BASE_CHECK_AGREES,
  DONAR_BASE_CHECK_CONTRADICTED,
} DonarBaseCheckVerdict;

typedef struct
{
  DonarBaseCheckVerdict verdict;
  guint frames;                 /* in the estimator's window */
  guint past_deadline;          /* of those, past the deadline with B */
} DonarBaseCheck;

/* The version of DonarBaseCheck (donar.h, DONAR_CONFIG_VERSION). */
#define DONAR_BASE_CHECK_VERSION 1

/* Judges base_delay_us (>= 0) against the window of playout and its
 * deadline (a deadline of 0 uses no base delay: it always agrees).  On
 * playout's thread (donar-playout.h); a NULL playout or check is a
 * g_critical, and nothing is written. */
DONAR_API
void donar_base_check_versioned (const DonarPlayout * playout,
    gint64 base_delay_us, gint check_version, DonarBaseCheck * check);
#define donar_base_check(playout, base_delay_us, check) \
  donar_base_check_versioned ((playout), (base_delay_us), \
      DONAR_BASE_CHECK_VERSION, (check))

G_END_DECLS

#endif /* DONAR_BASE_CHECK_H */
