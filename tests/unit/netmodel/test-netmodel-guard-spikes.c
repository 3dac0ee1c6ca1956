/* caller_guard_spike_gap_s / callee_guard_spike_gap_s: one side's guards
 * flaky for the whole call.  On a network without chance (no jitter, loss,
 * failure or spike of its own), every spike a link sees is its callee
 * guard's, so the links through one guard see the same spikes at the same
 * instants, and the count of spikes follows the quiet period by hand. */
#include <math.h>

#include "netmodel-test-util.h"

#define N_LINKS 12
#define GAP_S 10.0
#define SPIKE_S 0.1
#define EXTRA_MS 400.0
#define HORIZON_S 2000.0
#define STEP_MS 20

/* Every spike exactly SPIKE_S long and EXTRA_MS high: a Pareto of huge
 * alpha is its minimum, a lognormal of sigma 0 its median. */
static void
sharp_spike_params (DonarNetModelParams * p, DonarSecurity security)
{
  quiet_params (p, security);
  p->spike_duration_min_s = SPIKE_S;
  p->spike_duration_alpha = 1e9;
  p->spike_extra_median_ms = EXTRA_MS;
  p->spike_extra_sigma = 0.0;
}

/* The extra delay of a packet of `link` sent at t over its base delay: a
 * peek, so that no earlier packet holds it up (in-order delivery). */
static gint64
extra_at (DonarNetModel * m, guint link, gint64 t)
{
  return donar_net_model_peek (m, link, 0, t, 172) - t -
      donar_net_model_link_base_delay (m, link);
}

/* The extra delay at t of the links through each guard of `side` (-1: no
 * link through it), checking that a link sees only that guard's spikes,
 * exactly EXTRA_MS high, and the same as every link through it. */
static void
extras_by_guard (DonarNetModel * m, guint side, gint64 t, gint64 extra[2])
{
  extra[0] = extra[1] = -1;
  for (guint link = 0; link < N_LINKS; link++) {
    gint guard = donar_net_model_link_guard (m, link, side);
    gint64 e = extra_at (m, link, t);

    g_assert_true (e == 0 || e == MS (EXTRA_MS));
    if (extra[guard] >= 0)
      g_assert_cmpint (e, ==, extra[guard]);
    extra[guard] = e;
  }
}

static void
test_callee_guards_spike_together (void)
{
  DonarNetModelParams p;
  DonarNetModel *m;
  guint onsets[2] = { 0, 0 }, run[2] = { 0, 0 };
  gboolean apart = FALSE;
  gint64 t;
  /* Quiet periods are exponential of mean GAP_S and each spike lasts
   * SPIKE_S: a renewal process of mean GAP_S + SPIKE_S and standard
   * deviation GAP_S, so HORIZON_S holds 2000 / 10.1 = 198 spikes, give or
   * take sqrt (2000 × 10² / 10.1³) = 13.9. */
  gdouble expected = HORIZON_S / (GAP_S + SPIKE_S);
  gdouble sd = sqrt (HORIZON_S * GAP_S * GAP_S / pow (GAP_S + SPIKE_S, 3));

  sharp_spike_params (&p, DONAR_SECURITY_DEFAULT);
  g_assert_true (donar_net_model_params_set (&p, "callee_guard_spike_gap_s",
          GAP_S));
  m = donar_net_model_new_with_params (&p, N_LINKS, 5, 0);

  for (t = 0; t < S (HORIZON_S); t += MS (STEP_MS)) {
    gint64 extra[2];

    extras_by_guard (m, 1, t, extra);
    for (guint g = 0; g < 2; g++) {
      if (extra[g] > 0) {
        onsets[g] += run[g] == 0;
        run[g]++;
      } else if (run[g] > 0) {
        /* SPIKE_S is 5 samples of STEP_MS (6 when a sample falls on the
         * very start). */
        g_assert_cmpuint (run[g], >=, 5);
        g_assert_cmpuint (run[g], <=, 6);
        run[g] = 0;
      }
    }
    apart = apart || (extra[0] >= 0 && extra[1] >= 0 && extra[0] != extra[1]);
  }
  donar_net_model_free (m);

  g_test_message ("spikes of the callee's guards: %u and %u (%.0f +- %.0f)",
      onsets[0], onsets[1], expected, sd);
  for (guint g = 0; g < 2; g++)
    g_assert_cmpfloat (fabs (onsets[g] - expected), <, 5 * sd);
  /* The two guards are relays of their own. */
  g_assert_true (apart);
}

/* The caller's guards alone: the same spikes on every link through one of
 * them, and the callee's guards stay quiet; in 1way, where the callee has
 * no guard, the callee's parameter changes nothing. */
static void
test_sides_apart (void)
{
  DonarNetModelParams p;
  DonarNetModel *m;
  guint spiked = 0;
  gint64 t;
  guint link;

  sharp_spike_params (&p, DONAR_SECURITY_2HOP);
  p.caller_guard_spike_gap_s = GAP_S;
  m = donar_net_model_new_with_params (&p, N_LINKS, 6, 0);
  for (t = 0; t < S (200); t += MS (STEP_MS)) {
    gint64 extra[2];

    extras_by_guard (m, 0, t, extra);
    spiked += extra[0] > 0 || extra[1] > 0;
  }
  donar_net_model_free (m);
  g_assert_cmpuint (spiked, >, 0);

  sharp_spike_params (&p, DONAR_SECURITY_1WAY);
  p.callee_guard_spike_gap_s = GAP_S;
  m = donar_net_model_new_with_params (&p, N_LINKS, 6, 0);
  for (t = 0; t < S (200); t += MS (STEP_MS))
    for (link = 0; link < N_LINKS; link++)
      g_assert_cmpint (extra_at (m, link, t), ==, 0);
  donar_net_model_free (m);
}

/* 0 in every configuration: the model as calibrated. */
static void
test_off_by_default (void)
{
  for (DonarSecurity s = 0; s < DONAR_SECURITY_COUNT; s++) {
    DonarNetModelParams p;

    donar_net_model_params_init (&p, s);
    g_assert_cmpfloat (p.caller_guard_spike_gap_s, ==, 0.0);
    g_assert_cmpfloat (p.callee_guard_spike_gap_s, ==, 0.0);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/netmodel/guard-spikes/callee-together",
      test_callee_guards_spike_together);
  g_test_add_func ("/netmodel/guard-spikes/sides-apart", test_sides_apart);
  g_test_add_func ("/netmodel/guard-spikes/off-by-default",
      test_off_by_default);
  return g_test_run ();
}
