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

/* Any thread.  A text that is no address or URI is an error of this
 * domain; a NULL struct is a g_critical, and the call does nothing
 * (docs/api.md, "Contracts"). */
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

/* The versions of the structs a program allocates (donar.h,
 * DONAR_CONFIG_VERSION, says how they grow): a new parameter of the
 * address or the URI is a new field. */
#define DONAR_CALL_ADDRESS_VERSION 1
#define DONAR_CALL_URI_VERSION 1

/* FALSE and *error for a text that is not an address (the code says
 * which part); an unknown version is DONAR_CALL_ADDRESS_ERROR_SYNTAX. */
DONAR_API
gboolean donar_call_address_parse_versioned (const gchar * text,
    gint address_version, DonarCallAddress * address, GError ** error);
#define donar_call_address_parse(text, address, error) \
  donar_call_address_parse_versioned ((text), DONAR_CALL_ADDRESS_VERSION, \
      (address), (error))
/* NULL for an unknown version. */
DONAR_API
gchar *donar_call_address_to_string_versioned (gint address_version,
    const DonarCallAddress * address);
#define donar_call_address_to_string(address) \
  donar_call_address_to_string_versioned (DONAR_CALL_ADDRESS_VERSION, \
      (address))
/* Frees the strings and erases the secret and the key. */
DONAR_API
void donar_call_address_clear_versioned (gint address_version,
    DonarCallAddress * address);
#define donar_call_address_clear(address) \
  donar_call_address_clear_versioned (DONAR_CALL_ADDRESS_VERSION, (address))

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

/* FALSE and *error for a text that is no donar:// URI; an unknown
 * version is DONAR_CALL_ADDRESS_ERROR_SYNTAX. */
DONAR_API
gboolean donar_call_uri_parse_versioned (const gchar * text,
    gint uri_version, DonarCallUri * uri, GError ** error);
#define donar_call_uri_parse(text, uri, error) \
  donar_call_uri_parse_versioned ((text), DONAR_CALL_URI_VERSION, (uri), \
      (error))
/* The URI of uri's callee, address and settings, the values
 * percent-encoded where they need it; NULL for an unknown version. */
DONAR_API
gchar *donar_call_uri_to_string_versioned (gint uri_version,
    const DonarCallUri * uri);
#define donar_call_uri_to_string(uri) \
  donar_call_uri_to_string_versioned (DONAR_CALL_URI_VERSION, (uri))
/* Frees the strings, the address wiped. */
DONAR_API
void donar_call_uri_clear_versioned (gint uri_version, DonarCallUri * uri);
#define donar_call_uri_clear(uri) \
  donar_call_uri_clear_versioned (DONAR_CALL_URI_VERSION, (uri))

G_END_DECLS

#endif /* DONAR_CALL_ADDRESS_H */
