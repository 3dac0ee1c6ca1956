/* Cross traffic (seed 003): bulk flows through one guard delay the links
 * through it, by their backlog and the guard's once-a-second token bucket,
 * and no other link. */
#include <math.h>

#include "netmodel-test-util.h"

#define N_LINKS 12
#define WINDOW_BYTES (500.0 * 512.0)

static void
test_congested_guard (void)
{
  DonarNetModelParams p;
  DonarNetModel *m;
  DonarCrossTraffic traffic = { 0, 0, 4, 0.0 };
  gdouble bandwidth;
  gint64 start = S (10), duration = S (20), t;
  guint link, congested = 0, spared = 0, held = 0;
  gint64 previous[N_LINKS] = { 0 };

  quiet_params (&p, DONAR_SECURITY_DEFAULT);
  m = donar_net_model_new_with_params (&p, N_LINKS, 8, 0);
  bandwidth = donar_net_model_guard_bandwidth (m, 0, 0);
  /* Seed 003: guards here are faster than the many slow relays. */
  g_assert_cmpfloat (bandwidth, >, 10 * 1024);
  g_assert_cmpfloat (bandwidth, <, 10 * 1024 * 1024);

  /* 4 flows, each asking the whole bandwidth: the backlog grows at 3
   * bandwidths a second up to 4 stream windows. */
  traffic.flow_kib_per_s = bandwidth / 1024.0;
  donar_net_model_add_cross_traffic (m, start, duration, &traffic);

  for (t = 0; t < S (60); t += MS (100)) {
    for (link = 0; link < N_LINKS; link++) {
      gint64 base = donar_net_model_link_base_delay (m, link);
      gint64 arrival = donar_net_model_send (m, link, 0, t, 172);
      gdouble extra_s = (arrival - t - base) / 1e6, backlog;

      g_assert_cmpint (arrival, >=, previous[link]);
      if (arrival == previous[link])
        held++;
      previous[link] = arrival;

      if (donar_net_model_link_guard (m, link, 0) != 0) {
        g_assert_cmpint (arrival, ==, t + base);
        spared++;
        continue;
      }
      congested++;
      if (t < start) {
        g_assert_cmpint (arrival, ==, t + base);
        continue;
      }
      backlog = MIN (3.0 * bandwidth * MIN (t - start, duration) / 1e6,
          4 * WINDOW_BYTES);
      if (t > start + duration)
        backlog = MAX (0.0, backlog - bandwidth * (t - start - duration) / 1e6);
      if (t >= start + duration && backlog == 0.0) {
        /* Drained: back to normal, but for packets held behind older
         * ones. */
        g_assert_cmpfloat (extra_s, >=, 0.0);
        if (t > start + duration + S (4 * WINDOW_BYTES / bandwidth + 3))
          g_assert_cmpint (arrival, ==, t + base);
        continue;
      }
      /* Whole seconds of backlog, then up to a second for the refill;
       * while the backlog drains, a packet may wait for an older one. */
      g_assert_cmpfloat (extra_s, >=, floor (backlog / bandwidth));
      if (arrival > previous[link])
        g_assert_cmpfloat (extra_s, <=, floor (backlog / bandwidth) + 1.0
            + 514.0 / bandwidth + 1e-6);
    }
  }
  g_assert_cmpuint (congested, >, 0);
  g_assert_cmpuint (spared, >, 0);
  /* The token bucket makes packets of the same second leave together. */
  g_assert_cmpuint (held, >, 0);
  donar_net_model_free (m);
}

/* Bulk flows that fit in the guard: a small queueing delay only. */
static void
test_light_load (void)
{
  DonarNetModelParams p;
  DonarNetModel *m;
  DonarCrossTraffic traffic = { 1, 1, 2, 0.0 };
  gdouble bandwidth;
  guint link;

  quiet_params (&p, DONAR_SECURITY_2HOP);
  m = donar_net_model_new_with_params (&p, N_LINKS, 8, 0);
  bandwidth = donar_net_model_guard_bandwidth (m, 1, 1);
  traffic.flow_kib_per_s = 0.4 * bandwidth / 1024.0;
  donar_net_model_add_cross_traffic (m, 0, S (10), &traffic);

  for (link = 0; link < N_LINKS; link++) {
    gint64 base = donar_net_model_link_base_delay (m, link);
    gint64 extra = donar_net_model_send (m, link, 1, S (5), 172) - S (5) - base;

    if (donar_net_model_link_guard (m, link, 1) == 1) {
      /* Load 0.8: M/D/1 wait 2 cells, plus its own cell. */
      gint64 expected = (gint64) ((0.8 / (2 * 0.2) + 1) * 514.0 / bandwidth
          * 1e6);

      g_assert_cmpint (extra, >=, expected - 1);
      g_assert_cmpint (extra, <=, expected + 1);
    } else {
      g_assert_cmpint (extra, ==, 0);
    }
  }
  donar_net_model_free (m);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/netmodel/cross/congested-guard", test_congested_guard);
  g_test_add_func ("/netmodel/cross/light-load", test_light_load);
  return g_test_run ();
}
