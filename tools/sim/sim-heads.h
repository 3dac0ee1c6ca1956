/* The earliest of the records at the head of each FIFO of a call: a binary
 * heap of the FIFOs that hold one, keyed by its arrival.  Among equal
 * arrivals the lowest index comes first, so that the event loop takes them
 * in the order a scan of the FIFOs would. */
#ifndef SIM_HEADS_H
#define SIM_HEADS_H

#include "donar.h"

G_BEGIN_DECLS

#define SIM_HEADS_MAX (2 * DONAR_MAX_LINKS)

typedef struct
{
  guint n;
  guint heap[SIM_HEADS_MAX];    /* FIFO indexes, the earliest first */
  gint position[SIM_HEADS_MAX]; /* of each FIFO in heap, -1: empty */
  gint64 arrival[SIM_HEADS_MAX];
} SimHeads;

void sim_heads_init (SimHeads * heads);
/* FIFO `index` now has its oldest record arriving at `arrival`; G_MAXINT64:
 * it is empty. */
void sim_heads_set (SimHeads * heads, guint index, gint64 arrival);
/* The earliest arrival and its FIFO, or G_MAXINT64 when all are empty. */
gint64 sim_heads_earliest (const SimHeads * heads, guint * index);

G_END_DECLS

#endif /* SIM_HEADS_H */
