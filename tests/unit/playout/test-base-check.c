/* The plausibility check of a base delay (lib/playout/donar-base-check.h)
 * on hand-computed windows of 40-ms frames: a base delay B is contradicted
 * when it puts more than half of the window's frames past the deadline,
 * i.e. when B + (delay - base) > deadline for most of them. */
#include "donar-base-check.h"
#include "../donar-test-critical.h"

#define MS 1000
#define FRAME (40 * MS)

/* Frames first..first+n-1 (frame i sent at i * 40 ms), relative delays
 * 150 ms plus extra_ms for every odd frame: the base is 150 ms, and the
 * odd frames are extra_ms above it.  In send order, which is arrival
 * order while extra_ms < 40. */
static void
push (DonarPlayout * p, guint first, guint n, gint64 extra_ms)
{
  for (guint i = first; i < first + n; i++) {
    gint64 send = (gint64) i * FRAME;

    donar_playout_push (p, send, send + (150 + (i % 2 ? extra_ms : 0)) * MS);
  }
}

static DonarPlayout *
new_playout (gint64 deadline_ms)
{
  DonarPlayoutConfig c;

  donar_playout_config_init (&c);
  c.deadline_us = deadline_ms * MS;
  return donar_playout_new (&c);
}

/* 24 frames are too few to judge even 10 s; the 25th decides. */
static void
test_pending (void)
{
  DonarPlayout *p = new_playout (360);
  DonarBaseCheck check;

  donar_base_check (p, 10000 * MS, &check);
  g_assert_cmpint (check.verdict, ==, DONAR_BASE_CHECK_PENDING);
  g_assert_cmpuint (check.frames, ==, 0);
  push (p, 0, DONAR_BASE_CHECK_MIN_FRAMES - 1, 0);
  donar_base_check (p, 10000 * MS, &check);
  g_assert_cmpint (check.verdict, ==, DONAR_BASE_CHECK_PENDING);
  g_assert_cmpuint (check.frames, ==, 24);
  push (p, 24, 1, 0);
  donar_base_check (p, 10000 * MS, &check);
  g_assert_cmpint (check.verdict, ==, DONAR_BASE_CHECK_CONTRADICTED);
  g_assert_cmpuint (check.frames, ==, 25);
  g_assert_cmpuint (check.past_deadline, ==, 25);
  donar_playout_free (p);
}

/* The repeated calls of docs/jitterbuffer.md: frames that all take the
 * same time, and base delays of 1245 and 962 ms against a 360-ms deadline:
 * every frame past it (1245 + 0 > 360).  Half a round trip of 300 ms, and
 * exactly the deadline (360 + 0 is not past 360): no frame past it. */
static void
test_constant_delay (void)
{
  DonarPlayout *p = new_playout (360);
  DonarBaseCheck check;

  push (p, 0, 50, 0);
  donar_base_check (p, 1245 * MS, &check);
  g_assert_cmpint (check.verdict, ==, DONAR_BASE_CHECK_CONTRADICTED);
  g_assert_cmpuint (check.past_deadline, ==, 50);
  donar_base_check (p, 962 * MS, &check);
  g_assert_cmpint (check.verdict, ==, DONAR_BASE_CHECK_CONTRADICTED);
  donar_base_check (p, 150 * MS, &check);
  g_assert_cmpint (check.verdict, ==, DONAR_BASE_CHECK_AGREES);
  g_assert_cmpuint (check.past_deadline, ==, 0);
  donar_base_check (p, 360 * MS, &check);
  g_assert_cmpint (check.verdict, ==, DONAR_BASE_CHECK_AGREES);
  g_assert_cmpuint (check.past_deadline, ==, 0);
  donar_base_check (p, 361 * MS, &check);
  g_assert_cmpint (check.verdict, ==, DONAR_BASE_CHECK_CONTRADICTED);
  donar_playout_free (p);
}

/* Every other frame 30 ms above the base.  B = 340 ms leaves 20 ms: the
 * odd frames are past the deadline (340 + 30 > 360).  26 frames: 13 past,
 * not more than half: agrees; 28: 14 of 28, agrees (half is not most).
 * With B = 320 (40 ms left) none is past. */
static void
test_majority (void)
{
  DonarPlayout *p = new_playout (360);
  DonarBaseCheck check;

  push (p, 0, 26, 30);
  donar_base_check (p, 340 * MS, &check);
  g_assert_cmpint (check.verdict, ==, DONAR_BASE_CHECK_AGREES);
  g_assert_cmpuint (check.frames, ==, 26);
  g_assert_cmpuint (check.past_deadline, ==, 13);
  push (p, 26, 2, 30);
  donar_base_check (p, 340 * MS, &check);
  g_assert_cmpint (check.verdict, ==, DONAR_BASE_CHECK_AGREES);
  g_assert_cmpuint (check.past_deadline, ==, 14);
  donar_base_check (p, 320 * MS, &check);
  g_assert_cmpuint (check.past_deadline, ==, 0);
  donar_playout_free (p);
}

/* Most frames 30 ms above the base: frame 0 at the base, then frames
 * 1..25 at 30 ms: with B = 340 ms, 25 of 26 past the deadline. */
static void
test_most_past (void)
{
  DonarPlayout *p = new_playout (360);
  DonarBaseCheck check;

  donar_playout_push (p, 0, 150 * MS);
  for (guint i = 1; i < 26; i++)
    donar_playout_push (p, i * FRAME, i * FRAME + 180 * MS);
  donar_base_check (p, 340 * MS, &check);
  g_assert_cmpint (check.verdict, ==, DONAR_BASE_CHECK_CONTRADICTED);
  g_assert_cmpuint (check.frames, ==, 26);
  g_assert_cmpuint (check.past_deadline, ==, 25);
  /* 310 + 30 = 340: within the deadline. */
  donar_base_check (p, 310 * MS, &check);
  g_assert_cmpint (check.verdict, ==, DONAR_BASE_CHECK_AGREES);
  g_assert_cmpuint (check.past_deadline, ==, 0);
  donar_playout_free (p);
}

/* Without a deadline the estimator does not use the base delay: any
 * value agrees. */
static void
test_no_deadline (void)
{
  DonarPlayout *p = new_playout (0);
  DonarBaseCheck check;

  push (p, 0, 30, 0);
  donar_base_check (p, 10000 * MS, &check);
  g_assert_cmpint (check.verdict, ==, DONAR_BASE_CHECK_AGREES);
  donar_playout_free (p);
}

/* donar_playout_count_above: frames strictly above base + the given
 * excess. */
static void
test_count_above (void)
{
  DonarPlayout *p = new_playout (360);

  g_assert_cmpuint (donar_playout_count_above (p, 0), ==, 0);
  push (p, 0, 10, 30);
  g_assert_cmpuint (donar_playout_count_above (p, -1 * MS), ==, 10);
  g_assert_cmpuint (donar_playout_count_above (p, 0), ==, 5);
  g_assert_cmpuint (donar_playout_count_above (p, 29 * MS), ==, 5);
  g_assert_cmpuint (donar_playout_count_above (p, 30 * MS), ==, 0);
  donar_playout_free (p);
}

/* Misuse is a critical that writes nothing (docs/api.md, "Contracts"). */
static void
test_misuse_is_refused (void)
{
  DonarBaseCheck check = { DONAR_BASE_CHECK_AGREES, 99, 99 };

  EXPECT_CRITICAL ("*playout != NULL*", donar_base_check (NULL, 0, &check));
  g_assert_cmpuint (check.frames, ==, 99);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/base-check/pending", test_pending);
  g_test_add_func ("/base-check/constant-delay", test_constant_delay);
  g_test_add_func ("/base-check/majority", test_majority);
  g_test_add_func ("/base-check/most-past", test_most_past);
  g_test_add_func ("/base-check/no-deadline", test_no_deadline);
  g_test_add_func ("/base-check/count-above", test_count_above);
  g_test_add_func ("/base-check/misuse-is-refused", test_misuse_is_refused);
  return g_test_run ();
}
