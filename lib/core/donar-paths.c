/* Which links share a relay, on this side and on the peer's. */
#include "donar-paths.h"

#include <string.h>

static inline gboolean
share (const DonarPaths * paths, guint a, guint b)
{
  return a == b || (paths->local_mask[a] & paths->local_mask[b]) != 0 ||
      (paths->peer_mask[a] & paths->peer_mask[b]) != 0;
}

static void
update_sharing (DonarPaths * paths)
{
  paths->peer_any = FALSE;
  for (guint a = 0; a < paths->n_links; a++)
    paths->peer_any |= paths->peer_mask[a] != 0;
  for (guint a = 0; a < paths->n_links; a++) {
    paths->sharing[a] = 0;
    for (guint b = 0; b < paths->n_links; b++)
      if (share (paths, a, b))
        paths->sharing[a] |= 1u << b;
  }
}

void
donar_paths_init (DonarPaths * paths, guint n_links)
{
  memset (paths, 0, sizeof *paths);
  paths->n_links = n_links;
  update_sharing (paths);
}

static gboolean
crosses (const DonarPaths * paths, guint link, guint64 relay)
{
  for (guint i = 0; i < paths->n_relays[link]; i++)
    if (paths->relays[link][i] == relay)
      return TRUE;
  return FALSE;
}

/* One bit for each relay that two links or more cross, in the order first
 * met; past 8 such relays, bits are shared (links then look more alike
 * than they are, never less). */
static void
update_masks (DonarPaths * paths)
{
  guint64 shared[DONAR_MAX_LINKS * DONAR_MAX_PATH_RELAYS];
  guint n_shared = 0;

  memset (paths->local_mask, 0, sizeof paths->local_mask);
  for (guint a = 0; a < paths->n_links; a++)
    for (guint i = 0; i < paths->n_relays[a]; i++) {
      guint64 relay = paths->relays[a][i];
      guint bit = 0;
      gboolean others = FALSE;

      for (guint b = 0; b < paths->n_links && !others; b++)
        others = b != a && crosses (paths, b, relay);
      if (!others)
        continue;
      while (bit < n_shared && shared[bit] != relay)
        bit++;
      if (bit == n_shared)
        shared[n_shared++] = relay;
      paths->local_mask[a] |= 1u << (bit % 8);
    }
  update_sharing (paths);
}

void
donar_paths_set (DonarPaths * paths, guint link, const guint64 * relays,
    guint n_relays)
{
  paths->n_relays[link] = MIN (n_relays, DONAR_MAX_PATH_RELAYS);
  if (paths->n_relays[link] > 0)
    memcpy (paths->relays[link], relays,
        paths->n_relays[link] * sizeof relays[0]);
  update_masks (paths);
}

void
donar_paths_clear_peer (DonarPaths * paths, guint n)
{
  /* Mostly the peer never named any: nothing to clear. */
  if (!paths->peer_any)
    return;
  memset (paths->peer_mask, 0, MIN (n, paths->n_links));
  update_sharing (paths);
}

void
donar_paths_set_peer (DonarPaths * paths, const guint8 * masks, guint n_masks)
{
  guint n = MIN (n_masks, paths->n_links);

  if (memcmp (paths->peer_mask, masks, n) == 0)
    return;
  memcpy (paths->peer_mask, masks, n);
  update_sharing (paths);
}

gboolean
donar_paths_share (const DonarPaths * paths, guint a, guint b)
{
  return share (paths, a, b);
}

guint32
donar_paths_sharing (const DonarPaths * paths, guint link)
{
  return paths->sharing[link];
}
