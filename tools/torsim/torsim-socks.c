/* The server side of SOCKS5 (RFC 1928) with username/password (RFC 1929),
 * as tor's SocksPort with ExtendedErrors and no exit relay: only CONNECT
 * to a published .onion name goes anywhere.  The credentials, with the
 * client's address and the destination, make the stream's isolation key
 * (torsim-isolation.c). */
#include "torsim.h"

#include <string.h>

#define SOCKS_VERSION 0x05
#define AUTH_VERSION 0x01
#define METHOD_NONE 0x00
#define METHOD_USERNAME_PASSWORD 0x02
#define METHOD_NONE_ACCEPTABLE 0xFF
#define COMMAND_CONNECT 0x01
#define ATYP_IPV4 0x01
#define ATYP_DOMAINNAME 0x03
#define ATYP_IPV6 0x04

typedef enum
{
  STAGE_GREETING,
  STAGE_AUTH,
  STAGE_REQUEST,
  STAGE_DONE,
} Stage;

struct _TorsimSocks
{
  Stage stage;
  gboolean authenticated;       /* credentials given (method 0x02) */
  GString *username;            /* raw bytes, may hold NULs */
  GString *password;
};

TorsimSocks *
torsim_socks_new (void)
{
  TorsimSocks *socks = g_new0 (TorsimSocks, 1);

  socks->username = g_string_new (NULL);
  socks->password = g_string_new (NULL);
  return socks;
}

void
torsim_socks_free (TorsimSocks * socks)
{
  if (socks == NULL)
    return;
  g_string_free (socks->username, TRUE);
  g_string_free (socks->password, TRUE);
  g_free (socks);
}

void
torsim_socks_reply (struct bufferevent *client, guint8 reply)
{
  /* BND.ADDR 0.0.0.0, BND.PORT 0, as tor. */
  const guint8 message[10] = { SOCKS_VERSION, reply, 0x00, ATYP_IPV4,
    0, 0, 0, 0, 0, 0
  };

  bufferevent_write (client, message, sizeof message);
}

/* The method selection and the username/password status: two bytes. */
static void
write_pair (struct bufferevent *client, guint8 first, guint8 second)
{
  const guint8 pair[2] = { first, second };

  bufferevent_write (client, pair, sizeof pair);
}

/* The first `needed` bytes of the input, or NULL while they are not all
 * there. */
static const guint8 *
peek (struct evbuffer *input, gsize needed)
{
  if (evbuffer_get_length (input) < needed)
    return NULL;
  return evbuffer_pullup (input, needed);
}

/* Tor prefers username/password when offered (without PreferSOCKSNoAuth). */
static gboolean
read_greeting (TorsimSocks * socks, struct evbuffer *input,
    struct bufferevent *client, gboolean * more)
{
  const guint8 *p = peek (input, 2);
  gboolean none = FALSE, password = FALSE;
  guint8 method;

  *more = FALSE;
  if (p == NULL)
    return TRUE;
  if (p[0] != SOCKS_VERSION)
    return FALSE;
  p = peek (input, 2 + p[1]);
  if (p == NULL)
    return TRUE;
  for (guint i = 0; i < p[1]; i++) {
    none |= p[2 + i] == METHOD_NONE;
    password |= p[2 + i] == METHOD_USERNAME_PASSWORD;
  }
  method = password ? METHOD_USERNAME_PASSWORD : none ? METHOD_NONE :
      METHOD_NONE_ACCEPTABLE;
  evbuffer_drain (input, 2 + p[1]);
  write_pair (client, SOCKS_VERSION, method);
  if (method == METHOD_NONE_ACCEPTABLE)
    return FALSE;
  socks->stage = password ? STAGE_AUTH : STAGE_REQUEST;
  *more = TRUE;
  return TRUE;
}

/* Any credentials succeed: tor uses them only to isolate streams. */
static gboolean
read_auth (TorsimSocks * socks, struct evbuffer *input,
    struct bufferevent *client, gboolean * more)
{
  const guint8 *p = peek (input, 2);
  gsize ulen, plen;

  *more = FALSE;
  if (p == NULL)
    return TRUE;
  if (p[0] != AUTH_VERSION)
    return FALSE;
  ulen = p[1];
  p = peek (input, 3 + ulen);
  if (p == NULL)
    return TRUE;
  plen = p[2 + ulen];
  p = peek (input, 3 + ulen + plen);
  if (p == NULL)
    return TRUE;
  g_string_append_len (socks->username, (const gchar *) p + 2, ulen);
  g_string_append_len (socks->password, (const gchar *) p + 3 + ulen, plen);
  evbuffer_drain (input, 3 + ulen + plen);
  write_pair (client, AUTH_VERSION, 0x00);
  socks->authenticated = TRUE;
  socks->stage = STAGE_REQUEST;
  *more = TRUE;
  return TRUE;
}

/* A v3 onion: 56 base32 characters, the last 'd' (version 3).  Tor also
 * checks the checksum; torsim's made-up addresses have none to check. */
static gboolean
is_onion_id (const char *id)
{
  if (strlen (id) != TORSIM_ONION_ID_LENGTH)
    return FALSE;
  for (const char *p = id; *p != '\0'; p++)
    if (!g_ascii_islower (*p) && !(*p >= '2' && *p <= '7'))
      return FALSE;
  return id[TORSIM_ONION_ID_LENGTH - 1] == 'd';
}

static void
connect_onion (TorsimSocks * socks, TorsimStream * s, Torsim * t,
    gchar * host, guint16 port)
{
  gchar *dot;
  const char *id;
  TorsimOnion *onion;
  guint8 reply;
  const TorsimOnionPort *target;
  g_autofree gchar *key = NULL, *dest = NULL;
  TorsimIsolationFields fields;

  /* Tor lower-cases names, and takes the last label before ".onion". */
  for (gchar * p = host; *p != '\0'; p++)
    *p = g_ascii_tolower (*p);
  /* Tor's IsolateDestAddr compares the name as the client gave it,
   * subdomain included, ignoring case. */
  dest = g_strdup (host);
  if (!g_str_has_suffix (host, ".onion")) {
    /* No exit relay in this network. */
    torsim_stream_refuse (s, TORSIM_SOCKS_HOST_UNREACHABLE);
    return;
  }
  host[strlen (host) - strlen (".onion")] = '\0';
  dot = strrchr (host, '.');
  id = dot != NULL ? dot + 1 : host;
  if (!is_onion_id (id)) {
    torsim_stream_refuse (s, TORSIM_SOCKS_ONION_BAD_ADDRESS);
    return;
  }
  onion = torsim_onion_lookup (t, id);
  if (onion == NULL || !torsim_onion_is_published (onion)) {
    torsim_stream_refuse (s, TORSIM_SOCKS_ONION_DESC_NOT_FOUND);
    return;
  }
  reply = torsim_client_auth_check (t, id, torsim_onion_client_auth (onion));
  if (reply != TORSIM_SOCKS_SUCCEEDED) {
    torsim_stream_refuse (s, reply);
    return;
  }
  target = torsim_onion_target (onion, port);
  if (target == NULL) {
    /* The service ends the stream with DONE ("port scanning harder"),
     * which tor's client answers with 0x05. */
    torsim_stream_refuse (s, TORSIM_SOCKS_CONNECTION_REFUSED);
    return;
  }
  fields.client_address = torsim_stream_client_address (s);
  fields.authenticated = socks->authenticated;
  fields.username = socks->username;
  fields.password = socks->password;
  fields.dest_address = dest;
  fields.dest_port = port;
  key = torsim_isolation_key (t->options->isolation, &fields);
  torsim_stream_connect (s, key,
      socks->authenticated ? socks->username->str : NULL,
      socks->authenticated ? socks->password->str : NULL,
      target->target_address, target->target_port);
}

static gboolean
read_request (TorsimSocks * socks, struct evbuffer *input, TorsimStream * s,
    Torsim * t)
{
  const guint8 *p = peek (input, 5);
  gsize address_length, total;
  g_autofree gchar *host = NULL;
  guint16 port;

  if (p == NULL)
    return TRUE;
  if (p[0] != SOCKS_VERSION)
    return FALSE;
  switch (p[3]) {
    case ATYP_IPV4:
      address_length = 4;
      break;
    case ATYP_IPV6:
      address_length = 16;
      break;
    case ATYP_DOMAINNAME:
      address_length = 1 + p[4];
      break;
    default:
      socks->stage = STAGE_DONE;
      torsim_stream_refuse (s, TORSIM_SOCKS_ADDRESS_TYPE_NOT_SUPPORTED);
      return TRUE;
  }
  total = 4 + address_length + 2;
  p = peek (input, total);
  if (p == NULL)
    return TRUE;
  port = (p[total - 2] << 8) | p[total - 1];
  if (p[3] == ATYP_DOMAINNAME)
    host = g_strndup ((const gchar *) p + 5, p[4]);
  socks->stage = STAGE_DONE;
  if (p[1] != COMMAND_CONNECT) {
    torsim_stream_refuse (s, TORSIM_SOCKS_COMMAND_NOT_SUPPORTED);
    return TRUE;
  }
  evbuffer_drain (input, total);
  if (host == NULL) {
    /* An address: it would need an exit relay, and there is none. */
    torsim_stream_refuse (s, TORSIM_SOCKS_HOST_UNREACHABLE);
    return TRUE;
  }
  connect_onion (socks, s, t, host, port);
  return TRUE;
}

gboolean
torsim_socks_input (TorsimSocks * socks, TorsimStream * s, Torsim * t)
{
  struct bufferevent *client = torsim_stream_client (s);
  struct evbuffer *input = bufferevent_get_input (client);
  gboolean more = TRUE;

  while (more) {
    more = FALSE;
    switch (socks->stage) {
      case STAGE_GREETING:
        if (!read_greeting (socks, input, client, &more))
          return FALSE;
        break;
      case STAGE_AUTH:
        if (!read_auth (socks, input, client, &more))
          return FALSE;
        break;
      case STAGE_REQUEST:
        return read_request (socks, input, s, t);
      case STAGE_DONE:
        break;
    }
  }
  return TRUE;
}
