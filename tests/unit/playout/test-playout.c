/* The playout-delay estimator on hand-computed cases: 40 ms frames, delays
 * in whole ms, the expected values worked out in the comments. */
#include "donar-playout.h"
#include "../donar-test-critical.h"

#include <stdlib.h>

#define MS 1000
#define FRAME (40 * MS)

typedef struct
{
  gint64 send_us, arrival_us;
} Frame;

static gint
by_arrival (gconstpointer a, gconstpointer b)
{
  const Frame *fa = a, *fb = b;

  if (fa->arrival_us != fb->arrival_us)
    return fa->arrival_us < fb->arrival_us ? -1 : 1;
  return fa->send_us < fb->send_us ? -1 : fa->send_us > fb->send_us;
}

/* Pushes frames first..first+n-1 of delays[] (frame i sent at i * 40 ms) in
 * arrival order; returns how many were late. */
static guint
push_frames (DonarPlayout * p, guint first, const gint64 * delays_ms, guint n)
{
  Frame *frames = g_new (Frame, n);
  guint late = 0;

  for (guint i = 0; i < n; i++) {
    frames[i].send_us = (gint64) (first + i) * FRAME;
    frames[i].arrival_us = frames[i].send_us + delays_ms[i] * MS;
  }
  qsort (frames, n, sizeof *frames, by_arrival);
  for (guint i = 0; i < n; i++)
    late += donar_playout_push (p, frames[i].send_us, frames[i].arrival_us);
  g_free (frames);
  return late;
}

static guint
push_constant (DonarPlayout * p, guint first, guint n, gint64 delay_ms)
{
  gint64 *delays = g_new (gint64, n);
  guint late;

  for (guint i = 0; i < n; i++)
    delays[i] = delay_ms;
  late = push_frames (p, first, delays, n);
  g_free (delays);
  return late;
}

/* The parameters the hand computations use: the defaults, except a 30-s
 * window, a 5-ms margin and shrinking at 10 ms/s (0.4 ms a frame). */
static void
config_hand (DonarPlayoutConfig * c)
{
  donar_playout_config_init (c);
  c->window_us = 30 * G_USEC_PER_SEC;
  c->margin_us = 5 * MS;
  c->shrink_us_per_s = 10 * MS;
}

/* A window that keeps every frame of these tests, no deadline: the
 * quantile is over all frames so far. */
static void
config_all_frames (DonarPlayoutConfig * c)
{
  config_hand (c);
  c->window_us = 1000 * G_USEC_PER_SEC;
  c->base_window_us = 0;
  c->deadline_us = 0;
}

static void
test_constant_delay (void)
{
  DonarPlayoutConfig c;
  DonarPlayout *p;
  DonarPlayoutStats st;
  gint64 offset = 0;

  donar_playout_config_init (&c);
  p = donar_playout_new (&c);
  g_assert_false (donar_playout_get_offset (p, &offset));
  g_assert_cmpint (donar_playout_get_target (p), ==, 20 * MS);

  /* No jitter: the quantile is the base, + 10 ms margin < min 20 ms. */
  g_assert_cmpuint (push_constant (p, 0, 1000, 150), ==, 0);
  g_assert_cmpint (donar_playout_get_target (p), ==, 20 * MS);
  g_assert_true (donar_playout_get_offset (p, &offset));
  g_assert_cmpint (offset, ==, 170 * MS);
  donar_playout_get_stats (p, &st);
  g_assert_cmpuint (st.frames, ==, 1000);
  g_assert_cmpuint (st.late, ==, 0);
  g_assert_cmpint (st.base_us, ==, 150 * MS);
  g_assert_cmpint (st.quantile_us, ==, 0);
  /* The default 10 s window holds 250 frames of 40 ms. */
  g_assert_cmpuint (st.window_frames, ==, 250);
  g_assert_false (st.limited);

  /* The same with a clock offset: only differences matter. */
  donar_playout_reset (p);
  for (guint i = 0; i < 100; i++)
    g_assert_false (donar_playout_push (p, 7000000000 + (gint64) i * FRAME,
            -3000000 + (gint64) i * FRAME));
  g_assert_cmpint (donar_playout_get_target (p), ==, 20 * MS);
  donar_playout_free (p);
}

static void
test_jitter_quantile (void)
{
  DonarPlayoutConfig c;
  DonarPlayout *p;
  gint64 delays[200];

  /* 200 frames: delays 100, 101, ..., 299 ms in a shuffled order.  The
   * 99 % quantile is the ceil (0.99 * 200) = 198th smallest, 297 ms: 197
   * ms above the base, + 5 ms margin = 202 ms. */
  config_all_frames (&c);
  /* Any shrinking at once: only the last quantile matters here. */
  c.shrink_us_per_s = 1000 * G_USEC_PER_SEC;
  p = donar_playout_new (&c);
  for (guint i = 0; i < 200; i++)
    delays[i] = 100 + (i * 37) % 200;
  push_frames (p, 0, delays, 200);
  g_assert_cmpint (donar_playout_get_target (p), ==, 202 * MS);

  /* share 0.5: the 100th smallest, 199 ms; 99 + 5 = 104 ms. */
  c.share = 0.5;
  donar_playout_set_config (p, &c);
  donar_playout_reset (p);
  push_frames (p, 0, delays, 200);
  g_assert_cmpint (donar_playout_get_target (p), ==, 104 * MS);
  donar_playout_free (p);
}

static void
test_step_up (void)
{
  DonarPlayoutConfig c;
  DonarPlayout *p;
  guint late = 0, grew_at = 0;

  /* 1000 frames at 100 ms, then 200 ms.  After j frames of the step the
   * window holds n = 1000 + j frames, the quantile is the k-th smallest
   * with k = ceil (0.99 n), and it is 200 ms once j >= n - k + 1: j = 10
   * gives n - k + 1 = 1010 - 1000 + 1 = 11, j = 11 gives 1011 - 1001 + 1 =
   * 11.  So the target grows on the 11th frame of the step, to 100 + 5 ms.
   * Late: those 11 (due at send + 120 ms), and the 12th too: due at 1011 *
   * 40 + 120 = 40560 ms, before the 11th arrived (1010 * 40 + 200 = 40600
   * ms) and moved the playout; the 13th was due just then (40600 ms), under
   * the new offset: on time. */
  config_all_frames (&c);
  p = donar_playout_new (&c);
  g_assert_cmpuint (push_constant (p, 0, 1000, 100), ==, 0);
  g_assert_cmpint (donar_playout_get_target (p), ==, 20 * MS);
  for (guint j = 1; j <= 20; j++) {
    late += push_constant (p, 999 + j, 1, 200);
    if (grew_at == 0 && donar_playout_get_target (p) > 20 * MS)
      grew_at = j;
  }
  g_assert_cmpuint (grew_at, ==, 11);
  g_assert_cmpuint (late, ==, 12);
  g_assert_cmpint (donar_playout_get_target (p), ==, 105 * MS);

  /* With a 30 s window (750 frames) it is quicker: n stays 750 - 2 = 748
   * (the step delays arrivals by 100 ms, so 2.5 fewer frames fit in 30
   * s), k = ceil (740.52) = 741, and 748 - 741 + 1 = 8 frames; 9 late, as
   * above. */
  config_hand (&c);
  donar_playout_set_config (p, &c);
  donar_playout_reset (p);
  push_constant (p, 0, 1000, 100);
  grew_at = 0;
  late = 0;
  for (guint j = 1; j <= 20; j++) {
    late += push_constant (p, 999 + j, 1, 200);
    if (grew_at == 0 && donar_playout_get_target (p) > 20 * MS)
      grew_at = j;
  }
  g_assert_cmpuint (grew_at, ==, 8);
  g_assert_cmpuint (late, ==, 9);

  /* The defaults: a 10 s window, n = 248, k = ceil (245.52) = 246: within
   * 3 frames, to 100 + 10 ms; 4 late. */
  donar_playout_config_init (&c);
  donar_playout_set_config (p, &c);
  donar_playout_reset (p);
  push_constant (p, 0, 1000, 100);
  grew_at = 0;
  late = 0;
  for (guint j = 1; j <= 20; j++) {
    late += push_constant (p, 999 + j, 1, 200);
    if (grew_at == 0 && donar_playout_get_target (p) > 20 * MS)
      grew_at = j;
  }
  g_assert_cmpuint (grew_at, ==, 3);
  g_assert_cmpuint (late, ==, 4);
  g_assert_cmpint (donar_playout_get_target (p), ==, 110 * MS);
  donar_playout_free (p);
}

static void
test_spike_not_chased (void)
{
  DonarPlayoutConfig c;
  DonarPlayout *p;
  gint64 delays[1000];
  DonarPlayoutStats st;

  /* One frame of 1000 held 1 s (1100 ms instead of 100): from 101 frames
   * on, ceil (0.99 n) < n, so the quantile is never the spike: the target
   * stays at min; the spike frame alone is late. */
  config_all_frames (&c);
  p = donar_playout_new (&c);
  for (guint i = 0; i < 1000; i++)
    delays[i] = i == 500 ? 1100 : 100;
  g_assert_cmpuint (push_frames (p, 0, delays, 1000), ==, 1);
  donar_playout_get_stats (p, &st);
  g_assert_cmpint (st.target_us, ==, 20 * MS);
  g_assert_cmpuint (st.late, ==, 1);

  /* A burst of 9 frames held 1 s at frames 950..958: when the last of
   * them arrives (958 * 40 + 1100 ms) the window holds the 974 others that
   * came before and the 9: n = 983, k = ceil (973.17) = 974, 9 above the
   * quantile: not chased.  A 10th (959) would be: n = 984, k = 975, only
   * 9 allowed above. */
  donar_playout_reset (p);
  for (guint i = 0; i < 1000; i++)
    delays[i] = (i >= 950 && i < 959) ? 1100 : 100;
  g_assert_cmpuint (push_frames (p, 0, delays, 1000), ==, 9);
  g_assert_cmpint (donar_playout_get_target (p), ==, 20 * MS);

  /* Frames 0..983 (with 10 held 1 s at 950..959) end with the arrival of
   * 959: n = 984, chased, up to max (1 s). */
  donar_playout_reset (p);
  for (guint i = 0; i < 984; i++)
    delays[i] = (i >= 950 && i < 960) ? 1100 : 100;
  push_frames (p, 0, delays, 984);
  g_assert_cmpint (donar_playout_get_target (p), ==, 1000 * MS);
  donar_playout_free (p);
}

static void
test_shrinks_slowly (void)
{
  DonarPlayoutConfig c;
  DonarPlayout *p;
  gint64 prev, target;
  guint held = 0, shrinking = 0, late = 0;

  /* 10 s window (250 frames), 10 ms/s: 0.4 ms per 40 ms frame. */
  config_hand (&c);
  c.window_us = 10 * G_USEC_PER_SEC;
  p = donar_playout_new (&c);
  push_constant (p, 0, 500, 100);
  push_constant (p, 500, 500, 200);
  g_assert_cmpint (donar_playout_get_target (p), ==, 105 * MS);

  /* Back to 100 ms from frame 1003 (1000..1002 lost, so that arrivals stay
   * in order: 1003 * 40 + 100 > 999 * 40 + 200).  At frame m the window
   * (arrivals after 40 m + 100 - 10000 ms) holds the slow frames b >= m -
   * 252, 1252 - m of them, and m - 1002 fast ones: n = 250, k = ceil
   * (247.5) = 248, so the quantile stays slow while 1252 - m >= 3: frames
   * 1003..1249, 247 frames at 105 ms.  Then down by 0.4 ms a frame: 85 ms
   * / 0.4 = 212.5, 213 frames to min. */
  prev = donar_playout_get_target (p);
  for (guint m = 1003; m < 1003 + 750; m++) {
    late += push_constant (p, m, 1, 100);
    target = donar_playout_get_target (p);
    g_assert_cmpint (target, <=, prev);
    if (target == 105 * MS) {
      held++;
    } else if (target > 20 * MS) {
      g_assert_cmpint (prev - target, ==, 400);
      shrinking++;
    } else if (prev > 20 * MS) {
      g_assert_cmpint (prev - target, <=, 400);
      shrinking++;
    }
    prev = target;
  }
  g_assert_cmpuint (late, ==, 0);
  g_assert_cmpuint (held, ==, 247);
  g_assert_cmpuint (shrinking, ==, 213);
  g_assert_cmpint (donar_playout_get_target (p), ==, 20 * MS);
  donar_playout_free (p);
}

static void
test_first_outlier_held (void)
{
  DonarPlayoutConfig c;
  DonarPlayout *p;
  gint64 delays[99];

  /* The defaults (a 10 s window of 250 frames, a 10-ms margin, a 20-ms
   * minimum, 2 ms/s).  Frames at 100 ms, but frame 5 at 300 ms: it
   * arrives 10th (at 500 ms, after frames 6..9), the window then holds n =
   * 10 frames, k = ceil (9.9) = 10, the quantile is its maximum: 300 + 10
   * - 100 = 210 ms of target, and it stays the maximum while n <= 99 (k =
   * n).  The 100th frame makes k = ceil (99) = 99: the quantile is 100 ms,
   * but the target comes down at the shrink rate like any other, 2 ms/s
   * over the 40 ms since the last arrival: 210 - 0.08 ms.  A slow frame
   * of a call's first seconds foretells others (docs/jitterbuffer.md,
   * *The first seconds*).  Frame 5 alone is late (due at 20 + 100 ms). */
  donar_playout_config_init (&c);
  p = donar_playout_new (&c);
  for (guint i = 0; i < 99; i++)
    delays[i] = i == 5 ? 300 : 100;
  g_assert_cmpuint (push_frames (p, 0, delays, 99), ==, 1);
  g_assert_cmpint (donar_playout_get_target (p), ==, 210 * MS);
  g_assert_cmpuint (push_constant (p, 99, 1, 100), ==, 0);
  g_assert_cmpint (donar_playout_get_target (p), ==, 210 * MS - 80);
  donar_playout_free (p);
}

static void
test_late_accounting (void)
{
  DonarPlayoutConfig c;
  DonarPlayout *p;
  gint64 offset;
  Frame burst[20];
  guint late = 0;

  config_all_frames (&c);
  p = donar_playout_new (&c);
  push_constant (p, 0, 1000, 100);
  g_assert_true (donar_playout_get_offset (p, &offset));
  g_assert_cmpint (offset, ==, 120 * MS);

  /* Due at send + 120 ms: arriving then is on time, 1 µs later is late. */
  g_assert_false (donar_playout_push (p, 1000 * FRAME, 1000 * FRAME +
          120 * MS));
  g_assert_true (donar_playout_push (p, 1001 * FRAME, 1001 * FRAME +
          120 * MS + 1));
  g_assert_false (donar_playout_push (p, 1002 * FRAME, 1002 * FRAME +
          119 * MS));

  /* A stall: frames 1003..1022 all arrive together at 1022 * 40 + 100 ms.
   * Every one was due (at send + 120 ms) before it arrived, although the
   * target grows while the burst is pushed (at the 11th or so): 20 late,
   * counted against the playout in force when each was due. */
  for (guint i = 0; i < 20; i++) {
    burst[i].send_us = (1003 + i) * FRAME;
    burst[i].arrival_us = 1022 * FRAME + 900 * MS;
  }
  for (guint i = 0; i < 20; i++)
    late += donar_playout_push (p, burst[i].send_us, burst[i].arrival_us);
  g_assert_cmpuint (late, ==, 20);
  g_assert_cmpint (donar_playout_get_target (p), >, 20 * MS);

  /* A frame sent after the stall and 110 ms on the way is on time; one
   * sent before it (1023, due at 40920 + 120 ms) and arriving after it is
   * late. */
  g_assert_false (donar_playout_push (p, 1050 * FRAME, 1050 * FRAME +
          110 * MS));
  g_assert_true (donar_playout_push (p, 1023 * FRAME, 1050 * FRAME + 110 * MS));
  donar_playout_free (p);
}

static void
test_late_while_shrinking (void)
{
  DonarPlayoutConfig c;
  DonarPlayout *p;
  gint64 before, after;

  /* 4 s window (100 frames): 200 frames at 100 ms, 200 at 200 ms, then 100
   * ms again from frame 402 (in arrival order).  At frame m the window
   * holds n = 101 frames, 502 - m of them slow; k = ceil (99.99) = 100:
   * slow while 502 - m >= 2, so the offset shrinks from frame 501 on, 0.4
   * ms per frame. */
  config_hand (&c);
  c.window_us = 4 * G_USEC_PER_SEC;
  p = donar_playout_new (&c);
  push_constant (p, 0, 200, 100);
  push_constant (p, 200, 200, 200);
  push_constant (p, 402, 150, 100);
  g_assert_true (donar_playout_get_offset (p, &before));
  /* 51 frames of shrinking (501..551): 105 - 20.4 = 84.6 ms. */
  g_assert_cmpint (before, ==, 100 * MS + 84600);
  push_constant (p, 552, 1, 100);
  g_assert_true (donar_playout_get_offset (p, &after));
  g_assert_cmpint (after, ==, before - 400);
  /* Due at send + the offset in force: on time at it, late 1 µs after. */
  g_assert_false (donar_playout_push (p, 553 * FRAME, 553 * FRAME + after));
  g_assert_true (donar_playout_get_offset (p, &after));
  g_assert_true (donar_playout_push (p, 554 * FRAME, 554 * FRAME + after + 1));
  donar_playout_free (p);
}

static void
test_deadline (void)
{
  DonarPlayoutConfig c;
  DonarPlayout *p;
  gint64 delays[1000];
  DonarPlayoutStats st;

  /* Delays 100..199 ms evenly: the 99 % quantile is 198 ms, 98 above the
   * base; + 5 = 103 ms wanted. */
  config_hand (&c);
  c.window_us = 1000 * G_USEC_PER_SEC;
  /* Any shrinking at once: the bounds are what is tested. */
  c.shrink_us_per_s = 1000 * G_USEC_PER_SEC;
  for (guint i = 0; i < 1000; i++)
    delays[i] = 100 + (i * 7) % 100;

  /* Unknown absolute delay: the deadline (360 ms) bounds the target. */
  p = donar_playout_new (&c);
  push_frames (p, 0, delays, 1000);
  donar_playout_get_stats (p, &st);
  g_assert_cmpint (st.target_us, ==, 103 * MS);
  g_assert_false (st.limited);

  /* A base of 300 ms absolute: 60 ms left before 360 ms; at once. */
  donar_playout_set_base_delay (p, 300 * MS);
  push_constant (p, 1000, 1, 100);
  donar_playout_get_stats (p, &st);
  g_assert_cmpint (st.target_us, ==, 60 * MS);
  g_assert_true (st.limited);

  /* 350 ms: 10 ms left, below min: play at min (nothing can be in time). */
  donar_playout_set_base_delay (p, 350 * MS);
  push_constant (p, 1001, 1, 100);
  g_assert_cmpint (donar_playout_get_target (p), ==, 20 * MS);

  /* Unknown again, and a max of 50 ms. */
  donar_playout_set_base_delay (p, DONAR_PLAYOUT_UNKNOWN);
  c.max_us = 50 * MS;
  donar_playout_set_config (p, &c);
  push_constant (p, 1002, 1, 100);
  g_assert_cmpint (donar_playout_get_target (p), ==, 50 * MS);

  /* Deadline 0: none; max 1 s: the quantile again. */
  c.max_us = 1000 * MS;
  c.deadline_us = 0;
  donar_playout_set_config (p, &c);
  donar_playout_set_base_delay (p, 350 * MS);
  push_constant (p, 1003, 1, 100);
  g_assert_cmpint (donar_playout_get_target (p), ==, 103 * MS);
  donar_playout_free (p);
}

static void
test_drift (void)
{
  DonarPlayoutConfig c;
  DonarPlayout *p;
  guint late = 0;

  /* The sender's clock 100 ppm slow: delays grow 4 µs per frame, 60 ms in
   * 10 minutes.  The base (minimum over the last 2 minutes) follows: the
   * quantile is at most 120 s * 100 ppm = 12 ms above it, + 5 < 20 ms. */
  config_hand (&c);
  p = donar_playout_new (&c);
  for (guint i = 0; i < 15000; i++) {
    gint64 send = (gint64) i * FRAME;

    late += donar_playout_push (p, send, send + 100 * MS + i * 4);
  }
  g_assert_cmpuint (late, ==, 0);
  g_assert_cmpint (donar_playout_get_target (p), ==, 20 * MS);

  /* A base over the whole call (base_window 0) does not follow it: the
   * target creeps up to 60 ms. */
  c.base_window_us = 0;
  donar_playout_set_config (p, &c);
  donar_playout_reset (p);
  for (guint i = 0; i < 15000; i++) {
    gint64 send = (gint64) i * FRAME;

    donar_playout_push (p, send, send + 100 * MS + i * 4);
  }
  g_assert_cmpint (donar_playout_get_target (p), >, 55 * MS);
  donar_playout_free (p);
}

static void
test_bounded_samples (void)
{
  DonarPlayoutConfig c;
  DonarPlayout *p;
  DonarPlayoutStats st;

  config_hand (&c);
  c.max_samples = 100;
  p = donar_playout_new (&c);
  push_constant (p, 0, 1000, 100);
  donar_playout_get_stats (p, &st);
  g_assert_cmpuint (st.window_frames, ==, 100);

  /* Growing the bound keeps what is there, shrinking keeps the newest. */
  c.max_samples = 1000;
  donar_playout_set_config (p, &c);
  push_constant (p, 1000, 10, 100);
  donar_playout_get_stats (p, &st);
  g_assert_cmpuint (st.window_frames, ==, 110);
  c.max_samples = 10;
  donar_playout_set_config (p, &c);
  donar_playout_get_stats (p, &st);
  g_assert_cmpuint (st.window_frames, ==, 10);
  push_constant (p, 1010, 1, 300);
  /* 11 frames, one at 300: ceil (0.99 * 10) = 10th of 10 = 300. */
  g_assert_cmpint (donar_playout_get_target (p), ==, 205 * MS);
  donar_playout_free (p);
}

static void
test_config_validation (void)
{
  DonarPlayoutConfig c;

  donar_playout_config_init (&c);
  g_assert_true (donar_playout_config_is_valid (&c));
  c.share = 0.0;
  g_assert_false (donar_playout_config_is_valid (&c));
  c.share = 1.0;
  g_assert_true (donar_playout_config_is_valid (&c));
  c.share = 1.01;
  g_assert_false (donar_playout_config_is_valid (&c));
  donar_playout_config_init (&c);
  c.min_us = 2 * c.max_us;
  g_assert_false (donar_playout_config_is_valid (&c));
  donar_playout_config_init (&c);
  c.max_samples = 0;
  g_assert_false (donar_playout_config_is_valid (&c));
}

/* Misuse is a critical that does nothing (docs/api.md, "Contracts"). */
static void
test_misuse_is_refused (void)
{
  DonarPlayoutConfig c;
  DonarPlayout *p;
  gint64 offset = 7;

  EXPECT_CRITICAL ("*p != NULL*",
      g_assert_false (donar_playout_push (NULL, 0, 0)));
  EXPECT_CRITICAL ("*p != NULL*", donar_playout_reset (NULL));
  EXPECT_CRITICAL ("*p != NULL*", donar_playout_set_base_delay (NULL, 0));
  donar_playout_config_init (&c);
  p = donar_playout_new (&c);
  EXPECT_CRITICAL ("*offset_us != NULL*",
      g_assert_false (donar_playout_get_offset (p, NULL)));
  EXPECT_CRITICAL ("*p != NULL*",
      g_assert_false (donar_playout_get_offset (NULL, &offset)));
  g_assert_cmpint (offset, ==, 7);
  EXPECT_CRITICAL ("*not NULL*", donar_playout_get_stats (p, NULL));
  EXPECT_CRITICAL ("*config != NULL*",
      g_assert_null (donar_playout_new_versioned (1, NULL)));
  c.max_samples = 0;
  EXPECT_CRITICAL ("*config_is_valid*", donar_playout_set_config (p, &c));
  donar_playout_get_config (p, &c);
  g_assert_cmpuint (c.max_samples, ==, DONAR_PLAYOUT_DEFAULT_MAX_SAMPLES);
  donar_playout_free (p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/playout/constant-delay", test_constant_delay);
  g_test_add_func ("/playout/jitter-quantile", test_jitter_quantile);
  g_test_add_func ("/playout/step-up", test_step_up);
  g_test_add_func ("/playout/spike-not-chased", test_spike_not_chased);
  g_test_add_func ("/playout/shrinks-slowly", test_shrinks_slowly);
  g_test_add_func ("/playout/first-outlier-held", test_first_outlier_held);
  g_test_add_func ("/playout/late-accounting", test_late_accounting);
  g_test_add_func ("/playout/late-while-shrinking", test_late_while_shrinking);
  g_test_add_func ("/playout/deadline", test_deadline);
  g_test_add_func ("/playout/drift", test_drift);
  g_test_add_func ("/playout/bounded-samples", test_bounded_samples);
  g_test_add_func ("/playout/config-validation", test_config_validation);
  g_test_add_func ("/playout/misuse-is-refused", test_misuse_is_refused);
  return g_test_run ();
}
