/* Groups after a window with known scores, promotion and demotion, random
 * groups at start, reopened links. */
#include "donar-groups.h"

static void
all_up (DonarGroups * g)
{
  for (guint link = 0; link < g->n_links; link++)
    donar_groups_link_up (g, link);
}

static void
assert_group (const DonarGroups * g, DonarGroup group, guint a, guint b,
    guint c)
{
  guint members[DONAR_MAX_LINKS];

  g_assert_cmpuint (donar_groups_members (g, group, members), ==, 3);
  g_assert_cmpuint (members[0], ==, a);
  g_assert_cmpuint (members[1], ==, b);
  g_assert_cmpuint (members[2], ==, c);
}

static void
test_random_start (void)
{
  DonarGroups a, b;
  GRand *rand = g_rand_new_with_seed (1);
  guint members[DONAR_MAX_LINKS];
  gboolean some_differ = FALSE;

  donar_groups_init (&a, 12, 3, 3, rand);
  all_up (&a);
  g_assert_cmpuint (donar_groups_members (&a, DONAR_GROUP_1ST, members), ==, 3);
  g_assert_cmpuint (donar_groups_members (&a, DONAR_GROUP_2ND, members), ==, 3);
  g_assert_cmpuint (donar_groups_members (&a, DONAR_GROUP_INACTIVE,
          members), ==, 6);

  /* The same seed, the same groups; other seeds, other groups. */
  g_rand_set_seed (rand, 1);
  donar_groups_init (&b, 12, 3, 3, rand);
  for (guint link = 0; link < 12; link++)
    g_assert_cmpint (a.group[link], ==, b.group[link]);
  for (guint32 seed = 2; seed < 6; seed++) {
    g_rand_set_seed (rand, seed);
    donar_groups_init (&b, 12, 3, 3, rand);
    for (guint link = 0; link < 12; link++)
      some_differ |= a.group[link] != b.group[link];
  }
  g_assert_true (some_differ);
  g_rand_free (rand);
}

/* Scores (centi-frames, -1 unknown), ranked by hand:
 *   link 1 (0), 8 (10), 4 (20) -> L1ST
 *   link 2 (40), 7 (60), 11 (80) -> L2ND, then 11, the worst, is demoted
 *   10 (200), 5 (300), 0 (500), 3 (1000), 6 (?), 9 (?) -> INACTIVE
 * Of the INACTIVE links, 6 and 9 were never used; 6 has the lower id and is
 * promoted. */
static void
test_update_with_known_scores (void)
{
  gint32 scores[12] = { 500, 0, 40, 1000, 20, 300, -1, 60, 10, -1, 200, 80 };
  GRand *rand = g_rand_new_with_seed (7);
  DonarGroups g;

  donar_groups_init (&g, 12, 3, 3, rand);
  all_up (&g);
  donar_groups_mark_used (&g, 10, 100);
  donar_groups_mark_used (&g, 5, 50);
  donar_groups_mark_used (&g, 0, 300);
  donar_groups_mark_used (&g, 3, 20);

  donar_groups_update (&g, scores);
  assert_group (&g, DONAR_GROUP_1ST, 1, 4, 8);
  assert_group (&g, DONAR_GROUP_2ND, 2, 6, 7);
  g_assert_cmpint (g.group[11], ==, DONAR_GROUP_INACTIVE);

  /* Link 6 was used and scored 30: it ranks 4th.  L2ND is 6, 2, 7; 7 is
   * demoted and 9, still never used, promoted. */
  donar_groups_mark_used (&g, 6, 400);
  scores[6] = 30;
  donar_groups_update (&g, scores);
  assert_group (&g, DONAR_GROUP_1ST, 1, 4, 8);
  assert_group (&g, DONAR_GROUP_2ND, 2, 6, 9);
  g_assert_cmpint (g.group[7], ==, DONAR_GROUP_INACTIVE);

  /* Everything used: the one unused the longest, 3 (at 20), is promoted. */
  for (guint link = 0; link < 12; link++)
    if (link != 3)
      donar_groups_mark_used (&g, link, 1000 + link);
  scores[9] = 5000;
  donar_groups_update (&g, scores);
  /* Ranking: 1, 8, 4 | 6, 2, 7 | 11, 10, 5, 0, 3, 9: 7 out, 3 in. */
  assert_group (&g, DONAR_GROUP_2ND, 2, 3, 6);
  g_rand_free (rand);
}

static void
test_link_down_and_reopened (void)
{
  gint32 scores[12] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
  GRand *rand = g_rand_new_with_seed (7);
  DonarGroups g;

  donar_groups_init (&g, 12, 3, 3, rand);
  all_up (&g);
  for (guint link = 0; link < 12; link++)
    donar_groups_mark_used (&g, link, 100 + link);
  donar_groups_update (&g, scores);
  /* 0, 1, 2 | 3, 4, 5 then 5 out and 6 (used at 106, the oldest) in. */
  assert_group (&g, DONAR_GROUP_1ST, 0, 1, 2);
  assert_group (&g, DONAR_GROUP_2ND, 3, 4, 6);

  /* Link 1 fails: the longest unused INACTIVE link, 5, fills the gap. */
  donar_groups_link_down (&g, 1);
  assert_group (&g, DONAR_GROUP_1ST, 0, 2, 5);
  g_assert_false (g.up[1]);

  /* Reopened, it joins INACTIVE as a never-used link with no score, next
   * to promote: 0, 2, 3 | 4, 5, 6 then 6 out and 1 in. */
  donar_groups_link_up (&g, 1);
  g_assert_cmpint (g.group[1], ==, DONAR_GROUP_INACTIVE);
  scores[1] = -1;
  donar_groups_update (&g, scores);
  assert_group (&g, DONAR_GROUP_1ST, 0, 2, 3);
  g_assert_cmpint (g.group[1], ==, DONAR_GROUP_2ND);
  g_rand_free (rand);
}

static void
test_fewer_links_up_than_groups (void)
{
  gint32 scores[12] = { 0 };
  GRand *rand = g_rand_new_with_seed (3);
  DonarGroups g;
  guint members[DONAR_MAX_LINKS];

  donar_groups_init (&g, 12, 3, 3, rand);
  donar_groups_link_up (&g, 9);
  donar_groups_link_up (&g, 10);
  donar_groups_update (&g, scores);
  g_assert_cmpuint (donar_groups_members (&g, DONAR_GROUP_1ST, members), ==, 2);
  g_assert_cmpuint (donar_groups_members (&g, DONAR_GROUP_2ND, members), ==, 0);
  /* The ranking gave up the places kept for links still connecting: one
   * that comes up now takes the third place of L1ST. */
  for (guint link = 0; link < 9; link++)
    g_assert_cmpint (g.group[link], ==, DONAR_GROUP_INACTIVE);
  donar_groups_link_up (&g, 0);
  g_assert_cmpint (g.group[0], ==, DONAR_GROUP_1ST);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/groups/random-start", test_random_start);
  g_test_add_func ("/groups/update-with-known-scores",
      test_update_with_known_scores);
  g_test_add_func ("/groups/link-down-and-reopened",
      test_link_down_and_reopened);
  g_test_add_func ("/groups/fewer-links-up-than-groups",
      test_fewer_links_up_than_groups);
  return g_test_run ();
}
