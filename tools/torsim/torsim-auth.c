/* The cookie and SAFECOOKIE (control-spec 3.5, 3.24).  The controller's
 * hash is lib/tor's donar_torctl_safecookie_client_hash(); the server's
 * hash is the same HMAC-SHA256 keyed with the other string, which lib/tor
 * only checks and so does not export. */
#include "torsim.h"

#include <string.h>

#include "donar-torctl-safecookie.h"

static const gchar server_to_controller[] =
    "Tor safe cookie authentication server-to-controller hash";

gboolean
torsim_auth_write_cookie (Torsim * t, const char *path, GError ** error)
{
  torsim_random_bytes (t->cookie, sizeof t->cookie);
  G_STATIC_ASSERT (sizeof t->cookie == DONAR_TORCTL_COOKIE_LENGTH);
  /* g_file_set_contents_full writes a temporary file and renames it. */
  if (!g_file_set_contents_full (path, (const gchar *) t->cookie,
          sizeof t->cookie, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error))
    return FALSE;
  t->have_cookie = TRUE;
  return TRUE;
}

void
torsim_auth_server_hash (const guint8 * cookie, const guint8 * client_nonce,
    const guint8 * server_nonce, guint8 * hash)
{
  GHmac *hmac = g_hmac_new (G_CHECKSUM_SHA256,
      (const guchar *) server_to_controller, strlen (server_to_controller));
  gsize length = DONAR_TORCTL_HASH_LENGTH;

  g_hmac_update (hmac, cookie, DONAR_TORCTL_COOKIE_LENGTH);
  g_hmac_update (hmac, client_nonce, DONAR_TORCTL_NONCE_LENGTH);
  g_hmac_update (hmac, server_nonce, DONAR_TORCTL_NONCE_LENGTH);
  g_hmac_get_digest (hmac, hash, &length);
  g_hmac_unref (hmac);
}

static gboolean
equal_in_constant_time (const guint8 * a, const guint8 * b, gsize length)
{
  volatile guint8 difference = 0;

  for (gsize i = 0; i < length; i++)
    difference |= a[i] ^ b[i];
  return difference == 0;
}

gboolean
torsim_auth_check_client_hash (const guint8 * cookie,
    const guint8 * client_nonce, const guint8 * server_nonce,
    const guint8 * client_hash)
{
  guint8 expected[DONAR_TORCTL_HASH_LENGTH];
  gboolean equal;

  donar_torctl_safecookie_client_hash (cookie, client_nonce, server_nonce,
      expected);
  equal = equal_in_constant_time (expected, client_hash, sizeof expected);
  explicit_bzero (expected, sizeof expected);
  return equal;
}

gboolean
torsim_auth_check_cookie (const guint8 * cookie, const guint8 * given)
{
  return equal_in_constant_time (cookie, given, DONAR_TORCTL_COOKIE_LENGTH);
}
