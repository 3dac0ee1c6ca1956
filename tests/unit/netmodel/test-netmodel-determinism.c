/* Same seed, same network; peek tells what send will do and changes
 * nothing; names and parameters. */
#include <string.h>

#include "netmodel-test-util.h"

#define N_LINKS 12

/* The arrivals of a 5-minute 12-link call, with reopens on failure and,
 * when `peeks`, a look into the future before every send. */
static GArray *
run_call (DonarSecurity security, guint64 seed, gboolean peeks)
{
  DonarNetModelParams p;
  DonarNetModel *m;
  GArray *arrivals = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 t;
  guint frame = 0;

  donar_net_model_params_init (&p, security);
  /* Failures often enough that reopens happen in 5 minutes. */
  p.guard_failures_per_hour = 10.0;
  m = donar_net_model_new_with_params (&p, N_LINKS, seed, 0);

  for (t = 0; t < S (300); t += MS (40), frame++) {
    guint link = frame % N_LINKS, dir;

    if (t >= donar_net_model_failure_time (m, link))
      donar_net_model_reopen (m, link, t);
    for (dir = 0; dir < 2; dir++) {
      gint64 arrival;

      if (peeks) {
        gint64 now = donar_net_model_peek (m, link, dir, t, 172);

        /* The future and the past of other links: no effect. */
        donar_net_model_peek (m, (link + 5) % N_LINKS, dir, t + S (30), 172);
        donar_net_model_peek (m, (link + 1) % N_LINKS, dir, t + S (3), 400);
        arrival = donar_net_model_send (m, link, dir, t, 172);
        g_assert_cmpint (now, ==, arrival);
      } else {
        arrival = donar_net_model_send (m, link, dir, t, 172);
      }
      g_array_append_val (arrivals, arrival);
    }
  }
  donar_net_model_free (m);
  return arrivals;
}

static gboolean
same_arrivals (GArray * a, GArray * b)
{
  return a->len == b->len && memcmp (a->data, b->data,
      a->len * sizeof (gint64)) == 0;
}

static void
test_same_seed (void)
{
  guint s;

  for (s = 0; s < DONAR_SECURITY_COUNT; s++) {
    GArray *a = run_call ((DonarSecurity) s, 1234, FALSE);
    GArray *b = run_call ((DonarSecurity) s, 1234, FALSE);
    GArray *c = run_call ((DonarSecurity) s, 1235, FALSE);
    guint i, lost = 0, differ = 0;

    g_assert_true (same_arrivals (a, b));
    g_assert_false (same_arrivals (a, c));
    for (i = 0; i < a->len; i++) {
      lost += g_array_index (a, gint64, i) < 0;
      differ += g_array_index (a, gint64, i) != g_array_index (c, gint64, i);
    }
    /* Different seeds: different networks, not a shifted copy. */
    g_assert_cmpuint (differ, >, a->len / 2);
    /* Something failed and came back. */
    g_assert_cmpuint (lost, >, 0);
    g_assert_cmpuint (lost, <, a->len / 4);
    g_array_unref (a);
    g_array_unref (b);
    g_array_unref (c);
  }
}

static void
test_peek_changes_nothing (void)
{
  guint s;

  for (s = 0; s < DONAR_SECURITY_COUNT; s++) {
    GArray *plain = run_call ((DonarSecurity) s, 99, FALSE);
    GArray *peeked = run_call ((DonarSecurity) s, 99, TRUE);

    g_assert_true (same_arrivals (plain, peeked));
    g_array_unref (plain);
    g_array_unref (peeked);
  }
}

static void
test_security_names (void)
{
  DonarSecurity s;
  guint i;

  for (i = 0; i < DONAR_SECURITY_COUNT; i++) {
    g_assert_true (donar_security_from_string (donar_security_to_string (i),
            &s));
    g_assert_cmpuint (s, ==, i);
  }
  g_assert_cmpstr (donar_security_to_string (DONAR_SECURITY_DEFAULT), ==,
      "default");
  g_assert_cmpstr (donar_security_to_string (DONAR_SECURITY_2HOP), ==, "2hop");
  g_assert_cmpstr (donar_security_to_string (DONAR_SECURITY_1WAY), ==, "1way");
  g_assert_false (donar_security_from_string ("3hop", &s));
  g_assert_false (donar_security_from_string ("", &s));
  g_assert_false (donar_security_from_string (NULL, &s));
}

static void
test_params_by_name (void)
{
  DonarNetModelParams p;
  const char *const *names = donar_net_model_params_names ();
  gdouble value;
  guint i;

  donar_net_model_params_init (&p, DONAR_SECURITY_2HOP);
  for (i = 0; names[i] != NULL; i++)
    g_assert_true (donar_net_model_params_get (&p, names[i], &value));
  g_assert_cmpuint (i, >, 20);

  g_assert_true (donar_net_model_params_set (&p, "spike_gap_median_s", 42));
  g_assert_cmpfloat (p.spike_gap_median_s, ==, 42.0);
  g_assert_false (donar_net_model_params_set (&p, "no_such_thing", 1));
  g_assert_false (donar_net_model_params_set (&p, "access_ms", -1));
  g_assert_false (donar_net_model_params_get (&p, "security", &value));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/netmodel/determinism/same-seed", test_same_seed);
  g_test_add_func ("/netmodel/determinism/peek-changes-nothing",
      test_peek_changes_nothing);
  g_test_add_func ("/netmodel/determinism/security-names", test_security_names);
  g_test_add_func ("/netmodel/determinism/params-by-name", test_params_by_name);
  return g_test_run ();
}
