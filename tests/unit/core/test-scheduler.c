/* The links each policy chooses over 20 frames, computed by hand. */
#include "donar-scheduler.h"

#include <string.h>

/* L1ST = {1, 4, 8}, L2ND = {2, 6, 7}, the rest INACTIVE, all up. */
static void
fixed_groups (DonarGroups * g)
{
  memset (g, 0, sizeof *g);
  g->n_links = 12;
  g->n_1st = 3;
  g->n_2nd = 3;
  for (guint link = 0; link < 12; link++) {
    g->up[link] = TRUE;
    g->group[link] = DONAR_GROUP_INACTIVE;
  }
  g->group[1] = g->group[4] = g->group[8] = DONAR_GROUP_1ST;
  g->group[2] = g->group[6] = g->group[7] = DONAR_GROUP_2ND;
}

static void
test_alternate (void)
{
  /* L1ST and L2ND in turn, round-robin inside each group. */
  static const guint expected[20] = {
    1, 2, 4, 6, 8, 7, 1, 2, 4, 6, 8, 7, 1, 2, 4, 6, 8, 7, 1, 2,
  };
  DonarScheduler s;
  DonarGroups g;
  guint links[2];

  fixed_groups (&g);
  donar_scheduler_init (&s, DONAR_POLICY_ALTERNATE);
  for (guint f = 0; f < 20; f++) {
    g_assert_cmpuint (donar_scheduler_pick (&s, &g, links), ==, 1);
    g_assert_cmpuint (links[0], ==, expected[f]);
  }
}

static void
test_double_send (void)
{
  /* One L1ST and one L2ND link per frame. */
  static const guint expected[20][2] = {
    {1, 2}, {4, 6}, {8, 7}, {1, 2}, {4, 6}, {8, 7}, {1, 2}, {4, 6},
    {8, 7}, {1, 2}, {4, 6}, {8, 7}, {1, 2}, {4, 6}, {8, 7}, {1, 2},
    {4, 6}, {8, 7}, {1, 2}, {4, 6},
  };
  DonarScheduler s;
  DonarGroups g;
  guint links[2];

  fixed_groups (&g);
  donar_scheduler_init (&s, DONAR_POLICY_DOUBLE_SEND);
  for (guint f = 0; f < 20; f++) {
    g_assert_cmpuint (donar_scheduler_pick (&s, &g, links), ==, 2);
    g_assert_cmpuint (links[0], ==, expected[f][0]);
    g_assert_cmpuint (links[1], ==, expected[f][1]);
  }
}

static void
test_baselines (void)
{
  DonarScheduler s;
  DonarGroups g;
  guint links[2];

  fixed_groups (&g);
  donar_scheduler_init (&s, DONAR_POLICY_SIMPLE);
  for (guint f = 0; f < 20; f++) {
    g_assert_cmpuint (donar_scheduler_pick (&s, &g, links), ==, 1);
    g_assert_cmpuint (links[0], ==, 0);
  }
  donar_scheduler_init (&s, DONAR_POLICY_TORFONE);
  for (guint f = 0; f < 20; f++) {
    g_assert_cmpuint (donar_scheduler_pick (&s, &g, links), ==, 2);
    g_assert_cmpuint (links[0], ==, 0);
    g_assert_cmpuint (links[1], ==, 1);
  }
}

static void
test_groups_missing (void)
{
  DonarScheduler s;
  DonarGroups g;
  guint links[2];

  /* L2ND all down: ALTERNATE's L2ND turns go to L1ST, whose round-robin
   * goes on, so that consecutive frames still take different links. */
  fixed_groups (&g);
  g.up[2] = g.up[6] = g.up[7] = FALSE;
  donar_scheduler_init (&s, DONAR_POLICY_ALTERNATE);
  for (guint f = 0; f < 6; f++) {
    static const guint expected[6] = { 1, 4, 8, 1, 4, 8 };

    g_assert_cmpuint (donar_scheduler_pick (&s, &g, links), ==, 1);
    g_assert_cmpuint (links[0], ==, expected[f]);
  }

  /* DOUBLE-SEND with a single L1ST link and no L2ND: the second copy goes
   * on an INACTIVE link, never on the first one's. */
  g.up[4] = g.up[8] = FALSE;
  donar_scheduler_init (&s, DONAR_POLICY_DOUBLE_SEND);
  g_assert_cmpuint (donar_scheduler_pick (&s, &g, links), ==, 2);
  g_assert_cmpuint (links[0], ==, 1);
  g_assert_cmpuint (links[1], ==, 0);

  /* One link up in all: one copy. */
  for (guint link = 0; link < 12; link++)
    g.up[link] = link == 11;
  g_assert_cmpuint (donar_scheduler_pick (&s, &g, links), ==, 1);
  g_assert_cmpuint (links[0], ==, 11);
  /* None: nothing. */
  g.up[11] = FALSE;
  g_assert_cmpuint (donar_scheduler_pick (&s, &g, links), ==, 0);
  donar_scheduler_init (&s, DONAR_POLICY_SIMPLE);
  g_assert_cmpuint (donar_scheduler_pick (&s, &g, links), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scheduler/alternate", test_alternate);
  g_test_add_func ("/scheduler/double-send", test_double_send);
  g_test_add_func ("/scheduler/baselines", test_baselines);
  g_test_add_func ("/scheduler/groups-missing", test_groups_missing);
  return g_test_run ();
}
