/* Records in flight on one direction of one link.  The link model delivers
 * them in order (a TCP stream), so a FIFO is all the ordering they need. */
#ifndef SIM_FIFO_H
#define SIM_FIFO_H

#include "donar.h"

G_BEGIN_DECLS

typedef struct
{
  gint64 arrival;
  guint16 length;
  guint8 data[DONAR_CELL_PAYLOAD];
} SimRecord;

typedef struct
{
  SimRecord *records;
  guint capacity;
  guint head;
  guint count;
} SimFifo;

void sim_fifo_init (SimFifo * fifo);
void sim_fifo_clear (SimFifo * fifo);
void sim_fifo_push (SimFifo * fifo, gint64 arrival, const guint8 * data,
    gsize length);
/* The oldest record, or NULL. */
const SimRecord *sim_fifo_peek (const SimFifo * fifo);
void sim_fifo_pop (SimFifo * fifo);

G_END_DECLS

#endif /* SIM_FIFO_H */
