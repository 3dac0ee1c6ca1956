/* A caller's paths: the relays of each link's circuit, read from tor's
 * control connection and handed to the link engine, which matches them to
 * its links by SOCKS username (donar_link_engine_set_circuit_path).  No
 * path is ever an error: the ADAPTIVE policy then does without. */
#ifndef DONAR_CALL_PATHS_H
#define DONAR_CALL_PATHS_H

#include "donar-link-engine.h"
#include "donar-tor-control.h"

G_BEGIN_DECLS

/* CIRC events: a circuit built or extended for a link's streams tells
 * the engine its relays.  The handler is the connection's only one. */
gboolean donar_call_paths_watch (DonarTorControl * control,
    DonarLinkEngine * engine, gint64 deadline, GCancellable * cancellable,
    GError ** error);

/* GETINFO circuit-status, every stream circuit told to the engine.  Real
 * tor names a circuit's SOCKS username only once a stream is on it, after
 * the CIRC events of its building: a link that just opened is looked up
 * so. */
gboolean donar_call_paths_lookup (DonarTorControl * control,
    DonarLinkEngine * engine, gint64 deadline, GCancellable * cancellable,
    GError ** error);

G_END_DECLS

#endif /* DONAR_CALL_PATHS_H */
