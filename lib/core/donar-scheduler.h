/* Scheduling policies (seed 000, section 4.2 and its baselines): which links
 * carry the next frame. */
#ifndef DONAR_SCHEDULER_H
#define DONAR_SCHEDULER_H

#include "donar-groups.h"

G_BEGIN_DECLS

#define DONAR_SCHEDULER_MAX_SENDS 2

typedef struct
{
  DonarPolicy policy;
  guint64 frames;
  guint64 turn[2];              /* round-robin position in L1ST, L2ND */
} DonarScheduler;

void donar_scheduler_init (DonarScheduler * scheduler, DonarPolicy policy);

/* Fills links[] with the distinct links for the next frame and returns how
 * many (0 when no link is up). */
guint donar_scheduler_pick (DonarScheduler * scheduler,
    const DonarGroups * groups, guint * links);

G_END_DECLS

#endif /* DONAR_SCHEDULER_H */
