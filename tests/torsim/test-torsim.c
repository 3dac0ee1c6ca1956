/* donar-torsim end to end: each test starts its own donar-torsim on free
 * ports of 127.0.0.1, plays both the caller (SOCKS client) and the callee
 * (the onion's local port), and stops it by PID with SIGTERM, which must
 * give exit status 0.  Expected delays come from the same link model with
 * the same seed and parameters. */
#include "donar-client-auth.h"
#include "torsim-test-util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A network without chance, as the netmodel unit tests use it. */
#define QUIET_SETS "spike_gap_median_s=0", "jitter_mean_ms_per_relay=0", \
  "loss_median=0", "relay_failure_scale_s=0", "guard_failures_per_hour=0"
#define SET(x) "--set", x

/* A relay cell's payload: tor's stream window counts cells of this. */
#define CELL 498

/* Scheduling slack of a delivery: the loop, two sockets, the test. */
#define SLACK_US 12000

typedef struct
{
  TorsimProcess *p;
  Ctl *ctl;                     /* authenticated */
  gint listener;                /* the onion's local port */
  guint16 target;
  gchar *onion;                 /* published, Port=80 -> target */
} Setup;

/* Waits for the HS_DESC UPLOADED of onion `id` (after its UPLOAD). */
static void
wait_uploaded (Ctl * ctl, const gchar * id)
{
  DonarTorctlReply *event = ctl_wait_event (ctl, "HS_DESC", TIMEOUT_MS);

  g_assert_nonnull (event);
  while (strstr (event->lines[0].text, "UPLOADED") == NULL) {
    donar_torctl_reply_free (event);
    event = ctl_wait_event (ctl, "HS_DESC", TIMEOUT_MS);
    g_assert_nonnull (event);
  }
  g_assert_nonnull (strstr (event->lines[0].text, id));
  donar_torctl_reply_free (event);
}

/* donar-torsim with these arguments, an authenticated control connection
 * and (publish TRUE) an onion whose descriptor is uploaded. */
static Setup *
setup_new (const gchar * const *args, gboolean publish)
{
  Setup *s = g_new0 (Setup, 1);
  g_autofree gchar *ports = NULL;

  s->p = torsim_process_start (args);
  s->ctl = ctl_open (s->p->control_port);
  ctl_authenticate (s->ctl);
  s->listener = tcp_listen (&s->target);
  if (!publish)
    return s;
  ctl_expect (s->ctl, "SETEVENTS HS_DESC", 250);
  ports = g_strdup_printf ("Port=80,127.0.0.1:%u", s->target);
  s->onion = ctl_add_onion (s->ctl, ports);
  wait_uploaded (s->ctl, s->onion);
  return s;
}

static void
setup_free (Setup * s)
{
  ctl_free (s->ctl);
  close (s->listener);
  torsim_process_stop (s->p);
  g_free (s->onion);
  g_free (s);
}

static gchar *
onion_host (const gchar * id)
{
  return g_strdup_printf ("%s.onion", id);
}

/* A stream to the setup's onion (port 80) as `user`, and its other end at
 * the callee: asserts success. */
static gint
open_stream (Setup * s, const gchar * user, gint * callee)
{
  g_autofree gchar *host = onion_host (s->onion);
  guint8 code = 0xEE;
  gint fd = socks_open (s->p->socks_port, user, host, 80, &code, NULL);

  g_assert_cmpuint (code, ==, 0);
  g_assert_cmpint (fd, >=, 0);
  *callee = tcp_accept (s->listener, TIMEOUT_MS);
  g_assert_cmpint (*callee, >=, 0);
  return fd;
}

static guint8
connect_code (Setup * s, const gchar * user, const gchar * host, guint16 port)
{
  guint8 code = 0xEE;
  gint fd = socks_open (s->p->socks_port, user, host, port, &code, NULL);

  g_assert_cmpint (fd, ==, -1);
  return code;
}

/* The one-way delay of a small chunk from `from` to `to`, µs. */
static gint64
one_way_delay (gint from, gint to)
{
  guint8 out[64], in[64];
  gint64 start;

  for (guint i = 0; i < sizeof out; i++)
    out[i] = g_random_int ();
  start = g_get_monotonic_time ();
  write_all (from, out, sizeof out);
  g_assert_true (read_exact (to, in, sizeof in, TIMEOUT_MS));
  g_assert_cmpmem (in, sizeof in, out, sizeof out);
  return g_get_monotonic_time () - start;
}

static gint
compare_delays (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* Every sample at or after `expected`, their median within the slack. */
static void
assert_delays (gint from, gint to, gint64 expected_us)
{
  gint64 samples[5];

  for (guint i = 0; i < G_N_ELEMENTS (samples); i++) {
    samples[i] = one_way_delay (from, to);
    g_usleep (20000);
  }
  qsort (samples, G_N_ELEMENTS (samples), sizeof samples[0], compare_delays);
  g_test_message ("expected %" G_GINT64_FORMAT " us, measured %"
      G_GINT64_FORMAT " .. %" G_GINT64_FORMAT " us", expected_us, samples[0],
      samples[4]);
  g_assert_cmpint (samples[0], >=, expected_us - 1000);
  g_assert_cmpint (samples[2], <=, expected_us + SLACK_US);
}

static void
test_control_null (void)
{
  TorsimProcess *p = torsim_process_start (NULL);
  Ctl *c = ctl_open (p->control_port);
  DonarTorctlReply *reply;
  DonarTorctlProtocolInfo info = { 0 };
  DonarTorctlBootstrap bootstrap = { 0 };
  g_autofree gchar *version = NULL, *phase = NULL, *socks = NULL;
  g_autofree gchar *expected_socks = NULL;

  reply = ctl_command (c, "PROTOCOLINFO 1");
  g_assert_cmpint (donar_torctl_parse_protocolinfo (reply, &info), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpuint (info.protocol_version, ==, 1);
  g_assert_cmpuint (info.methods, ==, DONAR_TORCTL_AUTH_NULL);
  g_assert_null (info.cookie_file);
  g_assert_cmpstr (info.tor_version, ==, "0.4.9.11-torsim");
  donar_torctl_protocol_info_clear (&info);
  donar_torctl_reply_free (reply);

  /* Anything else first: 514 and the connection is closed. */
  ctl_expect (c, "GETINFO version", 514);
  g_assert_true (ctl_wait_closed (c, TIMEOUT_MS));
  ctl_free (c);

  c = ctl_open (p->control_port);
  ctl_authenticate (c);
  version = ctl_getinfo (c, "version");
  g_assert_cmpstr (version, ==, "0.4.9.11-torsim");
  phase = ctl_getinfo (c, "status/bootstrap-phase");
  g_assert_cmpint (donar_torctl_parse_bootstrap (phase, &bootstrap), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpuint (bootstrap.progress, ==, 100);
  g_assert_cmpstr (bootstrap.tag, ==, "done");
  donar_torctl_bootstrap_clear (&bootstrap);
  socks = ctl_getinfo (c, "net/listeners/socks");
  expected_socks = g_strdup_printf ("\"127.0.0.1:%u\"", p->socks_port);
  g_assert_cmpstr (socks, ==, expected_socks);
  ctl_expect (c, "GETINFO no/such/key", 552);
  ctl_expect (c, "GETINFO onions/current", 551);
  ctl_expect (c, "SETCONF NumEntryGuards=2 NumPrimaryGuards=\"2\"", 250);
  ctl_expect (c, "SETCONF ExitNodes=x", 552);
  ctl_expect (c, "SETEVENTS CIRC HS_DESC STATUS_CLIENT", 250);
  ctl_expect (c, "SETEVENTS NOSUCHEVENT", 552);
  ctl_expect (c, "SIGNAL NEWNYM", 250);
  ctl_expect (c, "SIGNAL BOGUS", 552);
  ctl_expect (c, "QUIT", 250);
  g_assert_true (ctl_wait_closed (c, TIMEOUT_MS));
  ctl_free (c);
  torsim_process_stop (p);
}

static void
test_control_safecookie (void)
{
  TorsimProcess *p;
  g_autofree gchar *dir = g_dir_make_tmp ("torsim-cookie-XXXXXX", NULL);
  g_autofree gchar *path = g_build_filename (dir, "control_auth_cookie",
      NULL);
  g_autofree gchar *cookie = NULL;
  const gchar *args[] = { "--cookie-file", path, NULL };
  DonarTorctlProtocolInfo info = { 0 };
  DonarTorctlAuthChallenge challenge;
  DonarTorctlReply *reply;
  guint8 nonce[DONAR_TORCTL_NONCE_LENGTH];
  guint8 hash[DONAR_TORCTL_HASH_LENGTH];
  g_autoptr (GString) command = g_string_new (NULL);
  gsize length = 0;
  Ctl *c;

  p = torsim_process_start (args);
  g_assert_true (g_file_get_contents (path, &cookie, &length, NULL));
  g_assert_cmpuint (length, ==, DONAR_TORCTL_COOKIE_LENGTH);

  c = ctl_open (p->control_port);
  reply = ctl_command (c, "PROTOCOLINFO 1");
  g_assert_cmpint (donar_torctl_parse_protocolinfo (reply, &info), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpuint (info.methods, ==, DONAR_TORCTL_AUTH_COOKIE |
      DONAR_TORCTL_AUTH_SAFECOOKIE);
  g_assert_cmpstr (info.cookie_file, ==, path);
  donar_torctl_protocol_info_clear (&info);
  donar_torctl_reply_free (reply);

  /* SAFECOOKIE both ways, with lib/tor's client side. */
  for (guint i = 0; i < sizeof nonce; i++)
    nonce[i] = g_random_int ();
  donar_torctl_command_authchallenge (command, nonce);
  reply = ctl_command_raw (c, command->str, command->len);
  g_assert_cmpint (donar_torctl_parse_authchallenge (reply, &challenge), ==,
      DONAR_TORCTL_OK);
  donar_torctl_reply_free (reply);
  g_assert_cmpint (donar_torctl_safecookie_check_server_hash ((guint8 *)
          cookie, nonce, challenge.server_nonce, challenge.server_hash), ==,
      DONAR_TORCTL_OK);
  donar_torctl_safecookie_client_hash ((guint8 *) cookie, nonce,
      challenge.server_nonce, hash);
  g_string_truncate (command, 0);
  donar_torctl_command_authenticate_safecookie (command, hash);
  reply = ctl_command_raw (c, command->str, command->len);
  g_assert_cmpuint (reply->code, ==, 250);
  donar_torctl_reply_free (reply);
  ctl_expect (c, "GETINFO version", 250);
  ctl_free (c);

  /* A wrong client hash: 515 and closed. */
  c = ctl_open (p->control_port);
  g_string_truncate (command, 0);
  donar_torctl_command_authchallenge (command, nonce);
  reply = ctl_command_raw (c, command->str, command->len);
  g_assert_cmpuint (reply->code, ==, 250);
  donar_torctl_reply_free (reply);
  memset (hash, 0, sizeof hash);
  g_string_truncate (command, 0);
  donar_torctl_command_authenticate_safecookie (command, hash);
  reply = ctl_command_raw (c, command->str, command->len);
  g_assert_cmpuint (reply->code, ==, 515);
  donar_torctl_reply_free (reply);
  g_assert_true (ctl_wait_closed (c, TIMEOUT_MS));
  ctl_free (c);

  /* No credentials: refused. */
  c = ctl_open (p->control_port);
  ctl_expect (c, "AUTHENTICATE", 515);
  g_assert_true (ctl_wait_closed (c, TIMEOUT_MS));
  ctl_free (c);

  /* COOKIE: the cookie itself. */
  c = ctl_open (p->control_port);
  g_string_truncate (command, 0);
  donar_torctl_command_authenticate_cookie (command, (guint8 *) cookie);
  reply = ctl_command_raw (c, command->str, command->len);
  g_assert_cmpuint (reply->code, ==, 250);
  donar_torctl_reply_free (reply);
  ctl_free (c);

  torsim_process_stop (p);
  g_remove (path);
  g_rmdir (dir);
}

static void
test_control_garbage (void)
{
  TorsimProcess *p = torsim_process_start (NULL);
  Ctl *c = ctl_open (p->control_port);
  g_autofree gchar *long_line = g_strnfill (5000, 'A');
  DonarTorctlReply *reply;
  gint fd;

  ctl_authenticate (c);
  ctl_expect (c, "FOO bar", 510);
  ctl_expect (c, "", 510);
  reply = ctl_command_raw (c, "GETINFO \001\002\r\n", 12);
  g_assert_cmpuint (reply->code, ==, 500);
  donar_torctl_reply_free (reply);
  reply = ctl_command_raw (c, "getinfo version\n", 16);
  g_assert_cmpuint (reply->code, ==, 250);
  donar_torctl_reply_free (reply);
  ctl_expect (c, "ADD_ONION", 512);
  ctl_expect (c, "ADD_ONION NEW:RSA1024 Port=80", 513);
  ctl_expect (c, "ADD_ONION NEW:ED25519-V3", 512);
  ctl_expect (c, "ADD_ONION NEW:ED25519-V3 Port=0", 512);
  ctl_expect (c, "ADD_ONION NEW:ED25519-V3 Port=80,10.0.0.1:80", 512);
  ctl_expect (c, "ADD_ONION NEW:ED25519-V3 Flags=Bogus Port=80", 512);
  ctl_expect (c, "ADD_ONION NEW:ED25519-V3 Port=80 \"unterminated", 512);
  ctl_expect (c, "ADD_ONION ED25519-V3:notbase64 Port=80", 512);
  ctl_expect (c, "DEL_ONION nope", 512);
  ctl_expect (c, "DONAR-FAIL-LINK 99", 552);
  ctl_expect (c, "DONAR-CUT -1", 552);
  /* A line past the bound: an error, then the connection is closed. */
  reply = ctl_command_raw (c, long_line, strlen (long_line));
  g_assert_cmpuint (reply->code, ==, 500);
  donar_torctl_reply_free (reply);
  g_assert_true (ctl_wait_closed (c, TIMEOUT_MS));
  ctl_free (c);

  /* Errors without end: closed after a bounded number. */
  c = ctl_open (p->control_port);
  ctl_authenticate (c);
  {
    g_autoptr (GString) lines = g_string_new (NULL);

    for (guint i = 0; i < 40; i++)
      g_string_append (lines, "NOPE\r\n");
    write_all (c->fd, lines->str, lines->len);
  }
  g_assert_true (ctl_wait_closed (c, TIMEOUT_MS));
  ctl_free (c);

  /* Garbage on the SOCKS port: closed without a reply. */
  fd = tcp_connect (p->socks_port);
  write_all (fd, "GET / HTTP/1.0\r\n\r\n", 18);
  g_assert_true (wait_closed (fd, TIMEOUT_MS));
  close (fd);
  fd = tcp_connect (p->socks_port);
  write_all (fd, "\x05\x00", 2);
  g_assert_true (wait_closed (fd, TIMEOUT_MS));
  close (fd);

  /* Still serving. */
  c = ctl_open (p->control_port);
  ctl_authenticate (c);
  ctl_expect (c, "DONAR-STATS", 250);
  ctl_free (c);
  torsim_process_stop (p);
}

/* ONION_CLIENT_AUTH_ADD <id> x25519:<base64 secret>, answered `code`. */
static void
add_client_key (Ctl * ctl, const gchar * id, const guint8 * secret, guint code)
{
  g_autofree gchar *blob = g_base64_encode (secret, 32);
  g_autofree gchar *line = g_strdup_printf ("ONION_CLIENT_AUTH_ADD %s "
      "x25519:%s", id, blob);

  ctl_expect (ctl, line, code);
}

static void
test_onion_lifecycle (void)
{
  const gchar *args[] = { "--publish-ms", "400", NULL };
  Setup *s = setup_new (args, FALSE);
  g_autofree gchar *ports = g_strdup_printf ("Port=80,%u Port=81,%u",
      s->target, 1);
  g_autofree gchar *id = NULL, *host = NULL, *current = NULL;
  g_autofree gchar *key = NULL, *readd = NULL;
  DonarTorctlReply *reply, *event;
  DonarTorctlOnion onion = { 0 };
  gint caller, callee;
  guint8 raw[10];

  DonarClientAuthKey client, stranger;
  g_autofree gchar *client_public = NULL;

  g_assert_true (donar_client_auth_key_generate (&client, NULL));
  g_assert_true (donar_client_auth_key_generate (&stranger, NULL));
  client_public = donar_client_auth_to_base32 (client.public_key);
  ctl_expect (s->ctl, "SETEVENTS HS_DESC", 250);
  {
    g_autofree gchar *line = g_strdup_printf ("ADD_ONION NEW:ED25519-V3 "
        "Flags=V3Auth MaxStreams=12 %s ClientAuthV3=%s", ports,
        client_public);

    reply = ctl_command (s->ctl, line);
  }
  g_assert_cmpint (donar_torctl_parse_add_onion (reply, &onion), ==,
      DONAR_TORCTL_OK);
  donar_torctl_reply_free (reply);
  id = g_strdup (onion.service_id);
  key = g_strdup (onion.private_key);
  donar_torctl_onion_clear (&onion);
  g_assert_cmpuint (strlen (id), ==, 56);
  g_assert_true (g_str_has_suffix (id, "d"));
  g_assert_nonnull (key);
  host = onion_host (id);

  /* Before the descriptor is up: 0xF0, as tor with ExtendedErrors. */
  g_assert_cmpuint (connect_code (s, "a", host, 80), ==, 0xF0);
  event = ctl_wait_event (s->ctl, "HS_DESC", TIMEOUT_MS);
  g_assert_nonnull (strstr (event->lines[0].text, "UPLOAD "));
  donar_torctl_reply_free (event);
  event = ctl_wait_event (s->ctl, "HS_DESC", TIMEOUT_MS);
  g_assert_nonnull (event);
  g_assert_true (g_str_has_prefix (event->lines[0].text, "HS_DESC UPLOADED "));
  g_assert_nonnull (strstr (event->lines[0].text, id));
  donar_torctl_reply_free (event);
  g_assert_cmpint (g_get_monotonic_time () - s->p->started_us, >=, 400000);

  /* Up, but only for the holder of the client key: none (0xF4), another
   * (0xF5), then the right one. */
  g_assert_cmpuint (connect_code (s, "a", host, 80), ==, 0xF4);
  add_client_key (s->ctl, id, stranger.secret, 250);
  g_assert_cmpuint (connect_code (s, "a", host, 80), ==, 0xF5);
  add_client_key (s->ctl, id, client.secret, 251);

  /* Now reachable; upper-case and a subdomain are the same onion. */
  s->onion = g_ascii_strup (id, -1);
  caller = open_stream (s, "a", &callee);
  close (caller);
  g_assert_true (wait_closed (callee, TIMEOUT_MS));
  close (callee);
  g_free (s->onion);
  s->onion = g_strdup_printf ("www.%s", id);
  caller = open_stream (s, "a", &callee);
  close (caller);
  close (callee);
  g_clear_pointer (&s->onion, g_free);

  /* The other refusals. */
  g_assert_cmpuint (connect_code (s, "a", host, 82), ==, 0x05);
  g_assert_cmpuint (connect_code (s, "a", host, 81), ==, 0x05);
  g_assert_cmpuint (connect_code (s, "a", "abc.onion", 80), ==, 0xF6);
  g_assert_cmpuint (connect_code (s, "a", "example.com", 80), ==, 0x04);
  g_assert_cmpuint (connect_code (s, "a",
          "aaaabbbbccccddddeeeeffffgggghhhhiiiijjjjkkkkllllmmmmnnnd.onion",
          80), ==, 0xF0);
  /* An IPv4 address needs an exit relay: 0x04. */
  caller = tcp_connect (s->p->socks_port);
  write_all (caller, "\x05\x01\x00", 3);
  g_assert_true (read_exact (caller, raw, 2, TIMEOUT_MS));
  write_all (caller, "\x05\x01\x00\x01\x7f\x00\x00\x01\x00\x50", 10);
  g_assert_true (read_exact (caller, raw, 10, TIMEOUT_MS));
  g_assert_cmpuint (raw[1], ==, 0x04);
  close (caller);

  current = ctl_getinfo (s->ctl, "onions/current");
  g_assert_cmpstr (current, ==, id);
  ctl_expect (s->ctl, "GETINFO onions/detached", 551);

  /* The same key again: a collision while it exists, the same address
   * once it is gone. */
  readd = g_strdup_printf ("ADD_ONION ED25519-V3:%s Port=80,%u", key,
      s->target);
  ctl_expect (s->ctl, readd, 550);
  {
    g_autofree gchar *del = g_strdup_printf ("DEL_ONION %s", id);

    ctl_expect (s->ctl, del, 250);
    ctl_expect (s->ctl, del, 552);
  }
  g_assert_cmpuint (connect_code (s, "a", host, 80), ==, 0xF0);
  reply = ctl_command (s->ctl, readd);
  g_assert_cmpint (donar_torctl_parse_add_onion (reply, &onion), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpstr (onion.service_id, ==, id);
  g_assert_null (onion.private_key);
  donar_torctl_onion_clear (&onion);
  donar_torctl_reply_free (reply);
  setup_free (s);
}

/* The stream to virtual port `port` of the setup's onion reaches
 * `listener`, on `address`: bytes go both ways.  Its ends are left open in
 * `ends`: with a username per port, each stream gets a first circuit,
 * ready at once, where reusing a closed one would take a setup time. */
static void
assert_reaches (Setup * s, guint16 port, gint listener, const gchar * address,
    gint ends[2])
{
  g_autofree gchar *host = onion_host (s->onion);
  g_autofree gchar *user = g_strdup_printf ("port%u", port);
  struct sockaddr_in local;
  socklen_t length = sizeof local;
  gchar text[INET_ADDRSTRLEN], got[4];
  guint8 code = 0xEE;
  gint caller, callee;

  caller = socks_open (s->p->socks_port, user, host, port, &code, NULL);
  g_assert_cmpuint (code, ==, 0);
  callee = tcp_accept (listener, TIMEOUT_MS);
  g_assert_cmpint (callee, >=, 0);
  g_assert_cmpint (getsockname (callee, (struct sockaddr *) &local, &length),
      ==, 0);
  g_assert_nonnull (inet_ntop (AF_INET, &local.sin_addr, text, sizeof text));
  g_assert_cmpstr (text, ==, address);
  write_all (caller, "up", 2);
  g_assert_true (read_exact (callee, got, 2, TIMEOUT_MS));
  g_assert_cmpmem (got, 2, "up", 2);
  write_all (callee, "down", 4);
  g_assert_true (read_exact (caller, got, 4, TIMEOUT_MS));
  g_assert_cmpmem (got, 4, "down", 4);
  ends[0] = caller;
  ends[1] = callee;
}

/* An onion forwards to any address of 127.0.0.0/8, as tor's does: one
 * port number on 127.0.0.1 and on 127.0.0.2 is two targets. */
static void
test_onion_loopback_target (void)
{
  const gchar *args[] = { "--publish-ms", "100", NULL };
  Setup *s = setup_new (args, FALSE);
  g_autofree gchar *ports = NULL;
  guint16 port = s->target;
  gint second = tcp_listen_on ("127.0.0.2", &port);
  gint ends[4][2];

  /* The same port on 127.0.0.2 is free but for a stranger's socket. */
  for (guint i = 0; second < 0 && i < 20; i++) {
    close (s->listener);
    s->listener = tcp_listen (&s->target);
    port = s->target;
    second = tcp_listen_on ("127.0.0.2", &port);
  }
  g_assert_cmpint (second, >=, 0);
  /* Off loopback, or not an address ("localhost" alone is a bad port,
   * as in tor). */
  ctl_expect (s->ctl, "ADD_ONION NEW:ED25519-V3 Port=80,128.0.0.1:80", 512);
  ctl_expect (s->ctl, "ADD_ONION NEW:ED25519-V3 Port=80,[::1]:80", 512);
  ctl_expect (s->ctl, "ADD_ONION NEW:ED25519-V3 Port=80,unix:/tmp/s", 512);
  ctl_expect (s->ctl, "ADD_ONION NEW:ED25519-V3 Port=80,localhost", 512);
  ctl_expect (s->ctl, "ADD_ONION NEW:ED25519-V3 Port=80,127.0.0.2:0", 512);
  ctl_expect (s->ctl, "SETEVENTS HS_DESC", 250);
  /* Without a port, the target takes the virtual port (tor's rule). */
  ports = g_strdup_printf ("Port=80,127.0.0.2:%u Port=81,127.0.0.1:%u "
      "Port=82,localhost:%u Port=%u,127.0.0.2 Port=83,127.0.0.3:%u",
      port, port, port, port, port);
  s->onion = ctl_add_onion (s->ctl, ports);
  wait_uploaded (s->ctl, s->onion);

  assert_reaches (s, 80, second, "127.0.0.2", ends[0]);
  assert_reaches (s, 81, s->listener, "127.0.0.1", ends[1]);
  assert_reaches (s, 82, s->listener, "127.0.0.1", ends[2]);
  assert_reaches (s, port, second, "127.0.0.2", ends[3]);
  /* Nothing listens on 127.0.0.3: refused, as tor's END CONNECTREFUSED. */
  {
    g_autofree gchar *host = onion_host (s->onion);

    g_assert_cmpuint (connect_code (s, "port83", host, 83), ==, 0x05);
  }
  /* Each stream went to its own target only. */
  g_assert_cmpint (tcp_accept (s->listener, 100), ==, -1);
  g_assert_cmpint (tcp_accept (second, 100), ==, -1);
  for (guint i = 0; i < G_N_ELEMENTS (ends); i++) {
    close (ends[i][0]);
    close (ends[i][1]);
  }
  close (second);
  setup_free (s);
}

static void
test_onion_owner (void)
{
  const gchar *args[] = { "--publish-ms", "100", NULL };
  Setup *s = setup_new (args, FALSE);
  Ctl *other = ctl_open (s->p->control_port);
  g_autofree gchar *ports = g_strdup_printf ("Port=80,%u", s->target);
  g_autofree gchar *detached_args = g_strdup_printf ("Flags=Detach,DiscardPK "
      "%s", ports);
  g_autofree gchar *owned = NULL, *detached = NULL, *list = NULL;
  g_autofree gchar *owned_host = NULL, *del = NULL;
  gint caller, callee;

  ctl_authenticate (other);
  owned = ctl_add_onion (other, ports);
  detached = ctl_add_onion (other, detached_args);
  /* Another connection's onion is not ours to delete. */
  del = g_strdup_printf ("DEL_ONION %s", owned);
  ctl_expect (s->ctl, del, 552);
  list = ctl_getinfo (s->ctl, "onions/detached");
  g_assert_cmpstr (list, ==, detached);
  ctl_free (other);

  g_usleep (300000);
  /* The owned onion went with its connection; the detached one stays. */
  owned_host = onion_host (owned);
  g_assert_cmpuint (connect_code (s, "a", owned_host, 80), ==, 0xF0);
  s->onion = g_strdup (detached);
  caller = open_stream (s, "a", &callee);
  close (caller);
  close (callee);
  setup_free (s);
}

static void
test_relay_both_ways (void)
{
  const gchar *args[] = { "--publish-ms", "100", NULL };
  Setup *s = setup_new (args, TRUE);
  gsize up_length = 300 * 1024, down_length = 200 * 1024;
  g_autofree guint8 *up = g_malloc (up_length);
  g_autofree guint8 *down = g_malloc (down_length);
  g_autofree guint8 *got = g_malloc (up_length);
  gint caller, callee;

  for (gsize i = 0; i < up_length; i++)
    up[i] = g_random_int ();
  for (gsize i = 0; i < down_length; i++)
    down[i] = g_random_int ();
  caller = open_stream (s, "a", &callee);

  /* In pieces, so that they travel as many packets. */
  for (gsize done = 0; done < up_length; done += 7000)
    write_all (caller, up + done, MIN (7000, up_length - done));
  g_assert_true (read_exact (callee, got, up_length, TIMEOUT_MS));
  g_assert_cmpmem (got, up_length, up, up_length);
  for (gsize done = 0; done < down_length; done += 5000)
    write_all (callee, down + done, MIN (5000, down_length - done));
  g_assert_true (read_exact (caller, got, down_length, TIMEOUT_MS));
  g_assert_cmpmem (got, down_length, down, down_length);

  /* The caller's close reaches the callee after its last bytes. */
  write_all (caller, up, 1000);
  close (caller);
  g_assert_true (read_exact (callee, got, 1000, TIMEOUT_MS));
  g_assert_cmpmem (got, 1000, up, 1000);
  g_assert_true (wait_closed (callee, TIMEOUT_MS));
  close (callee);
  setup_free (s);
}

static void
test_delay_base (void)
{
  const gchar *args[] = { "--seed", "7", "--publish-ms", "100",
    SET ("spike_gap_median_s=0"), SET ("jitter_mean_ms_per_relay=0"),
    SET ("loss_median=0"), SET ("relay_failure_scale_s=0"),
    SET ("guard_failures_per_hour=0"), NULL
  };
  const gchar *sets[] = { QUIET_SETS, NULL };
  DonarNetModel *m = model_like (DONAR_SECURITY_DEFAULT, 12, 7, sets);
  Setup *s = setup_new (args, TRUE);
  gint caller, callee, caller1, callee1;
  g_autofree gchar *base = NULL;

  /* The first credentials take link 0, the next link 1. */
  caller = open_stream (s, "a", &callee);
  caller1 = open_stream (s, "b", &callee1);
  base = ctl_link_stat (s->ctl, 0, "BASE_DELAY_US");
  g_assert_cmpint (g_ascii_strtoll (base, NULL, 10), ==,
      donar_net_model_link_base_delay (m, 0));
  assert_delays (caller, callee, donar_net_model_link_base_delay (m, 0));
  assert_delays (callee, caller, donar_net_model_link_base_delay (m, 0));
  assert_delays (caller1, callee1, donar_net_model_link_base_delay (m, 1));
  g_assert_cmpint (donar_net_model_link_base_delay (m, 0), !=,
      donar_net_model_link_base_delay (m, 1));

  /* DONAR-CUT: nothing arrives for 600 ms, then everything in order. */
  {
    guint8 out[3][32], in[32];
    gint64 start = g_get_monotonic_time (), elapsed;

    ctl_expect (s->ctl, "DONAR-CUT 600", 250);
    for (guint i = 0; i < 3; i++) {
      memset (out[i], 'a' + i, sizeof out[i]);
      write_all (caller, out[i], sizeof out[i]);
      g_usleep (10000);
    }
    for (guint i = 0; i < 3; i++) {
      g_assert_true (read_exact (callee, in, sizeof in, TIMEOUT_MS));
      g_assert_cmpmem (in, sizeof in, out[i], sizeof out[i]);
    }
    elapsed = g_get_monotonic_time () - start;
    g_assert_cmpint (elapsed, >=, 600000);
    g_assert_cmpint (elapsed, <=, 600000 + 20000 + SLACK_US);
  }
  close (caller);
  close (callee);
  close (caller1);
  close (callee1);
  donar_net_model_free (m);
  setup_free (s);
}

static guint64 buffered_bytes (Ctl * c);

/* The reply of a DONAR-FREEZE or DONAR-STALL command: the count after
 * `key` (FROZEN= or STALLED=), how many streams it froze or stalled. */
static guint
streams_in_reply (Ctl * c, const gchar * command, const gchar * key)
{
  DonarTorctlReply *reply = ctl_command (c, command);
  guint64 count = G_MAXUINT64;

  g_assert_nonnull (reply);
  g_assert_cmpuint (reply->code, ==, 250);
  g_assert_true (g_str_has_prefix (reply->lines[0].text, key));
  g_assert_true (g_ascii_string_to_unsigned (reply->lines[0].text +
          strlen (key), 10, 0, 64, &count, NULL));
  donar_torctl_reply_free (reply);
  return count;
}

/* Reads `length` bytes, each its index times `fill` (mod 256), and
 * asserts them; the time the first of them came. */
static gint64
read_pattern (gint fd, guint64 length, guint8 fill)
{
  guint64 seen = 0;
  gint64 first = -1;

  while (seen < length) {
    guint8 in[8192];
    gsize n = MIN (sizeof in, length - seen);

    g_assert_true (read_exact (fd, in, n, TIMEOUT_MS));
    if (first < 0)
      first = g_get_monotonic_time ();
    for (gsize i = 0; i < n; i++)
      if (in[i] != (guint8) ((seen + i) * fill))
        g_error ("byte %" G_GUINT64_FORMAT " differs", seen + i);
    seen += n;
  }
  return first;
}

/* Writes, on a non-blocking socket, blocks of `size` bytes, each byte
 * its index times 7 (mod 256), `pace_us` apart, until no write has gone
 * in for `quiet_us`: what was written. */
static guint64
write_until_held (gint fd, gsize size, gulong pace_us, gint64 quiet_us)
{
  g_autofree guint8 *block = g_malloc (size);
  guint64 written = 0;
  gint64 last_progress = g_get_monotonic_time ();

  while (g_get_monotonic_time () - last_progress < quiet_us) {
    gssize sent;

    for (gsize i = 0; i < size; i++)
      block[i] = (guint8) ((written + i) * 7);
    sent = send (fd, block, size, MSG_NOSIGNAL);
    if (sent > 0) {
      written += sent;
      last_progress = g_get_monotonic_time ();
      g_assert_cmpuint (written, <, 32 * 1024 * 1024);
      /* A part of a block: the rest goes at once. */
      if ((gsize) sent == size && pace_us > 0)
        g_usleep (pace_us);
      continue;
    }
    g_assert_cmpint (errno, ==, EAGAIN);
    g_usleep (5000);
  }
  return written;
}

/* DONAR-STALL on a network without chance (every delay the link's base
 * delay D):
 * - DONAR-STALL 2000 at time T releases at R = T + 2 s.  A chunk in
 *   flight when the stall begins is held until R (not later: it had
 *   passed the congested hop); chunks written during the stall, both
 *   ways, enter the link at R and arrive at R + D, in order.
 * - DONAR-STALL 4000 1 stalls only the newest stream (link 1; link 0
 *   keeps its delay).  A writer of 498-byte messages that does not stop
 *   fills tor's stream window, 500 cells: torsim holds 500 x 498 bytes
 *   (at most one read more), then reads no more, and the writer gets
 *   EAGAIN once the socket buffers (constrained to 4096) are full too,
 *   far below the 1 MiB of --max-pending.  All of it arrives, in order,
 *   no earlier than R + D.
 * - DONAR-STALL 1000 1 DRAIN=10: three cells written in the stall go on
 *   at R, R + 100 ms and R + 200 ms, and arrive a delay D later. */
static void
test_stall (void)
{
  const gchar *args[] = { "--seed", "7", "--publish-ms", "100",
    "--constrained-sock-size", "4096", SET ("spike_gap_median_s=0"),
    SET ("jitter_mean_ms_per_relay=0"), SET ("loss_median=0"),
    SET ("relay_failure_scale_s=0"), SET ("guard_failures_per_hour=0"), NULL
  };
  const gchar *sets[] = { QUIET_SETS, NULL };
  DonarNetModel *m = model_like (DONAR_SECURITY_DEFAULT, 12, 7, sets);
  Setup *s = setup_new (args, TRUE);
  gint64 d0 = donar_net_model_link_base_delay (m, 0);
  gint64 d1 = donar_net_model_link_base_delay (m, 1);
  gint caller, callee, caller1, callee1, small = 4096, one = 1;
  guint8 out[4][32], in[32];
  gint64 before, after, at;
  guint64 written, buffered;

  caller = open_stream (s, "a", &callee);
  one_way_delay (caller, callee);

  memset (out[0], 'p', sizeof out[0]);
  write_all (caller, out[0], sizeof out[0]);
  before = g_get_monotonic_time ();
  g_assert_cmpuint (streams_in_reply (s->ctl, "DONAR-STALL 2000", "STALLED="),
      ==, 1);
  after = g_get_monotonic_time ();
  g_assert_cmpint (after - before, <, d0);
  for (guint i = 1; i < 4; i++) {
    memset (out[i], 'a' + i, sizeof out[i]);
    write_all (caller, out[i], sizeof out[i]);
    g_usleep (100000);
  }
  write_all (callee, out[3], sizeof out[3]);
  g_assert_true (read_exact (callee, in, sizeof in, TIMEOUT_MS));
  at = g_get_monotonic_time ();
  g_assert_cmpmem (in, sizeof in, out[0], sizeof out[0]);
  g_assert_cmpint (at, >=, before + 2000000);
  g_assert_cmpint (at, <=, after + 2000000 + SLACK_US);
  for (guint i = 1; i < 4; i++) {
    g_assert_true (read_exact (callee, in, sizeof in, TIMEOUT_MS));
    g_assert_cmpmem (in, sizeof in, out[i], sizeof out[i]);
  }
  at = g_get_monotonic_time ();
  g_assert_cmpint (at, >=, before + 2000000 + d0);
  g_assert_cmpint (at, <=, after + 2000000 + d0 + SLACK_US);
  g_assert_true (read_exact (caller, in, sizeof in, TIMEOUT_MS));
  g_assert_cmpmem (in, sizeof in, out[3], sizeof out[3]);
  g_assert_cmpint (g_get_monotonic_time (), >=, before + 2000000 + d0);
  /* Over: the base delay again. */
  g_assert_cmpint (one_way_delay (caller, callee), <, d0 + SLACK_US);

  ctl_expect (s->ctl, "DONAR-STALL", 552);
  ctl_expect (s->ctl, "DONAR-STALL 600001", 552);
  ctl_expect (s->ctl, "DONAR-STALL 100 0", 552);
  ctl_expect (s->ctl, "DONAR-STALL 100 1 2", 552);
  ctl_expect (s->ctl, "DONAR-STALL 100 DRAIN=0", 552);
  ctl_expect (s->ctl, "DONAR-STALL 100 1 DRAIN=x", 552);

  caller1 = open_stream (s, "b", &callee1);
  one_way_delay (caller1, callee1);
  setsockopt (caller1, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  setsockopt (caller1, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  g_assert_cmpint (fcntl (caller1, F_SETFL, O_NONBLOCK), ==, 0);
  before = g_get_monotonic_time ();
  g_assert_cmpuint (streams_in_reply (s->ctl, "DONAR-STALL 4000 1", "STALLED="),
      ==, 1);
  /* Messages of a cell each, paced so that torsim reads each alone (a
   * burst into the small buffers would reach it in pieces, each piece a
   * cell, as tor would package it). */
  written = write_until_held (caller1, CELL, 1000, 300000);
  buffered = buffered_bytes (s->ctl);
  g_test_message ("the writer wrote %" G_GUINT64_FORMAT " bytes into the "
      "stalled stream; torsim holds %" G_GUINT64_FORMAT, written, buffered);
  g_assert_cmpint (g_get_monotonic_time (), <, before + 4000000);
  g_assert_cmpuint (buffered, >=, 500 * CELL * 9 / 10);
  g_assert_cmpuint (buffered, <=, 500 * CELL + 16384);
  g_assert_cmpuint (written, <=, 500 * CELL + 16384 + 64 * 1024);
  /* The other stream was not stalled. */
  g_assert_cmpint (one_way_delay (caller, callee), <, d0 + SLACK_US);
  g_assert_cmpint (one_way_delay (callee, caller), <, d0 + SLACK_US);

  g_assert_cmpint (fcntl (caller1, F_SETFL, 0), ==, 0);
  at = read_pattern (callee1, written, 7);
  g_assert_cmpint (at, >=, before + 4000000 + d1);
  g_assert_cmpint (one_way_delay (caller1, callee1), <, d1 + SLACK_US);

  /* DRAIN=10: at the release R, the held cells go on one each 100 ms. */
  before = g_get_monotonic_time ();
  g_assert_cmpuint (streams_in_reply (s->ctl, "DONAR-STALL 1000 1 DRAIN=10",
          "STALLED="), ==, 1);
  after = g_get_monotonic_time ();
  for (guint i = 0; i < 3; i++) {
    memset (out[i], 'x' + i, sizeof out[i]);
    write_all (caller1, out[i], sizeof out[i]);
    g_usleep (10000);
  }
  for (guint i = 0; i < 3; i++) {
    g_assert_true (read_exact (callee1, in, sizeof in, TIMEOUT_MS));
    at = g_get_monotonic_time ();
    g_assert_cmpmem (in, sizeof in, out[i], sizeof out[i]);
    g_assert_cmpint (at, >=, before + 1000000 + i * 100000 + d1);
    g_assert_cmpint (at, <=, after + 1000000 + i * 100000 + d1 + SLACK_US);
  }

  close (caller);
  close (callee);
  close (caller1);
  close (callee1);
  donar_net_model_free (m);
  setup_free (s);
}

/* circuit-status, parsed: a GPtrArray of DonarTorctlCircuit. */
static GPtrArray *
get_circuits (Ctl * c)
{
  g_autofree gchar *value = ctl_getinfo (c, "circuit-status");
  GPtrArray *circuits = NULL;

  g_assert_cmpint (donar_torctl_parse_circuit_status (value, &circuits), ==,
      DONAR_TORCTL_OK);
  return circuits;
}

static guint
count_circuits (Ctl * c, const gchar * username, gchar ** id)
{
  GPtrArray *circuits = get_circuits (c);
  guint n = 0;

  for (guint i = 0; i < circuits->len; i++) {
    DonarTorctlCircuit *circuit = g_ptr_array_index (circuits, i);

    g_assert_cmpint (circuit->state, ==, DONAR_TORCTL_CIRCUIT_BUILT);
    g_assert_cmpstr (circuit->purpose, ==, "GENERAL");
    if (username == NULL || g_strcmp0 (circuit->socks_username, username) == 0) {
      n++;
      if (id != NULL) {
        g_free (*id);
        *id = g_strdup (circuit->id);
      }
    }
  }
  g_ptr_array_unref (circuits);
  return n;
}

static void
assert_stat (Ctl * c, guint link, const gchar * field, const gchar * value)
{
  g_autofree gchar *got = ctl_link_stat (c, link, field);

  g_assert_cmpstr (got, ==, value);
}

static void
test_isolation (void)
{
  const gchar *args[] = { "--publish-ms", "100", NULL };
  Setup *s = setup_new (args, TRUE);
  gint caller[5], callee[5];
  g_autofree gchar *alice = NULL, *bob = NULL;

  caller[0] = open_stream (s, "alice", &callee[0]);
  caller[1] = open_stream (s, "alice", &callee[1]);
  caller[2] = open_stream (s, "bob", &callee[2]);
  caller[3] = open_stream (s, NULL, &callee[3]);
  caller[4] = open_stream (s, NULL, &callee[4]);

  g_assert_cmpuint (count_circuits (s->ctl, NULL, NULL), ==, 3);
  g_assert_cmpuint (count_circuits (s->ctl, "alice", &alice), ==, 1);
  g_assert_cmpuint (count_circuits (s->ctl, "bob", &bob), ==, 1);
  g_assert_cmpstr (alice, !=, bob);
  assert_stat (s->ctl, 0, "STREAMS", "2");
  assert_stat (s->ctl, 1, "STREAMS", "1");
  assert_stat (s->ctl, 2, "STREAMS", "2");
  assert_stat (s->ctl, 3, "STATE", "unused");

  /* The streams of one circuit each get their own bytes. */
  write_all (caller[1], "one", 3);
  write_all (caller[0], "zero", 4);
  {
    gchar got[4];

    g_assert_true (read_exact (callee[0], got, 4, TIMEOUT_MS));
    g_assert_cmpmem (got, 4, "zero", 4);
    g_assert_true (read_exact (callee[1], got, 3, TIMEOUT_MS));
    g_assert_cmpmem (got, 3, "one", 3);
  }

  /* Alice's circuit closes with her last stream. */
  close (caller[0]);
  close (caller[1]);
  g_assert_true (wait_closed (callee[0], TIMEOUT_MS));
  g_assert_true (wait_closed (callee[1], TIMEOUT_MS));
  g_assert_cmpuint (count_circuits (s->ctl, "alice", NULL), ==, 0);
  g_assert_cmpuint (count_circuits (s->ctl, NULL, NULL), ==, 2);
  assert_stat (s->ctl, 0, "STATE", "closed");
  for (guint i = 0; i < 5; i++) {
    if (i >= 2)
      close (caller[i]);
    close (callee[i]);
  }
  setup_free (s);
}

/* The relay ids of the circuit of `username`'s streams, as a caller
 * reads them from circuit-status. */
static guint
stream_path (Ctl * c, const gchar * username, guint64 * ids, guint max_ids)
{
  GPtrArray *circuits = get_circuits (c);
  guint n = 0;

  for (guint i = 0; i < circuits->len; i++) {
    DonarTorctlCircuit *circuit = g_ptr_array_index (circuits, i);
    guint found;

    if (g_strcmp0 (circuit->socks_username, username) == 0) {
      g_assert_true (donar_torctl_circuit_stream_path (circuit, ids, max_ids,
              &found));
      n = found;
    }
  }
  g_ptr_array_unref (circuits);
  return n;
}

/* Links through one of the model's guards show that guard's fingerprint,
 * on each side, and no other relay in common: what ADAPTIVE is told. */
static void
test_guards (void)
{
  const gchar *args[] = { "--publish-ms", "100",
    SET ("relay_failure_scale_s=0"), SET ("guard_failures_per_hour=0"), NULL
  };
  const gchar *sets[] = { "relay_failure_scale_s=0",
    "guard_failures_per_hour=0", NULL
  };
  DonarNetModel *m = model_like (DONAR_SECURITY_DEFAULT, 12, 1, sets);
  guint length = donar_security_path_length (DONAR_SECURITY_DEFAULT);
  Setup *s = setup_new (args, TRUE);
  guint64 ids[4][8];
  gint caller[4], callee[4];
  guint shared = 0;

  for (guint i = 0; i < 4; i++) {
    g_autofree gchar *user = g_strdup_printf ("link%u", i);

    caller[i] = open_stream (s, user, &callee[i]);
    g_assert_cmpuint (stream_path (s->ctl, user, ids[i], 8), ==, length);
  }
  for (guint a = 0; a < 4; a++)
    for (guint b = a + 1; b < 4; b++) {
      for (guint side = 0; side < 2; side++) {
        guint hop = side == 0 ? 0 : length - 1;
        gboolean same = donar_net_model_link_guard (m, a, side) ==
            donar_net_model_link_guard (m, b, side);

        g_assert_cmpint (ids[a][hop] == ids[b][hop], ==, same);
        shared += same;
      }
      for (guint hop = 1; hop + 1 < length; hop++)
        g_assert_cmphex (ids[a][hop], !=, ids[b][hop]);
    }
  /* 4 links, 2 guards a side: some links must share one. */
  g_assert_cmpuint (shared, >, 0);
  for (guint i = 0; i < 4; i++) {
    close (caller[i]);
    close (callee[i]);
  }
  donar_net_model_free (m);
  setup_free (s);
}

typedef struct
{
  guint16 socks_port;
  const gchar *host;
  guint8 code;
  gint64 elapsed;
} SocksOpen;

static gpointer
socks_open_thread (gpointer data)
{
  SocksOpen *o = data;

  return GINT_TO_POINTER (socks_open (o->socks_port, "b", o->host, 80,
          &o->code, &o->elapsed));
}

static void
test_fail_link (void)
{
  const gchar *args[] = { "--publish-ms", "100", SET ("setup_median_s=0.5"),
    SET ("relay_failure_scale_s=0"), SET ("guard_failures_per_hour=0"), NULL
  };
  const gchar *sets[] = { "setup_median_s=0.5", "relay_failure_scale_s=0",
    "guard_failures_per_hour=0", NULL
  };
  DonarNetModel *m = model_like (DONAR_SECURITY_DEFAULT, 12, 1, sets);
  gint64 setup_us = donar_net_model_reopen (m, 0, 0);
  Setup *s = setup_new (args, TRUE);
  g_autofree gchar *first = NULL, *second = NULL, *host = NULL;
  DonarTorctlReply *event;
  DonarTorctlCircuit circuit = { 0 };
  gint caller, callee, caller2, callee2;
  gint64 start, accepted;
  SocksOpen o;
  GThread *thread;

  caller = open_stream (s, "a", &callee);
  caller2 = open_stream (s, "a", &callee2);
  g_assert_cmpuint (count_circuits (s->ctl, "a", &first), ==, 1);
  ctl_expect (s->ctl, "SETEVENTS CIRC", 250);
  ctl_expect (s->ctl, "DONAR-FAIL-LINK 0", 250);

  /* Every stream of the circuit ends, on both sides. */
  g_assert_true (wait_closed (caller, 1000));
  g_assert_true (wait_closed (callee, 1000));
  g_assert_true (wait_closed (caller2, 1000));
  g_assert_true (wait_closed (callee2, 1000));
  event = ctl_wait_event (s->ctl, "CIRC", TIMEOUT_MS);
  g_assert_cmpint (donar_torctl_parse_circuit_event (event, &circuit), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpstr (circuit.id, ==, first);
  g_assert_cmpint (circuit.state, ==, DONAR_TORCTL_CIRCUIT_CLOSED);
  donar_torctl_circuit_clear (&circuit);
  donar_torctl_reply_free (event);
  close (caller);
  close (callee);
  close (caller2);
  close (callee2);
  assert_stat (s->ctl, 0, "FAILURES", "1");

  /* The next stream reopens link 0: the model's setup time first.  Only
   * then does the onion's target see the connection, as tor's service
   * sees it when the BEGIN comes over the built circuit: a callee that
   * accepted at the CONNECT would take the circuit's setup for the link's
   * round trip (docs/torsim.md).  The SOCKS client in a thread, the
   * target's accept here: both after the setup time. */
  host = onion_host (s->onion);
  o.socks_port = s->p->socks_port;
  o.host = host;
  start = g_get_monotonic_time ();
  thread = g_thread_new ("socks", socks_open_thread, &o);
  callee = tcp_accept (s->listener, TIMEOUT_MS);
  accepted = g_get_monotonic_time () - start;
  caller = GPOINTER_TO_INT (g_thread_join (thread));
  g_assert_cmpint (caller, >=, 0);
  g_assert_cmpint (callee, >=, 0);
  g_test_message ("setup %" G_GINT64_FORMAT " us, SOCKS reply after %"
      G_GINT64_FORMAT " us, the target's connection after %" G_GINT64_FORMAT
      " us", setup_us, o.elapsed, accepted);
  g_assert_cmpint (o.elapsed, >=, setup_us - 2000);
  g_assert_cmpint (o.elapsed, <=, setup_us + 100000);
  g_assert_cmpint (accepted, >=, setup_us - 2000);
  assert_stat (s->ctl, 0, "REOPENS", "1");
  assert_stat (s->ctl, 0, "STATE", "open");
  g_assert_cmpuint (count_circuits (s->ctl, "b", &second), ==, 1);
  g_assert_cmpint (atoi (second), >, atoi (first));
  event = ctl_wait_event (s->ctl, "CIRC", TIMEOUT_MS);
  g_assert_nonnull (strstr (event->lines[0].text, "LAUNCHED"));
  donar_torctl_reply_free (event);
  event = ctl_wait_event (s->ctl, "CIRC", TIMEOUT_MS);
  g_assert_nonnull (strstr (event->lines[0].text, "BUILT"));
  donar_torctl_reply_free (event);
  one_way_delay (caller, callee);
  one_way_delay (callee, caller);
  close (caller);
  close (callee);
  donar_net_model_free (m);
  setup_free (s);
}

static void
test_trace (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("torsim-trace-XXXXXX", NULL);
  g_autofree gchar *file = g_build_filename (dir, "link0.csv", NULL);
  const gchar *args[] = { "--publish-ms", "100", "--trace", dir, NULL };
  Setup *s;
  gint caller, callee;
  gint64 closed_after;

  /* 300 ms both ways, then the circuit fails at 2.5 s. */
  g_assert_true (g_file_set_contents (file,
          "send_ms,delay_ms\n0,300\n2500,\n", -1, NULL));
  s = setup_new (args, TRUE);
  caller = open_stream (s, "a", &callee);
  for (guint i = 0; i < 2; i++) {
    gint64 up = one_way_delay (caller, callee);
    gint64 down = one_way_delay (callee, caller);

    g_test_message ("trace 300 ms: %" G_GINT64_FORMAT " and %"
        G_GINT64_FORMAT " us", up, down);
    g_assert_cmpint (up, >=, 299000);
    g_assert_cmpint (up, <=, 300000 + SLACK_US);
    g_assert_cmpint (down, >=, 299000);
    g_assert_cmpint (down, <=, 300000 + SLACK_US);
  }
  g_assert_cmpint (g_get_monotonic_time () - s->p->started_us, <, 2400000);

  g_assert_true (wait_closed (caller, TIMEOUT_MS));
  g_assert_true (wait_closed (callee, TIMEOUT_MS));
  closed_after = g_get_monotonic_time () - s->p->started_us;
  g_test_message ("closed %" G_GINT64_FORMAT " us after the start",
      closed_after);
  g_assert_cmpint (closed_after, >=, 2500000);
  g_assert_cmpint (closed_after, <=, 2500000 + 500000);
  assert_stat (s->ctl, 0, "FAILURES", "1");
  close (caller);
  close (callee);
  setup_free (s);
  g_remove (file);
  g_rmdir (dir);
}

static void
test_links_exhausted (void)
{
  const gchar *args[] = { "--links", "12", "--publish-ms", "100",
    SET ("setup_median_s=0.2"), NULL
  };
  Setup *s = setup_new (args, TRUE);
  g_autofree gchar *host = onion_host (s->onion);
  gint caller[12], callee[12];
  gint fd, other;
  guint8 code;

  for (guint i = 0; i < 12; i++) {
    g_autofree gchar *user = g_strdup_printf ("link-%u", i);

    caller[i] = open_stream (s, user, &callee[i]);
  }
  /* A 13th isolation key: no circuit left. */
  g_assert_cmpuint (connect_code (s, "link-12", host, 80), ==, 0x01);
  /* An existing key still gets in. */
  fd = open_stream (s, "link-3", &other);
  assert_stat (s->ctl, 3, "STREAMS", "2");
  close (fd);
  g_assert_true (wait_closed (other, TIMEOUT_MS));
  close (other);

  /* One circuit closes: the 13th key gets it, rebuilt. */
  close (caller[5]);
  g_assert_true (wait_closed (callee[5], TIMEOUT_MS));
  close (callee[5]);
  fd = socks_open (s->p->socks_port, "link-12", host, 80, &code, NULL);
  g_assert_cmpint (fd, >=, 0);
  assert_stat (s->ctl, 5, "REOPENS", "1");
  close (fd);
  for (guint i = 0; i < 12; i++)
    if (i != 5) {
      close (caller[i]);
      close (callee[i]);
    }
  setup_free (s);
}

static guint64
buffered_bytes (Ctl * c)
{
  DonarTorctlReply *reply = ctl_command (c, "DONAR-STATS");
  const gchar *at = strstr (reply->lines[0].text, " BUFFERED=");
  guint64 value;

  g_assert_nonnull (at);
  value = g_ascii_strtoull (at + strlen (" BUFFERED="), NULL, 10);
  donar_torctl_reply_free (reply);
  return value;
}

static void
test_backpressure (void)
{
  const gchar *args[] = { "--publish-ms", "100", "--max-pending", "262144",
    NULL
  };
  Setup *s = setup_new (args, TRUE);
  gint caller, callee, small = 65536;
  guint64 written, buffered;
  gint64 deadline;

  caller = open_stream (s, "a", &callee);
  /* Small socket buffers around torsim, so that it is what holds back. */
  setsockopt (caller, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  setsockopt (callee, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  g_assert_cmpint (fcntl (caller, F_SETFL, O_NONBLOCK), ==, 0);

  /* The callee reads nothing: the caller must end up blocked. */
  written = write_until_held (caller, 16384, 0, 500000);
  /* The kernel may still take a little from torsim's output into the
   * callee's socket: torsim then reads more from the caller, an instant
   * later.  A sample between the two sees less than the bound. */
  deadline = g_get_monotonic_time () + TIMEOUT_MS * 1000;
  do {
    buffered = buffered_bytes (s->ctl);
    g_assert_cmpuint (buffered, <=, 262144 + 65536);
    if (buffered < 262144)
      g_usleep (20000);
  } while (buffered < 262144 && g_get_monotonic_time () < deadline);
  g_test_message ("the caller wrote %" G_GUINT64_FORMAT " bytes before it "
      "was held back; torsim holds %" G_GUINT64_FORMAT, written, buffered);
  g_assert_cmpuint (written, >, 262144);
  g_assert_cmpuint (buffered, >=, 262144);
  g_assert_cmpuint (buffered, <=, 262144 + 65536);

  /* Everything arrives once the callee reads, in order. */
  g_assert_cmpint (fcntl (caller, F_SETFL, 0), ==, 0);
  read_pattern (callee, written, 7);
  close (caller);
  close (callee);
  setup_free (s);
}

/* DONAR-FREEZE: an open stream carries nothing more either way, and what
 * its caller can write is bounded by the socket buffers (constrained, as
 * tor's ConstrainedSockets, to 4096), not by --max-pending (1 MiB); a new
 * stream is served.  DONAR-FREEZE 1 freezes only the newest open stream. */
static void
test_freeze (void)
{
  const gchar *args[] = { "--publish-ms", "100", "--constrained-sock-size",
    "4096", NULL
  };
  Setup *s = setup_new (args, TRUE);
  gint caller, callee, other_caller, other_callee, newest_caller;
  gint newest_callee, small = 8192;
  guint8 block[4096], in[1];
  guint64 written = 0;
  gint64 last_progress;

  memset (block, 0x5A, sizeof block);
  caller = open_stream (s, "a", &callee);
  one_way_delay (caller, callee);
  g_assert_cmpuint (streams_in_reply (s->ctl, "DONAR-FREEZE", "FROZEN="), ==,
      1);

  setsockopt (caller, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  g_assert_cmpint (fcntl (caller, F_SETFL, O_NONBLOCK), ==, 0);
  last_progress = g_get_monotonic_time ();
  while (g_get_monotonic_time () - last_progress < 300000) {
    gssize sent = send (caller, block, sizeof block, MSG_NOSIGNAL);

    if (sent > 0) {
      written += sent;
      last_progress = g_get_monotonic_time ();
      g_assert_cmpuint (written, <, 1024 * 1024);
      continue;
    }
    g_assert_cmpint (errno, ==, EAGAIN);
    g_usleep (5000);
  }
  g_test_message ("the caller wrote %" G_GUINT64_FORMAT " bytes into the "
      "frozen stream", written);
  g_assert_cmpuint (written, <, 256 * 1024);
  g_assert_cmpuint (buffered_bytes (s->ctl), <=, 16384);
  write_all (callee, block, 100);
  g_assert_false (read_exact (callee, in, 1, 500));
  g_assert_false (read_exact (caller, in, 1, 500));

  other_caller = open_stream (s, "b", &other_callee);
  one_way_delay (other_caller, other_callee);
  one_way_delay (other_callee, other_caller);
  newest_caller = open_stream (s, "c", &newest_callee);
  one_way_delay (newest_caller, newest_callee);
  ctl_expect (s->ctl, "DONAR-FREEZE 0", 552);
  ctl_expect (s->ctl, "DONAR-FREEZE two", 552);
  g_assert_cmpuint (streams_in_reply (s->ctl, "DONAR-FREEZE 1", "FROZEN="), ==,
      1);
  write_all (newest_caller, block, 100);
  g_assert_false (read_exact (newest_callee, in, 1, 500));
  one_way_delay (other_caller, other_callee);
  one_way_delay (other_callee, other_caller);
  g_assert_cmpuint (streams_in_reply (s->ctl, "DONAR-FREEZE 5", "FROZEN="), ==,
      1);
  write_all (other_caller, block, 100);
  g_assert_false (read_exact (other_callee, in, 1, 500));
  close (newest_caller);
  close (newest_callee);
  close (other_caller);
  close (other_callee);
  close (caller);
  close (callee);
  setup_free (s);
}

static void
test_signal_shutdown (void)
{
  TorsimProcess *p = torsim_process_start (NULL);
  Ctl *c = ctl_open (p->control_port);

  ctl_authenticate (c);
  ctl_expect (c, "SIGNAL SHUTDOWN", 250);
  g_assert_cmpint (torsim_process_wait (p, TIMEOUT_MS), ==, 0);
  ctl_free (c);
  torsim_process_stop (p);
}

static void
assert_refused (const gchar * const *args, const gchar * option)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GSubprocess) process = NULL;
  g_autofree gchar *err = NULL;
  GError *error = NULL;

  g_ptr_array_add (argv, (gpointer) g_getenv ("DONAR_TORSIM"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  process = g_subprocess_newv ((const gchar * const *) argv->pdata,
      G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
      &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (process, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 2);
  if (strstr (err, option) == NULL)
    g_error ("'%s' does not name %s", err, option);
}

static void
test_options (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("torsim-options-XXXXXX", NULL);
  g_autofree gchar *file = g_build_filename (dir, "link0.csv", NULL);
  const gchar *security[] = { "--security", "3hop", NULL };
  const gchar *links[] = { "--links", "11", NULL };
  const gchar *links_high[] = { "--links", "33", NULL };
  const gchar *seed[] = { "--seed", "x", NULL };
  const gchar *set[] = { "--set", "no_such_parameter=1", NULL };
  const gchar *set_value[] = { "--set", "loss_median=abc", NULL };
  const gchar *port[] = { "--socks-port", "70000", NULL };
  const gchar *publish[] = { "--publish-ms", "-5", NULL };
  const gchar *trace[] = { "--trace", dir, NULL };
  const gchar *sock_size[] = { "--constrained-sock-size", "1024", NULL };
  /* Isolation flags only; ExtendedErrors is always on anyway. */
  const gchar *socks_flag[] = { "--socks-flag", "IsolateEverything", NULL };
  const gchar *socks_other[] = { "--socks-flag", "ExtendedErrors", NULL };

  assert_refused (security, "--security");
  assert_refused (links, "--links");
  assert_refused (links_high, "--links");
  assert_refused (seed, "--seed");
  assert_refused (set, "--set");
  assert_refused (set_value, "--set");
  assert_refused (port, "--socks-port");
  assert_refused (publish, "--publish-ms");
  assert_refused (sock_size, "--constrained-sock-size");
  assert_refused (socks_flag, "--socks-flag");
  assert_refused (socks_other, "--socks-flag");
  /* No trace file, then a bad row. */
  assert_refused (trace, "--trace");
  g_assert_true (g_file_set_contents (file, "0,abc\n", -1, NULL));
  assert_refused (trace, "--trace");
  g_remove (file);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/torsim/control/null", test_control_null);
  g_test_add_func ("/torsim/control/safecookie", test_control_safecookie);
  g_test_add_func ("/torsim/control/garbage", test_control_garbage);
  g_test_add_func ("/torsim/control/shutdown", test_signal_shutdown);
  g_test_add_func ("/torsim/control/options", test_options);
  g_test_add_func ("/torsim/onion/lifecycle", test_onion_lifecycle);
  g_test_add_func ("/torsim/onion/owner", test_onion_owner);
  g_test_add_func ("/torsim/onion/loopback-target", test_onion_loopback_target);
  g_test_add_func ("/torsim/relay/both-ways", test_relay_both_ways);
  g_test_add_func ("/torsim/relay/backpressure", test_backpressure);
  g_test_add_func ("/torsim/relay/freeze", test_freeze);
  g_test_add_func ("/torsim/delay/base", test_delay_base);
  g_test_add_func ("/torsim/delay/trace", test_trace);
  g_test_add_func ("/torsim/delay/stall", test_stall);
  g_test_add_func ("/torsim/circuits/isolation", test_isolation);
  g_test_add_func ("/torsim/circuits/fail-link", test_fail_link);
  g_test_add_func ("/torsim/circuits/guards", test_guards);
  g_test_add_func ("/torsim/circuits/exhausted", test_links_exhausted);
  return g_test_run ();
}
