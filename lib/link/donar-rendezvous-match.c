/* A callee's link matched to its circuits by the rendezvous point
 * (donar-rendezvous-match.h). */
#include "donar-rendezvous-match.h"

static gboolean
ends_at (const DonarServiceCircuit * circuit, guint64 relay)
{
  return circuit->n_relays > 0 &&
      circuit->relays[circuit->n_relays - 1] == relay;
}

static gboolean
crosses (const DonarServiceCircuit * circuit, guint64 relay)
{
  for (guint i = 0; i < circuit->n_relays; i++)
    if (circuit->relays[i] == relay)
      return TRUE;
  return FALSE;
}

guint
donar_rendezvous_match (const DonarServiceCircuit * circuits,
    guint n_circuits, guint64 rendezvous, guint64 * relays)
{
  const DonarServiceCircuit *first = NULL;
  guint n = 0;

  for (guint c = 0; c < n_circuits && first == NULL; c++)
    if (ends_at (&circuits[c], rendezvous))
      first = &circuits[c];
  if (first == NULL)
    return 0;
  for (guint i = 0; i < first->n_relays; i++) {
    gboolean everywhere = TRUE;

    for (guint c = 0; c < n_circuits && everywhere; c++)
      if (ends_at (&circuits[c], rendezvous))
        everywhere = crosses (&circuits[c], first->relays[i]);
    if (everywhere)
      relays[n++] = first->relays[i];
  }
  return n;
}
