/* A callee's paths.  Its tor says which rendezvous circuits the onion
 * service has, not which accepted connection came on which; the caller
 * tells each link's rendezvous point, and the link takes what the
 * circuits that end there have in common (donar-rendezvous-match.h).
 * Either may come first: a link is matched again at each. */
#include "donar-link-engine-private.h"

#include <string.h>

/* Far more than a call's links and their redials keep open at once: a
 * closing that tor's events did not tell leaves its circuit here until
 * it is the oldest. */
#define MAX_SERVICE_CIRCUITS (8 * DONAR_MAX_LINKS)

/* Under the lock. */
static void
match_link (DonarLinkEngine * engine, DonarLink * link)
{
  guint64 relays[DONAR_MAX_PATH_RELAYS];
  guint n;

  if (link->rendezvous == 0 || link->state != DONAR_LINK_OPEN)
    return;
  n = donar_rendezvous_match ((const DonarServiceCircuit *)
      engine->service_circuits->data, engine->service_circuits->len,
      link->rendezvous, relays);
  if (n == 0 || (n == link->n_path &&
          memcmp (relays, link->path, n * sizeof relays[0]) == 0))
    return;
  memcpy (link->path, relays, n * sizeof relays[0]);
  link->n_path = n;
  donar_link_path_apply (link);
}

void
donar_link_engine_peer_rendezvous (gpointer user_data, guint link,
    guint64 relay)
{
  DonarLinkEngine *engine = user_data;

  engine->links[link].rendezvous = relay;
  match_link (engine, &engine->links[link]);
}

void
donar_link_engine_set_service_circuit (DonarLinkEngine * engine,
    const gchar * circuit_id, const guint64 * relays, guint n_relays)
{
  GArray *circuits;
  guint i;

  g_return_if_fail (engine != NULL);
  g_return_if_fail (circuit_id != NULL);
  g_return_if_fail (relays != NULL || n_relays == 0);

  g_mutex_lock (&engine->lock);
  circuits = engine->service_circuits;
  for (i = 0; i < circuits->len; i++)
    if (strcmp (g_array_index (circuits, DonarServiceCircuit, i).id,
            circuit_id) == 0)
      break;
  if (i < circuits->len)
    g_array_remove_index (circuits, i);
  if (n_relays > 0) {
    DonarServiceCircuit circuit;

    memset (&circuit, 0, sizeof circuit);
    g_strlcpy (circuit.id, circuit_id, sizeof circuit.id);
    circuit.n_relays = MIN (n_relays, DONAR_MAX_PATH_RELAYS);
    memcpy (circuit.relays, relays, circuit.n_relays * sizeof relays[0]);
    if (circuits->len == MAX_SERVICE_CIRCUITS)
      g_array_remove_index (circuits, 0);
    g_array_append_val (circuits, circuit);
  }
  for (guint link = 0; link < engine->settings.config.n_links; link++)
    match_link (engine, &engine->links[link]);
  g_mutex_unlock (&engine->lock);
}
