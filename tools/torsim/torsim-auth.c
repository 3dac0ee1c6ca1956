/* The cookie and SAFECOOKIE (control-spec 3.5, 3.24), the server's side:
 * the hashes are lib/tor's. */
#include "torsim.h"

#include <string.h>

#include "donar-torctl-safecookie.h"

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
  donar_torctl_safecookie_server_hash (cookie, client_nonce, server_nonce,
      hash);
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
  equal =
      donar_torctl_equal_in_constant_time (expected, client_hash,
      sizeof expected);
  explicit_bzero (expected, sizeof expected);
  return equal;
}

gboolean
torsim_auth_check_cookie (const guint8 * cookie, const guint8 * given)
{
  return donar_torctl_equal_in_constant_time (cookie, given,
      DONAR_TORCTL_COOKIE_LENGTH);
}
