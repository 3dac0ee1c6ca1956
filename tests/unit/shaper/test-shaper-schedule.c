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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/shaper/schedule/base-and-spikes", test_base_and_spikes);
  g_test_add_func ("/shaper/schedule/fifo", test_fifo);
  g_test_add_func ("/shaper/schedule/parse", test_parse);
  return g_test_run ();
}
