/* The call address: the one string a callee gives its caller.
 *
 *   donar://<56 base32>.onion:<port>?secret=<64 hex>[&auth=<52 base32>]
 *
 * It names the callee's onion service, carries the call secret the links
 * prove they belong to (docs/protocol.md) and, when the onion requires
 * client authorization, the caller's x25519 private key for it.  Whoever
 * holds the string can call: it travels like a password.  For tests and
 * the plain-UDP ceiling the host may also be 127.0.0.1 (no Tor). */
#ifndef DONAR_CALL_ADDRESS_H
#define DONAR_CALL_ADDRESS_H

#include "donar-api.h"

#include <glib.h>

G_BEGIN_DECLS

#define DONAR_CALL_SECRET_LENGTH 32
#define DONAR_ONION_ID_LENGTH 56
#define DONAR_CLIENT_AUTH_KEY_LENGTH 52

#define DONAR_CALL_ADDRESS_ERROR (donar_call_address_error_quark ())
DONAR_API
GQuark donar_call_address_error_quark (void);

typedef enum
{
  DONAR_CALL_ADDRESS_ERROR_SYNTAX,
  DONAR_CALL_ADDRESS_ERROR_HOST,
  DONAR_CALL_ADDRESS_ERROR_PORT,
  DONAR_CALL_ADDRESS_ERROR_SECRET,
  DONAR_CALL_ADDRESS_ERROR_AUTH,
} DonarCallAddressError;

typedef struct
{
  gchar *host;                  /* "<id>.onion" or "127.0.0.1" */
  guint16 port;
  guint8 secret[DONAR_CALL_SECRET_LENGTH];
  gchar *client_auth_key;       /* NULL: the onion needs none */
} DonarCallAddress;

DONAR_API
gboolean donar_call_address_parse (const gchar * text,
    DonarCallAddress * address, GError ** error);
DONAR_API
gchar *donar_call_address_to_string (const DonarCallAddress * address);
/* Frees the strings and erases the secret and the key. */
DONAR_API
void donar_call_address_clear (DonarCallAddress * address);

/* The elements' donar:// URI (docs/elements.md, "The donar:// URI"): a
 * call address, or the callee form
 *
 *   donar://callee[?<name>=<value>&...]
 *
 * and either with settings after the address's own parameters, each
 * name=value once, that the parser collects in order, percent-decoded,
 * without knowing what they mean: whoever makes the call does. */
typedef struct
{
  gboolean callee;
  gchar *address;               /* the call address alone, as
                                 * donar_call_address_to_string () writes it
                                 * (a secret); NULL: the callee form */
  gchar **names;                /* the settings; NULL-terminated, never NULL */
  gchar **values;
} DonarCallUri;

DONAR_API
gboolean donar_call_uri_parse (const gchar * text, DonarCallUri * uri,
    GError ** error);
/* The URI of uri's callee, address and settings, the values
 * percent-encoded where they need it. */
DONAR_API
gchar *donar_call_uri_to_string (const DonarCallUri * uri);
/* Frees the strings, the address wiped. */
DONAR_API
void donar_call_uri_clear (DonarCallUri * uri);

G_END_DECLS

#endif /* DONAR_CALL_ADDRESS_H */
