/* Helpers of the torsim suite (see torsim-test-util.h). */
#include "torsim-test-util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static gint64
now_us (void)
{
  return g_get_monotonic_time ();
}

/* Milliseconds left until deadline_us, at least 0. */
static gint
left_ms (gint64 deadline_us)
{
  return (gint) MAX ((deadline_us - now_us () + 999) / 1000, 0);
}

static gboolean
wait_readable (gint fd, gint64 deadline_us)
{
  struct pollfd pfd = { fd, POLLIN, 0 };

  for (;;) {
    gint r = poll (&pfd, 1, left_ms (deadline_us));

    if (r > 0)
      return TRUE;
    if (r == 0)
      return FALSE;
    g_assert_cmpint (errno, ==, EINTR);
  }
}

static gboolean
parse_port_file (const gchar * path, TorsimProcess * p)
{
  g_autofree gchar *text = NULL;
  g_auto (GStrv) lines = NULL;
  gboolean ready = FALSE;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++) {
    if (g_str_has_prefix (lines[i], "SOCKS_PORT="))
      p->socks_port = (guint16) atoi (lines[i] + strlen ("SOCKS_PORT="));
    else if (g_str_has_prefix (lines[i], "CONTROL_PORT="))
      p->control_port = (guint16) atoi (lines[i] + strlen ("CONTROL_PORT="));
    else if (strcmp (lines[i], "READY") == 0)
      ready = TRUE;
  }
  /* The file is written whole (renamed into place): all or nothing. */
  g_assert_true (ready);
  g_assert_cmpuint (p->socks_port, >, 0);
  g_assert_cmpuint (p->control_port, >, 0);
  return TRUE;
}

TorsimProcess *
torsim_process_start (const gchar * const *args)
{
  TorsimProcess *p = g_new0 (TorsimProcess, 1);
  const gchar *binary = g_getenv ("DONAR_TORSIM");
  g_autofree gchar *port_file = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  GError *error = NULL;
  gint64 deadline;

  g_assert_nonnull (binary);
  p->dir = g_dir_make_tmp ("torsim-test-XXXXXX", &error);
  g_assert_no_error (error);
  port_file = g_build_filename (p->dir, "ports", NULL);

  g_ptr_array_add (argv, (gpointer) binary);
  g_ptr_array_add (argv, (gpointer) "--socks-port=0");
  g_ptr_array_add (argv, (gpointer) "--control-port=0");
  g_ptr_array_add (argv, (gpointer) "--port-file");
  g_ptr_array_add (argv, port_file);
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  p->started_us = now_us ();
  p->process = test_spawn (G_SUBPROCESS_FLAGS_STDOUT_SILENCE,
      (const gchar * const *) argv->pdata, &error);
  g_assert_no_error (error);
  p->pid = (GPid) atoi (g_subprocess_get_identifier (p->process));

  deadline = now_us () + TIMEOUT_MS * 1000;
  while (!g_file_test (port_file, G_FILE_TEST_EXISTS)) {
    g_assert_cmpint (now_us (), <, deadline);
    g_usleep (5000);
  }
  g_assert_true (parse_port_file (port_file, p));
  return p;
}

static void
on_waited (GObject * source, GAsyncResult * result, gpointer data)
{
  gboolean *done = data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  *done = TRUE;
}

gint
torsim_process_wait (TorsimProcess * p, guint timeout_ms)
{
  GMainContext *context = g_main_context_new ();
  gint64 deadline = now_us () + timeout_ms * (gint64) 1000;
  gboolean done = FALSE;
  gint status = -1;

  g_main_context_push_thread_default (context);
  g_subprocess_wait_async (p->process, NULL, on_waited, &done);
  while (!done && now_us () < deadline) {
    if (!g_main_context_iteration (context, FALSE))
      g_usleep (2000);
  }
  g_main_context_pop_thread_default (context);
  if (done && g_subprocess_get_if_exited (p->process))
    status = g_subprocess_get_exit_status (p->process);
  if (!done) {
    /* Leave nothing behind, even on failure. */
    kill (p->pid, SIGKILL);
    while (!done)
      g_main_context_iteration (context, TRUE);
  }
  g_main_context_unref (context);
  return status;
}

static void
remove_tree (const gchar * path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const gchar *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL) {
    g_autofree gchar *child = g_build_filename (path, name, NULL);

    if (g_file_test (child, G_FILE_TEST_IS_DIR))
      remove_tree (child);
    else
      g_remove (child);
  }
  if (dir != NULL)
    g_dir_close (dir);
  g_rmdir (path);
}

void
torsim_process_stop (TorsimProcess * p)
{
  gint status = 0;

  if (!g_subprocess_get_identifier (p->process)) {
    /* Exited already (the test waited for it). */
  } else {
    g_assert_cmpint (kill (p->pid, SIGTERM), ==, 0);
    status = torsim_process_wait (p, TIMEOUT_MS);
  }
  g_object_unref (p->process);
  remove_tree (p->dir);
  g_free (p->dir);
  g_free (p);
  g_assert_cmpint (status, ==, 0);
}

gchar *
torsim_process_path (TorsimProcess * p, const gchar * name)
{
  return g_build_filename (p->dir, name, NULL);
}

DonarNetModel *
model_like (DonarSecurity security, guint n_links, guint64 seed,
    const gchar * const *sets)
{
  DonarNetModelParams params;

  donar_net_model_params_init (&params, security);
  for (guint i = 0; sets != NULL && sets[i] != NULL; i++) {
    g_auto (GStrv) parts = g_strsplit (sets[i], "=", 2);

    g_assert_true (donar_net_model_params_set (&params, parts[0],
            g_ascii_strtod (parts[1], NULL)));
  }
  return donar_net_model_new_with_params (&params, n_links, seed, 0);
}

/* An IPv4 address and port; NULL is 127.0.0.1. */
static struct sockaddr_in
ipv4 (const gchar * address, guint16 port)
{
  struct sockaddr_in sin;

  memset (&sin, 0, sizeof sin);
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (address != NULL)
    g_assert_cmpint (inet_pton (AF_INET, address, &sin.sin_addr), ==, 1);
  sin.sin_port = htons (port);
  return sin;
}

gint
tcp_connect_from (const gchar * source, guint16 port)
{
  struct sockaddr_in sin = ipv4 (NULL, port);
  gint fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  gint one = 1;

  g_assert_cmpint (fd, >=, 0);
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (source != NULL) {
    struct sockaddr_in from = ipv4 (source, 0);

    g_assert_cmpint (bind (fd, (struct sockaddr *) &from, sizeof from), ==, 0);
  }
  g_assert_cmpint (connect (fd, (struct sockaddr *) &sin, sizeof sin), ==, 0);
  return fd;
}

gint
tcp_connect (guint16 port)
{
  return tcp_connect_from (NULL, port);
}

gint
tcp_listen_on (const gchar * address, guint16 * port)
{
  struct sockaddr_in sin = ipv4 (address, *port);
  socklen_t length = sizeof sin;
  gint fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  g_assert_cmpint (fd, >=, 0);
  if (bind (fd, (struct sockaddr *) &sin, sizeof sin) != 0) {
    g_assert_cmpint (errno, ==, EADDRINUSE);
    close (fd);
    return -1;
  }
  g_assert_cmpint (listen (fd, 64), ==, 0);
  g_assert_cmpint (getsockname (fd, (struct sockaddr *) &sin, &length), ==, 0);
  *port = ntohs (sin.sin_port);
  return fd;
}

gint
tcp_listen (guint16 * port)
{
  gint fd;

  *port = 0;
  fd = tcp_listen_on (NULL, port);
  g_assert_cmpint (fd, >=, 0);
  return fd;
}

gint
tcp_accept (gint listener, guint timeout_ms)
{
  gint fd, one = 1;

  if (!wait_readable (listener, now_us () + timeout_ms * (gint64) 1000))
    return -1;
  fd = accept (listener, NULL, NULL);
  g_assert_cmpint (fd, >=, 0);
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

gboolean
read_exact (gint fd, gpointer buffer, gsize length, guint timeout_ms)
{
  gint64 deadline = now_us () + timeout_ms * (gint64) 1000;
  gsize done = 0;

  while (done < length) {
    gssize got;

    if (!wait_readable (fd, deadline))
      return FALSE;
    got = recv (fd, (guint8 *) buffer + done, length - done, 0);
    if (got <= 0)
      return FALSE;
    done += got;
  }
  return TRUE;
}

void
write_all (gint fd, gconstpointer buffer, gsize length)
{
  gsize done = 0;

  while (done < length) {
    gssize sent = send (fd, (const guint8 *) buffer + done, length - done,
        MSG_NOSIGNAL);

    g_assert_cmpint (sent, >, 0);
    done += sent;
  }
}

gboolean
wait_closed (gint fd, guint timeout_ms)
{
  gint64 deadline = now_us () + timeout_ms * (gint64) 1000;
  guint8 buffer[4096];

  for (;;) {
    gssize got;

    if (!wait_readable (fd, deadline))
      return FALSE;
    got = recv (fd, buffer, sizeof buffer, 0);
    if (got <= 0)
      return TRUE;
  }
}

Ctl *
ctl_open (guint16 port)
{
  Ctl *c = g_new0 (Ctl, 1);

  c->fd = tcp_connect (port);
  c->reader = donar_torctl_reader_new ();
  g_queue_init (&c->replies);
  return c;
}

void
ctl_free (Ctl * c)
{
  g_queue_clear_full (&c->replies, (GDestroyNotify) donar_torctl_reply_free);
  donar_torctl_reader_free (c->reader);
  close (c->fd);
  g_free (c);
}

/* Reads once (until the deadline) and queues the whole replies. */
static gboolean
ctl_fill (Ctl * c, gint64 deadline)
{
  guint8 buffer[8192];
  const guint8 *data = buffer;
  gssize got;
  gsize length;

  if (c->eof || !wait_readable (c->fd, deadline))
    return FALSE;
  got = recv (c->fd, buffer, sizeof buffer, 0);
  if (got <= 0) {
    c->eof = TRUE;
    return FALSE;
  }
  length = got;
  while (length > 0) {
    DonarTorctlReply *reply = NULL;

    g_assert_cmpint (donar_torctl_reader_next (c->reader, &data, &length,
            &reply), ==, DONAR_TORCTL_OK);
    if (reply != NULL)
      g_queue_push_tail (&c->replies, reply);
  }
  return TRUE;
}

static DonarTorctlReply *
ctl_take (Ctl * c, gboolean event, const gchar * name, guint timeout_ms)
{
  gint64 deadline = now_us () + timeout_ms * (gint64) 1000;

  for (;;) {
    for (GList * l = c->replies.head; l != NULL; l = l->next) {
      DonarTorctlReply *reply = l->data;

      if (event ? donar_torctl_reply_is_event (reply, name) :
          !donar_torctl_reply_is_event (reply, NULL)) {
        g_queue_delete_link (&c->replies, l);
        return reply;
      }
    }
    if (!ctl_fill (c, deadline))
      return NULL;
  }
}

DonarTorctlReply *
ctl_command_raw (Ctl * c, const gchar * bytes, gsize length)
{
  write_all (c->fd, bytes, length);
  return ctl_take (c, FALSE, NULL, TIMEOUT_MS);
}

DonarTorctlReply *
ctl_command (Ctl * c, const gchar * line)
{
  g_autofree gchar *text = g_strconcat (line, "\r\n", NULL);

  return ctl_command_raw (c, text, strlen (text));
}

void
ctl_expect (Ctl * c, const gchar * line, guint code)
{
  DonarTorctlReply *reply = ctl_command (c, line);

  g_assert_nonnull (reply);
  if (reply->code != code)
    g_error ("'%s': %u %s, expected %u", line, reply->code,
        reply->lines[0].text, code);
  donar_torctl_reply_free (reply);
}

void
ctl_authenticate (Ctl * c)
{
  ctl_expect (c, "AUTHENTICATE", 250);
}

DonarTorctlReply *
ctl_wait_event (Ctl * c, const gchar * name, guint timeout_ms)
{
  return ctl_take (c, TRUE, name, timeout_ms);
}

gboolean
ctl_wait_closed (Ctl * c, guint timeout_ms)
{
  gint64 deadline = now_us () + timeout_ms * (gint64) 1000;

  while (!c->eof && ctl_fill (c, deadline));
  return c->eof;
}

gchar *
ctl_getinfo (Ctl * c, const gchar * key)
{
  g_autofree gchar *line = g_strdup_printf ("GETINFO %s", key);
  DonarTorctlReply *reply = ctl_command (c, line);
  GHashTable *values = NULL;
  gchar *value;

  g_assert_nonnull (reply);
  g_assert_cmpint (donar_torctl_parse_getinfo (reply, &values), ==,
      DONAR_TORCTL_OK);
  value = g_strdup (g_hash_table_lookup (values, key));
  g_assert_nonnull (value);
  g_hash_table_unref (values);
  donar_torctl_reply_free (reply);
  return value;
}

gchar *
ctl_link_stat (Ctl * c, guint link, const gchar * field)
{
  DonarTorctlReply *reply = ctl_command (c, "DONAR-STATS");
  g_autofree gchar *prefix = g_strdup_printf ("LINK %u ", link);
  g_autofree gchar *key = g_strdup_printf (" %s=", field);
  gchar *value = NULL;

  g_assert_nonnull (reply);
  g_assert_cmpuint (reply->code, ==, 250);
  for (guint i = 0; i < reply->n_lines; i++) {
    const gchar *text = reply->lines[i].text;
    const gchar *at;

    if (!g_str_has_prefix (text, prefix) || (at = strstr (text, key)) == NULL)
      continue;
    at += strlen (key);
    value = g_strndup (at, strcspn (at, " "));
  }
  donar_torctl_reply_free (reply);
  g_assert_nonnull (value);
  return value;
}

gchar *
ctl_add_onion (Ctl * c, const gchar * arguments)
{
  g_autofree gchar *line = g_strdup_printf ("ADD_ONION NEW:ED25519-V3 %s",
      arguments);
  DonarTorctlReply *reply = ctl_command (c, line);
  DonarTorctlOnion onion = { 0 };
  gchar *id;

  g_assert_nonnull (reply);
  g_assert_cmpint (donar_torctl_parse_add_onion (reply, &onion), ==,
      DONAR_TORCTL_OK);
  id = g_strdup (onion.service_id);
  donar_torctl_onion_clear (&onion);
  donar_torctl_reply_free (reply);
  return id;
}

/* Feeds the reader one byte at a time until its reply is whole. */
static DonarSocksError
socks_read_reply (gint fd, DonarSocksReader * reader)
{
  gboolean done = FALSE;

  while (!done) {
    guint8 byte;
    const guint8 *data = &byte;
    gsize length = 1;
    DonarSocksError error;

    if (!read_exact (fd, &byte, 1, TIMEOUT_MS))
      return donar_socks_reader_finish (reader);
    error = donar_socks_reader_feed (reader, &data, &length, &done);
    if (error != DONAR_SOCKS_OK)
      return error;
  }
  return DONAR_SOCKS_OK;
}

gint
socks_open (guint16 socks_port, const gchar * username, const gchar * host,
    guint16 port, guint8 * code, gint64 * elapsed_us)
{
  return socks_open_from (NULL, socks_port, username, host, port, code,
      elapsed_us);
}

gint
socks_open_from (const gchar * source, guint16 socks_port,
    const gchar * username, const gchar * host, guint16 port, guint8 * code,
    gint64 * elapsed_us)
{
  guint8 request[DONAR_SOCKS_MAX_AUTH_LENGTH];
  gsize length;
  DonarSocksReader reader;
  DonarSocksError error;
  gint fd = tcp_connect_from (source, socks_port);
  gint64 start;

  donar_socks_reader_init (&reader);
  if (username != NULL) {
    g_assert_cmpint (donar_socks_build_greeting (request, sizeof request,
            &length), ==, DONAR_SOCKS_OK);
    write_all (fd, request, length);
    g_assert_cmpint (socks_read_reply (fd, &reader), ==, DONAR_SOCKS_OK);
    g_assert_cmpint (reader.stage, ==, DONAR_SOCKS_STAGE_AUTH);
    g_assert_cmpint (donar_socks_build_auth (username, "pw", request,
            sizeof request, &length), ==, DONAR_SOCKS_OK);
    write_all (fd, request, length);
    g_assert_cmpint (socks_read_reply (fd, &reader), ==, DONAR_SOCKS_OK);
  } else {
    /* lib/tor's client offers username/password only: by hand. */
    guint8 answer[2];

    write_all (fd, "\x05\x01\x00", 3);
    g_assert_true (read_exact (fd, answer, 2, TIMEOUT_MS));
    g_assert_cmpmem (answer, 2, "\x05\x00", 2);
    reader.stage = DONAR_SOCKS_STAGE_CONNECT;
  }
  g_assert_cmpint (reader.stage, ==, DONAR_SOCKS_STAGE_CONNECT);
  g_assert_cmpint (donar_socks_build_connect (host, port, request,
          sizeof request, &length), ==, DONAR_SOCKS_OK);
  start = now_us ();
  write_all (fd, request, length);
  error = socks_read_reply (fd, &reader);
  if (elapsed_us != NULL)
    *elapsed_us = now_us () - start;
  if (error == DONAR_SOCKS_OK) {
    g_assert_cmpint (reader.stage, ==, DONAR_SOCKS_STAGE_OPEN);
    *code = 0;
    return fd;
  }
  *code = error == DONAR_SOCKS_ERROR_TRUNCATED ? 0xFF : reader.reply_code;
  close (fd);
  return -1;
}
