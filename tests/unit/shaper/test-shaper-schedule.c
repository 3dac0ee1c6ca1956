/* lib/shaper without sockets: the delay a schedule gives at a time, and
 * the FIFO rule that stamps each chunk's release. */
#include "donar-shaper-schedule.h"

#define MS 1000

static void
test_base_and_spikes (void)
{
  DonarShaperSchedule *s = donar_shaper_schedule_new (24 * MS);

  g_assert_cmpint (donar_shaper_schedule_delay (s, 0), ==, 24 * MS);
  donar_shaper_schedule_add_spike (s, 1000 * MS, 500 * MS, 400 * MS);
  /* A spike covers [start, start + duration), to the µs. */
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1000 * MS - 1), ==, 24 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1000 * MS), ==, 424 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1500 * MS - 1), ==,
      424 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1500 * MS), ==, 24 * MS);
  /* Overlapping spikes add up. */
  donar_shaper_schedule_add_spike (s, 1400 * MS, 200 * MS, 100 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1450 * MS), ==, 524 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1550 * MS), ==, 124 * MS);
  g_assert_cmpint (donar_shaper_schedule_n_spikes (s), ==, 2);
  donar_shaper_schedule_free (s);
}

static void
test_fifo (void)
{
  gint64 last = G_MININT64;

  g_assert_cmpint (donar_shaper_release_time (&last, 0, 24 * MS), ==, 24 * MS);
  /* In a spike: 424 ms. */
  g_assert_cmpint (donar_shaper_release_time (&last, 10 * MS, 424 * MS), ==,
      434 * MS);
  /* The delay drops: the chunk waits behind the one ahead, not before. */
  g_assert_cmpint (donar_shaper_release_time (&last, 20 * MS, 24 * MS), ==,
      434 * MS);
  g_assert_cmpint (last, ==, 434 * MS);
  /* Once the queue has drained, the delay is the schedule's again. */
  g_assert_cmpint (donar_shaper_release_time (&last, 500 * MS, 24 * MS), ==,
      524 * MS);
}

/* A hold of 400 ms from 1 s on a 24-ms relay: whatever is read in
 * [1000, 1400) ms is due at 1424 ms, the first byte after it at its own
 * 24 ms, and a chunk read just before waits for nothing. */
static void
test_hold (void)
{
  DonarShaperSchedule *s = donar_shaper_schedule_new (24 * MS);
  gint64 last = G_MININT64;

  donar_shaper_schedule_add_hold (s, 1000 * MS, 400 * MS);
  g_assert_cmpint (donar_shaper_schedule_n_spikes (s), ==, 1);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1000 * MS - 1), ==, 24 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1000 * MS), ==, 424 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1300 * MS), ==, 124 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1400 * MS - 1), ==,
      24 * MS + 1);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1400 * MS), ==, 24 * MS);
  /* Through the FIFO rule: 990 ms → 1014; 1000, 1200 and 1399.999 ms →
   * 1424 all; 1400 ms → 1424 (its own delay, nothing ahead later);
   * 1410 ms → 1434. */
  g_assert_cmpint (donar_shaper_release_time (&last, 990 * MS,
          donar_shaper_schedule_delay (s, 990 * MS)), ==, 1014 * MS);
  g_assert_cmpint (donar_shaper_release_time (&last, 1000 * MS,
          donar_shaper_schedule_delay (s, 1000 * MS)), ==, 1424 * MS);
  g_assert_cmpint (donar_shaper_release_time (&last, 1200 * MS,
          donar_shaper_schedule_delay (s, 1200 * MS)), ==, 1424 * MS);
  g_assert_cmpint (donar_shaper_release_time (&last, 1400 * MS - 1,
          donar_shaper_schedule_delay (s, 1400 * MS - 1)), ==, 1424 * MS);
  g_assert_cmpint (donar_shaper_release_time (&last, 1400 * MS,
          donar_shaper_schedule_delay (s, 1400 * MS)), ==, 1424 * MS);
  g_assert_cmpint (donar_shaper_release_time (&last, 1410 * MS,
          donar_shaper_schedule_delay (s, 1410 * MS)), ==, 1434 * MS);
  /* A spike on top adds to it. */
  donar_shaper_schedule_add_spike (s, 1100 * MS, 100 * MS, 50 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1100 * MS), ==, 374 * MS);
  donar_shaper_schedule_free (s);
}

static void
test_parse (void)
{
  DonarShaperSchedule *s = donar_shaper_schedule_new (0);
  const char *bad[] = { "", "1,2", "1,2,3,4", "a,2,3", "1,-2,3", "1,2,inf",
    "1, 2x,3"
  };
  GError *error = NULL;

  g_assert_true (donar_shaper_schedule_parse_spike (s, "100,50.5,200", NULL));
  g_assert_cmpint (donar_shaper_schedule_delay (s, 100 * MS), ==, 200 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 150 * MS + 499), ==,
      200 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 150 * MS + 500), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_assert_false (donar_shaper_schedule_parse_spike (s, bad[i], &error));
    g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
    g_clear_error (&error);
  }
  g_assert_cmpint (donar_shaper_schedule_n_spikes (s), ==, 1);
  donar_shaper_schedule_free (s);
}

/* The fraction of [0, 600 s) that relay `index` of seed spends in a spike,
 * sampled every 10 ms; its base in *base_us. */
static gdouble
spiky_fraction (const DonarNetModelParams * p, guint64 seed, guint index,
    gint64 * base_us)
{
  DonarShaperSchedule *s = donar_shaper_schedule_new_from_model (p, seed,
      index, -1);
  guint spiky = 0, n = 0;

  *base_us = donar_shaper_schedule_base (s);
  for (gint64 t = 0; t < 600 * 1000 * MS; t += 10 * MS, n++) {
    gint64 delay = donar_shaper_schedule_delay (s, t);

    g_assert_cmpint (delay, >=, *base_us);
    if (delay > *base_us)
      spiky++;
  }
  donar_shaper_schedule_free (s);
  return (gdouble) spiky / n;
}

/* A schedule drawn by lib/netmodel: the same relay for the same seed and
 * index, another for another index; spikes as often as the parameters
 * say, none when they are off. */
static void
test_model (void)
{
  DonarNetModelParams p;
  gint64 base_a, base_b, base_c;
  DonarShaperSchedule *s;
  gdouble fraction;

  donar_net_model_params_init (&p, DONAR_SECURITY_DEFAULT);
  /* Spikes every 2 s or so (median gap), 0.1 s or longer; no flaky
   * periods, so that the rate is the calm one. */
  p.spike_gap_median_s = 2.0;
  p.spike_gap_sigma = 0.0;
  p.spike_flaky_fraction = 0.0;
  g_assert_cmpfloat (spiky_fraction (&p, 7, 0, &base_a), ==,
      spiky_fraction (&p, 7, 0, &base_b));
  g_assert_cmpint (base_a, ==, base_b);
  /* Pareto durations of mean 0.6 s every ~2 s: a good part of the time,
   * not all of it. */
  fraction = spiky_fraction (&p, 7, 0, &base_a);
  g_test_message ("relay 0 of seed 7: base %.3f ms, in a spike %.1f %% of "
      "the time", base_a / 1e3, 100.0 * fraction);
  g_assert_cmpfloat (fraction, >, 0.05);
  g_assert_cmpfloat (fraction, <, 0.6);
  spiky_fraction (&p, 7, 1, &base_c);
  g_assert_cmpint (base_c, !=, base_a);
  /* The base is lognormal around 24 ms. */
  g_assert_cmpint (base_a, >, 1 * MS);
  g_assert_cmpint (base_a, <, 500 * MS);

  p.spike_gap_median_s = 0.0;
  g_assert_cmpfloat (spiky_fraction (&p, 7, 0, &base_b), ==, 0.0);
  g_assert_cmpint (base_b, ==, base_a);

  /* A base given by hand replaces the model's; spikes by hand add. */
  s = donar_shaper_schedule_new_from_model (&p, 7, 0, 50 * MS);
  donar_shaper_schedule_add_spike (s, 1000 * MS, 10 * MS, 5 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 0), ==, 50 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1005 * MS), ==, 55 * MS);
  donar_shaper_schedule_free (s);
}

/* --scale: a relay of base B scaled by F has the delay F × B, and a
 * spike's extra E adds F × E (hand-computed: 40 ms × 0.75 = 30 ms,
 * 200 ms × 0.75 = 150 ms). */
static void
test_scale (void)
{
  DonarShaperSchedule *s = donar_shaper_schedule_new (40 * MS);
  DonarNetModelParams p;
  gint64 base_model;

  g_assert_cmpfloat (donar_shaper_schedule_scale (s), ==, 1.0);
  donar_shaper_schedule_add_spike (s, 1000 * MS, 500 * MS, 200 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1200 * MS), ==, 240 * MS);
  donar_shaper_schedule_set_scale (s, 0.75);
  g_assert_cmpint (donar_shaper_schedule_base (s), ==, 30 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 0), ==, 30 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1200 * MS), ==, 180 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1500 * MS), ==, 30 * MS);
  /* Overlapping spikes: their sum is scaled, rounded to the µs. */
  donar_shaper_schedule_add_spike (s, 1400 * MS, 200 * MS, 1);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1450 * MS), ==,
      30 * MS + 150 * MS + 1);
  donar_shaper_schedule_set_scale (s, 0.0);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 1450 * MS), ==, 0);
  /* A hold is a moment, not a delay: at scale 0.5, what is read 100 ms
   * into a 400-ms hold from 3 s is still due at its end, plus the base
   * (40 ms scaled: 20 ms). */
  donar_shaper_schedule_set_scale (s, 0.5);
  donar_shaper_schedule_add_hold (s, 3000 * MS, 400 * MS);
  g_assert_cmpint (donar_shaper_schedule_delay (s, 3100 * MS), ==,
      300 * MS + 20 * MS);
  donar_shaper_schedule_free (s);

  /* A model relay: its base and its spikes' extras, both scaled. */
  donar_net_model_params_init (&p, DONAR_SECURITY_DEFAULT);
  p.spike_gap_median_s = 2.0;
  p.spike_gap_sigma = 0.0;
  p.spike_flaky_fraction = 0.0;
  {
    DonarShaperSchedule *a = donar_shaper_schedule_new_from_model (&p, 7, 0,
        -1);
    DonarShaperSchedule *b = donar_shaper_schedule_new_from_model (&p, 7, 0,
        -1);
    guint spiky = 0;

    base_model = donar_shaper_schedule_base (a);
    donar_shaper_schedule_set_scale (b, 0.5);
    g_assert_cmpint (donar_shaper_schedule_base (b), ==, (base_model + 1) / 2);
    for (gint64 t = 0; t < 60 * 1000 * MS; t += 10 * MS) {
      gint64 extra_a = donar_shaper_schedule_delay (a, t) - base_model;
      gint64 extra_b = donar_shaper_schedule_delay (b, t)
          - donar_shaper_schedule_base (b);

      /* Rounded to the µs, half away from zero. */
      g_assert_cmpint (extra_b, ==, (extra_a + 1) / 2);
      spiky += extra_a > 0;
    }
    g_assert_cmpuint (spiky, >, 0);
    donar_shaper_schedule_free (a);
    donar_shaper_schedule_free (b);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/shaper/schedule/base-and-spikes", test_base_and_spikes);
  g_test_add_func ("/shaper/schedule/fifo", test_fifo);
  g_test_add_func ("/shaper/schedule/hold", test_hold);
  g_test_add_func ("/shaper/schedule/parse", test_parse);
  g_test_add_func ("/shaper/schedule/model", test_model);
  g_test_add_func ("/shaper/schedule/scale", test_scale);
  return g_test_run ();
}
