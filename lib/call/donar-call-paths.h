/* The relays of each link's circuit, read from tor's control connection
 * and handed to the link engine.  A caller's: the circuits of its
 * streams, which the engine matches to its links by SOCKS username
 * (donar_link_engine_set_circuit_path).  A callee's (service_id, the
 * onion without ".onion"): the rendezvous circuits of its onion, which
 * the engine matches to its links by the rendezvous point each caller
 * tells (donar_link_engine_set_service_circuit).  No path is ever an
 * error: the ADAPTIVE policy then does without. */
#ifndef DONAR_CALL_PATHS_H
#define DONAR_CALL_PATHS_H

#include "donar-link-engine-paths.h"
#include "donar-tor-control.h"

G_BEGIN_DECLS

/* CIRC events: a circuit built or extended for a link's streams (caller,
 * service_id NULL), or a rendezvous circuit of service_id built or closed
 * (callee), tells the engine.  The handler is the connection's only
 * one. */
gboolean donar_call_paths_watch (DonarTorControl * control,
    DonarLinkEngine * engine, const gchar * service_id, gint64 deadline,
    GCancellable * cancellable, GError ** error);

/* GETINFO circuit-status, every stream circuit told to the engine.  Real
 * tor names a circuit's SOCKS username only once a stream is on it, after
 * the CIRC events of its building: a link that just opened is looked up
 * so. */
gboolean donar_call_paths_lookup (DonarTorControl * control,
    DonarLinkEngine * engine, const gchar * service_id, gint64 deadline,
    GCancellable * cancellable, GError ** error);

G_END_DECLS

#endif /* DONAR_CALL_PATHS_H */
