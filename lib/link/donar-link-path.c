/* The relays of a caller's links, as tor tells them for the circuit of
 * each dial's SOCKS username.  Tor often tells them before its SOCKS reply
 * (the circuit is built before the stream goes on it), so they are kept
 * with the link and reach the session when it opens: the session forgets
 * a link's path when the link goes down. */
#include "donar-link-engine-private.h"

#include <string.h>

void
donar_link_path_reset (DonarLink * link, const gchar * socks_username)
{
  g_strlcpy (link->socks_username, socks_username, sizeof link->socks_username);
  link->n_path = 0;
  link->rendezvous = 0;
}

void
donar_link_path_apply (DonarLink * link)
{
  if (link->n_path == 0)
    return;
  donar_session_set_link_path (link->engine->session, link->index,
      link->path, link->n_path);
  link->engine->paths_told++;
}

void
donar_link_engine_set_circuit_path (DonarLinkEngine * engine,
    const gchar * socks_username, const guint64 * relays, guint n_relays)
{
  g_return_if_fail (engine != NULL);
  g_return_if_fail (relays != NULL || n_relays == 0);

  /* "" is every link between its dials. */
  if (socks_username == NULL || socks_username[0] == '\0')
    return;
  g_mutex_lock (&engine->lock);
  for (guint i = 0; i < engine->settings.config.n_links; i++) {
    DonarLink *link = &engine->links[i];

    if (strcmp (link->socks_username, socks_username) != 0)
      continue;
    link->n_path = MIN (n_relays, DONAR_MAX_PATH_RELAYS);
    if (link->n_path > 0)
      memcpy (link->path, relays, link->n_path * sizeof relays[0]);
    if (link->state == DONAR_LINK_OPEN && link->n_path > 0) {
      donar_session_set_link_path (engine->session, i, link->path,
          link->n_path);
      engine->paths_told++;
    }
    break;
  }
  g_mutex_unlock (&engine->lock);
}

guint
donar_link_engine_count_paths (DonarLinkEngine * engine)
{
  guint known = 0;

  for (guint i = 0; i < engine->settings.config.n_links; i++)
    known += engine->links[i].state == DONAR_LINK_OPEN &&
        engine->links[i].n_path > 0;
  return known;
}
