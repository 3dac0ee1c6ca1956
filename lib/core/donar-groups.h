/* Link groups (seed 000, section 4.1): L1ST, the n1ST best links; L2ND, the
 * n2ND next; INACTIVE, the rest.  Every window the links are ranked by score,
 * the worst L2ND link is demoted and the INACTIVE link unused the longest is
 * promoted, so that every link gets measured now and then. */
#ifndef DONAR_GROUPS_H
#define DONAR_GROUPS_H

#include "donar.h"

G_BEGIN_DECLS

typedef struct
{
  guint n_links;
  guint n_1st;
  guint n_2nd;
  DonarGroup group[DONAR_MAX_LINKS];
  gboolean up[DONAR_MAX_LINKS];
  gboolean ever_up[DONAR_MAX_LINKS];
  gint64 last_used[DONAR_MAX_LINKS];
} DonarGroups;

/* Random groups at call start; every link down until told otherwise. */
void donar_groups_init (DonarGroups * groups, guint n_links, guint n_1st,
    guint n_2nd, GRand * rand);

/* A link keeps its random group the first time it comes up; a reopened
 * link joins INACTIVE. */
void donar_groups_link_up (DonarGroups * groups, guint link);
/* A closed link leaves its group; INACTIVE fills the gap. */
void donar_groups_link_down (DonarGroups * groups, guint link);
void donar_groups_mark_used (DonarGroups * groups, guint link, gint64 now);
/* Takes an L1ST or L2ND link out at once (to INACTIVE); INACTIVE fills the
 * gap.  TRUE if it was in one of them. */
gboolean donar_groups_demote (DonarGroups * groups, guint link);

/* scores[link]: centi-frames, lower is better, -1 unknown. */
void donar_groups_update (DonarGroups * groups, const gint32 * scores);

/* The links of a group that are up, in link order; returns their number. */
guint donar_groups_members (const DonarGroups * groups, DonarGroup group,
    guint * links);

G_END_DECLS

#endif /* DONAR_GROUPS_H */
