/* Which of a callee's circuits a link is.  Tor lists the onion service's
 * rendezvous circuits, each ending at the rendezvous point its caller's
 * tor chose, but not which accepted connection came on which; the caller
 * tells each link's rendezvous point (RENDEZVOUS, docs/protocol.md).
 * Where several live circuits end at that relay (a small network, or one
 * left from an earlier dial), the link is known to cross only the relays
 * that every one of them crosses: never a relay it may not cross. */
#ifndef DONAR_RENDEZVOUS_MATCH_H
#define DONAR_RENDEZVOUS_MATCH_H

#include <donar.h>

G_BEGIN_DECLS

typedef struct
{
  gchar id[24];                 /* tor's circuit id */
  guint n_relays;
  guint64 relays[DONAR_MAX_PATH_RELAYS];
} DonarServiceCircuit;

/* The relays (at most DONAR_MAX_PATH_RELAYS, in the order of the first
 * circuit that ends at `rendezvous`) that every circuit ending there
 * crosses; 0 when none ends there. */
guint donar_rendezvous_match (const DonarServiceCircuit * circuits,
    guint n_circuits, guint64 rendezvous, guint64 * relays);

G_END_DECLS

#endif /* DONAR_RENDEZVOUS_MATCH_H */
