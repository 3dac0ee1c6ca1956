/* The relays of each link's circuit, as each side knows them (its own half
 * of the onion circuit, from tor's circuit-status).  Links through a
 * common relay share its spikes and its failures (seed 000, section 3):
 * two copies of a frame on them are not two chances.
 *
 * Each side tells the other which of its links share a relay as one byte a
 * link: bit i set when the link crosses the i-th relay that several links
 * cross.  The bits say which links go together, never which relay. */
#ifndef DONAR_PATHS_H
#define DONAR_PATHS_H

#include "donar.h"

G_BEGIN_DECLS

typedef struct
{
  guint n_links;
  guint n_relays[DONAR_MAX_LINKS];
  guint64 relays[DONAR_MAX_LINKS][DONAR_MAX_PATH_RELAYS];
  guint8 local_mask[DONAR_MAX_LINKS];
  guint8 peer_mask[DONAR_MAX_LINKS];
  /* Bit b of sharing[a]: donar_paths_share (a, b).  Kept as the masks
   * change (seldom; the peer's come in every message, mostly the same),
   * for ADAPTIVE, which asks at every frame. */
  guint32 sharing[DONAR_MAX_LINKS];
  gboolean peer_any;            /* a peer mask is not 0 */
} DonarPaths;

void donar_paths_init (DonarPaths * paths, guint n_links);
/* At most DONAR_MAX_PATH_RELAYS ids are kept; 0 relays: unknown. */
void donar_paths_set (DonarPaths * paths, guint link, const guint64 * relays,
    guint n_relays);
/* What the peer said of its half of each link. */
void donar_paths_set_peer (DonarPaths * paths, const guint8 * masks,
    guint n_masks);
/* The peer named no shared relay on its first n links: set_peer with
 * every mask 0. */
void donar_paths_clear_peer (DonarPaths * paths, guint n);
/* TRUE when a and b are the same link or have a relay in common on either
 * side. */
gboolean donar_paths_share (const DonarPaths * paths, guint a, guint b);
/* Bit b set for each link b that shares with `link` (itself included). */
guint32 donar_paths_sharing (const DonarPaths * paths, guint link);

G_END_DECLS

#endif /* DONAR_PATHS_H */
