/* Stream isolation, as tor's SocksPort isolation flags decide it.  Tor
 * lets a stream onto a circuit when they agree on every field that the
 * stream's port isolates by (connection_edge_compatible_with_circuit).
 * Torsim has a single SocksPort, so every stream has the same flags, and
 * a key made of those fields alone tells which streams may share. */
#include "torsim.h"

#include <string.h>

static const struct
{
  const char *name;
  TorsimIsolation flag;
} flags_by_name[] = {
  {"IsolateDestPort", TORSIM_ISOLATE_DEST_PORT},
  {"IsolateDestAddr", TORSIM_ISOLATE_DEST_ADDR},
  {"IsolateSOCKSAuth", TORSIM_ISOLATE_SOCKS_AUTH},
  {"IsolateClientProtocol", TORSIM_ISOLATE_CLIENT_PROTOCOL},
  {"IsolateClientAddr", TORSIM_ISOLATE_CLIENT_ADDR},
};

gboolean
torsim_isolation_apply (TorsimIsolation * flags, const char *name)
{
  gboolean no = g_ascii_strncasecmp (name, "No", 2) == 0;

  if (no)
    name += 2;
  for (guint i = 0; i < G_N_ELEMENTS (flags_by_name); i++) {
    if (g_ascii_strcasecmp (name, flags_by_name[i].name) != 0)
      continue;
    if (no)
      *flags &= ~flags_by_name[i].flag;
    else
      *flags |= flags_by_name[i].flag;
    return TRUE;
  }
  return FALSE;
}

/* Hex, so that no byte of a field can pass for a separator. */
static void
append_hex (GString * key, const char *bytes, gsize length)
{
  for (gsize i = 0; i < length; i++)
    g_string_append_printf (key, "%02x", (guint8) bytes[i]);
}

gchar *
torsim_isolation_key (TorsimIsolation flags,
    const TorsimIsolationFields * fields)
{
  GString *key = g_string_new ("k");

  if (flags & TORSIM_ISOLATE_DEST_PORT)
    g_string_append_printf (key, " port=%u", fields->dest_port);
  if (flags & TORSIM_ISOLATE_DEST_ADDR) {
    g_string_append (key, " addr=");
    append_hex (key, fields->dest_address, strlen (fields->dest_address));
  }
  if (flags & TORSIM_ISOLATE_SOCKS_AUTH) {
    /* No credentials differ from any credentials, even empty ones. */
    if (!fields->authenticated) {
      g_string_append (key, " auth=-");
    } else {
      g_string_append_printf (key, " auth=%" G_GSIZE_FORMAT ":",
          fields->username->len);
      append_hex (key, fields->username->str, fields->username->len);
      g_string_append_c (key, ':');
      append_hex (key, fields->password->str, fields->password->len);
    }
  }
  /* Torsim speaks SOCKS5 only: one protocol, one value. */
  if (flags & TORSIM_ISOLATE_CLIENT_PROTOCOL)
    g_string_append (key, " proto=socks5");
  if (flags & TORSIM_ISOLATE_CLIENT_ADDR)
    g_string_append_printf (key, " client=%s", fields->client_address);
  return g_string_free (key, FALSE);
}
