/* Onion client authorization, as tor enforces it: a client key given with
 * ONION_CLIENT_AUTH_ADD (control-spec 3.30) is this whole tor's, for any
 * SOCKS connection; an onion made with ClientAuthV3 keys is reached only
 * by a client whose key's public half is one of them.  Without a key tor
 * cannot decrypt the descriptor (SOCKS 0xF4); with the wrong one, neither
 * (0xF5). */
#include "torsim.h"

#include <string.h>

#include "donar-client-auth.h"

/* service id -> the public key (lowercase base32) of the key given. */
static GHashTable *
keys_of (Torsim * t)
{
  if (t->client_auth_keys == NULL)
    t->client_auth_keys = g_hash_table_new_full (g_str_hash, g_str_equal,
        g_free, g_free);
  return t->client_auth_keys;
}

static gboolean
is_service_id (const char *text)
{
  if (strlen (text) != TORSIM_ONION_ID_LENGTH)
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if (!(*p >= 'a' && *p <= 'z') && !(*p >= '2' && *p <= '7'))
      return FALSE;
  return TRUE;
}

/* ONION_CLIENT_AUTH_ADD <id> x25519:<base64 of 32 bytes> [ClientName=...]
 * [Flags=...]: the options after the key are accepted and ignored. */
void
torsim_command_onion_client_auth_add (TorsimControl * c, const char *args)
{
  Torsim *t = torsim_control_torsim (c);
  g_auto (GStrv) words = g_strsplit (args, " ", -1);
  g_autofree guchar *secret = NULL;
  DonarClientAuthKey key;
  gsize length = 0;
  gboolean replaced;

  if (g_strv_length (words) < 2) {
    torsim_control_write (c, "512 Missing arguments to ONION_CLIENT_AUTH_ADD");
    return;
  }
  if (!is_service_id (words[0])) {
    torsim_control_write (c, "512 Invalid v3 address");
    return;
  }
  if (!g_str_has_prefix (words[1], "x25519:")) {
    torsim_control_write (c, "552 Unrecognized key type");
    return;
  }
  secret = g_base64_decode (words[1] + strlen ("x25519:"), &length);
  if (length != DONAR_CLIENT_AUTH_KEY_BYTES
      || !donar_client_auth_key_from_secret (&key, secret, NULL)) {
    if (secret)
      explicit_bzero (secret, length);
    explicit_bzero (words[1], strlen (words[1]));
    torsim_control_write (c, "512 Failed to decode x25519 private key");
    return;
  }
  explicit_bzero (secret, length);
  explicit_bzero (words[1], strlen (words[1]));
  replaced = g_hash_table_replace (keys_of (t), g_strdup (words[0]),
      donar_client_auth_to_base32 (key.public_key)) == FALSE;
  donar_client_auth_key_clear (&key);
  torsim_control_write (c, replaced ?
      "251 Client for onion existed and replaced" : "250 OK");
}

void
torsim_command_onion_client_auth_remove (TorsimControl * c, const char *args)
{
  Torsim *t = torsim_control_torsim (c);

  if (!is_service_id (args)) {
    torsim_control_write (c, "512 Invalid v3 address");
    return;
  }
  if (g_hash_table_remove (keys_of (t), args))
    torsim_control_write (c, "250 OK");
  else
    torsim_control_write (c, "251 No credentials for given address");
}

guint8
torsim_client_auth_check (Torsim * t, const char *service_id,
    const gchar * const *allowed)
{
  const gchar *mine;

  if (allowed == NULL || allowed[0] == NULL)
    return TORSIM_SOCKS_SUCCEEDED;
  mine = g_hash_table_lookup (keys_of (t), service_id);
  if (mine == NULL)
    return TORSIM_SOCKS_ONION_MISSING_CLIENT_AUTH;
  for (guint i = 0; allowed[i] != NULL; i++)
    if (g_ascii_strcasecmp (allowed[i], mine) == 0)
      return TORSIM_SOCKS_SUCCEEDED;
  return TORSIM_SOCKS_ONION_BAD_CLIENT_AUTH;
}

void
torsim_client_auth_clear (Torsim * t)
{
  g_clear_pointer (&t->client_auth_keys, g_hash_table_destroy);
}
