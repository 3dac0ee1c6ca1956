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

/* The circuit's relays as ids, every one named by fingerprint. */
static gboolean
relay_ids (const DonarTorctlCircuit * circuit, guint64 * ids, guint max_ids,
    guint * n_ids)
{
  guint n = 0;

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

/* A circuit still being built or torn down has no path to tell yet, or
 * none any more: only BUILT and EXTENDED ones do. */
static gboolean
has_path (const DonarTorctlCircuit * circuit)
{
  return circuit->path != NULL &&
      (circuit->state == DONAR_TORCTL_CIRCUIT_BUILT ||
      circuit->state == DONAR_TORCTL_CIRCUIT_EXTENDED);
}

gboolean
donar_torctl_circuit_stream_path (const DonarTorctlCircuit * circuit,
    guint64 * ids, guint max_ids, guint * n_ids)
{
  *n_ids = 0;
  if (circuit->socks_username == NULL || !carries_streams (circuit->purpose)
      || !has_path (circuit))
    return FALSE;
  return relay_ids (circuit, ids, max_ids, n_ids);
}

static gboolean
serves (const DonarTorctlCircuit * circuit, const gchar * service_id)
{
  return service_id != NULL && circuit->purpose != NULL &&
      strcmp (circuit->purpose, "HS_SERVICE_REND") == 0 &&
      circuit->rend_query != NULL &&
      strcmp (circuit->rend_query, service_id) == 0;
}

gboolean
donar_torctl_circuit_service_path (const DonarTorctlCircuit * circuit,
    const gchar * service_id, guint64 * ids, guint max_ids, guint * n_ids)
{
  *n_ids = 0;
  if (!serves (circuit, service_id) || circuit->state !=
      DONAR_TORCTL_CIRCUIT_BUILT || circuit->path == NULL)
    return FALSE;
  return relay_ids (circuit, ids, max_ids, n_ids);
}

gboolean
donar_torctl_circuit_service_gone (const DonarTorctlCircuit * circuit,
    const gchar * service_id)
{
  return serves (circuit, service_id) &&
      (circuit->state == DONAR_TORCTL_CIRCUIT_CLOSED ||
      circuit->state == DONAR_TORCTL_CIRCUIT_FAILED);
}
