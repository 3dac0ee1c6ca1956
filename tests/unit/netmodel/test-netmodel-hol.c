/* In-order delivery and head-of-line blocking in the link model. */
#include "netmodel-test-util.h"

/* Every arrival is >= its send time and >= the arrival before it on the
 * same link and direction, whatever the model draws. */
static void
test_in_order (void)
{
  DonarNetModel *m = donar_net_model_new (DONAR_SECURITY_DEFAULT, 12, 42);
  gint64 last[12][2], t;
  guint link, dir, sent = 0;

  for (link = 0; link < 12; link++)
    last[link][0] = last[link][1] = G_MININT64;

  for (t = 0; t < S (600); t += MS (20)) {
    for (link = 0; link < 12; link++) {
      for (dir = 0; dir < 2; dir++) {
        gsize bytes = 100 + (t / MS (20) + link) % 400;
        gint64 arrival = donar_net_model_send (m, link, dir, t, bytes);

        if (arrival < 0) {
          /* A failed circuit: the link is reopened, as DONAR does. */
          if (t >= donar_net_model_failure_time (m, link))
            donar_net_model_reopen (m, link, t);
          last[link][0] = last[link][1] = G_MININT64;
          continue;
        }
        g_assert_cmpint (arrival, >=, t);
        g_assert_cmpint (arrival, >=, last[link][dir]);
        last[link][dir] = arrival;
        sent++;
      }
    }
  }
  g_assert_cmpuint (sent, >, 12 * 2 * 25000);
  donar_net_model_free (m);
}

/* A spike at a relay of one circuit only: the packets sent during it are
 * late by its amount, and the packets after it wait for them; another link
 * does not notice. */
static void
test_spike_blocks_its_link_only (void)
{
  DonarNetModelParams p;
  DonarNetModel *m;
  gint64 base0, base1, t;

  quiet_params (&p, DONAR_SECURITY_DEFAULT);
  m = donar_net_model_new_with_params (&p, 2, 3, 0);
  base0 = donar_net_model_link_base_delay (m, 0);
  base1 = donar_net_model_link_base_delay (m, 1);
  g_assert_cmpint (base0, >, 0);

  /* Hop 2 is link 0's rendezvous relay: its own. */
  donar_net_model_add_spike (m, 0, 2, MS (1000), MS (100), MS (500));

  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (960), 172), ==,
      MS (960) + base0);
  g_assert_cmpint (donar_net_model_send (m, 1, 0, MS (960), 172), ==,
      MS (960) + base1);
  /* In the spike: 500 ms more. */
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (1000), 172), ==,
      MS (1500) + base0);
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (1080), 172), ==,
      MS (1580) + base0);
  g_assert_cmpint (donar_net_model_send (m, 1, 0, MS (1080), 172), ==,
      MS (1080) + base1);
  /* After it: held behind the packet of 1080 ms until 1580 ms. */
  for (t = MS (1120); t <= MS (1560); t += MS (40)) {
    g_assert_cmpint (donar_net_model_send (m, 0, 0, t, 172), ==,
        MS (1580) + base0);
    g_assert_cmpint (donar_net_model_send (m, 1, 0, t, 172), ==, t + base1);
  }
  /* Then free again. */
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (1600), 172), ==,
      MS (1600) + base0);
  donar_net_model_free (m);
}

/* Both directions cross the same relays, each with its own order: the
 * spike delays the other direction's packets sent during it, not those
 * sent after it. */
static void
test_directions (void)
{
  DonarNetModelParams p;
  DonarNetModel *m;
  gint64 base;

  quiet_params (&p, DONAR_SECURITY_2HOP);
  m = donar_net_model_new_with_params (&p, 1, 5, 0);
  base = donar_net_model_link_base_delay (m, 0);
  donar_net_model_add_spike (m, 0, 1, 0, MS (100), MS (800));

  /* The spike is the relay's: both directions see it. */
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (50), 172), ==,
      MS (850) + base);
  g_assert_cmpint (donar_net_model_send (m, 0, 1, MS (60), 172), ==,
      MS (860) + base);
  /* Each direction waits for its own late packet only. */
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (200), 172), ==,
      MS (850) + base);
  g_assert_cmpint (donar_net_model_send (m, 0, 1, MS (200), 172), ==,
      MS (860) + base);
  donar_net_model_free (m);

  /* Only direction 0 sent in the spike: direction 1 is not held up. */
  m = donar_net_model_new_with_params (&p, 1, 5, 0);
  donar_net_model_add_spike (m, 0, 1, 0, MS (100), MS (800));
  g_assert_cmpint (donar_net_model_send (m, 0, 0, MS (50), 172), ==,
      MS (850) + base);
  g_assert_cmpint (donar_net_model_send (m, 0, 1, MS (200), 172), ==,
      MS (200) + base);
  donar_net_model_free (m);
}

/* A spike at a guard holds up every link through that guard, and only
 * them. */
static void
test_shared_guard (void)
{
  DonarNetModelParams p;
  DonarNetModel *m;
  guint link, spiked = 0, spared = 0;
  gint spiked_guard;

  quiet_params (&p, DONAR_SECURITY_DEFAULT);
  m = donar_net_model_new_with_params (&p, 12, 11, 0);
  spiked_guard = donar_net_model_link_guard (m, 0, 0);
  g_assert_cmpint (spiked_guard, >=, 0);
  g_assert_cmpint (spiked_guard, <, 2);
  donar_net_model_add_spike (m, 0, 0, S (1), S (1), MS (300));

  for (link = 0; link < 12; link++) {
    gint64 base = donar_net_model_link_base_delay (m, link);
    gint64 arrival = donar_net_model_send (m, link, 0, MS (1500), 172);

    if (donar_net_model_link_guard (m, link, 0) == spiked_guard) {
      g_assert_cmpint (arrival, ==, MS (1800) + base);
      spiked++;
    } else {
      g_assert_cmpint (arrival, ==, MS (1500) + base);
      spared++;
    }
  }
  /* The seed puts links on both guards. */
  g_assert_cmpuint (spiked, >, 0);
  g_assert_cmpuint (spared, >, 0);
  donar_net_model_free (m);
}

/* 1-way: the callee side has no guard. */
static void
test_guards_per_security (void)
{
  DonarNetModel *m = donar_net_model_new (DONAR_SECURITY_1WAY, 4, 1);
  guint link;

  for (link = 0; link < 4; link++) {
    g_assert_cmpint (donar_net_model_link_guard (m, link, 0), >=, 0);
    g_assert_cmpint (donar_net_model_link_guard (m, link, 1), ==, -1);
  }
  g_assert_cmpfloat (donar_net_model_guard_bandwidth (m, 1, 0), ==, 0.0);
  g_assert_cmpfloat (donar_net_model_guard_bandwidth (m, 0, 0), >, 0.0);
  donar_net_model_free (m);

  g_assert_cmpuint (donar_security_path_length (DONAR_SECURITY_DEFAULT), ==, 6);
  g_assert_cmpuint (donar_security_path_length (DONAR_SECURITY_2HOP), ==, 4);
  g_assert_cmpuint (donar_security_path_length (DONAR_SECURITY_1WAY), ==, 4);
}

/* A reopened circuit carries nothing before it is ready; what is handed
 * to it before waits. */
static void
test_reopen_waits_for_setup (void)
{
  DonarNetModelParams p;
  DonarNetModel *m;
  gint64 ready, base;

  quiet_params (&p, DONAR_SECURITY_DEFAULT);
  m = donar_net_model_new_with_params (&p, 1, 9, 0);
  g_assert_cmpint (donar_net_model_ready_time (m, 0), ==, 0);
  ready = donar_net_model_reopen (m, 0, S (10));
  /* A few seconds (lognormal around 3 s). */
  g_assert_cmpint (ready, >, S (10.5));
  g_assert_cmpint (ready, <, S (25));
  g_assert_cmpint (donar_net_model_ready_time (m, 0), ==, ready);
  base = donar_net_model_link_base_delay (m, 0);
  g_assert_cmpint (donar_net_model_send (m, 0, 0, S (10), 172), ==,
      ready + base);
  g_assert_cmpint (donar_net_model_send (m, 0, 0, ready + S (1), 172), ==,
      ready + S (1) + base);
  donar_net_model_free (m);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/netmodel/hol/in-order", test_in_order);
  g_test_add_func ("/netmodel/hol/spike-blocks-its-link-only",
      test_spike_blocks_its_link_only);
  g_test_add_func ("/netmodel/hol/directions", test_directions);
  g_test_add_func ("/netmodel/hol/shared-guard", test_shared_guard);
  g_test_add_func ("/netmodel/hol/guards-per-security",
      test_guards_per_security);
  g_test_add_func ("/netmodel/hol/reopen-waits-for-setup",
      test_reopen_waits_for_setup);
  return g_test_run ();
}
