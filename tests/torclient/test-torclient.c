/* The control client and the launcher against real tor: the private
 * network of tests/tor-network (started once by run-torclient.sh, which
 * passes its ports in TOR_* variables), the network's client tor, and tors
 * the launcher starts and joins to the network.  The tests run in order and
 * share the launched callee tor. */
#include "donar-client-auth.h"
#include "donar-torclient.h"
#include "torclient-test-socks.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define TIMEOUT_MS (15 * 1000)
/* ADD_ONION to HS_DESC UPLOADED takes about 1.2 s on the private network. */
#define UPLOAD_TIMEOUT_MS (30 * 1000)
#define BOOTSTRAP_TIMEOUT_MS (60 * 1000)
#define EXCHANGE_BYTES (16 * 1024)
#define VIRTUAL_PORT 5060
/* An x25519 public key in base32 (32 random bytes). */

static struct
{
  guint16 control_port;
  guint16 socks_port;
  guint16 socks_extended_port;  /* with ExtendedErrors */
  const gchar *cookie;
  const gchar *torrc_include;
  const gchar *pids_file;
  /* The callee's tor, launched by /torclient/launcher/join. */
  DonarTorLauncher *callee;
} net;

static guint16
env_port (const gchar * name)
{
  const gchar *text = g_getenv (name);
  guint64 port;

  if (text == NULL || !g_ascii_string_to_unsigned (text, 10, 1, 65535, &port,
          NULL))
    g_error ("%s is not set: run this through run-torclient.sh", name);
  return port;
}

/* So that run-torclient.sh can stop, by PID, a tor we failed to stop. */
static void
note_launched (DonarTorLauncher * launcher)
{
  g_autofree gchar *line = g_strdup_printf ("%d %s\n",
      (int) donar_tor_launcher_get_pid (launcher),
      donar_tor_launcher_get_data_dir (launcher));
  FILE *file = fopen (net.pids_file, "a");

  g_assert_nonnull (file);
  fputs (line, file);
  fclose (file);
}

static DonarTorControl *
connect_network_client (void)
{
  g_autoptr (GError) error = NULL;
  DonarTorControl *control;

  control = donar_tor_control_connect ("127.0.0.1", net.control_port,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  return control;
}

static DonarTorControl *
open_network_client (void)
{
  const DonarTorControlAuthOptions auth = {.cookie_file = net.cookie };
  g_autoptr (GError) error = NULL;
  DonarTorControl *control = connect_network_client ();

  g_assert_true (donar_tor_control_authenticate (control, &auth,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  return control;
}

static gchar *
getinfo (DonarTorControl * control, const gchar * key)
{
  g_autoptr (GError) error = NULL;
  gchar *value = donar_tor_control_getinfo (control, key,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (value);
  return value;
}

/* The launched tors and data directories still there: the launcher puts
 * them under TMPDIR, which run-torclient.sh makes ours alone. */
static guint
launched_left (void)
{
  g_autofree gchar *prefix = g_build_filename (g_get_tmp_dir (), "donar-tor-",
      NULL);
  const gchar *name;
  guint left = 0;
  GDir *dir;

  dir = g_dir_open (g_get_tmp_dir (), 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    left += g_str_has_prefix (name, "donar-tor-");
  g_dir_close (dir);
  dir = g_dir_open ("/proc", 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL) {
    g_autofree gchar *path = g_build_filename ("/proc", name, "cmdline",
        NULL);
    g_autofree gchar *cmdline = NULL;
    gsize length;

    if (!g_ascii_isdigit (name[0])
        || !g_file_get_contents (path, &cmdline, &length, NULL))
      continue;
    for (gsize i = 0; i < length; i++)
      if (cmdline[i] == '\0')
        cmdline[i] = ' ';
    left += strstr (cmdline, prefix) != NULL;
  }
  g_dir_close (dir);
  return left;
}

static gdouble
seconds_since (gint64 start)
{
  return (g_get_monotonic_time () - start) / (gdouble) G_USEC_PER_SEC;
}

static DonarTorLauncher *
launch_joined (DonarTorSecurity security, guint num_entry_guards,
    DonarTorProgressFunc progress, gpointer progress_data)
{
  g_autofree gchar *include = g_strdup_printf ("%%include %s",
      net.torrc_include);
  const gchar *extra[] = { include, NULL };
  DonarTorLauncherOptions options;
  g_autoptr (GError) error = NULL;
  DonarTorLauncher *launcher;
  gint64 start = g_get_monotonic_time ();

  donar_tor_launcher_options_init (&options);
  options.security = security;
  options.num_entry_guards = num_entry_guards;
  options.bootstrap_timeout_ms = BOOTSTRAP_TIMEOUT_MS;
  options.extra_torrc_lines = extra;
  options.progress = progress;
  options.progress_data = progress_data;
  launcher = donar_tor_launcher_start (&options, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (launcher);
  note_launched (launcher);
  g_test_message ("%s tor launched and bootstrapped in %.1f s",
      donar_tor_security_to_string (security), seconds_since (start));
  return launcher;
}

/* ---- Launcher: what fails before tor runs ---- */

static void
test_launcher_not_found (void)
{
  DonarTorLauncherOptions options;
  g_autoptr (GError) error = NULL;

  donar_tor_launcher_options_init (&options);
  options.tor_binary = "/nonexistent/donar/tor";
  g_assert_null (donar_tor_launcher_start (&options, NULL, &error));
  g_assert_error (error, DONAR_TOR_LAUNCHER_ERROR,
      DONAR_TOR_LAUNCHER_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, "tor not found"));
  g_assert_nonnull (strstr (error->message, "install Debian's tor package"));
  g_test_message ("%s", error->message);
}

static void
test_launcher_two_hop_refused (void)
{
  DonarTorLauncherOptions options;
  g_autoptr (GError) error = NULL;

  donar_tor_launcher_options_init (&options);
  options.security = DONAR_TOR_SECURITY_TWO_HOP;
  g_assert_null (donar_tor_launcher_start (&options, NULL, &error));
  g_assert_error (error, DONAR_TOR_LAUNCHER_ERROR,
      DONAR_TOR_LAUNCHER_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "patched tor"));
  g_test_message ("%s", error->message);
}

/* A torrc tor refuses: it exits at once, and the error shows why. */
static void
test_launcher_bad_torrc (void)
{
  const gchar *extra[] = { "DonarBogusOption 1", NULL };
  DonarTorLauncherOptions options;
  g_autoptr (GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  donar_tor_launcher_options_init (&options);
  options.extra_torrc_lines = extra;
  g_assert_null (donar_tor_launcher_start (&options, NULL, &error));
  g_assert_error (error, DONAR_TOR_LAUNCHER_ERROR,
      DONAR_TOR_LAUNCHER_ERROR_EXITED);
  g_assert_nonnull (strstr (error->message, "DonarBogusOption"));
  g_assert_cmpfloat (seconds_since (start), <, 10);
  g_test_message ("%s", error->message);
  g_assert_cmpuint (launched_left (), ==, 0);
}

static gpointer
cancel_later (gpointer cancellable)
{
  g_usleep (300 * 1000);
  g_cancellable_cancel (cancellable);
  return NULL;
}

/* A tor that never bootstraps (no network): the timeout, then a cancel,
 * each leaving nothing behind. */
static void
test_launcher_timeout_and_cancel (void)
{
  const gchar *extra[] = { "DisableNetwork 1", NULL };
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  DonarTorLauncherOptions options;
  g_autoptr (GError) error = NULL;
  GThread *thread;
  gint64 start = g_get_monotonic_time ();

  donar_tor_launcher_options_init (&options);
  options.extra_torrc_lines = extra;
  options.bootstrap_timeout_ms = 1500;
  g_assert_null (donar_tor_launcher_start (&options, NULL, &error));
  g_assert_error (error, DONAR_TOR_LAUNCHER_ERROR,
      DONAR_TOR_LAUNCHER_ERROR_TIMEOUT);
  g_assert_nonnull (strstr (error->message, "did not bootstrap in 1.5 s"));
  g_assert_cmpfloat (seconds_since (start), <, 5);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_assert_cmpuint (launched_left (), ==, 0);

  options.bootstrap_timeout_ms = BOOTSTRAP_TIMEOUT_MS;
  start = g_get_monotonic_time ();
  thread = g_thread_new ("cancel", cancel_later, cancellable);
  g_assert_null (donar_tor_launcher_start (&options, cancellable, &error));
  g_thread_join (thread);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpfloat (seconds_since (start), <, 5);
  g_assert_cmpuint (launched_left (), ==, 0);
}

/* ---- Control client, on the network's client tor ---- */

static void
test_control_connect_refused (void)
{
  g_autoptr (GSocket) socket = NULL;
  g_autoptr (GInetAddress) loopback = NULL;
  g_autoptr (GSocketAddress) any = NULL;
  g_autoptr (GSocketAddress) bound = NULL;
  g_autoptr (GError) error = NULL;
  guint16 port;

  /* A port nobody listens on: bound for a moment, then closed. */
  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
      G_SOCKET_PROTOCOL_TCP, &error);
  loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  any = g_inet_socket_address_new (loopback, 0);
  g_assert_true (g_socket_bind (socket, any, FALSE, &error));
  bound = g_socket_get_local_address (socket, &error);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_socket_close (socket, NULL);

  g_assert_null (donar_tor_control_connect ("127.0.0.1", port,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_CONNECT);
  g_clear_error (&error);
  g_assert_null (donar_tor_control_connect ("localhost", port,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_CONNECT);
}

/* SAFECOOKIE with the cookie file PROTOCOLINFO names. */
static void
test_control_auth_safecookie (void)
{
  const DonarTorControlAuthOptions auth = {
    .methods = DONAR_TORCTL_AUTH_SAFECOOKIE,
  };
  g_autoptr (DonarTorControl) control = connect_network_client ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *version = NULL;

  g_assert_cmpuint (donar_tor_control_get_auth_method (control), ==, 0);
  g_assert_true (donar_tor_control_authenticate (control, &auth,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (donar_tor_control_get_auth_method (control), ==,
      DONAR_TORCTL_AUTH_SAFECOOKIE);
  g_assert_true (g_str_has_prefix (donar_tor_control_get_tor_version
          (control), "0.4."));
  version = getinfo (control, "version");
  g_assert_true (g_str_has_prefix (version, "0.4."));
}

static void
test_control_auth_cookie (void)
{
  DonarTorControlAuthOptions auth = {
    .methods = DONAR_TORCTL_AUTH_COOKIE,
  };
  g_autoptr (DonarTorControl) control = connect_network_client ();
  g_autoptr (DonarTorControl) second = connect_network_client ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *version = NULL;

  /* Not with the file that whoever listens on the port names. */
  g_assert_false (donar_tor_control_authenticate (control, &auth,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR, DONAR_TOR_CONTROL_ERROR_AUTH);
  g_assert_nonnull (strstr (error->message, "COOKIE is used only with a "
          "cookie file given by the caller"));
  g_test_message ("%s", error->message);
  g_clear_error (&error);

  auth.cookie_file = net.cookie;
  g_assert_true (donar_tor_control_authenticate (second, &auth,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (donar_tor_control_get_auth_method (second), ==,
      DONAR_TORCTL_AUTH_COOKIE);
  version = getinfo (second, "version");
  g_assert_true (g_str_has_prefix (version, "0.4."));
}

static void
test_control_auth_no_method (void)
{
  const DonarTorControlAuthOptions auth = {
    .methods = DONAR_TORCTL_AUTH_HASHEDPASSWORD,
    .password = "not-set-in-tor",
  };
  g_autoptr (DonarTorControl) control = connect_network_client ();
  g_autoptr (GError) error = NULL;

  g_assert_false (donar_tor_control_authenticate (control, &auth,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR, DONAR_TOR_CONTROL_ERROR_AUTH);
  g_assert_nonnull (strstr (error->message, "no way to authenticate"));
  g_test_message ("%s", error->message);
}

/* A 5xx reply is REFUSED with tor's text, and the connection goes on. */
static void
test_control_refused (void)
{
  g_autoptr (DonarTorControl) control = open_network_client ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *version = NULL;

  g_assert_null (donar_tor_control_getinfo (control, "donar/bogus-key",
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_REFUSED);
  g_assert_nonnull (strstr (error->message, "552"));
  g_assert_nonnull (strstr (error->message, "Unrecognized key"));
  g_test_message ("%s", error->message);
  g_clear_error (&error);

  g_assert_false (donar_tor_control_setconf (control, "DonarBogusOption",
          "1", donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_REFUSED);
  g_test_message ("%s", error->message);
  g_clear_error (&error);

  g_assert_false (donar_tor_control_setconf (control, "Bad Key", "1",
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);

  version = getinfo (control, "version");
  g_assert_true (g_str_has_prefix (version, "0.4."));
}

static void
count_event (DonarTorControl * control, const DonarTorctlReply * event,
    gpointer user_data)
{
  g_assert_true (donar_torctl_reply_is_event (event, "BW"));
  (*(guint *) user_data)++;
}

/* tor sends a BW event every second: those queued before a reply go to the
 * handler and the reply is still the command's. */
static void
test_control_events_between_replies (void)
{
  const gchar *events[] = { "BW", NULL };
  g_autoptr (DonarTorControl) control = open_network_client ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *version = NULL;
  guint count = 0, before;

  donar_tor_control_set_event_handler (control, count_event, &count, NULL);
  g_assert_true (donar_tor_control_setevents (control, events,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  g_usleep (2300 * 1000);
  g_assert_cmpuint (count, ==, 0);
  version = getinfo (control, "version");
  g_assert_true (g_str_has_prefix (version, "0.4."));
  g_assert_cmpuint (count, >=, 1);
  before = count;
  g_assert_true (donar_tor_control_process_events (control,
          donar_tor_control_deadline (1500), NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count, >, before);
  g_test_message ("%u BW events", count);
  g_assert_true (donar_tor_control_setevents (control, NULL,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
}

/* A wait given up on by its deadline or cancellable ends at once, and the
 * connection stays usable. */
static void
test_control_timeout_and_cancel (void)
{
  /* A well-formed ID of no service. */
  const gchar *nobody =
      "donardonardonardonardonardonardonardonardonardonardonar2";
  g_autoptr (DonarTorControl) control = open_network_client ();
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *version = NULL;
  GThread *thread;
  gint64 start = g_get_monotonic_time ();

  g_assert_false (donar_tor_control_wait_for_descriptor_uploaded (control,
          nobody, donar_tor_control_deadline (300), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_TIMEOUT);
  g_assert_cmpfloat (seconds_since (start), <, 2);
  g_test_message ("%s", error->message);
  g_clear_error (&error);

  start = g_get_monotonic_time ();
  thread = g_thread_new ("cancel", cancel_later, cancellable);
  g_assert_false (donar_tor_control_wait_for_descriptor_uploaded (control,
          nobody, donar_tor_control_deadline (TIMEOUT_MS), cancellable,
          &error));
  g_thread_join (thread);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpfloat (seconds_since (start), <, 2);
  g_clear_error (&error);

  g_assert_false (donar_tor_control_wait_for_descriptor_uploaded (control,
          "not-an-id", donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_BAD_ARGUMENT);

  version = getinfo (control, "version");
  g_assert_true (g_str_has_prefix (version, "0.4."));
}

/* ---- Launcher: a callee's tor joined to the network ---- */

static void
record_progress (guint percent, const gchar * summary, gpointer user_data)
{
  GArray *reports = user_data;

  g_test_message ("bootstrap %u %% (%s)", percent, summary);
  g_array_append_val (reports, percent);
}

static void
test_launcher_join (void)
{
  g_autoptr (GArray) reports = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (DonarTorControl) control = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *config = NULL;
  g_autofree gchar *listeners = NULL;
  GStatBuf status;
  guint16 socks_port;

  net.callee = launch_joined (DONAR_TOR_SECURITY_DEFAULT, 2, record_progress,
      reports);
  g_assert_cmpuint (reports->len, >=, 1);
  for (guint i = 1; i < reports->len; i++)
    g_assert_cmpuint (g_array_index (reports, guint, i), >=,
        g_array_index (reports, guint, i - 1));
  g_assert_cmpuint (g_array_index (reports, guint, reports->len - 1), ==, 100);

  g_assert_cmpint (donar_tor_launcher_get_pid (net.callee), >, 0);
  g_assert_cmpint (kill (donar_tor_launcher_get_pid (net.callee), 0), ==, 0);
  g_assert_cmpuint (donar_tor_launcher_get_control_port (net.callee), >, 0);
  g_assert_cmpuint (donar_tor_launcher_get_socks_port (net.callee), >, 0);
  g_assert_cmpint (g_stat (donar_tor_launcher_get_data_dir (net.callee),
          &status), ==, 0);
  g_assert_cmpint (status.st_mode & 0777, ==, 0700);
  g_assert_true (g_file_test (donar_tor_launcher_get_cookie_file
          (net.callee), G_FILE_TEST_IS_REGULAR));

  control = donar_tor_launcher_open_control (net.callee,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (donar_tor_control_get_socks_port (control, &socks_port,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (socks_port, ==,
      donar_tor_launcher_get_socks_port (net.callee));
  listeners = getinfo (control, "net/listeners/socks");
  g_test_message ("net/listeners/socks=%s", listeners);

  /* The guards: at launch, then at run time. */
  config = getinfo (control, "config-text");
  g_assert_nonnull (strstr (config, "NumEntryGuards 2"));
  g_assert_nonnull (strstr (config, "ExtendedErrors"));
  g_assert_nonnull (strstr (config, "IsolateSOCKSAuth"));
  g_clear_pointer (&config, g_free);
  g_assert_true (donar_tor_control_setconf (control, "NumEntryGuards", "3",
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  config = getinfo (control, "config-text");
  g_assert_nonnull (strstr (config, "NumEntryGuards 3"));
}

/* ---- Onion services ---- */

/* A TCP listener on 127.0.0.1: the callee's end of the links. */
static GSocket *
listen_loopback (guint16 * port)
{
  g_autoptr (GInetAddress) loopback =
      g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr (GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr (GSocketAddress) bound = NULL;
  g_autoptr (GError) error = NULL;
  GSocket *socket;

  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
      G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  g_assert_true (g_socket_bind (socket, any, TRUE, &error));
  g_assert_true (g_socket_listen (socket, &error));
  g_socket_set_timeout (socket, 20);
  bound = g_socket_get_local_address (socket, &error);
  g_assert_no_error (error);
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  return socket;
}

/* Dials <id>.onion through the network's client, again while the
 * descriptor is not found (0xF0) or the service not reachable yet. */
static GSocket *
dial_onion (const gchar * service_id, const gchar * username,
    GByteArray * early_data)
{
  g_autofree gchar *host = g_strdup_printf ("%s.onion", service_id);
  gint64 deadline = donar_tor_control_deadline (UPLOAD_TIMEOUT_MS);
  gint64 start = g_get_monotonic_time ();

  for (;;) {
    g_autoptr (GError) error = NULL;
    DonarSocksError socks_error;
    GSocket *socket = torclient_test_socks_dial (net.socks_port, username,
        host, VIRTUAL_PORT, early_data, &socks_error, &error);

    if (socket != NULL) {
      g_test_message ("dialed %s in %.2f s", host, seconds_since (start));
      return socket;
    }
    g_test_message ("dial: %s", error->message);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    g_usleep (300 * 1000);
  }
}

static void
fill (guint8 * bytes, gsize length, guint8 seed)
{
  for (gsize i = 0; i < length; i++)
    bytes[i] = (guint8) (i * 7 + seed);
}

/* Bytes both ways between the caller's dialed socket and the callee's
 * accepted one. */
static void
exchange (GSocket * listener, GSocket * caller, GByteArray * early_data)
{
  g_autoptr (GSocket) callee = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree guint8 *sent = g_malloc (EXCHANGE_BYTES);
  g_autofree guint8 *received = g_malloc (EXCHANGE_BYTES);
  gboolean ok;

  callee = g_socket_accept (listener, NULL, &error);
  g_assert_no_error (error);
  g_socket_set_timeout (callee, 20);

  fill (sent, EXCHANGE_BYTES, 1);
  g_assert_true (torclient_test_send_all (callee, sent, EXCHANGE_BYTES,
          &error));
  g_assert_cmpuint (early_data->len, <=, EXCHANGE_BYTES);
  memcpy (received, early_data->data, early_data->len);
  ok = torclient_test_receive_all (caller, received + early_data->len,
      EXCHANGE_BYTES - early_data->len, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpmem (sent, EXCHANGE_BYTES, received, EXCHANGE_BYTES);

  fill (sent, EXCHANGE_BYTES, 2);
  g_assert_true (torclient_test_send_all (caller, sent, EXCHANGE_BYTES,
          &error));
  ok = torclient_test_receive_all (callee, received, EXCHANGE_BYTES, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpmem (sent, EXCHANGE_BYTES, received, EXCHANGE_BYTES);
}

/* The relays of the callee's built circuits of that purpose for
 * service_id, the rendezvous or introduction point included: all the same
 * length, which is returned. */
static guint
service_circuit_hops (DonarTorControl * control, const gchar * service_id,
    const gchar * purpose)
{
  g_autoptr (GPtrArray) circuits = NULL;
  g_autoptr (GError) error = NULL;
  guint hops = 0;

  circuits = donar_tor_control_get_circuits (control,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < circuits->len; i++) {
    const DonarTorctlCircuit *circuit = g_ptr_array_index (circuits, i);

    if (circuit->state == DONAR_TORCTL_CIRCUIT_BUILT
        && g_strcmp0 (circuit->purpose, purpose) == 0
        && g_strcmp0 (circuit->rend_query, service_id) == 0) {
      if (hops != 0)
        g_assert_cmpuint (g_strv_length (circuit->path), ==, hops);
      hops = g_strv_length (circuit->path);
    }
  }
  g_assert_cmpuint (hops, >, 0);
  g_test_message ("callee's %s circuits: %u relays", purpose, hops);
  return hops;
}

/* The onion service_id of control, made at start, forwards to listener:
 * wait for the upload, dial through the network's client, exchange bytes,
 * and count the relays on the service's side. */
static void
reach (DonarTorControl * control, const gchar * service_id,
    GSocket * listener, const gchar * username, guint service_hops,
    gint64 start)
{
  g_autoptr (GSocket) caller = NULL;
  g_autoptr (GByteArray) early_data = g_byte_array_new ();
  g_autoptr (GError) error = NULL;
  gboolean uploaded;

  uploaded = donar_tor_control_wait_for_descriptor_uploaded (control,
      service_id, donar_tor_control_deadline (UPLOAD_TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (uploaded);
  g_test_message ("%s.onion uploaded %.2f s after it was made", service_id,
      seconds_since (start));
  /* Waiting again returns at once. */
  g_assert_true (donar_tor_control_wait_for_descriptor_uploaded (control,
          service_id, donar_tor_control_deadline (1), NULL, &error));
  g_assert_no_error (error);

  caller = dial_onion (service_id, username, early_data);
  exchange (listener, caller, early_data);
  g_test_message ("%s.onion carried %d bytes each way %.2f s after it was "
      "made", service_id, EXCHANGE_BYTES, seconds_since (start));
  g_assert_cmpuint (service_circuit_hops (control, service_id,
          "HS_SERVICE_REND"), ==, service_hops);
  g_assert_cmpuint (service_circuit_hops (control, service_id,
          "HS_SERVICE_INTRO"), ==, service_hops);
}

/* An ADD_ONION service of control, reached; returns its ID. */
static gchar *
add_and_reach (DonarTorControl * control, gboolean non_anonymous,
    const gchar * username, guint service_hops)
{
  g_autoptr (GSocket) listener = NULL;
  g_autoptr (GError) error = NULL;
  DonarTorOnionOptions options = {
    .virtual_port = VIRTUAL_PORT,
    .non_anonymous = non_anonymous,
    .keep_private_key = TRUE,
  };
  DonarTorctlOnion onion;
  gchar *service_id;
  gboolean added;
  gint64 start;

  listener = listen_loopback (&options.target_port);
  start = g_get_monotonic_time ();
  added = donar_tor_control_add_onion (control, &options, &onion,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (added);
  g_assert_cmpuint (strlen (onion.service_id), ==, 56);
  g_assert_nonnull (onion.private_key);
  reach (control, onion.service_id, listener, username, service_hops, start);
  service_id = g_strdup (onion.service_id);
  donar_torctl_onion_clear (&onion);
  return service_id;
}

/* The rendezvous circuit the isolated dial used shows in circuit-status
 * with its SOCKS username. */
static void
check_circuits (const gchar * username)
{
  g_autoptr (DonarTorControl) control = open_network_client ();
  g_autoptr (GPtrArray) circuits = NULL;
  g_autoptr (GError) error = NULL;
  gboolean found = FALSE;

  circuits = donar_tor_control_get_circuits (control,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (circuits->len, >=, 1);
  for (guint i = 0; i < circuits->len; i++) {
    const DonarTorctlCircuit *circuit = g_ptr_array_index (circuits, i);

    /* Its introduction circuit (4 relays, then kept as CIRCUIT_PADDING)
     * carries the username too. */
    if (g_strcmp0 (circuit->socks_username, username) == 0
        && circuit->state == DONAR_TORCTL_CIRCUIT_BUILT
        && g_strcmp0 (circuit->purpose, "HS_CLIENT_REND") == 0) {
      g_assert_false (found);
      found = TRUE;
      /* guard, middle, rendezvous point: stock tor has no shorter one. */
      g_assert_cmpuint (g_strv_length (circuit->path), ==, 3);
      g_test_message ("circuit %s %s, %u relays", circuit->id,
          circuit->purpose, g_strv_length (circuit->path));
    }
  }
  g_assert_true (found);
}

static void
test_onion_reachable (void)
{
  g_autoptr (DonarTorControl) control = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *service_id = NULL;

  g_assert_nonnull (net.callee);
  control = donar_tor_launcher_open_control (net.callee,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  /* guard, two middles, rendezvous point */
  service_id = add_and_reach (control, FALSE, "donar-link-1", 4);
  check_circuits ("donar-link-1");

  g_assert_true (donar_tor_control_del_onion (control, service_id,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  g_assert_false (donar_tor_control_del_onion (control, service_id,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_REFUSED);
  g_test_message ("%s", error->message);
}

/* Dials <id>.onion once the descriptor is out, expecting tor's refusal
 * `expected` (a descriptor not found yet is dialed again). */
static void
dial_refused (const gchar * service_id, DonarSocksError expected)
{
  g_autofree gchar *host = g_strdup_printf ("%s.onion", service_id);
  gint64 deadline = donar_tor_control_deadline (UPLOAD_TIMEOUT_MS);

  for (;;) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GByteArray) early_data = g_byte_array_new ();
    DonarSocksError socks_error = DONAR_SOCKS_OK;
    GSocket *socket = torclient_test_socks_dial (net.socks_extended_port,
        "donar-auth", host, VIRTUAL_PORT, early_data, &socks_error, &error);

    g_assert_null (socket);
    g_test_message ("dial without the key: %s", error->message);
    if (socks_error == expected)
      return;
    g_assert_cmpint (socks_error, ==,
        DONAR_SOCKS_ERROR_ONION_DESCRIPTOR_NOT_FOUND);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    g_usleep (300 * 1000);
  }
}

/* An onion only the holder of a client key may reach: without the key the
 * client's tor refuses (SOCKS 0xF4); once ONION_CLIENT_AUTH_ADD gave it
 * the secret key, bytes flow. */
static void
test_onion_client_auth (void)
{
  DonarClientAuthKey key;
  g_autofree gchar *public_key = NULL;
  const gchar *keys[] = { NULL, NULL };
  DonarTorOnionOptions options = {
    .virtual_port = VIRTUAL_PORT,
  };
  g_autoptr (DonarTorControl) control = NULL;
  g_autoptr (DonarTorControl) client = NULL;
  g_autoptr (GSocket) listener = NULL;
  g_autoptr (GSocket) caller = NULL;
  g_autoptr (GByteArray) early_data = g_byte_array_new ();
  g_autoptr (GError) error = NULL;
  DonarTorctlOnion onion;
  gboolean ok;

  g_assert_true (donar_client_auth_key_generate (&key, &error));
  public_key = donar_client_auth_to_base32 (key.public_key);
  keys[0] = public_key;
  options.client_auth_v3 = keys;
  listener = listen_loopback (&options.target_port);
  control = donar_tor_launcher_open_control (net.callee,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  ok = donar_tor_control_add_onion (control, &options, &onion,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpuint (strlen (onion.service_id), ==, 56);
  g_assert_null (onion.private_key);
  g_assert_true (donar_tor_control_wait_for_descriptor_uploaded (control,
          onion.service_id, donar_tor_control_deadline (UPLOAD_TIMEOUT_MS),
          NULL, &error));
  g_assert_no_error (error);

  dial_refused (onion.service_id, DONAR_SOCKS_ERROR_ONION_MISSING_CLIENT_AUTH);

  client = open_network_client ();
  ok = donar_tor_control_onion_client_auth_add (client, onion.service_id,
      key.secret, donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  donar_client_auth_key_clear (&key);
  caller = dial_onion (onion.service_id, "donar-auth", early_data);
  exchange (listener, caller, early_data);
  g_assert_true (donar_tor_control_onion_client_auth_remove (client,
          onion.service_id, donar_tor_control_deadline (TIMEOUT_MS), NULL,
          &error));
  g_assert_no_error (error);

  g_assert_true (donar_tor_control_del_onion (control, onion.service_id,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  donar_torctl_onion_clear (&onion);
}

/* tor goes away under an open connection: CLOSED, at once; stop leaves no
 * process and no data directory. */
static void
test_launcher_stop_closes_control (void)
{
  g_autoptr (DonarTorControl) control = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *data_dir = NULL;
  GPid pid;
  gint64 start;

  control = donar_tor_launcher_open_control (net.callee,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  pid = donar_tor_launcher_get_pid (net.callee);
  data_dir = g_strdup (donar_tor_launcher_get_data_dir (net.callee));

  start = g_get_monotonic_time ();
  donar_tor_launcher_stop (net.callee);
  g_test_message ("tor stopped in %.2f s", seconds_since (start));
  g_assert_cmpfloat (seconds_since (start), <, 4);
  g_assert_cmpint (donar_tor_launcher_get_pid (net.callee), ==, 0);
  g_assert_cmpint (kill (pid, 0), ==, -1);
  g_assert_cmpint (errno, ==, ESRCH);
  g_assert_false (g_file_test (data_dir, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (launched_left (), ==, 0);

  start = g_get_monotonic_time ();
  g_assert_null (donar_tor_control_getinfo (control, "version",
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_CLOSED);
  g_assert_cmpfloat (seconds_since (start), <, 1);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  /* And it stays so. */
  g_assert_false (donar_tor_control_setconf (control, "NumEntryGuards", "1",
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_CLOSED);

  g_clear_pointer (&net.callee, donar_tor_launcher_free);
}

/* 1way: a single-onion tor, without a SocksPort.  Its ADD_ONION services
 * keep their full circuits (tor 0.4.9); its configured single onion reaches
 * the rendezvous point in one hop. */
/* A single onion with client authorization (an authorized_clients file
 * in its directory): refused without the key, reached with it. */
static void
one_way_client_auth (DonarTorLauncher * launcher, DonarTorControl * control)
{
  g_autoptr (DonarTorControl) client = open_network_client ();
  g_autoptr (GSocket) listener = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *public_key = NULL;
  g_autofree gchar *single = NULL;
  DonarClientAuthKey key;
  guint16 target_port;
  gboolean ok;

  g_assert_true (donar_client_auth_key_generate (&key, &error));
  public_key = donar_client_auth_to_base32 (key.public_key);
  listener = listen_loopback (&target_port);
  single = donar_tor_launcher_add_single_onion (launcher, control,
      VIRTUAL_PORT, target_port, public_key,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  dial_refused (single, DONAR_SOCKS_ERROR_ONION_MISSING_CLIENT_AUTH);
  ok = donar_tor_control_onion_client_auth_add (client, single, key.secret,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  donar_client_auth_key_clear (&key);
  reach (control, single, listener, "donar-link-4", 1, g_get_monotonic_time ());
  g_assert_true (donar_tor_launcher_remove_single_onion (launcher, control,
          single, donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
}

static void
test_launcher_one_way (void)
{
  g_autoptr (DonarTorLauncher) launcher = NULL;
  g_autoptr (DonarTorControl) control = NULL;
  g_autoptr (GSocket) listener = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *config = NULL;
  g_autofree gchar *service_id = NULL;
  g_autofree gchar *single = NULL;
  g_autofree gchar *single_dir = NULL;
  const DonarTorOnionOptions anonymous = {
    .virtual_port = VIRTUAL_PORT,
    .target_port = 9,
  };
  DonarTorctlOnion onion;
  guint16 socks_port = 1, target_port;
  gint64 start;

  launcher = launch_joined (DONAR_TOR_SECURITY_ONE_WAY, 0, NULL, NULL);
  g_assert_cmpuint (donar_tor_launcher_get_socks_port (launcher), ==, 0);
  control = donar_tor_launcher_open_control (launcher,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (donar_tor_control_get_socks_port (control, &socks_port,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_cmpuint (socks_port, ==, 0);
  config = getinfo (control, "config-text");
  g_assert_nonnull (strstr (config, "HiddenServiceSingleHopMode 1"));
  g_assert_nonnull (strstr (config, "HiddenServiceNonAnonymousMode 1"));
  g_assert_nonnull (strstr (config, "SocksPort 0"));

  /* tor takes only NonAnonymous onions in this mode... */
  g_assert_false (donar_tor_control_add_onion (control, &anonymous, &onion,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_REFUSED);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  /* ...but does not shorten their circuits. */
  service_id = add_and_reach (control, TRUE, "donar-link-2", 4);
  g_assert_true (donar_tor_control_del_onion (control, service_id,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);

  /* The single onion the launcher configures does. */
  listener = listen_loopback (&target_port);
  start = g_get_monotonic_time ();
  single = donar_tor_launcher_add_single_onion (launcher, control,
      VIRTUAL_PORT, target_port, NULL,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strlen (single), ==, 56);
  reach (control, single, listener, "donar-link-3", 1, start);
  single_dir = g_build_filename (donar_tor_launcher_get_data_dir (launcher),
      "onion-1", NULL);
  g_assert_true (g_file_test (single_dir, G_FILE_TEST_IS_DIR));
  g_assert_true (donar_tor_launcher_remove_single_onion (launcher, control,
          single, donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (single_dir, G_FILE_TEST_EXISTS));
  g_assert_false (donar_tor_launcher_remove_single_onion (launcher, control,
          single, donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_LAUNCHER_ERROR,
      DONAR_TOR_LAUNCHER_ERROR_BAD_OPTION);
  g_clear_error (&error);

  one_way_client_auth (launcher, control);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  net.control_port = env_port ("TOR_CONTROL_PORT");
  net.socks_port = env_port ("TOR_SOCKS_PORT");
  net.socks_extended_port = env_port ("TOR_SOCKS_EXTENDED_PORT");
  net.cookie = g_getenv ("TOR_COOKIE");
  net.torrc_include = g_getenv ("TOR_TORRC_INCLUDE");
  net.pids_file = g_getenv ("TORCLIENT_PIDS_FILE");
  if (net.cookie == NULL || net.torrc_include == NULL || net.pids_file == NULL)
    g_error ("TOR_COOKIE, TOR_TORRC_INCLUDE or TORCLIENT_PIDS_FILE not set: "
        "run this through run-torclient.sh");

  g_test_add_func ("/torclient/launcher/not-found", test_launcher_not_found);
  g_test_add_func ("/torclient/launcher/two-hop-refused",
      test_launcher_two_hop_refused);
  g_test_add_func ("/torclient/launcher/bad-torrc", test_launcher_bad_torrc);
  g_test_add_func ("/torclient/launcher/timeout-and-cancel",
      test_launcher_timeout_and_cancel);
  g_test_add_func ("/torclient/control/connect-refused",
      test_control_connect_refused);
  g_test_add_func ("/torclient/control/auth-safecookie",
      test_control_auth_safecookie);
  g_test_add_func ("/torclient/control/auth-cookie", test_control_auth_cookie);
  g_test_add_func ("/torclient/control/auth-no-method",
      test_control_auth_no_method);
  g_test_add_func ("/torclient/control/refused", test_control_refused);
  g_test_add_func ("/torclient/control/events-between-replies",
      test_control_events_between_replies);
  g_test_add_func ("/torclient/control/timeout-and-cancel",
      test_control_timeout_and_cancel);
  g_test_add_func ("/torclient/callee/join", test_launcher_join);
  g_test_add_func ("/torclient/callee/onion-reachable", test_onion_reachable);
  g_test_add_func ("/torclient/callee/onion-client-auth",
      test_onion_client_auth);
  g_test_add_func ("/torclient/callee/stop-closes-control",
      test_launcher_stop_closes_control);
  g_test_add_func ("/torclient/one-way/launch-and-reach",
      test_launcher_one_way);
  return g_test_run ();
}
