/* Why a caller's link did not come up, as far as what it saw tells: the
 * SOCKS port, Tor's reply (with or without ExtendedErrors), or the callee.
 * Each link keeps its last one; while no link is up, the engine names the
 * most telling of them (donar_link_failure_rank) to the user, who must
 * otherwise wait for peer_timeout_us with no word. */
#ifndef DONAR_LINK_FAILURE_H
#define DONAR_LINK_FAILURE_H

#include <donar-socks.h>

G_BEGIN_DECLS

/* In the order of what explains the most: a SOCKS port that is not one
 * explains every failure after it, a wrong secret every Tor success
 * that ends at once, and so on down to links still waiting on Tor. */
typedef enum
{
  DONAR_LINK_FAILURE_NONE,
  /* Still waiting for Tor's reply to the CONNECT. */
  DONAR_LINK_FAILURE_DIALING,
  /* No stream within the connect timeout. */
  DONAR_LINK_FAILURE_TOR_TIMEOUT,
  /* A classic SOCKS code other than those below (0x01, 0x06, ...). */
  DONAR_LINK_FAILURE_TOR_FAILED,
  /* The stream opened, and the callee's HELLO never came. */
  DONAR_LINK_FAILURE_NO_HELLO,
  /* 0x04 from a tor without ExtendedErrors: its code for an onion it
   * could not find or introduce to. */
  DONAR_LINK_FAILURE_ONION_UNREACHABLE,
  DONAR_LINK_FAILURE_RENDEZVOUS,        /* 0xF3 */
  DONAR_LINK_FAILURE_INTRODUCTION,      /* 0xF2, 0xF7 */
  DONAR_LINK_FAILURE_DESCRIPTOR_INVALID,        /* 0xF1 */
  DONAR_LINK_FAILURE_DESCRIPTOR_NOT_FOUND,      /* 0xF0 */
  /* 0x05: the onion's tor is up, nothing listens behind it. */
  DONAR_LINK_FAILURE_ONION_REFUSED,
  /* The peer closed the stream while our HELLO waited for its own. */
  DONAR_LINK_FAILURE_WRONG_SECRET,
  DONAR_LINK_FAILURE_CLIENT_AUTH_MISSING,       /* 0xF4 */
  DONAR_LINK_FAILURE_CLIENT_AUTH_WRONG, /* 0xF5 */
  DONAR_LINK_FAILURE_BAD_ONION_ADDRESS, /* 0xF6 */
  /* The SOCKS port took the connection and never answered the greeting. */
  DONAR_LINK_FAILURE_SOCKS_SILENT,
  /* It answered, but not in SOCKS5 (or closed on the greeting). */
  DONAR_LINK_FAILURE_SOCKS_NOT_SOCKS,
  /* It answered in HTTP: an HTTPTunnelPort or a web server. */
  DONAR_LINK_FAILURE_SOCKS_HTTP,
  /* Nothing listens where we dial (the SocksPort, or a direct callee). */
  DONAR_LINK_FAILURE_CONNECT_REFUSED,
} DonarLinkFailure;

/* A short name, for a message's field ("descriptor-not-found"). */
const gchar *donar_link_failure_to_string (DonarLinkFailure failure);
/* A sentence for a person: the likely cause and what to do.  through_tor:
 * the caller dials through a SocksPort (else the callee directly). */
const gchar *donar_link_failure_explain (DonarLinkFailure failure,
    gboolean through_tor);
/* A SOCKS reader's error; first_byte: the first byte the server sent at
 * the greeting (reader->buffer[0]), or -1. */
DonarLinkFailure donar_link_failure_from_socks (DonarSocksError error,
    DonarSocksStage stage, gint first_byte);
/* The more telling of two. */
DonarLinkFailure donar_link_failure_max (DonarLinkFailure a,
    DonarLinkFailure b);

G_END_DECLS

#endif /* DONAR_LINK_FAILURE_H */
