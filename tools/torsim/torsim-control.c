/* Control connections (control-spec sections 2 and 3): lines in, replies
 * and events out, authentication, and the dispatch of the commands.
 * Bounded: a line is at most MAX_LINE bytes, a connection that keeps
 * sending errors or stops reading its replies is closed. */
#include "torsim.h"

#include <string.h>

#include "donar-torctl-arguments.h"
#include "donar-torctl-hex.h"
#include "donar-torctl-safecookie.h"

#define MAX_LINE 4096
#define MAX_ERRORS 16
#define MAX_OUTPUT (1024 * 1024)

struct _TorsimControl
{
  Torsim *t;
  guint id;
  struct bufferevent *bev;
  gboolean authenticated;
  gboolean challenged;          /* AUTHCHALLENGE answered */
  guint8 client_nonce[DONAR_TORCTL_NONCE_LENGTH];
  guint8 server_nonce[DONAR_TORCTL_NONCE_LENGTH];
  TorsimEvents events;
  guint errors;
  gboolean closing;
};

typedef void (*Command) (TorsimControl * c, const char *args);

typedef struct
{
  const char *keyword;
  Command command;
} CommandEntry;

static void
control_free (gpointer data)
{
  TorsimControl *c = data;

  explicit_bzero (c, sizeof *c);
  g_free (c);
}

Torsim *
torsim_control_torsim (TorsimControl * c)
{
  return c->t;
}

void
torsim_control_set_events (TorsimControl * c, TorsimEvents events)
{
  c->events = events;
}

void
torsim_control_write_raw (TorsimControl * c, const char *text)
{
  if (c->closing)
    return;
  if (text[0] == '5')
    c->errors++;
  bufferevent_write (c->bev, text, strlen (text));
  /* A controller that reads nothing does not make us keep everything. */
  if (evbuffer_get_length (bufferevent_get_output (c->bev)) > MAX_OUTPUT) {
    torsim_log (c->t, "control %u: not reading its replies, closed", c->id);
    torsim_control_close (c);
  }
}

void
torsim_control_write (TorsimControl * c, const char *line)
{
  g_autofree gchar *text = g_strconcat (line, "\r\n", NULL);

  torsim_control_write_raw (c, text);
}

void
torsim_control_close (TorsimControl * c)
{
  Torsim *t = c->t;

  if (c->closing)
    return;
  c->closing = TRUE;
  torsim_log (t, "control %u: closed", c->id);
  t->controls = g_list_remove (t->controls, c);
  /* Like tor: the onions of this connection go with it, unless Detach. */
  torsim_onions_remove_owned (t, c);
  torsim_close_flushed (t, c->bev);
  c->bev = NULL;
  torsim_defer_free (t, c, control_free);
}

void
torsim_control_broadcast (Torsim * t, TorsimEvents event, const char *text)
{
  g_autofree gchar *line = g_strdup_printf ("650 %s", text);
  GList *next;

  for (GList * l = t->controls; l != NULL; l = next) {
    TorsimControl *c = l->data;

    next = l->next;
    if (c->authenticated && (c->events & event))
      torsim_control_write (c, line);
  }
}

static void
command_protocolinfo (TorsimControl * c, const char *args)
{
  Torsim *t = c->t;
  g_autoptr (GString) reply = g_string_new ("250-PROTOCOLINFO 1\r\n");

  if (t->have_cookie) {
    g_string_append (reply, "250-AUTH METHODS=COOKIE,SAFECOOKIE COOKIEFILE=");
    torsim_append_quoted (reply, t->options->cookie_file);
    g_string_append (reply, "\r\n");
  } else {
    g_string_append (reply, "250-AUTH METHODS=NULL\r\n");
  }
  g_string_append (reply, "250-VERSION Tor=\"" TORSIM_VERSION "\"\r\n"
      "250 OK\r\n");
  torsim_control_write_raw (c, reply->str);
}

/* A nonce or a hash: hex digits, or a QuotedString of the bytes. */
static gboolean
decode_secret (const char *text, guint8 * out, gsize length)
{
  g_autofree gchar *value = NULL;
  gsize consumed;

  if (text[0] != '"')
    return donar_torctl_hex_decode (text, out, length);
  if (donar_torctl_unquote (text, &consumed, &value) != DONAR_TORCTL_OK
      || text[consumed] != '\0' || strlen (value) != length)
    return FALSE;
  memcpy (out, value, length);
  explicit_bzero (value, length);
  return TRUE;
}

static void
command_authchallenge (TorsimControl * c, const char *args)
{
  g_auto (GStrv) words = g_strsplit (args, " ", -1);
  guint8 server_hash[DONAR_TORCTL_HASH_LENGTH];
  g_autoptr (GString) reply = NULL;

  if (g_strv_length (words) != 2
      || g_ascii_strcasecmp (words[0], "SAFECOOKIE") != 0) {
    torsim_control_write (c, "513 AUTHCHALLENGE only supports SAFECOOKIE "
        "authentication");
    torsim_control_close (c);
    return;
  }
  if (!c->t->have_cookie) {
    torsim_control_write (c, "515 Cookie authentication is disabled");
    torsim_control_close (c);
    return;
  }
  if (c->challenged) {
    torsim_control_write (c, "513 AUTHCHALLENGE may only be sent once");
    torsim_control_close (c);
    return;
  }
  /* lib/tor's hashes take 32-byte nonces; tor accepts other lengths. */
  if (!decode_secret (words[1], c->client_nonce, sizeof c->client_nonce)) {
    torsim_control_write (c, "513 Invalid base16 client nonce (32 bytes "
        "expected)");
    torsim_control_close (c);
    return;
  }
  torsim_random_bytes (c->server_nonce, sizeof c->server_nonce);
  torsim_auth_server_hash (c->t->cookie, c->client_nonce, c->server_nonce,
      server_hash);
  reply = g_string_new ("250 AUTHCHALLENGE SERVERHASH=");
  donar_torctl_hex_append (reply, server_hash, sizeof server_hash);
  g_string_append (reply, " SERVERNONCE=");
  donar_torctl_hex_append (reply, c->server_nonce, sizeof c->server_nonce);
  c->challenged = TRUE;
  torsim_control_write (c, reply->str);
}

static void
command_authenticate (TorsimControl * c, const char *args)
{
  Torsim *t = c->t;
  guint8 given[DONAR_TORCTL_HASH_LENGTH];
  gboolean ok;

  G_STATIC_ASSERT (DONAR_TORCTL_HASH_LENGTH == DONAR_TORCTL_COOKIE_LENGTH);
  /* METHODS=NULL: anything goes, as with tor. */
  if (!t->have_cookie || c->authenticated) {
    c->authenticated = TRUE;
    torsim_control_write (c, "250 OK");
    return;
  }
  ok = decode_secret (args, given, sizeof given);
  if (ok && c->challenged)
    ok = torsim_auth_check_client_hash (t->cookie, c->client_nonce,
        c->server_nonce, given);
  else if (ok)
    ok = torsim_auth_check_cookie (t->cookie, given);
  explicit_bzero (given, sizeof given);
  if (!ok) {
    torsim_control_write (c, c->challenged ?
        "515 Authentication failed: SAFECOOKIE response did not match "
        "expected value." :
        "515 Authentication failed: Authentication cookie did not match "
        "expected value.");
    torsim_control_close (c);
    return;
  }
  c->authenticated = TRUE;
  torsim_control_write (c, "250 OK");
}

static void
command_quit (TorsimControl * c, const char *args)
{
  torsim_control_write (c, "250 closing connection");
  torsim_control_close (c);
}

static const CommandEntry before_auth[] = {
  {"PROTOCOLINFO", command_protocolinfo},
  {"AUTHCHALLENGE", command_authchallenge},
  {"AUTHENTICATE", command_authenticate},
  {"QUIT", command_quit},
  {NULL, NULL}
};

static const CommandEntry after_auth[] = {
  {"ADD_ONION", torsim_command_add_onion},
  {"DEL_ONION", torsim_command_del_onion},
  {"GETINFO", torsim_command_getinfo},
  {"SETEVENTS", torsim_command_setevents},
  {"SETCONF", torsim_command_setconf},
  {"SIGNAL", torsim_command_signal},
  {"ONION_CLIENT_AUTH_ADD", torsim_command_onion_client_auth_add},
  {"ONION_CLIENT_AUTH_REMOVE", torsim_command_onion_client_auth_remove},
  /* Not tor's: fault hooks for tests (docs/torsim.md). */
  {"DONAR-FAIL-LINK", torsim_command_fail_link},
  {"DONAR-CUT", torsim_command_cut},
  {"DONAR-STALL", torsim_command_stall},
  {"DONAR-STATS", torsim_command_stats},
  {"DONAR-CLOSE-CONTROLS", torsim_command_close_controls},
  {"DONAR-FREEZE", torsim_command_freeze},
  {NULL, NULL}
};

static Command
find_command (const CommandEntry * table, const char *keyword)
{
  for (guint i = 0; table[i].keyword != NULL; i++)
    if (g_ascii_strcasecmp (table[i].keyword, keyword) == 0)
      return table[i].command;
  return NULL;
}

static void
handle_line (TorsimControl * c, const char *line, gsize length)
{
  const char *space;
  const char *args;
  g_autofree gchar *keyword = NULL;
  Command command;

  for (gsize i = 0; i < length; i++)
    if ((guchar) line[i] < 0x20 && line[i] != '\t') {
      torsim_control_write (c, "500 Control character in command");
      return;
    }
  space = strchr (line, ' ');
  keyword = space != NULL ? g_strndup (line, space - line) : g_strdup (line);
  args = space != NULL ? space : "";
  while (*args == ' ')
    args++;

  command = find_command (before_auth, keyword);
  if (command == NULL && !c->authenticated) {
    /* Tor checks this before it looks the command up. */
    torsim_control_write (c, "514 Authentication required.");
    torsim_control_close (c);
    return;
  }
  if (command == NULL)
    command = find_command (after_auth, keyword);
  if (command == NULL) {
    g_autoptr (GString) reply = g_string_new ("510 Unrecognized command ");

    torsim_append_quoted (reply, keyword);
    torsim_control_write (c, reply->str);
    return;
  }
  command (c, args);
}

static void
on_read (struct bufferevent *bev, void *arg)
{
  TorsimControl *c = arg;
  struct evbuffer *input = bufferevent_get_input (bev);

  while (!c->closing) {
    size_t length;
    char *line = evbuffer_readln (input, &length, EVBUFFER_EOL_CRLF);

    if (line == NULL && evbuffer_get_length (input) <= MAX_LINE)
      break;
    if (line == NULL || length > MAX_LINE) {
      free (line);
      torsim_control_write (c, "500 Line too long");
      torsim_control_close (c);
      break;
    }
    handle_line (c, line, length);
    free (line);
    if (!c->closing && c->errors >= MAX_ERRORS) {
      torsim_control_write (c, "500 Too many errors, closing");
      torsim_control_close (c);
    }
  }
}

static void
on_event (struct bufferevent *bev, short what, void *arg)
{
  if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))
    torsim_control_close (arg);
}

void
torsim_control_accept (Torsim * t, evutil_socket_t fd)
{
  static guint next_id = 1;
  TorsimControl *c = g_new0 (TorsimControl, 1);

  c->t = t;
  c->id = next_id++;
  c->bev = bufferevent_socket_new (t->base, fd, BEV_OPT_CLOSE_ON_FREE);
  bufferevent_setcb (c->bev, on_read, NULL, on_event, c);
  /* Stop reading while a long line is pending: it fails at MAX_LINE. */
  bufferevent_setwatermark (c->bev, EV_READ, 0, 2 * MAX_LINE);
  bufferevent_enable (c->bev, EV_READ);
  t->controls = g_list_append (t->controls, c);
  torsim_log (t, "control %u: connection", c->id);
}

void
torsim_controls_close_all (Torsim * t)
{
  while (t->controls != NULL)
    torsim_control_close (t->controls->data);
}
