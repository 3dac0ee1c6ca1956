/* The live quality estimate (lib/playout/donar-quality.h): G.107's R as
 * tools/quality/qscore.py computes it, G.107 Annex B's MOS, the bands, and
 * the sliding window of frames on hand-made calls of 40-ms frames. */
#include "donar-quality.h"
#include "../donar-test-critical.h"

#define MS 1000
#define FRAME (40 * MS)

/* R as qscore.py's e_model_parts gives it (Ie 0, Bpl 20, BurstR 1), to
 * 1e-4: each value printed by
 *   python3 -c 'import sys; sys.path.insert(0, "tools/quality"); import qscore;
 *     print("%.6f" % qscore.r_factor(TA, PPL))'
 * (build-venv/bin/python3 from the repository's root).  The terms of the
 * second and third cases: Id 3.8161 and 20.6889, Ie,eff 0 and
 * 95 * 2 / (2 + 20) = 8.6364. */
static void
test_r_factor (void)
{
  const struct
  {
    gdouble ta_ms, ppl, r, mos;
  } cases[] = {
    /* G.107's default connection: R = 93.2. */
    {0, 0, 93.206208, 4.409406},
    {150, 0, 89.539132, 4.327546},
    {300, 2, 64.029996, 3.306022},
    {500, 10, 23.136504, 1.350884},
    /* About a DONAR call over donar-torsim: 250 ms, one frame in 125. */
    {250, 0.8, 75.523255, 3.844184},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gdouble r = donar_quality_r_factor (cases[i].ta_ms, cases[i].ppl,
        DONAR_QUALITY_OPUS_IE, DONAR_QUALITY_OPUS_BPL, 1.0);

    g_assert_cmpfloat_with_epsilon (r, cases[i].r, 1e-4);
    g_assert_cmpfloat_with_epsilon (donar_quality_mos (r), cases[i].mos, 1e-4);
  }
}

/* The loss term alone, by hand: at one delay, 2 % of loss costs
 * Ie,eff = 95 * 2 / (2 + 20) = 8.63636 points; with Ie = 10, 10 + 85 * 2 /
 * 22 = 17.72727 against 10 without loss; with BurstR 2, 95 * 2 / (1 + 20)
 * = 9.04762.  100 % of loss with BurstR 4 would pass 95 (95 * 100 / 45 =
 * 211): held at 95. */
static void
test_loss_term (void)
{
  gdouble r0 = donar_quality_r_factor (300, 0, 0, 20, 1);

  g_assert_cmpfloat_with_epsilon (r0 - donar_quality_r_factor (300, 2, 0, 20,
          1), 95.0 * 2 / 22, 1e-9);
  g_assert_cmpfloat_with_epsilon (donar_quality_r_factor (300, 0, 10, 20,
          1) - donar_quality_r_factor (300, 2, 10, 20, 1), 85.0 * 2 / 22, 1e-9);
  g_assert_cmpfloat_with_epsilon (r0 - donar_quality_r_factor (300, 2, 0, 20,
          2), 95.0 * 2 / 21, 1e-9);
  g_assert_cmpfloat_with_epsilon (r0 - donar_quality_r_factor (300, 100, 0,
          20, 4), 95.0, 1e-9);
  /* Idd by hand at 200 ms (X = 1): 25 ((1 + 1)^(1/6) - 3 (1 + 3^-6)^(1/6)
   * + 2) = 3.04436; the other terms of 200 ms are what they are, so compare
   * with 100 ms, where Idd = 0, only through R falling. */
  g_assert_cmpfloat (donar_quality_r_factor (200, 0, 0, 20, 1), <,
      donar_quality_r_factor (100, 0, 0, 20, 1) - 3.04);
}

/* G.107 Annex B's MOS: 1 at R <= 0 (and where its cubic dips below 1,
 * 0.992 at R = 5), 4.5 above 100; at R = 50, 1 + 1.75 + 50 * -10 * 50 *
 * 7e-6 = 2.575; at 80, 1 + 2.8 + 80 * 20 * 20 * 7e-6 = 4.024. */
static void
test_mos (void)
{
  g_assert_cmpfloat (donar_quality_mos (-20), ==, 1.0);
  g_assert_cmpfloat (donar_quality_mos (0), ==, 1.0);
  g_assert_cmpfloat (donar_quality_mos (5), ==, 1.0);
  g_assert_cmpfloat_with_epsilon (donar_quality_mos (50), 2.575, 1e-9);
  g_assert_cmpfloat_with_epsilon (donar_quality_mos (80), 4.024, 1e-9);
  g_assert_cmpfloat (donar_quality_mos (100.5), ==, 4.5);
}

static void
test_rating (void)
{
  g_assert_cmpint (donar_quality_rating (93.2), ==, DONAR_QUALITY_GOOD);
  g_assert_cmpint (donar_quality_rating (80), ==, DONAR_QUALITY_GOOD);
  g_assert_cmpint (donar_quality_rating (79.99), ==, DONAR_QUALITY_FAIR);
  g_assert_cmpint (donar_quality_rating (60), ==, DONAR_QUALITY_FAIR);
  g_assert_cmpint (donar_quality_rating (59.99), ==, DONAR_QUALITY_POOR);
  g_assert_cmpint (donar_quality_rating (-5), ==, DONAR_QUALITY_POOR);
  g_assert_cmpstr (donar_quality_rating_name (DONAR_QUALITY_GOOD), ==, "good");
  g_assert_cmpstr (donar_quality_rating_name (DONAR_QUALITY_FAIR), ==, "fair");
  g_assert_cmpstr (donar_quality_rating_name (DONAR_QUALITY_POOR), ==, "poor");
}

static DonarQuality *
new_quality (void)
{
  DonarQualityConfig c;

  donar_quality_config_init (&c);
  g_assert_cmpint (c.window_us, ==, 5 * G_USEC_PER_SEC);
  g_assert_cmpint (c.interval_us, ==, G_USEC_PER_SEC);
  return donar_quality_new (&c);
}

/* Frames every 40 ms from t = 0, all played at 150 ms mouth to ear: the
 * first report at 1 s (frames 0..25: 26 of them, those at 0 to 1000 ms),
 * then one a second; R that of 150 ms with no loss, over a window that
 * grows to 5 s and stays there. */
static void
test_reports_every_second (void)
{
  DonarQuality *q = new_quality ();
  DonarQualityReport r;
  guint reports = 0;

  g_assert_cmpint (donar_quality_get_expiry (q), ==, G_MAXINT64);
  g_assert_false (donar_quality_get_last (q, &r));
  for (gint i = 0; i <= 250; i++) {
    gint64 now = (gint64) i * FRAME;

    donar_quality_push (q, now, DONAR_QUALITY_PLAYED, 150 * MS);
    if (now < donar_quality_get_expiry (q)) {
      g_assert_false (donar_quality_handle_expiry (q, now, &r));
      continue;
    }
    g_assert_true (donar_quality_handle_expiry (q, now, &r));
    reports++;
    g_assert_cmpint (now % G_USEC_PER_SEC, ==, 0);
    g_assert_cmpint (r.time_us, ==, now);
    g_assert_cmpint (r.window_us, ==, MIN (now, 5 * G_USEC_PER_SEC));
    /* The frames of (now - 5 s, now]: 125 once the window is full, and
     * at 1 s those of [0, 1 s]. */
    g_assert_cmpuint (r.played, ==, now < 5 * G_USEC_PER_SEC ?
        (guint) (now / FRAME) + 1 : 125);
    g_assert_cmpuint (r.lost + r.late, ==, 0);
    g_assert_cmpfloat_with_epsilon (r.mouth_to_ear_ms, 150, 1e-9);
    g_assert_cmpfloat_with_epsilon (r.r, 89.539132, 1e-4);
    g_assert_cmpint (r.rating, ==, DONAR_QUALITY_GOOD);
    g_assert_cmpint (donar_quality_get_expiry (q), ==, now + G_USEC_PER_SEC);
  }
  g_assert_cmpuint (reports, ==, 10);
  g_assert_true (donar_quality_get_last (q, &r));
  g_assert_cmpint (r.time_us, ==, 10 * G_USEC_PER_SEC);
  donar_quality_free (q);
}

/* A 10-s call at 300 ms: 1 frame in 50 lost (frames 0, 50, 100, ...), so
 * the full window of 125 frames holds 2 or 3 of them (2.4 % on average);
 * then a 1-s stall (25 frames lost in a row at 12..13 s) that the window
 * shows for 5 s and forgets; lost frames that come after all count as
 * late, the loss unchanged. */
static void
test_window_loss (void)
{
  DonarQuality *q = new_quality ();
  DonarQualityReport r;

  for (gint i = 1; i <= 250; i++)
    donar_quality_push (q, (gint64) i * FRAME, i % 50 == 0 ?
        DONAR_QUALITY_LOST : DONAR_QUALITY_PLAYED, 300 * MS);
  /* The window at 10 s: frames 126..250 (times 5.04 to 10 s), of which
   * 150, 200 and 250 lost: 3 of 125, 2.4 %. */
  g_assert_true (donar_quality_handle_expiry (q, 10 * G_USEC_PER_SEC, &r));
  g_assert_cmpuint (r.played, ==, 122);
  g_assert_cmpuint (r.lost, ==, 3);
  g_assert_cmpfloat_with_epsilon (r.loss_percent, 2.4, 1e-9);
  g_assert_cmpfloat_with_epsilon (r.r,
      donar_quality_r_factor (300, 2.4, 0, 20, 1), 1e-9);
  g_assert_cmpfloat_with_epsilon (r.r,
      donar_quality_r_factor (300, 0, 0, 20, 1) - 95.0 * 2.4 / 22.4, 1e-9);
  g_assert_cmpint (r.rating, ==, donar_quality_rating (r.r));

  /* Two of them came late after all: still 3 not played. */
  g_assert_true (donar_quality_lost_was_late (q));
  g_assert_true (donar_quality_lost_was_late (q));
  g_assert_true (donar_quality_lost_was_late (q));
  g_assert_false (donar_quality_lost_was_late (q));
  g_assert_true (donar_quality_handle_expiry (q, 11 * G_USEC_PER_SEC, &r));
  g_assert_cmpuint (r.lost, ==, 0);
  /* (6 s, 11 s]: the window has lost 200, 250 (now late) and no frame
   * since 10 s. */
  g_assert_cmpuint (r.late, ==, 2);
  g_assert_cmpuint (r.played, ==, 100 - 2);

  /* 10..13 s: frames played but for 12..13 s (frames 300..324 lost). */
  for (gint i = 251; i <= 325; i++)
    donar_quality_push (q, (gint64) i * FRAME, i >= 300 && i < 325 ?
        DONAR_QUALITY_LOST : DONAR_QUALITY_PLAYED, 300 * MS);
  g_assert_true (donar_quality_handle_expiry (q, 13 * G_USEC_PER_SEC, &r));
  /* (8, 13 s]: frames 201..325: 125, lost 300..324 (25), late 250. */
  g_assert_cmpuint (r.lost, ==, 25);
  g_assert_cmpuint (r.late, ==, 1);
  g_assert_cmpfloat_with_epsilon (r.loss_percent, 100.0 * 26 / 125, 1e-9);
  g_assert_cmpint (r.rating, ==, DONAR_QUALITY_POOR);
  /* 5 s of clean frames later the stall is out of the window. */
  for (gint i = 326; i <= 450; i++)
    donar_quality_push (q, (gint64) i * FRAME, DONAR_QUALITY_PLAYED, 300 * MS);
  g_assert_true (donar_quality_handle_expiry (q, 18 * G_USEC_PER_SEC, &r));
  g_assert_cmpuint (r.lost + r.late, ==, 0);
  g_assert_cmpuint (r.played, ==, 125);
  g_assert_cmpint (r.rating, ==, DONAR_QUALITY_FAIR);
  donar_quality_free (q);
}

/* The mouth-to-ear delay is the mean over the window's frames: half of
 * them at 100 ms, half at 300 ms, 200 ms.  A report woken late (2.96 s
 * after it was due) does not bring the missed ones, and keeps the beat:
 * the next due at the next whole second.  An empty window reports nothing,
 * and a reset forgets everything. */
static void
test_delay_mean_and_gaps (void)
{
  DonarQuality *q = new_quality ();
  DonarQualityReport r;

  for (gint i = 0; i < 100; i++)
    donar_quality_push (q, (gint64) i * FRAME, DONAR_QUALITY_PLAYED,
        (i % 2 ? 300 : 100) * MS);
  g_assert_cmpint (donar_quality_get_expiry (q), ==, G_USEC_PER_SEC);
  g_assert_true (donar_quality_handle_expiry (q, 3960 * MS, &r));
  g_assert_cmpuint (r.played, ==, 100);
  g_assert_cmpfloat_with_epsilon (r.mouth_to_ear_ms, 200, 1e-9);
  g_assert_cmpint (donar_quality_get_expiry (q), ==, 4 * G_USEC_PER_SEC);
  g_assert_false (donar_quality_handle_expiry (q, 3999 * MS, &r));
  /* 20 s on, every frame older than the window: nothing to report. */
  g_assert_false (donar_quality_handle_expiry (q, 24 * G_USEC_PER_SEC, &r));
  g_assert_cmpint (donar_quality_get_expiry (q), ==, 25 * G_USEC_PER_SEC);
  /* The last report stays what it was. */
  g_assert_true (donar_quality_get_last (q, &r));
  g_assert_cmpint (r.time_us, ==, 3960 * MS);
  donar_quality_reset (q);
  g_assert_false (donar_quality_get_last (q, &r));
  g_assert_cmpint (donar_quality_get_expiry (q), ==, G_MAXINT64);
  donar_quality_free (q);
}

/* More frames than it keeps (2000 a second for 5 s): the window holds
 * DONAR_QUALITY_MAX_FRAMES, the newest. */
static void
test_bounded (void)
{
  DonarQuality *q = new_quality ();
  DonarQualityReport r;

  for (gint i = 0; i < 10000; i++)
    donar_quality_push (q, (gint64) i * 500, DONAR_QUALITY_PLAYED, 0);
  g_assert_true (donar_quality_handle_expiry (q, 9999 * 500, &r));
  g_assert_cmpuint (r.played, ==, DONAR_QUALITY_MAX_FRAMES);
  donar_quality_free (q);
}

static void
test_config (void)
{
  DonarQualityConfig c;

  donar_quality_config_init (&c);
  g_assert_true (donar_quality_config_is_valid (&c));
  c.burst_r = 0.5;
  g_assert_false (donar_quality_config_is_valid (&c));
  donar_quality_config_init (&c);
  c.window_us = 0;
  g_assert_false (donar_quality_config_is_valid (&c));
  donar_quality_config_init (&c);
  c.bpl = 0;
  g_assert_false (donar_quality_config_is_valid (&c));
}

/* Misuse is a critical that does nothing (docs/api.md, "Contracts"). */
static void
test_misuse_is_refused (void)
{
  DonarQualityConfig c;
  DonarQuality *q;
  DonarQualityReport report;

  donar_quality_config_init (&c);
  q = donar_quality_new (&c);
  EXPECT_CRITICAL ("*quality != NULL*",
      donar_quality_push (NULL, 0, DONAR_QUALITY_PLAYED, 0));
  EXPECT_CRITICAL ("*fate <=*", donar_quality_push (q, 0, (DonarQualityFate) 3, 0));
  g_assert_cmpint (donar_quality_get_expiry (q), ==, G_MAXINT64);
  EXPECT_CRITICAL ("*quality != NULL*",
      g_assert_false (donar_quality_handle_expiry (NULL, 0, &report)));
  EXPECT_CRITICAL ("*quality != NULL*",
      g_assert_false (donar_quality_lost_was_late (NULL)));
  EXPECT_CRITICAL ("*quality != NULL*", donar_quality_reset (NULL));
  EXPECT_CRITICAL ("*not NULL*",
      g_assert_null (donar_quality_new_versioned (1, NULL)));
  donar_quality_free (q);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/quality/r-factor", test_r_factor);
  g_test_add_func ("/quality/loss-term", test_loss_term);
  g_test_add_func ("/quality/mos", test_mos);
  g_test_add_func ("/quality/rating", test_rating);
  g_test_add_func ("/quality/every-second", test_reports_every_second);
  g_test_add_func ("/quality/window-loss", test_window_loss);
  g_test_add_func ("/quality/delay-mean-and-gaps", test_delay_mean_and_gaps);
  g_test_add_func ("/quality/bounded", test_bounded);
  g_test_add_func ("/quality/config", test_config);
  g_test_add_func ("/quality/misuse-is-refused", test_misuse_is_refused);
  return g_test_run ();
}
