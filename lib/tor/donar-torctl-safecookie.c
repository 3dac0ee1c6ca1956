/* The two SAFECOOKIE hashes. */
#include "donar-torctl-safecookie.h"

#include <string.h>

static const gchar server_to_controller[] =
    "Tor safe cookie authentication server-to-controller hash";
static const gchar controller_to_server[] =
    "Tor safe cookie authentication controller-to-server hash";

static void
safecookie_hash (const gchar * key, const guint8 * cookie,
    const guint8 * client_nonce, const guint8 * server_nonce, guint8 * hash)
{
  GHmac *hmac = g_hmac_new (G_CHECKSUM_SHA256, (const guchar *) key,
      strlen (key));
  gsize length = DONAR_TORCTL_HASH_LENGTH;

  g_hmac_update (hmac, cookie, DONAR_TORCTL_COOKIE_LENGTH);
  g_hmac_update (hmac, client_nonce, DONAR_TORCTL_NONCE_LENGTH);
  g_hmac_update (hmac, server_nonce, DONAR_TORCTL_NONCE_LENGTH);
  g_hmac_get_digest (hmac, hash, &length);
  g_hmac_unref (hmac);
}

void
donar_torctl_safecookie_client_hash (const guint8 * cookie,
    const guint8 * client_nonce, const guint8 * server_nonce, guint8 * hash)
{
  safecookie_hash (controller_to_server, cookie, client_nonce, server_nonce,
      hash);
}

void
donar_torctl_safecookie_server_hash (const guint8 * cookie,
    const guint8 * client_nonce, const guint8 * server_nonce, guint8 * hash)
{
  safecookie_hash (server_to_controller, cookie, client_nonce, server_nonce,
      hash);
}

/* Every byte is looked at whatever the earlier ones were, so the time taken
 * says nothing about where the first difference is. */
gboolean
donar_torctl_equal_in_constant_time (const guint8 * a, const guint8 * b,
    gsize length)
{
  volatile guint8 difference = 0;

  for (gsize i = 0; i < length; i++)
    difference |= a[i] ^ b[i];
  return difference == 0;
}

DonarTorctlError
donar_torctl_safecookie_check_server_hash (const guint8 * cookie,
    const guint8 * client_nonce, const guint8 * server_nonce,
    const guint8 * server_hash)
{
  guint8 expected[DONAR_TORCTL_HASH_LENGTH];
  gboolean equal;

  safecookie_hash (server_to_controller, cookie, client_nonce, server_nonce,
      expected);
  equal = donar_torctl_equal_in_constant_time (expected, server_hash,
      DONAR_TORCTL_HASH_LENGTH);
  explicit_bzero (expected, sizeof expected);
  return equal ? DONAR_TORCTL_OK : DONAR_TORCTL_ERROR_SERVER_HASH_MISMATCH;
}
