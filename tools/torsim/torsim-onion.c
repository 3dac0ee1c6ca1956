/* The onion services of ADD_ONION: a made-up address derived from the key,
 * virtual ports mapped to loopback (127.0.0.0/8), and a descriptor "uploaded"
 * --publish-ms after the service was added. */
#include "torsim.h"

#include <string.h>

struct _TorsimOnion
{
  Torsim *t;
  gchar *id;
  guint8 key[TORSIM_ONION_KEY_LENGTH];
  TorsimOnionPort ports[TORSIM_ONION_MAX_PORTS];
  guint n_ports;
  gchar **client_auth_v3;
  guint max_streams;
  TorsimControl *owner;         /* NULL: detached */
  gboolean published;
  struct event *publish_timer;
  gchar *descriptor_id;
  gchar *hsdir;                 /* "$FP~nick" */
};

static void
onion_free (TorsimOnion * onion)
{
  event_free (onion->publish_timer);
  explicit_bzero (onion->key, sizeof onion->key);
  g_strfreev (onion->client_auth_v3);
  g_free (onion->descriptor_id);
  g_free (onion->hsdir);
  g_free (onion->id);
  g_free (onion);
}

/* A v3 address is base32 (public key | checksum (2) | version 3): 56
 * characters ending in 'd'.  Here the "public key" is a hash of the
 * secret, so that adding the same key again gives the same address, and
 * the checksum is made up too. */
static gchar *
derive_id (const guint8 * key)
{
  GChecksum *sha = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 address[35];
  gsize length = 32;

  g_checksum_update (sha, (const guchar *) "torsim onion key", 16);
  g_checksum_update (sha, key, TORSIM_ONION_KEY_LENGTH);
  g_checksum_get_digest (sha, address, &length);
  g_checksum_free (sha);
  address[32] = address[0] ^ address[31];
  address[33] = address[1] ^ address[30];
  address[34] = 0x03;
  return torsim_base32 (address, sizeof address);
}

static void
announce_hs_desc (TorsimOnion * onion, const char *action)
{
  g_autofree gchar *text = g_strdup_printf ("HS_DESC %s %s UNKNOWN %s %s",
      action, onion->id, onion->hsdir, onion->descriptor_id);

  torsim_control_broadcast (onion->t, TORSIM_EVENT_HS_DESC, text);
}

static void
on_publish (evutil_socket_t fd, short what, void *arg)
{
  TorsimOnion *onion = arg;

  onion->published = TRUE;
  torsim_log (onion->t, "onion %s: descriptor uploaded", onion->id);
  announce_hs_desc (onion, "UPLOADED");
}

TorsimOnion *
torsim_onion_add (Torsim * t, const TorsimOnionSpec * spec,
    TorsimControl * owner)
{
  TorsimOnion *onion = g_new0 (TorsimOnion, 1);
  guint8 descriptor[32];
  g_autofree gchar *hsdir_fp = NULL;
  g_autofree gchar *hsdir_identity = NULL;

  if (spec->key != NULL)
    memcpy (onion->key, spec->key, TORSIM_ONION_KEY_LENGTH);
  else
    torsim_random_bytes (onion->key, TORSIM_ONION_KEY_LENGTH);
  onion->id = derive_id (onion->key);
  onion->publish_timer = evtimer_new (t->base, on_publish, onion);
  if (g_hash_table_contains (t->onions, onion->id)) {
    onion_free (onion);
    return NULL;
  }
  onion->t = t;
  memcpy (onion->ports, spec->ports, sizeof onion->ports);
  onion->n_ports = spec->n_ports;
  onion->client_auth_v3 = g_strdupv (spec->client_auth_v3);
  onion->max_streams = spec->max_streams;
  onion->owner = spec->detach ? NULL : owner;

  torsim_random_bytes (descriptor, sizeof descriptor);
  onion->descriptor_id = g_base64_encode (descriptor, sizeof descriptor);
  /* Tor writes descriptor ids without the padding. */
  onion->descriptor_id[strcspn (onion->descriptor_id, "=")] = '\0';
  hsdir_identity = g_strdup_printf ("hsdir %s", onion->id);
  hsdir_fp = torsim_fingerprint (t->options->seed, hsdir_identity);
  onion->hsdir = g_strdup_printf ("$%s~torsimHsDir", hsdir_fp);

  g_hash_table_insert (t->onions, onion->id, onion);
  torsim_timer_at (t, onion->publish_timer, torsim_now () +
      t->options->publish_ms * (gint64) 1000);
  torsim_log (t, "onion %s: added, %u port(s)%s", onion->id, onion->n_ports,
      spec->detach ? ", detached" : "");
  return onion;
}

void
torsim_onion_announce (TorsimOnion * onion)
{
  if (!onion->published)
    announce_hs_desc (onion, "UPLOAD");
}

void
torsim_onion_remove (Torsim * t, TorsimOnion * onion)
{
  torsim_log (t, "onion %s: removed", onion->id);
  g_hash_table_remove (t->onions, onion->id);
  onion_free (onion);
}

TorsimOnion *
torsim_onion_lookup (Torsim * t, const char *service_id)
{
  return g_hash_table_lookup (t->onions, service_id);
}

const char *
torsim_onion_id (TorsimOnion * onion)
{
  return onion->id;
}

const guint8 *
torsim_onion_key (TorsimOnion * onion)
{
  return onion->key;
}

TorsimControl *
torsim_onion_owner (TorsimOnion * onion)
{
  return onion->owner;
}

gboolean
torsim_onion_is_published (TorsimOnion * onion)
{
  return onion->published;
}

const gchar *const *
torsim_onion_client_auth (TorsimOnion * onion)
{
  return (const gchar * const *) onion->client_auth_v3;
}

const TorsimOnionPort *
torsim_onion_target (TorsimOnion * onion, guint16 virtual_port)
{
  for (guint i = 0; i < onion->n_ports; i++)
    if (onion->ports[i].virtual_port == virtual_port)
      return &onion->ports[i];
  return NULL;
}

void
torsim_onions_remove_owned (Torsim * t, TorsimControl * owner)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, t->onions);
  while (g_hash_table_iter_next (&iter, NULL, &value)) {
    TorsimOnion *onion = value;

    if (onion->owner != owner)
      continue;
    torsim_log (t, "onion %s: removed with its control connection", onion->id);
    g_hash_table_iter_remove (&iter);
    onion_free (onion);
  }
}

void
torsim_onions_clear (Torsim * t)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, t->onions);
  while (g_hash_table_iter_next (&iter, NULL, &value)) {
    g_hash_table_iter_remove (&iter);
    onion_free (value);
  }
}
