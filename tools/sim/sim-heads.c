/* A binary min-heap of FIFO indexes with a position for each, so that one
 * FIFO's head can move without a scan of them all. */
#include "sim-heads.h"

void
sim_heads_init (SimHeads * heads)
{
  heads->n = 0;
  for (guint i = 0; i < SIM_HEADS_MAX; i++)
    heads->position[i] = -1;
}

static gboolean
earlier (const SimHeads * heads, guint a, guint b)
{
  return heads->arrival[a] < heads->arrival[b] ||
      (heads->arrival[a] == heads->arrival[b] && a < b);
}

static void
place (SimHeads * heads, guint at, guint index)
{
  heads->heap[at] = index;
  heads->position[index] = at;
}

static void
sift_up (SimHeads * heads, guint at)
{
  guint index = heads->heap[at];

  while (at > 0 && earlier (heads, index, heads->heap[(at - 1) / 2])) {
    place (heads, at, heads->heap[(at - 1) / 2]);
    at = (at - 1) / 2;
  }
  place (heads, at, index);
}

static void
sift_down (SimHeads * heads, guint at)
{
  guint index = heads->heap[at];

  while (2 * at + 1 < heads->n) {
    guint child = 2 * at + 1;

    if (child + 1 < heads->n &&
        earlier (heads, heads->heap[child + 1], heads->heap[child]))
      child++;
    if (!earlier (heads, heads->heap[child], index))
      break;
    place (heads, at, heads->heap[child]);
    at = child;
  }
  place (heads, at, index);
}

void
sim_heads_set (SimHeads * heads, guint index, gint64 arrival)
{
  gint at = heads->position[index];

  g_assert (index < SIM_HEADS_MAX);
  if (arrival == G_MAXINT64) {
    guint last;

    if (at < 0)
      return;
    /* The last entry fills the gap, then moves to its place. */
    heads->position[index] = -1;
    last = heads->heap[--heads->n];
    if ((guint) at == heads->n)
      return;
    place (heads, at, last);
    sift_up (heads, at);
    sift_down (heads, heads->position[last]);
    return;
  }
  heads->arrival[index] = arrival;
  if (at < 0) {
    place (heads, heads->n++, index);
    sift_up (heads, heads->n - 1);
    return;
  }
  sift_up (heads, at);
  sift_down (heads, heads->position[index]);
}

gint64
sim_heads_earliest (const SimHeads * heads, guint * index)
{
  if (heads->n == 0)
    return G_MAXINT64;
  *index = heads->heap[0];
  return heads->arrival[*index];
}
