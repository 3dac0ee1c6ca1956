/* Relay ids and the stream paths of circuits. */
#include "donar-torctl-relay.h"
#include "donar-torctl-hex.h"

#include <string.h>

#define FINGERPRINT_BYTES 20
#define FINGERPRINT_DIGITS (2 * FINGERPRINT_BYTES)

DonarTorctlError
donar_torctl_relay_id (const gchar * long_name, guint64 * id)
{
  gchar digits[FINGERPRINT_DIGITS + 1];
  guint8 fingerprint[FINGERPRINT_BYTES];
  guint64 prefix;
  gchar after;

  *id = 0;
  if (long_name == NULL || long_name[0] != '$')
    return DONAR_TORCTL_ERROR_MALFORMED;
  /* Digit by digit: a short name ends at its NUL, never read past. */
  for (guint i = 0; i < FINGERPRINT_DIGITS; i++)
    if (!g_ascii_isxdigit (long_name[1 + i]))
      return DONAR_TORCTL_ERROR_MALFORMED;
  after = long_name[1 + FINGERPRINT_DIGITS];
  if (after != '\0' && after != '~' && after != '=')
    return DONAR_TORCTL_ERROR_MALFORMED;
  memcpy (digits, long_name + 1, FINGERPRINT_DIGITS);
  digits[FINGERPRINT_DIGITS] = '\0';
  if (!donar_torctl_hex_decode (digits, fingerprint, FINGERPRINT_BYTES))
    return DONAR_TORCTL_ERROR_MALFORMED;
  memcpy (&prefix, fingerprint, sizeof prefix);
  *id = GUINT64_FROM_BE (prefix);
  return DONAR_TORCTL_OK;
}

/* The purposes of the circuits that carry a client's streams: to an exit,
 * or to an onion's rendezvous point.  Old tors send no PURPOSE. */
static gboolean
carries_streams (const gchar * purpose)
{
  return purpose == NULL || strcmp (purpose, "GENERAL") == 0 ||
      strcmp (purpose, "HS_CLIENT_REND") == 0;
}

gboolean
donar_torctl_circuit_stream_path (const DonarTorctlCircuit * circuit,
    guint64 * ids, guint max_ids, guint * n_ids)
{
  guint n = 0;

  *n_ids = 0;
  /* A circuit still being built or torn down has no path to tell yet, or
   * none any more: only BUILT and EXTENDED ones do. */
  if (circuit->socks_username == NULL || circuit->path == NULL ||
      !carries_streams (circuit->purpose) ||
      (circuit->state != DONAR_TORCTL_CIRCUIT_BUILT &&
          circuit->state != DONAR_TORCTL_CIRCUIT_EXTENDED))
    return FALSE;
  /* One relay we cannot name would hide that the link crosses it: a path
   * that misses it is worse than none. */
  for (guint i = 0; circuit->path[i] != NULL; i++) {
    guint64 id;

    if (donar_torctl_relay_id (circuit->path[i], &id) != DONAR_TORCTL_OK)
      return FALSE;
    if (n < max_ids)
      ids[n++] = id;
  }
  if (n == 0)
    return FALSE;
  *n_ids = n;
  return TRUE;
}
