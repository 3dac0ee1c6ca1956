/* A growable ring of records in flight. */
#include "sim-fifo.h"

#include <string.h>

void
sim_fifo_init (SimFifo * fifo)
{
  memset (fifo, 0, sizeof *fifo);
}

void
sim_fifo_clear (SimFifo * fifo)
{
  g_free (fifo->records);
  memset (fifo, 0, sizeof *fifo);
}

void
sim_fifo_push (SimFifo * fifo, gint64 arrival, const guint8 * data,
    gsize length)
{
  SimRecord *record;

  g_assert (length <= DONAR_CELL_PAYLOAD);
  if (fifo->count == fifo->capacity) {
    guint capacity = MAX (16, fifo->capacity * 2);
    SimRecord *records = g_new (SimRecord, capacity);

    /* Unroll the ring into the new array, oldest first. */
    for (guint i = 0; i < fifo->count; i++)
      records[i] = fifo->records[(fifo->head + i) % fifo->capacity];
    g_free (fifo->records);
    fifo->records = records;
    fifo->capacity = capacity;
    fifo->head = 0;
  }
  record = &fifo->records[(fifo->head + fifo->count) % fifo->capacity];
  record->arrival = arrival;
  record->length = length;
  memcpy (record->data, data, length);
  fifo->count++;
}

const SimRecord *
sim_fifo_peek (const SimFifo * fifo)
{
  return fifo->count ? &fifo->records[fifo->head] : NULL;
}

void
sim_fifo_pop (SimFifo * fifo)
{
  g_assert (fifo->count > 0);
  fifo->head = (fifo->head + 1) % fifo->capacity;
  fifo->count--;
}
