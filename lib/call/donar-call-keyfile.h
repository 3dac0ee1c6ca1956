/* A lasting address: what a callee keeps between calls so that its call
 * address stays the same, like a phone number (issue 16).  The key file
 * holds the onion's ed25519 private key (so the onion address stays), the
 * call secret (so the address's secret= stays) and, for a callee with
 * client-auth, the x25519 secret key the address carries (auth=).
 *
 *   # DONAR key file: ...
 *   onion-key=ED25519-V3:<88 base64>
 *   secret=<64 hex>
 *   client-auth=<52 base32>          (only once client-auth was used)
 *
 * Whoever holds the file can publish the onion, so answer every call to
 * the address: it is read only when it is a regular file of the user's
 * that no other user may read or write (mode 0600 or stricter), and
 * written with mode 0600, atomically.  Every copy in memory is wiped
 * (docs/security.md, "Where keys live"). */
#ifndef DONAR_CALL_KEYFILE_H
#define DONAR_CALL_KEYFILE_H

#include "donar-call-address.h"
#include "donar-client-auth.h"

#include <glib.h>

G_BEGIN_DECLS

/* The base64 of tor's 64-byte expanded ed25519 key: 86 characters and
 * "==". */
#define DONAR_CALL_KEYFILE_ONION_KEY_LENGTH 88

typedef struct
{
  /* The onion key's base64 blob, without "ED25519-V3:", as ADD_ONION
   * takes it; "" before the first ADD_ONION gave one. */
  gchar onion_key[DONAR_CALL_KEYFILE_ONION_KEY_LENGTH + 1];
  guint8 secret[DONAR_CALL_SECRET_LENGTH];
  gboolean has_client_auth;
  guint8 client_auth_secret[DONAR_CLIENT_AUTH_KEY_BYTES];
} DonarCallKeyFile;

/* Reads path into *keys.  A file that does not exist is no error:
 * *exists is then FALSE and *keys empty.  Refuses (DONAR_CALL_ERROR_KEY_FILE,
 * the path and the reason in the message) a file that cannot be read, is
 * not a regular file, belongs to another user, is open to group or others,
 * or does not hold a key file's lines. */
gboolean donar_call_keyfile_load (const gchar * path, DonarCallKeyFile * keys,
    gboolean * exists, GError ** error);

/* What can be known before any I/O with tor: an existing file loads, a
 * missing one could be created (its directory exists and is writable). */
gboolean donar_call_keyfile_check (const gchar * path, GError ** error);

/* Writes *keys to path: mode 0600, a temporary file in path's directory
 * renamed over it. */
gboolean donar_call_keyfile_save (const gchar * path,
    const DonarCallKeyFile * keys, GError ** error);

/* Wipes it. */
void donar_call_keyfile_clear (DonarCallKeyFile * keys);

G_END_DECLS

#endif /* DONAR_CALL_KEYFILE_H */
