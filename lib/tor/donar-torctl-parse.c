/* Reply parsers for the authentication and onion-service commands. */
#include "donar-torctl-parse.h"
#include "donar-torctl-arguments.h"
#include "donar-torctl-command.h"
#include "donar-torctl-hex.h"

#include <string.h>

/* A 250 reply whose end line is "OK". */
static DonarTorctlError
check_ok_reply (const DonarTorctlReply * reply)
{
  if (reply->n_lines == 0)
    return DONAR_TORCTL_ERROR_MALFORMED;
  if (reply->code != 250)
    return DONAR_TORCTL_ERROR_REFUSED;
  if (strcmp (reply->lines[reply->n_lines - 1].text, "OK") != 0)
    return DONAR_TORCTL_ERROR_MALFORMED;
  return DONAR_TORCTL_OK;
}

static gboolean
parse_small_uint (const gchar * text, guint * value)
{
  guint64 number = 0;

  if (text == NULL || *text == '\0')
    return FALSE;
  for (const gchar * p = text; *p != '\0'; p++) {
    if (!g_ascii_isdigit (*p))
      return FALSE;
    number = number * 10 + (*p - '0');
    if (number > G_MAXUINT16)
      return FALSE;
  }
  *value = number;
  return TRUE;
}

static DonarTorctlAuthMethods
parse_auth_methods (const gchar * list)
{
  static const struct
  {
    const gchar *name;
    DonarTorctlAuthMethods method;
  } names[] = {
    {"NULL", DONAR_TORCTL_AUTH_NULL},
    {"HASHEDPASSWORD", DONAR_TORCTL_AUTH_HASHEDPASSWORD},
    {"COOKIE", DONAR_TORCTL_AUTH_COOKIE},
    {"SAFECOOKIE", DONAR_TORCTL_AUTH_SAFECOOKIE},
  };
  DonarTorctlAuthMethods methods = 0;
  const gchar *p = list;

  while (*p != '\0') {
    const gchar *end = strchr (p, ',');
    gsize length = end != NULL ? (gsize) (end - p) : strlen (p);

    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      if (strlen (names[i].name) == length
          && strncmp (names[i].name, p, length) == 0)
        methods |= names[i].method;
    p += length;
    if (*p == ',')
      p++;
  }
  return methods;
}

/* One InfoLine of PROTOCOLINFO; *seen tells which keywords came. */
static DonarTorctlError
protocolinfo_line (const DonarTorctlArguments * arguments,
    DonarTorctlProtocolInfo * info, guint * seen)
{
  const gchar *keyword = donar_torctl_arguments_word (arguments, 0);
  const gchar *value;

  if (keyword == NULL)
    return DONAR_TORCTL_ERROR_MALFORMED;
  if (strcmp (keyword, "PROTOCOLINFO") == 0) {
    if (!parse_small_uint (donar_torctl_arguments_word (arguments, 1),
            &info->protocol_version))
      return DONAR_TORCTL_ERROR_MALFORMED;
    *seen |= 1;
  } else if (strcmp (keyword, "AUTH") == 0) {
    value = donar_torctl_arguments_lookup (arguments, "METHODS");
    if (value == NULL)
      return DONAR_TORCTL_ERROR_MISSING_FIELD;
    info->methods = parse_auth_methods (value);
    value = donar_torctl_arguments_lookup (arguments, "COOKIEFILE");
    if (value != NULL && info->cookie_file == NULL)
      info->cookie_file = g_strdup (value);
    *seen |= 2;
  } else if (strcmp (keyword, "VERSION") == 0) {
    value = donar_torctl_arguments_lookup (arguments, "Tor");
    if (value != NULL && info->tor_version == NULL)
      info->tor_version = g_strdup (value);
  }
  return DONAR_TORCTL_OK;
}

DonarTorctlError
donar_torctl_parse_protocolinfo (const DonarTorctlReply * reply,
    DonarTorctlProtocolInfo * info)
{
  DonarTorctlError error;
  guint seen = 0;

  memset (info, 0, sizeof *info);
  error = check_ok_reply (reply);
  for (guint i = 0; error == DONAR_TORCTL_OK && i + 1 < reply->n_lines; i++) {
    const gchar *text = reply->lines[i].text;
    DonarTorctlArguments *arguments;

    /* Lines of other keywords may follow a grammar of their own: they are
     * skipped unread. */
    if (!g_str_has_prefix (text, "PROTOCOLINFO ")
        && !g_str_has_prefix (text, "AUTH ")
        && !g_str_has_prefix (text, "VERSION "))
      continue;
    error = donar_torctl_arguments_parse (text, 1, &arguments);
    if (error != DONAR_TORCTL_OK)
      break;
    error = protocolinfo_line (arguments, info, &seen);
    donar_torctl_arguments_free (arguments);
  }
  if (error == DONAR_TORCTL_OK && seen != 3)
    error = DONAR_TORCTL_ERROR_MISSING_FIELD;
  if (error != DONAR_TORCTL_OK)
    donar_torctl_protocol_info_clear (info);
  return error;
}

void
donar_torctl_protocol_info_clear (DonarTorctlProtocolInfo * info)
{
  g_free (info->cookie_file);
  g_free (info->tor_version);
  memset (info, 0, sizeof *info);
}

DonarTorctlError
donar_torctl_parse_authchallenge (const DonarTorctlReply * reply,
    DonarTorctlAuthChallenge * challenge)
{
  DonarTorctlArguments *arguments;
  DonarTorctlError error;
  const gchar *keyword, *hash, *nonce;

  memset (challenge, 0, sizeof *challenge);
  if (reply->n_lines == 0)
    return DONAR_TORCTL_ERROR_MALFORMED;
  if (reply->code != 250)
    return DONAR_TORCTL_ERROR_REFUSED;
  if (reply->n_lines != 1)
    return DONAR_TORCTL_ERROR_MALFORMED;
  error = donar_torctl_arguments_parse (reply->lines[0].text, 1, &arguments);
  if (error != DONAR_TORCTL_OK)
    return error;
  keyword = donar_torctl_arguments_word (arguments, 0);
  hash = donar_torctl_arguments_lookup (arguments, "SERVERHASH");
  nonce = donar_torctl_arguments_lookup (arguments, "SERVERNONCE");
  if (keyword == NULL || strcmp (keyword, "AUTHCHALLENGE") != 0)
    error = DONAR_TORCTL_ERROR_MALFORMED;
  else if (hash == NULL || nonce == NULL)
    error = DONAR_TORCTL_ERROR_MISSING_FIELD;
  else if (!donar_torctl_hex_decode (hash, challenge->server_hash,
          DONAR_TORCTL_HASH_LENGTH)
      || !donar_torctl_hex_decode (nonce, challenge->server_nonce,
          DONAR_TORCTL_NONCE_LENGTH))
    error = DONAR_TORCTL_ERROR_MALFORMED;
  donar_torctl_arguments_free (arguments);
  if (error != DONAR_TORCTL_OK)
    memset (challenge, 0, sizeof *challenge);
  return error;
}

static gboolean
is_service_id (const gchar * text)
{
  gsize i;

  for (i = 0; text[i] != '\0'; i++)
    if (!g_ascii_islower (text[i]) && !(text[i] >= '2' && text[i] <= '7'))
      return FALSE;
  return i == DONAR_TORCTL_SERVICE_ID_LENGTH;
}

static gboolean
is_printable_word (const gchar * text)
{
  if (*text == '\0')
    return FALSE;
  for (const gchar * p = text; *p != '\0'; p++)
    if (*p <= ' ' || *p >= 0x7f)
      return FALSE;
  return TRUE;
}

static void
free_secret (gchar * secret)
{
  if (secret == NULL)
    return;
  explicit_bzero (secret, strlen (secret));
  g_free (secret);
}

/* One line of the ADD_ONION reply: keyword=value, where the value has no
 * quoting and may hold '=' (base64 padding). */
static DonarTorctlError
add_onion_line (const gchar * text, DonarTorctlOnion * onion,
    GPtrArray * client_keys)
{
  const gchar *equals = strchr (text, '=');
  const gchar *value;
  gsize key_length;

  if (equals == NULL)
    return DONAR_TORCTL_ERROR_MALFORMED;
  key_length = equals - text;
  value = equals + 1;
  if (key_length == 9 && strncmp (text, "ServiceID", 9) == 0) {
    if (onion->service_id != NULL || !is_service_id (value))
      return DONAR_TORCTL_ERROR_MALFORMED;
    onion->service_id = g_strdup (value);
  } else if (key_length == 10 && strncmp (text, "PrivateKey", 10) == 0) {
    if (onion->private_key != NULL || !g_str_has_prefix (value, "ED25519-V3:")
        || !is_printable_word (value + 11))
      return DONAR_TORCTL_ERROR_MALFORMED;
    onion->private_key = g_strdup (value + 11);
  } else if (key_length == 12 && strncmp (text, "ClientAuthV3", 12) == 0) {
    if (!is_printable_word (value))
      return DONAR_TORCTL_ERROR_MALFORMED;
    g_ptr_array_add (client_keys, g_strdup (value));
  }
  return DONAR_TORCTL_OK;
}

DonarTorctlError
donar_torctl_parse_add_onion (const DonarTorctlReply * reply,
    DonarTorctlOnion * onion)
{
  GPtrArray *client_keys = g_ptr_array_new ();
  DonarTorctlError error;

  memset (onion, 0, sizeof *onion);
  error = check_ok_reply (reply);
  for (guint i = 0; error == DONAR_TORCTL_OK && i + 1 < reply->n_lines; i++)
    error = add_onion_line (reply->lines[i].text, onion, client_keys);
  if (error == DONAR_TORCTL_OK && onion->service_id == NULL)
    error = DONAR_TORCTL_ERROR_MISSING_FIELD;
  g_ptr_array_add (client_keys, NULL);
  onion->client_auth_v3 = (gchar **) g_ptr_array_free (client_keys, FALSE);
  if (error != DONAR_TORCTL_OK)
    donar_torctl_onion_clear (onion);
  return error;
}

void
donar_torctl_onion_clear (DonarTorctlOnion * onion)
{
  g_free (onion->service_id);
  free_secret (onion->private_key);
  g_strfreev (onion->client_auth_v3);
  memset (onion, 0, sizeof *onion);
}

DonarTorctlError
donar_torctl_parse_getinfo (const DonarTorctlReply * reply,
    GHashTable ** values)
{
  GHashTable *table;
  DonarTorctlError error;

  *values = NULL;
  error = check_ok_reply (reply);
  if (error != DONAR_TORCTL_OK)
    return error;
  table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i + 1 < reply->n_lines; i++) {
    const DonarTorctlLine *line = &reply->lines[i];
    const gchar *equals = strchr (line->text, '=');
    gchar *key;

    /* A data block stands for the whole value: its line has nothing
     * after the '='. */
    if (equals == NULL || equals == line->text
        || (line->data != NULL && equals[1] != '\0')) {
      error = DONAR_TORCTL_ERROR_MALFORMED;
      break;
    }
    key = g_strndup (line->text, equals - line->text);
    if (g_hash_table_contains (table, key)) {
      g_free (key);
      error = DONAR_TORCTL_ERROR_MALFORMED;
      break;
    }
    g_hash_table_insert (table, key, g_strdup (line->data != NULL
            ? line->data : equals + 1));
  }
  if (error != DONAR_TORCTL_OK) {
    g_hash_table_unref (table);
    return error;
  }
  *values = table;
  return DONAR_TORCTL_OK;
}
