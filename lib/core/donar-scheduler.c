/* SIMPLE, TORFONE, ALTERNATE and DOUBLE-SEND. */
#include "donar-scheduler.h"

void
donar_scheduler_init (DonarScheduler * scheduler, DonarPolicy policy)
{
  scheduler->policy = policy;
  scheduler->frames = 0;
  scheduler->turn[0] = scheduler->turn[1] = 0;
}

/* The baselines use fixed links: the lowest-numbered links that are up. */
static guint
pick_fixed (const DonarGroups * groups, guint wanted, guint * links)
{
  guint n = 0;

  for (guint link = 0; link < groups->n_links && n < wanted; link++)
    if (groups->up[link])
      links[n++] = link;
  return n;
}

/* The next link of `group` in round-robin order, skipping `avoid`; when the
 * group has none, the other active group, then INACTIVE, stand in, so that
 * a frame goes out whenever a link is up.  -1 if there is none. */
static gint
pick_round_robin (DonarScheduler * scheduler, const DonarGroups * groups,
    DonarGroup group, gint avoid)
{
  static const DonarGroup fallback[2][3] = {
    {DONAR_GROUP_1ST, DONAR_GROUP_2ND, DONAR_GROUP_INACTIVE},
    {DONAR_GROUP_2ND, DONAR_GROUP_1ST, DONAR_GROUP_INACTIVE},
  };
  guint members[DONAR_MAX_LINKS];

  for (guint i = 0; i < 3; i++) {
    DonarGroup g = fallback[group][i];
    guint n = donar_groups_members (groups, g, members), m = 0;

    for (guint k = 0; k < n; k++)
      if ((gint) members[k] != avoid)
        members[m++] = members[k];
    if (m == 0)
      continue;
    if (g == DONAR_GROUP_INACTIVE)
      return members[0];
    return members[scheduler->turn[g]++ % m];
  }
  return -1;
}

guint
donar_scheduler_pick (DonarScheduler * scheduler,
    const DonarGroups * groups, guint * links)
{
  guint64 frame = scheduler->frames++;
  gint first, second;

  switch (scheduler->policy) {
    case DONAR_POLICY_SIMPLE:
      return pick_fixed (groups, 1, links);
    case DONAR_POLICY_TORFONE:
      return pick_fixed (groups, 2, links);
    case DONAR_POLICY_ALTERNATE:
      first = pick_round_robin (scheduler, groups,
          frame % 2 == 0 ? DONAR_GROUP_1ST : DONAR_GROUP_2ND, -1);
      if (first < 0)
        return 0;
      links[0] = first;
      return 1;
    case DONAR_POLICY_DOUBLE_SEND:
    default:
      first = pick_round_robin (scheduler, groups, DONAR_GROUP_1ST, -1);
      if (first < 0)
        return 0;
      links[0] = first;
      second = pick_round_robin (scheduler, groups, DONAR_GROUP_2ND, first);
      if (second < 0)
        return 1;
      links[1] = second;
      return 2;
  }
}
