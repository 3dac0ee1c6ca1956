/* Command builders: every argument is checked against the grammar of its
 * place before a byte is written, so nothing a caller passes can end the
 * line early or start another command. */
#include "donar-torctl-command.h"
#include "donar-torctl-hex.h"

#include <string.h>

#define CRLF "\r\n"

static gboolean
is_control (guint8 c)
{
  return c < 0x20 || c == 0x7f;
}

static gboolean
is_plain_value_char (gchar c)
{
  return g_ascii_isalnum (c) || strchr ("_.,:/+@-", c) != NULL;
}

static gboolean
is_base32_char (gchar c)
{
  return g_ascii_isalpha (c) || (c >= '2' && c <= '7');
}

static gboolean
is_base64_char (gchar c)
{
  return g_ascii_isalnum (c) || c == '+' || c == '/';
}

static gboolean
is_config_key (const gchar * key)
{
  if (key == NULL || *key == '\0')
    return FALSE;
  for (const gchar * p = key; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  return TRUE;
}

/* The ED25519-V3 key blob: base64, padding only at the end. */
static gboolean
is_key_blob (const gchar * blob)
{
  gsize length = strlen (blob), body = length;

  if (length == 0 || length > DONAR_TORCTL_MAX_KEY_BLOB)
    return FALSE;
  while (body > 0 && length - body < 2 && blob[body - 1] == '=')
    body--;
  for (gsize i = 0; i < body; i++)
    if (!is_base64_char (blob[i]))
      return FALSE;
  return body > 0;
}

static gboolean
is_base32_of_length (const gchar * text, gsize length, gboolean lower_only)
{
  gsize i;

  if (text == NULL)
    return FALSE;
  for (i = 0; text[i] != '\0' && i <= length; i++) {
    if (!is_base32_char (text[i]))
      return FALSE;
    if (lower_only && g_ascii_isupper (text[i]))
      return FALSE;
  }
  return i == length;
}

/* Appends value as a QuotedString, unless it holds a control character. */
static gboolean
append_quoted (GString * out, const gchar * value)
{
  g_string_append_c (out, '"');
  for (const gchar * p = value; *p != '\0'; p++) {
    if (is_control (*p))
      return FALSE;
    if (*p == '"' || *p == '\\')
      g_string_append_c (out, '\\');
    g_string_append_c (out, *p);
  }
  g_string_append_c (out, '"');
  return TRUE;
}

static gboolean
is_plain_value (const gchar * value)
{
  if (*value == '\0')
    return FALSE;
  for (const gchar * p = value; *p != '\0'; p++)
    if (!is_plain_value_char (*p))
      return FALSE;
  return TRUE;
}

/* Makes room for `extra` more bytes before a secret goes in: a GString
 * that grows while it holds one leaves a copy in the block it frees. */
static void
reserve (GString * out, gsize extra)
{
  gsize len = out->len;

  g_string_set_size (out, len + extra);
  g_string_truncate (out, len);
}

/* Undoes a half-built command and says why. */
static DonarTorctlError
refuse (GString * out, gsize start)
{
  g_string_truncate (out, start);
  return DONAR_TORCTL_ERROR_BAD_ARGUMENT;
}

void
donar_torctl_command_protocolinfo (GString * out)
{
  g_string_append (out, "PROTOCOLINFO 1" CRLF);
}

void
donar_torctl_command_authchallenge (GString * out, const guint8 * client_nonce)
{
  g_string_append (out, "AUTHCHALLENGE SAFECOOKIE ");
  donar_torctl_hex_append (out, client_nonce, DONAR_TORCTL_NONCE_LENGTH);
  g_string_append (out, CRLF);
}

void
donar_torctl_command_authenticate_none (GString * out)
{
  g_string_append (out, "AUTHENTICATE" CRLF);
}

void
donar_torctl_command_authenticate_cookie (GString * out, const guint8 * cookie)
{
  reserve (out, sizeof "AUTHENTICATE " + 2 * DONAR_TORCTL_COOKIE_LENGTH + 2);
  g_string_append (out, "AUTHENTICATE ");
  donar_torctl_hex_append (out, cookie, DONAR_TORCTL_COOKIE_LENGTH);
  g_string_append (out, CRLF);
}

void
donar_torctl_command_authenticate_safecookie (GString * out,
    const guint8 * client_hash)
{
  reserve (out, sizeof "AUTHENTICATE " + 2 * DONAR_TORCTL_HASH_LENGTH + 2);
  g_string_append (out, "AUTHENTICATE ");
  donar_torctl_hex_append (out, client_hash, DONAR_TORCTL_HASH_LENGTH);
  g_string_append (out, CRLF);
}

DonarTorctlError
donar_torctl_command_authenticate_password (GString * out,
    const gchar * password)
{
  gsize start = out->len;

  if (password == NULL)
    return DONAR_TORCTL_ERROR_BAD_ARGUMENT;
  /* Quoted, each character takes at most two. */
  reserve (out, sizeof "AUTHENTICATE \"\"" + 2 * strlen (password) + 2);
  g_string_append (out, "AUTHENTICATE ");
  if (!append_quoted (out, password))
    return refuse (out, start);
  g_string_append (out, CRLF);
  return DONAR_TORCTL_OK;
}

static void
append_onion_flags (GString * out, DonarTorctlOnionFlags flags)
{
  static const struct
  {
    DonarTorctlOnionFlags flag;
    const gchar *name;
  } names[] = {
    {DONAR_TORCTL_ONION_DISCARD_PK, "DiscardPK"},
    {DONAR_TORCTL_ONION_DETACH, "Detach"},
    {DONAR_TORCTL_ONION_V3_AUTH, "V3Auth"},
    {DONAR_TORCTL_ONION_NON_ANONYMOUS, "NonAnonymous"},
    {DONAR_TORCTL_ONION_MAX_STREAMS_CLOSE_CIRCUIT, "MaxStreamsCloseCircuit"},
  };
  const gchar *separator = " Flags=";

  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    if (!(flags & names[i].flag))
      continue;
    g_string_append (out, separator);
    g_string_append (out, names[i].name);
    separator = ",";
  }
}

DonarTorctlError
donar_torctl_command_add_onion (GString * out,
    const DonarTorctlOnionRequest * request)
{
  gsize start = out->len;
  const DonarTorctlOnionFlags known = DONAR_TORCTL_ONION_DISCARD_PK
      | DONAR_TORCTL_ONION_DETACH | DONAR_TORCTL_ONION_V3_AUTH
      | DONAR_TORCTL_ONION_NON_ANONYMOUS
      | DONAR_TORCTL_ONION_MAX_STREAMS_CLOSE_CIRCUIT;

  if (request->n_ports == 0
      || request->n_ports > DONAR_TORCTL_MAX_ONION_PORTS
      || request->ports == NULL || (request->flags & ~known) != 0
      || request->max_streams > G_MAXUINT16)
    return DONAR_TORCTL_ERROR_BAD_ARGUMENT;
  if (request->private_key != NULL && !is_key_blob (request->private_key))
    return DONAR_TORCTL_ERROR_BAD_ARGUMENT;

  g_string_append (out, "ADD_ONION ");
  if (request->private_key == NULL) {
    g_string_append (out, "NEW:ED25519-V3");
  } else {
    g_string_append (out, "ED25519-V3:");
    g_string_append (out, request->private_key);
  }
  append_onion_flags (out, request->flags);
  if (request->max_streams > 0)
    g_string_append_printf (out, " MaxStreams=%u", request->max_streams);
  for (guint i = 0; i < request->n_ports; i++) {
    const DonarTorctlOnionPort *port = &request->ports[i];

    if (port->virtual_port == 0 || port->target_port == 0)
      return refuse (out, start);
    g_string_append_printf (out, " Port=%u,127.0.0.1:%u",
        port->virtual_port, port->target_port);
  }
  for (const gchar * const *key = request->client_auth_v3;
      key != NULL && *key != NULL; key++) {
    if (!is_base32_of_length (*key, DONAR_TORCTL_CLIENT_AUTH_KEY_LENGTH, FALSE))
      return refuse (out, start);
    g_string_append (out, " ClientAuthV3=");
    g_string_append (out, *key);
  }
  g_string_append (out, CRLF);
  return DONAR_TORCTL_OK;
}

DonarTorctlError
donar_torctl_command_del_onion (GString * out, const gchar * service_id)
{
  if (!is_base32_of_length (service_id, DONAR_TORCTL_SERVICE_ID_LENGTH, TRUE))
    return DONAR_TORCTL_ERROR_BAD_ARGUMENT;
  g_string_append (out, "DEL_ONION ");
  g_string_append (out, service_id);
  g_string_append (out, CRLF);
  return DONAR_TORCTL_OK;
}

DonarTorctlError
donar_torctl_command_onion_client_auth_add (GString * out,
    const gchar * service_id, const guint8 * x25519_secret_key)
{
  gchar *blob;

  if (!is_base32_of_length (service_id, DONAR_TORCTL_SERVICE_ID_LENGTH, TRUE)
      || x25519_secret_key == NULL)
    return DONAR_TORCTL_ERROR_BAD_ARGUMENT;
  blob = g_base64_encode (x25519_secret_key, DONAR_TORCTL_X25519_KEY_BYTES);
  /* Appended piece by piece (a printf would format it in a buffer of its
   * own, freed unwiped) into room made beforehand.  The secret key then
   * stays in the GString only: the caller erases it after the write. */
  reserve (out, sizeof "ONION_CLIENT_AUTH_ADD " + strlen (service_id) +
      sizeof " x25519:" + strlen (blob) + 2);
  g_string_append (out, "ONION_CLIENT_AUTH_ADD ");
  g_string_append (out, service_id);
  g_string_append (out, " x25519:");
  g_string_append (out, blob);
  g_string_append (out, CRLF);
  explicit_bzero (blob, strlen (blob));
  g_free (blob);
  return DONAR_TORCTL_OK;
}

DonarTorctlError
donar_torctl_command_onion_client_auth_remove (GString * out,
    const gchar * service_id)
{
  if (!is_base32_of_length (service_id, DONAR_TORCTL_SERVICE_ID_LENGTH, TRUE))
    return DONAR_TORCTL_ERROR_BAD_ARGUMENT;
  g_string_append_printf (out, "ONION_CLIENT_AUTH_REMOVE %s" CRLF, service_id);
  return DONAR_TORCTL_OK;
}

static gboolean
is_info_key (const gchar * key)
{
  if (*key == '\0')
    return FALSE;
  for (const gchar * p = key; *p != '\0'; p++)
    if (*p <= ' ' || *p >= 0x7f || *p == '"' || *p == '\\')
      return FALSE;
  return TRUE;
}

DonarTorctlError
donar_torctl_command_getinfo (GString * out, const gchar * const *keys)
{
  gsize start = out->len;

  if (keys == NULL || keys[0] == NULL)
    return DONAR_TORCTL_ERROR_BAD_ARGUMENT;
  g_string_append (out, "GETINFO");
  for (const gchar * const *key = keys; *key != NULL; key++) {
    if (!is_info_key (*key))
      return refuse (out, start);
    g_string_append_c (out, ' ');
    g_string_append (out, *key);
  }
  g_string_append (out, CRLF);
  return DONAR_TORCTL_OK;
}

static gboolean
is_event_code (const gchar * event)
{
  if (*event == '\0')
    return FALSE;
  for (const gchar * p = event; *p != '\0'; p++)
    if (!g_ascii_isalpha (*p) && *p != '_')
      return FALSE;
  return TRUE;
}

DonarTorctlError
donar_torctl_command_setevents (GString * out, const gchar * const *events)
{
  gsize start = out->len;

  g_string_append (out, "SETEVENTS");
  for (const gchar * const *event = events; event != NULL && *event != NULL;
      event++) {
    if (!is_event_code (*event))
      return refuse (out, start);
    g_string_append_c (out, ' ');
    g_string_append (out, *event);
  }
  g_string_append (out, CRLF);
  return DONAR_TORCTL_OK;
}

DonarTorctlError
donar_torctl_command_setconf (GString * out,
    const DonarTorctlConfEntry * entries, guint n_entries)
{
  gsize start = out->len;

  if (n_entries == 0 || entries == NULL)
    return DONAR_TORCTL_ERROR_BAD_ARGUMENT;
  g_string_append (out, "SETCONF");
  for (guint i = 0; i < n_entries; i++) {
    const DonarTorctlConfEntry *entry = &entries[i];

    if (!is_config_key (entry->key))
      return refuse (out, start);
    g_string_append_c (out, ' ');
    g_string_append (out, entry->key);
    if (entry->value == NULL)
      continue;
    g_string_append_c (out, '=');
    if (is_plain_value (entry->value))
      g_string_append (out, entry->value);
    else if (!append_quoted (out, entry->value))
      return refuse (out, start);
  }
  g_string_append (out, CRLF);
  return DONAR_TORCTL_OK;
}
