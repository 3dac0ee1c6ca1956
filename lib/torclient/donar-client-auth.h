/* Onion client authorization (tor's rend-spec-v3, "client authorization"):
 * the callee gives tor the x25519 public key of the callers it lets in
 * (ADD_ONION ClientAuthV3=), and the caller gives its tor the secret key
 * (ONION_CLIENT_AUTH_ADD).  Without the key nobody, not even someone who
 * holds the onion address, can fetch the descriptor and reach the
 * introduction points.
 *
 * Keys travel in the call address as 52 characters of unpadded RFC 4648
 * base32, as tor writes them.  The x25519 arithmetic is OpenSSL's
 * (libcrypto, which tor itself uses); nothing here implements the curve. */
#ifndef DONAR_CLIENT_AUTH_H
#define DONAR_CLIENT_AUTH_H

#include "donar-api.h"
#include "donar-secret.h"

#include <glib.h>

G_BEGIN_DECLS

#define DONAR_CLIENT_AUTH_KEY_BYTES 32
/* 32 bytes in unpadded base32. */
#define DONAR_CLIENT_AUTH_BASE32_LENGTH 52

/* Any thread; a NULL key or bytes is a g_critical, and the call does
 * nothing (docs/api.md, "Contracts"). */
#define DONAR_CLIENT_AUTH_ERROR (donar_client_auth_error_quark ())
DONAR_API
GQuark donar_client_auth_error_quark (void);

typedef enum
{
  DONAR_CLIENT_AUTH_ERROR_RANDOM,
  DONAR_CLIENT_AUTH_ERROR_BAD_KEY,
  DONAR_CLIENT_AUTH_ERROR_CRYPTO,
} DonarClientAuthError;

typedef struct
{
  guint8 secret[DONAR_CLIENT_AUTH_KEY_BYTES];
  guint8 public_key[DONAR_CLIENT_AUTH_KEY_BYTES];
} DonarClientAuthKey;

/* A new key pair, the secret from the kernel's CSPRNG; FALSE
 * (DONAR_CLIENT_AUTH_ERROR_RANDOM, _CRYPTO) if it has none, *key
 * untouched or wiped. */
DONAR_API
gboolean donar_client_auth_key_generate (DonarClientAuthKey * key,
    GError ** error);

/* The pair of a given secret (the public key is X25519 (secret, 9));
 * FALSE (DONAR_CLIENT_AUTH_ERROR_CRYPTO) with *key wiped if libcrypto
 * refuses. */
DONAR_API
gboolean donar_client_auth_key_from_secret (DonarClientAuthKey * key,
    const guint8 * secret, GError ** error);

/* Wipes both halves. */
DONAR_API
void donar_client_auth_key_clear (DonarClientAuthKey * key);

/* 52 lowercase base32 characters; free (and erase, for a secret) with
 * donar_secret_free. */
DONAR_API
gchar *donar_client_auth_to_base32 (const guint8 * bytes);

/* Either case; FALSE unless text is exactly 52 base32 characters whose
 * unused last 4 bits are zero. */
DONAR_API
gboolean donar_client_auth_from_base32 (const gchar * text, guint8 * bytes);

G_END_DECLS

#endif /* DONAR_CLIENT_AUTH_H */
