/* Link groups, ranking, promotion and demotion. */
#include "donar-groups.h"

#include <stdlib.h>
#include <string.h>

static guint
group_size (const DonarGroups * groups, DonarGroup group)
{
  return group == DONAR_GROUP_1ST ? groups->n_1st :
      group == DONAR_GROUP_2ND ? groups->n_2nd : G_MAXUINT;
}

/* Links of a group that are up or still on their first connection, whose
 * place is kept for them. */
static guint
group_count (const DonarGroups * groups, DonarGroup group)
{
  guint n = 0;

  for (guint link = 0; link < groups->n_links; link++)
    if ((groups->up[link] || !groups->ever_up[link]) &&
        groups->group[link] == group)
      n++;
  return n;
}

guint
donar_groups_members (const DonarGroups * groups, DonarGroup group,
    guint * links)
{
  guint n = 0;

  for (guint link = 0; link < groups->n_links; link++)
    if (groups->up[link] && groups->group[link] == group)
      links[n++] = link;
  return n;
}

void
donar_groups_init (DonarGroups * groups, guint n_links, guint n_1st,
    guint n_2nd, GRand * rand)
{
  guint order[DONAR_MAX_LINKS];

  memset (groups, 0, sizeof *groups);
  groups->n_links = n_links;
  groups->n_1st = n_1st;
  groups->n_2nd = n_2nd;

  /* Fisher-Yates: a uniform random order of the links. */
  for (guint i = 0; i < n_links; i++)
    order[i] = i;
  for (guint i = n_links - 1; i > 0; i--) {
    guint j = g_rand_int_range (rand, 0, i + 1);
    guint t = order[i];

    order[i] = order[j];
    order[j] = t;
  }
  for (guint i = 0; i < n_links; i++) {
    guint link = order[i];

    groups->group[link] = i < n_1st ? DONAR_GROUP_1ST :
        i < n_1st + n_2nd ? DONAR_GROUP_2ND : DONAR_GROUP_INACTIVE;
    groups->last_used[link] = G_MININT64;
  }
}

/* The up INACTIVE link unused the longest (never used counts as longest;
 * ties go to the lowest link id), or -1. */
static gint
least_recently_used_inactive (const DonarGroups * groups, gint except)
{
  gint best = -1;

  for (guint link = 0; link < groups->n_links; link++) {
    if (!groups->up[link] || groups->group[link] != DONAR_GROUP_INACTIVE ||
        (gint) link == except)
      continue;
    if (best < 0 || groups->last_used[link] < groups->last_used[best])
      best = link;
  }
  return best;
}

/* Tops up L1ST then L2ND from INACTIVE, the longest unused first. */
static void
fill_gaps (DonarGroups * groups)
{
  for (DonarGroup group = DONAR_GROUP_1ST; group <= DONAR_GROUP_2ND; group++) {
    while (group_count (groups, group) < group_size (groups, group)) {
      gint link = least_recently_used_inactive (groups, -1);

      if (link < 0)
        return;
      groups->group[link] = group;
    }
  }
}

void
donar_groups_link_up (DonarGroups * groups, guint link)
{
  if (groups->ever_up[link]) {
    groups->group[link] = DONAR_GROUP_INACTIVE;
    groups->last_used[link] = G_MININT64;
  }
  groups->up[link] = TRUE;
  groups->ever_up[link] = TRUE;
  fill_gaps (groups);
}

void
donar_groups_link_down (DonarGroups * groups, guint link)
{
  groups->up[link] = FALSE;
  groups->group[link] = DONAR_GROUP_INACTIVE;
  fill_gaps (groups);
}

gboolean
donar_groups_demote (DonarGroups * groups, guint link)
{
  if (!groups->up[link] || groups->group[link] == DONAR_GROUP_INACTIVE)
    return FALSE;
  groups->group[link] = DONAR_GROUP_INACTIVE;
  fill_gaps (groups);
  return TRUE;
}

void
donar_groups_mark_used (DonarGroups * groups, guint link, gint64 now)
{
  groups->last_used[link] = now;
}

typedef struct
{
  guint link;
  gint32 score;
  DonarGroup group;
} Ranked;

/* Known scores before unknown ones, lower before higher; on a tie the link
 * keeps its place, so that equally good links do not churn. */
static int
compare_ranked (const void *pa, const void *pb)
{
  const Ranked *a = pa, *b = pb;

  if ((a->score < 0) != (b->score < 0))
    return a->score < 0 ? 1 : -1;
  if (a->score != b->score)
    return a->score < b->score ? -1 : 1;
  if (a->group != b->group)
    return a->group < b->group ? -1 : 1;
  return a->link < b->link ? -1 : a->link > b->link;
}

void
donar_groups_update (DonarGroups * groups, const gint32 * scores)
{
  Ranked ranked[DONAR_MAX_LINKS];
  guint n = 0;
  gint worst_2nd = -1, promoted;

  for (guint link = 0; link < groups->n_links; link++) {
    /* A link not up has no place to keep once the ranking is made. */
    if (!groups->up[link]) {
      groups->group[link] = DONAR_GROUP_INACTIVE;
      continue;
    }
    ranked[n].link = link;
    ranked[n].score = scores[link];
    ranked[n].group = groups->group[link];
    n++;
  }
  qsort (ranked, n, sizeof ranked[0], compare_ranked);

  for (guint i = 0; i < n; i++) {
    DonarGroup group = i < groups->n_1st ? DONAR_GROUP_1ST :
        i < groups->n_1st + groups->n_2nd ? DONAR_GROUP_2ND :
        DONAR_GROUP_INACTIVE;

    groups->group[ranked[i].link] = group;
    if (group == DONAR_GROUP_2ND)
      worst_2nd = ranked[i].link;
  }

  promoted = least_recently_used_inactive (groups, worst_2nd);
  if (worst_2nd >= 0 && promoted >= 0) {
    groups->group[worst_2nd] = DONAR_GROUP_INACTIVE;
    groups->group[promoted] = DONAR_GROUP_2ND;
  }
}
