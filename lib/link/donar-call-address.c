/* The call address string (donar-call-address.h), parsed with GUri. */
#include "donar-call-address.h"
#include "donar-secret.h"

#include <string.h>

GQuark
donar_call_address_error_quark (void)
{
  return g_quark_from_static_string ("donar-call-address-error-quark");
}

static gboolean
is_base32 (const gchar * text, gsize length, gboolean lower_only)
{
  if (strlen (text) != length)
    return FALSE;
  for (gsize i = 0; i < length; i++) {
    gchar c = text[i];

    if (!((c >= 'a' && c <= 'z') || (c >= '2' && c <= '7') ||
            (!lower_only && c >= 'A' && c <= 'Z')))
      return FALSE;
  }
  return TRUE;
}

gboolean
donar_onion_host_is_valid (const gchar * host)
{
  gsize length = host ? strlen (host) : 0;
  g_autofree gchar *id = NULL;

  if (length != DONAR_ONION_ID_LENGTH + strlen (".onion") ||
      !g_str_has_suffix (host, ".onion"))
    return FALSE;
  id = g_strndup (host, DONAR_ONION_ID_LENGTH);
  /* A v3 address ends in its version, 3, which base32 spells 'd'. */
  return is_base32 (id, DONAR_ONION_ID_LENGTH, TRUE) &&
      id[DONAR_ONION_ID_LENGTH - 1] == 'd';
}

static gboolean
parse_secret (const gchar * hex, guint8 * secret, GError ** error)
{
  if (strlen (hex) != 2 * DONAR_CALL_SECRET_LENGTH)
    goto bad;
  for (guint i = 0; i < DONAR_CALL_SECRET_LENGTH; i++) {
    gint high = g_ascii_xdigit_value (hex[2 * i]);
    gint low = g_ascii_xdigit_value (hex[2 * i + 1]);

    if (high < 0 || low < 0)
      goto bad;
    secret[i] = (guint8) (high << 4 | low);
  }
  return TRUE;

bad:
  memset (secret, 0, DONAR_CALL_SECRET_LENGTH);
  g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
      DONAR_CALL_ADDRESS_ERROR_SECRET,
      "the secret must be %d hexadecimal digits", 2 * DONAR_CALL_SECRET_LENGTH);
  return FALSE;
}

static gboolean
parse_param (const gchar * name, const gchar * value,
    DonarCallAddress * address, gboolean * have_secret, GError ** error)
{
  if (g_strcmp0 (name, "secret") == 0 && !*have_secret) {
    if (!parse_secret (value, address->secret, error))
      return FALSE;
    *have_secret = TRUE;
  } else if (g_strcmp0 (name, "auth") == 0 && address->client_auth_key == NULL) {
    if (!is_base32 (value, DONAR_CLIENT_AUTH_KEY_LENGTH, FALSE)) {
      g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
          DONAR_CALL_ADDRESS_ERROR_AUTH,
          "the client authorization key must be %d base32 characters",
          DONAR_CLIENT_AUTH_KEY_LENGTH);
      return FALSE;
    }
    address->client_auth_key = g_ascii_strup (value, -1);
  } else {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX,
        "unknown or repeated parameter \"%s\" (expected secret and "
        "optionally auth)", name);
    return FALSE;
  }
  return TRUE;
}

static gboolean
parse_query (const gchar * query, DonarCallAddress * address, GError ** error)
{
  GUriParamsIter iter;
  gchar *name, *value;
  gboolean have_secret = FALSE;

  g_uri_params_iter_init (&iter, query ? query : "", -1, "&",
      G_URI_PARAMS_NONE);
  while (g_uri_params_iter_next (&iter, &name, &value, NULL)) {
    gboolean ok = parse_param (name, value, address, &have_secret, error);

    g_free (name);
    /* The value is the call secret or the client authorization key. */
    donar_secret_free (value);
    if (!ok)
      return FALSE;
  }
  if (!have_secret) {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_SECRET, "the address has no secret");
    return FALSE;
  }
  return TRUE;
}

gboolean
donar_call_address_parse (const gchar * text, DonarCallAddress * address,
    GError ** error)
{
  g_autoptr (GUri) uri = NULL;
  g_autofree gchar *without_query = NULL;
  const gchar *query, *host;
  gint port;

  g_return_val_if_fail (address != NULL, FALSE);
  memset (address, 0, sizeof *address);

  if (text == NULL || !g_str_has_prefix (text, "donar://")) {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX, "a call address starts with donar://");
    return FALSE;
  }
  /* GUri sees the address without its query, which holds the secrets:
   * it would keep copies of it that it frees unwiped. */
  query = strchr (text, '?');
  without_query = query ? g_strndup (text, query - text) : g_strdup (text);
  uri = g_uri_parse (without_query, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL || g_uri_get_userinfo (uri) != NULL ||
      (query != NULL && strchr (query, '#') != NULL) ||
      g_uri_get_fragment (uri) != NULL ||
      (g_strcmp0 (g_uri_get_path (uri), "") != 0 &&
          g_strcmp0 (g_uri_get_path (uri), "/") != 0)) {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX,
        "not a call address: donar://<onion>:<port>?secret=<hex>");
    return FALSE;
  }

  host = g_uri_get_host (uri);
  if (!donar_onion_host_is_valid (host) && g_strcmp0 (host, "127.0.0.1")) {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_HOST,
        "the host must be a v3 onion address (56 base32 characters and "
        ".onion) or 127.0.0.1");
    return FALSE;
  }
  port = g_uri_get_port (uri);
  if (port < 1 || port > 65535) {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_PORT, "the address needs a port, 1 to 65535");
    return FALSE;
  }
  if (!parse_query (query ? query + 1 : NULL, address, error)) {
    donar_call_address_clear (address);
    return FALSE;
  }
  address->host = g_strdup (host);
  address->port = (guint16) port;
  return TRUE;
}

gchar *
donar_call_address_to_string (const DonarCallAddress * address)
{
  static const gchar digits[] = "0123456789abcdef";
  /* Room for the whole address at once: a GString that grows while it
   * holds the secret leaves a copy in the block it frees.  And the
   * secrets are appended, not printed: a printf would format them in a
   * buffer of its own. */
  GString *text = g_string_sized_new (strlen (address->host) +
      sizeof "donar://:65535?secret=" + 2 * DONAR_CALL_SECRET_LENGTH +
      sizeof "&auth=" + (address->client_auth_key ?
          strlen (address->client_auth_key) : 0));

  g_string_append_printf (text, "donar://%s:%u?secret=", address->host,
      address->port);
  for (guint i = 0; i < DONAR_CALL_SECRET_LENGTH; i++) {
    g_string_append_c (text, digits[address->secret[i] >> 4]);
    g_string_append_c (text, digits[address->secret[i] & 0x0f]);
  }
  if (address->client_auth_key) {
    g_string_append (text, "&auth=");
    g_string_append (text, address->client_auth_key);
  }
  return g_string_free (text, FALSE);
}

void
donar_call_address_clear (DonarCallAddress * address)
{
  g_free (address->host);
  donar_secret_free (address->client_auth_key);
  explicit_bzero (address, sizeof *address);
}
