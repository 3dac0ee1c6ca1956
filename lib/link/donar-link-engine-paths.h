/* What tor tells of the circuits of a call's links, for the ADAPTIVE
 * policy's paths (docs/link-engine.md): the call reads it from the control
 * client (lib/call/donar-call-paths.c), which is not installed, so neither
 * is this. */
#ifndef DONAR_LINK_ENGINE_PATHS_H
#define DONAR_LINK_ENGINE_PATHS_H

#include "donar-link-engine.h"

G_BEGIN_DECLS

/* Caller: tor built or extended the circuit of the streams with this SOCKS
 * username (each dial of a link has its own): relays are opaque ids of
 * its relays, in order (donar_session_set_link_path).  The link it
 * belongs to, if any, passes them to the session once open, and until it
 * closes or dials again; a username of no current dial is ignored. */
void donar_link_engine_set_circuit_path (DonarLinkEngine * engine,
    const gchar * socks_username, const guint64 * relays, guint n_relays);

/* Callee: tor built (relays, in order, the last the caller's rendezvous
 * point) or closed (n_relays 0) a rendezvous circuit of the call's onion,
 * whose id is circuit_id.  A link whose caller told that rendezvous point
 * (RENDEZVOUS) takes the relays that every live circuit ending there
 * crosses as its path (donar_session_set_link_path). */
void donar_link_engine_set_service_circuit (DonarLinkEngine * engine,
    const gchar * circuit_id, const guint64 * relays, guint n_relays);

G_END_DECLS

#endif /* DONAR_LINK_ENGINE_PATHS_H */
