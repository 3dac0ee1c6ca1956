/* The relays of a circuit as DONAR's core compares links by them: each
 * LongName of a circuit's path (control-spec 2.4: "$", the fingerprint in
 * 40 hex digits, then "~" or "=" and a nickname, or nothing) made into an
 * opaque 64-bit id, and which circuits tell a SOCKS client's path at
 * all. */
#ifndef DONAR_TORCTL_RELAY_H
#define DONAR_TORCTL_RELAY_H

#include "donar-torctl-status.h"

G_BEGIN_DECLS

/* The first 8 bytes of the fingerprint, as a big-endian number: a relay
 * keeps its id on every circuit and in every tor.  A name without a
 * fingerprint (a bare nickname, as tor before 0.2.2 wrote) or with a bad
 * one gives DONAR_TORCTL_ERROR_MALFORMED. */
DonarTorctlError donar_torctl_relay_id (const gchar * long_name,
    guint64 * id);

/* TRUE when the circuit (of circuit-status or a CIRC event) is one tor
 * built or extends for the streams of an isolated SOCKS client, and
 * names each of its relays by fingerprint: then ids holds the first
 * MIN (path length, max_ids) of them, in order, and circuit->socks_username
 * says whose streams it carries.  FALSE, with *n_ids 0, for every other
 * circuit (without SOCKS_USERNAME, of a purpose that carries no stream,
 * not built, or with a relay not named by fingerprint): it says nothing
 * of a client's path. */
gboolean donar_torctl_circuit_stream_path (const DonarTorctlCircuit *
    circuit, guint64 * ids, guint max_ids, guint * n_ids);

/* The same for an onion service's side: TRUE when the circuit is one tor
 * built to a caller's rendezvous point for service_id (purpose
 * HS_SERVICE_REND, REND_QUERY the service id without ".onion"), every
 * relay named by fingerprint; its last relay is the rendezvous point. */
gboolean donar_torctl_circuit_service_path (const DonarTorctlCircuit *
    circuit, const gchar * service_id, guint64 * ids, guint max_ids,
    guint * n_ids);

/* A rendezvous circuit of service_id that tor closed or failed: the
 * links it carried are gone with it. */
gboolean donar_torctl_circuit_service_gone (const DonarTorctlCircuit *
    circuit, const gchar * service_id);

G_END_DECLS

#endif /* DONAR_TORCTL_RELAY_H */
