/* The call address string and the elements' donar:// URI
 * (donar-call-address.h), parsed with GUri. */
#include "donar-call-address.h"
#include "donar-secret.h"
#include "donar-versioned.h"

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

static gboolean
onion_host_is_valid (const gchar * host)
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

/* What a query is parsed into: the address's own parameters and, in a
 * URI, the settings after them. */
typedef struct
{
  DonarCallAddress *address;
  gboolean callee;              /* the callee form: no secret, no auth */
  gboolean have_secret;
  GPtrArray *names, *values;    /* NULL: a call address, which takes none */
} Query;

static gboolean
parse_address_param (const gchar * name, const gchar * value, Query * q,
    GError ** error)
{
  gboolean secret = g_strcmp0 (name, "secret") == 0;

  if (q->callee) {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR, secret ?
        DONAR_CALL_ADDRESS_ERROR_SECRET : DONAR_CALL_ADDRESS_ERROR_AUTH,
        "the callee form takes no %s: the callee makes its own address", name);
    return FALSE;
  }
  if (secret ? q->have_secret : q->address->client_auth_key != NULL) {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX, "repeated parameter \"%s\"", name);
    return FALSE;
  }
  if (secret) {
    if (!parse_secret (value, q->address->secret, error))
      return FALSE;
    q->have_secret = TRUE;
  } else {
    if (!is_base32 (value, DONAR_CLIENT_AUTH_KEY_LENGTH, FALSE)) {
      g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
          DONAR_CALL_ADDRESS_ERROR_AUTH,
          "the client authorization key must be %d base32 characters",
          DONAR_CLIENT_AUTH_KEY_LENGTH);
      return FALSE;
    }
    q->address->client_auth_key = g_ascii_strup (value, -1);
  }
  return TRUE;
}

static gboolean
parse_param (const gchar * name, const gchar * value, Query * q,
    GError ** error)
{
  if (g_strcmp0 (name, "secret") == 0 || g_strcmp0 (name, "auth") == 0)
    return parse_address_param (name, value, q, error);
  if (q->names == NULL) {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX,
        "unknown parameter \"%s\" (expected secret and optionally auth)", name);
    return FALSE;
  }
  if (name[0] == '\0') {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX, "a parameter without a name");
    return FALSE;
  }
  if (g_strv_contains ((const gchar * const *) q->names->pdata, name)) {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX, "repeated parameter \"%s\"", name);
    return FALSE;
  }
  /* Kept NULL-terminated for g_strv_contains (). */
  g_ptr_array_insert (q->names, q->names->len - 1, g_strdup (name));
  g_ptr_array_insert (q->values, q->values->len - 1, g_strdup (value));
  return TRUE;
}

static gboolean
parse_query (const gchar * query, Query * q, GError ** error)
{
  GUriParamsIter iter;
  gchar *name, *value;
  GError *iter_error = NULL;

  g_uri_params_iter_init (&iter, query ? query : "", -1, "&",
      G_URI_PARAMS_NONE);
  while (g_uri_params_iter_next (&iter, &name, &value, &iter_error)) {
    gboolean ok = parse_param (name, value, q, error);

    g_free (name);
    /* The value may be the call secret or the client authorization key. */
    donar_secret_free (value);
    if (!ok)
      return FALSE;
  }
  if (iter_error) {
    /* GLib's reason (a missing '=', a bad %-escape) quotes nothing. */
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX, "malformed parameters: %s",
        iter_error->message);
    g_error_free (iter_error);
    return FALSE;
  }
  if (!q->have_secret && !q->callee) {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_SECRET, "the address has no secret");
    return FALSE;
  }
  return TRUE;
}

/* A call address, or with q->names a URI (the callee form too). */
static gboolean
parse (const gchar * text, Query * q, GError ** error)
{
  g_autoptr (GUri) uri = NULL;
  g_autofree gchar *without_query = NULL;
  const gchar *query, *host;
  gint port;

  memset (q->address, 0, sizeof *q->address);
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
        DONAR_CALL_ADDRESS_ERROR_SYNTAX, q->names ?
        "not a donar URI: donar://<onion>:<port>?secret=<hex> or "
        "donar://callee, either with parameters after" :
        "not a call address: donar://<onion>:<port>?secret=<hex>");
    return FALSE;
  }

  host = g_uri_get_host (uri);
  port = g_uri_get_port (uri);
  if (q->names && g_strcmp0 (host, "callee") == 0) {
    if (port != -1) {
      g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
          DONAR_CALL_ADDRESS_ERROR_PORT, "the callee form takes no port: "
          "the callee's onion has its own");
      return FALSE;
    }
    q->callee = TRUE;
    return parse_query (query ? query + 1 : NULL, q, error);
  }
  if (!onion_host_is_valid (host) && g_strcmp0 (host, "127.0.0.1")) {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_HOST,
        "the host must be a v3 onion address (56 base32 characters and "
        ".onion) or 127.0.0.1%s", q->names ? ", or callee" : "");
    return FALSE;
  }
  if (port < 1 || port > 65535) {
    g_set_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_PORT, "the address needs a port, 1 to 65535");
    return FALSE;
  }
  if (!parse_query (query ? query + 1 : NULL, q, error)) {
    donar_call_address_clear (q->address);
    return FALSE;
  }
  q->address->host = g_strdup (host);
  q->address->port = (guint16) port;
  return TRUE;
}

static gboolean
address_parse (const gchar * text, DonarCallAddress * address, GError ** error)
{
  Query q = { address, FALSE, FALSE, NULL, NULL };

  g_return_val_if_fail (address != NULL, FALSE);
  return parse (text, &q, error);
}

static gchar *
address_to_string (const DonarCallAddress * address)
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

static void
address_clear (DonarCallAddress * address)
{
  g_free (address->host);
  donar_secret_free (address->client_auth_key);
  explicit_bzero (address, sizeof *address);
}

static gboolean
uri_parse (const gchar * text, DonarCallUri * uri, GError ** error)
{
  DonarCallAddress address;
  Query q = { &address, FALSE, FALSE, g_ptr_array_new (),
    g_ptr_array_new ()
  };
  gboolean ok;

  g_return_val_if_fail (uri != NULL, FALSE);
  memset (uri, 0, sizeof *uri);
  g_ptr_array_add (q.names, NULL);
  g_ptr_array_add (q.values, NULL);
  ok = parse (text, &q, error);
  if (ok) {
    uri->callee = q.callee;
    if (!q.callee)
      uri->address = address_to_string (&address);
    uri->names = (gchar **) g_ptr_array_free (q.names, FALSE);
    uri->values = (gchar **) g_ptr_array_free (q.values, FALSE);
  } else {
    g_strfreev ((gchar **) g_ptr_array_free (q.names, FALSE));
    g_strfreev ((gchar **) g_ptr_array_free (q.values, FALSE));
  }
  address_clear (&address);
  return ok;
}

/* In a value: what RFC 3986 lets a query hold, less the separators. */
#define URI_VALUE_ALLOWED "/:@!$'()*+,;"

static gchar *
uri_to_string (const DonarCallUri * uri)
{
  const gchar *head = uri->callee ? "donar://callee" : uri->address;
  GString *settings = g_string_new (NULL);
  gchar *text;

  for (guint i = 0; uri->names && uri->names[i]; i++) {
    g_string_append_c (settings, '&');
    g_string_append_uri_escaped (settings, uri->names[i], URI_VALUE_ALLOWED,
        FALSE);
    g_string_append_c (settings, '=');
    g_string_append_uri_escaped (settings, uri->values[i], URI_VALUE_ALLOWED,
        FALSE);
  }
  if (settings->len > 0)
    settings->str[0] = strchr (head, '?') ? '&' : '?';
  /* One block of the final size: the address is a secret, and a string
   * that grows leaves copies in the blocks it frees. */
  text = g_malloc (strlen (head) + settings->len + 1);
  strcpy (stpcpy (text, head), settings->str);
  g_string_free (settings, TRUE);
  return text;
}

static void
uri_clear (DonarCallUri * uri)
{
  donar_secret_free (uri->address);
  g_strfreev (uri->names);
  g_strfreev (uri->values);
  memset (uri, 0, sizeof *uri);
}

/* The address and the URI of a caller's version: parsed into, written
 * from and cleared through a struct of the latest version, which is wiped
 * after (it held the secret). */
DONAR_VERSIONED_DEFINE (address_versions, DonarCallAddress,
    sizeof (DonarCallAddress));
DONAR_VERSIONED_DEFINE (uri_versions, DonarCallUri, sizeof (DonarCallUri));

typedef gboolean (*ParseFunc) (const gchar * text, gpointer latest,
    GError ** error);
typedef gchar *(*ToStringFunc) (gconstpointer latest);

static gboolean
parse_versioned (const DonarVersioned * versioned, gint version,
    ParseFunc parse_latest, const gchar * text, gpointer to, GError ** error)
{
  gsize size = versioned->sizes[versioned->n_versions - 1];
  gpointer latest = g_alloca (size);
  gboolean ok;

  g_return_val_if_fail (to != NULL, FALSE);
  if (!donar_versioned_known (versioned, version, DONAR_CALL_ADDRESS_ERROR,
          DONAR_CALL_ADDRESS_ERROR_SYNTAX, error))
    return FALSE;
  memset (latest, 0, size);
  ok = parse_latest (text, latest, error);
  donar_versioned_copy (versioned, version, latest, to);
  explicit_bzero (latest, size);
  return ok;
}

static gchar *
to_string_versioned (const DonarVersioned * versioned, gint version,
    ToStringFunc to_string, gconstpointer from)
{
  gsize size = versioned->sizes[versioned->n_versions - 1];
  gpointer latest = g_alloca (size);
  gchar *text = NULL;

  memset (latest, 0, size);
  if (donar_versioned_copy (versioned, version, from, latest))
    text = to_string (latest);
  explicit_bzero (latest, size);
  return text;
}

static void
clear_versioned (const DonarVersioned * versioned, gint version,
    GDestroyNotify clear, gpointer to)
{
  gsize size = versioned->sizes[versioned->n_versions - 1];
  gpointer latest = g_alloca (size);

  memset (latest, 0, size);
  if (!donar_versioned_copy (versioned, version, to, latest))
    return;
  /* Wiped as it is freed: the zeros go back into the caller's. */
  clear (latest);
  donar_versioned_copy (versioned, version, latest, to);
}

gboolean
donar_call_address_parse_versioned (const gchar * text,
    gint address_version, DonarCallAddress * address, GError ** error)
{
  return parse_versioned (&address_versions, address_version,
      (ParseFunc) address_parse, text, address, error);
}

gchar *
donar_call_address_to_string_versioned (gint address_version,
    const DonarCallAddress * address)
{
  return to_string_versioned (&address_versions, address_version,
      (ToStringFunc) address_to_string, address);
}

void
donar_call_address_clear_versioned (gint address_version,
    DonarCallAddress * address)
{
  clear_versioned (&address_versions, address_version,
      (GDestroyNotify) address_clear, address);
}

gboolean
donar_call_uri_parse_versioned (const gchar * text, gint uri_version,
    DonarCallUri * uri, GError ** error)
{
  return parse_versioned (&uri_versions, uri_version, (ParseFunc) uri_parse,
      text, uri, error);
}

gchar *
donar_call_uri_to_string_versioned (gint uri_version, const DonarCallUri * uri)
{
  return to_string_versioned (&uri_versions, uri_version,
      (ToStringFunc) uri_to_string, uri);
}

void
donar_call_uri_clear_versioned (gint uri_version, DonarCallUri * uri)
{
  clear_versioned (&uri_versions, uri_version, (GDestroyNotify) uri_clear, uri);
}
