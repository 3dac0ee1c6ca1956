/* ADD_ONION and DEL_ONION (control-spec 3.27, 3.38), for v3 services
 * forwarding to loopback (127.0.0.0/8). */
#include "torsim.h"

#include <arpa/inet.h>
#include <string.h>

#include "donar-torctl-arguments.h"

#define CLIENT_AUTH_V3_LENGTH 52

static gboolean
parse_port_number (const char *text, guint16 * port)
{
  guint64 value;

  if (!g_ascii_string_to_unsigned (text, 10, 1, 65535, &value, NULL))
    return FALSE;
  *port = (guint16) value;
  return TRUE;
}

/* A loopback IPv4 address, or "localhost" (what tor's lookup gives it). */
static gboolean
parse_loopback (const char *text, guint32 * address)
{
  struct in_addr in;

  if (g_ascii_strcasecmp (text, "localhost") == 0) {
    *address = INADDR_LOOPBACK;
    return TRUE;
  }
  if (inet_pton (AF_INET, text, &in) != 1)
    return FALSE;
  *address = ntohl (in.s_addr);
  return (*address >> 24) == 127;
}

/* "virt", "virt,port", "virt,addr" or "virt,addr:port", read as tor's
 * hs_parse_port_config does: a target with ':' or '.' is an address,
 * with the virtual port when it has none; anything else is a port on
 * 127.0.0.1.  Tor takes any address; torsim's onions can only reach
 * loopback, 127.0.0.0/8, where each test runs its own service. */
static gboolean
parse_port (const char *value, TorsimOnionPort * port)
{
  g_auto (GStrv) parts = g_strsplit (value, ",", 2);
  g_autofree gchar *address = NULL;
  const char *target, *colon;

  if (!parse_port_number (parts[0], &port->virtual_port))
    return FALSE;
  port->target_address = INADDR_LOOPBACK;
  port->target_port = port->virtual_port;
  target = parts[1];
  if (target == NULL)
    return TRUE;
  if (strchr (target, ':') == NULL && strchr (target, '.') == NULL)
    return parse_port_number (target, &port->target_port);
  colon = strrchr (target, ':');
  address = colon != NULL ? g_strndup (target, colon - target) :
      g_strdup (target);
  if (!parse_loopback (address, &port->target_address))
    return FALSE;
  return colon == NULL || parse_port_number (colon + 1, &port->target_port);
}

static gboolean
is_base32 (const char *text, gsize length)
{
  if (strlen (text) != length)
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isalpha (*p) && !(*p >= '2' && *p <= '7'))
      return FALSE;
  return TRUE;
}

/* The base64 of a 64-byte key, as PrivateKey= gave it. */
static gboolean
decode_key (const char *blob, guint8 * key)
{
  g_autofree guchar *bytes = NULL;
  gsize length = 0;

  if (strlen (blob) != 88 || strspn (blob, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
          "abcdefghijklmnopqrstuvwxyz0123456789+/=") != 88)
    return FALSE;
  bytes = g_base64_decode (blob, &length);
  if (length != TORSIM_ONION_KEY_LENGTH)
    return FALSE;
  memcpy (key, bytes, length);
  explicit_bzero (bytes, length);
  return TRUE;
}

static gboolean
parse_flags (const char *value, TorsimOnionSpec * spec, gboolean * discard_pk)
{
  static const char *const known[] = { "DiscardPK", "Detach", "V3Auth",
    "NonAnonymous", "MaxStreamsCloseCircuit", NULL
  };
  g_auto (GStrv) flags = g_strsplit (value, ",", -1);

  for (guint i = 0; flags[i] != NULL; i++) {
    gboolean found = FALSE;

    for (guint k = 0; known[k] != NULL; k++)
      found |= g_ascii_strcasecmp (flags[i], known[k]) == 0;
    if (!found)
      return FALSE;
    if (g_ascii_strcasecmp (flags[i], "DiscardPK") == 0)
      *discard_pk = TRUE;
    if (g_ascii_strcasecmp (flags[i], "Detach") == 0)
      spec->detach = TRUE;
  }
  return TRUE;
}

/* The arguments after the key; NULL or the error line. */
static const char *
parse_arguments (const DonarTorctlArguments * a, TorsimOnionSpec * spec,
    gboolean * discard_pk, GPtrArray * client_auth)
{
  for (guint i = 1; i < a->n_arguments; i++) {
    const char *key = a->arguments[i].key;
    const char *value = a->arguments[i].value;
    guint64 number;

    if (key == NULL)
      return "513 Unrecognized argument in ADD_ONION";
    if (g_ascii_strcasecmp (key, "Port") == 0) {
      if (spec->n_ports == TORSIM_ONION_MAX_PORTS
          || !parse_port (value, &spec->ports[spec->n_ports]))
        return "512 Invalid VIRTPORT/TARGET (torsim forwards to "
            "127.0.0.0/8 only)";
      spec->n_ports++;
    } else if (g_ascii_strcasecmp (key, "Flags") == 0) {
      if (!parse_flags (value, spec, discard_pk))
        return "512 Invalid 'Flags' argument";
    } else if (g_ascii_strcasecmp (key, "MaxStreams") == 0) {
      if (!g_ascii_string_to_unsigned (value, 10, 0, 65535, &number, NULL))
        return "512 Invalid 'MaxStreams' argument";
      spec->max_streams = (guint) number;
    } else if (g_ascii_strcasecmp (key, "ClientAuthV3") == 0) {
      if (!is_base32 (value, CLIENT_AUTH_V3_LENGTH))
        return "512 Cannot decode v3 client auth key";
      g_ptr_array_add (client_auth, g_strdup (value));
    } else {
      return "513 Unrecognized argument in ADD_ONION";
    }
  }
  if (spec->n_ports == 0)
    return "512 Missing 'Port' argument";
  return NULL;
}

void
torsim_command_add_onion (TorsimControl * c, const char *args)
{
  Torsim *t = torsim_control_torsim (c);
  DonarTorctlArguments *a = NULL;
  TorsimOnionSpec spec;
  guint8 key[TORSIM_ONION_KEY_LENGTH];
  gboolean discard_pk = FALSE, new_key;
  g_autoptr (GPtrArray) client_auth = g_ptr_array_new_with_free_func (g_free);
  const char *first, *error = NULL;
  TorsimOnion *onion;
  g_autoptr (GString) reply = NULL;

  memset (&spec, 0, sizeof spec);
  if (donar_torctl_arguments_parse (args, 1, &a) != DONAR_TORCTL_OK) {
    torsim_control_write (c, "512 Invalid ADD_ONION arguments");
    return;
  }
  first = donar_torctl_arguments_word (a, 0);
  new_key = first != NULL && (g_ascii_strcasecmp (first, "NEW:ED25519-V3")
      == 0 || g_ascii_strcasecmp (first, "NEW:BEST") == 0);
  if (first == NULL)
    error = "512 Missing argument to ADD_ONION";
  else if (!new_key && !g_str_has_prefix (first, "ED25519-V3:"))
    error = "513 Invalid key type";
  else if (!new_key && !decode_key (first + strlen ("ED25519-V3:"), key))
    error = "512 Failed to decode ED25519-V3 key";
  else
    error = parse_arguments (a, &spec, &discard_pk, client_auth);
  donar_torctl_arguments_free (a);
  if (error != NULL) {
    torsim_control_write (c, error);
    explicit_bzero (key, sizeof key);
    return;
  }

  g_ptr_array_add (client_auth, NULL);
  spec.client_auth_v3 = (gchar **) client_auth->pdata;
  spec.key = new_key ? NULL : key;
  onion = torsim_onion_add (t, &spec, c);
  explicit_bzero (key, sizeof key);
  if (onion == NULL) {
    torsim_control_write (c, "550 Onion address collision");
    return;
  }

  reply = g_string_new ("250-ServiceID=");
  g_string_append_printf (reply, "%s\r\n", torsim_onion_id (onion));
  if (new_key && !discard_pk) {
    g_autofree gchar *blob = g_base64_encode (torsim_onion_key (onion),
        TORSIM_ONION_KEY_LENGTH);

    g_string_append_printf (reply, "250-PrivateKey=ED25519-V3:%s\r\n", blob);
    explicit_bzero (blob, strlen (blob));
  }
  g_string_append (reply, "250 OK\r\n");
  torsim_control_write_raw (c, reply->str);
  explicit_bzero (reply->str, reply->len);
  torsim_onion_announce (onion);
}

void
torsim_command_del_onion (TorsimControl * c, const char *args)
{
  Torsim *t = torsim_control_torsim (c);
  TorsimOnion *onion;
  TorsimControl *owner;

  if (!is_base32 (args, TORSIM_ONION_ID_LENGTH)) {
    torsim_control_write (c, "512 Malformed Onion Service id");
    return;
  }
  onion = torsim_onion_lookup (t, args);
  owner = onion != NULL ? torsim_onion_owner (onion) : NULL;
  /* Another connection's onion that is not detached is not ours to see. */
  if (onion == NULL || (owner != NULL && owner != c)) {
    torsim_control_write (c, "552 Unknown Onion Service id");
    return;
  }
  torsim_onion_remove (t, onion);
  torsim_control_write (c, "250 OK");
}
