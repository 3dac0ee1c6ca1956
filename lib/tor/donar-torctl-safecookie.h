/* SAFECOOKIE authentication (control-spec sections 3.24 and 3.5): both
 * sides prove they know the cookie without sending it, so a process that
 * merely listens on the control port's address learns nothing. */
#ifndef DONAR_TORCTL_SAFECOOKIE_H
#define DONAR_TORCTL_SAFECOOKIE_H

#include "donar-torctl-error.h"

G_BEGIN_DECLS

/* Tor's cookie file holds exactly this many bytes; a file of another size
 * must not be used. */
#define DONAR_TORCTL_COOKIE_LENGTH 32
/* The spec fixes the server nonce at 32 bytes; the client nonce is ours to
 * choose and is given the same size. */
#define DONAR_TORCTL_NONCE_LENGTH 32
#define DONAR_TORCTL_HASH_LENGTH 32

/* HMAC-SHA256 keyed with the controller-to-server string, over cookie |
 * client nonce | server nonce: what AUTHENTICATE must carry. */
void donar_torctl_safecookie_client_hash (const guint8 * cookie,
    const guint8 * client_nonce, const guint8 * server_nonce, guint8 * hash);

/* The same keyed with the server-to-controller string: the SERVERHASH a
 * server (donar-torsim) sends in its AUTHCHALLENGE reply. */
void donar_torctl_safecookie_server_hash (const guint8 * cookie,
    const guint8 * client_nonce, const guint8 * server_nonce, guint8 * hash);

/* a and b equal, compared in a time that does not depend on where they
 * differ: for secrets. */
gboolean donar_torctl_equal_in_constant_time (const guint8 * a,
    const guint8 * b, gsize length);

/* Checks, in constant time, the SERVERHASH of the AUTHCHALLENGE reply:
 * DONAR_TORCTL_ERROR_SERVER_HASH_MISMATCH unless the server knows the
 * cookie.  Check it before sending the client hash. */
DonarTorctlError donar_torctl_safecookie_check_server_hash (const guint8 *
    cookie, const guint8 * client_nonce, const guint8 * server_nonce,
    const guint8 * server_hash);

G_END_DECLS

#endif /* DONAR_TORCTL_SAFECOOKIE_H */
