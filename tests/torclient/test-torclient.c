/* The control client and the launcher against real tor: the private
 * network of tests/tor-network, the network's client tor, and tors the
 * launcher starts and joins to the network.  The tests run in order and
 * share the launched callee tor; those over onion services are in
 * test-torclient-onion.c. */
#include "torclient-test-net.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

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
  g_assert_cmpfloat (torclient_seconds_since (start), <, 10);
  g_test_message ("%s", error->message);
  g_assert_cmpuint (torclient_launched_left (), ==, 0);
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
  g_assert_cmpfloat (torclient_seconds_since (start), <, 5);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_assert_cmpuint (torclient_launched_left (), ==, 0);

  options.bootstrap_timeout_ms = BOOTSTRAP_TIMEOUT_MS;
  start = g_get_monotonic_time ();
  thread = g_thread_new ("cancel", cancel_later, cancellable);
  g_assert_null (donar_tor_launcher_start (&options, cancellable, &error));
  g_thread_join (thread);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpfloat (torclient_seconds_since (start), <, 5);
  g_assert_cmpuint (torclient_launched_left (), ==, 0);
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
  g_autoptr (DonarTorControl) control = torclient_connect_network_client ();
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
  version = torclient_getinfo (control, "version");
  g_assert_true (g_str_has_prefix (version, "0.4."));
}

static void
test_control_auth_cookie (void)
{
  DonarTorControlAuthOptions auth = {
    .methods = DONAR_TORCTL_AUTH_COOKIE,
  };
  g_autoptr (DonarTorControl) control = torclient_connect_network_client ();
  g_autoptr (DonarTorControl) second = torclient_connect_network_client ();
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

  auth.cookie_file = torclient_net.cookie;
  g_assert_true (donar_tor_control_authenticate (second, &auth,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (donar_tor_control_get_auth_method (second), ==,
      DONAR_TORCTL_AUTH_COOKIE);
  version = torclient_getinfo (second, "version");
  g_assert_true (g_str_has_prefix (version, "0.4."));
}

static void
test_control_auth_no_method (void)
{
  const DonarTorControlAuthOptions auth = {
    .methods = DONAR_TORCTL_AUTH_HASHEDPASSWORD,
    .password = "not-set-in-tor",
  };
  g_autoptr (DonarTorControl) control = torclient_connect_network_client ();
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
  g_autoptr (DonarTorControl) control = torclient_open_network_client ();
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

  version = torclient_getinfo (control, "version");
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
  g_autoptr (DonarTorControl) control = torclient_open_network_client ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *version = NULL;
  guint count = 0, before;

  donar_tor_control_set_event_handler (control, count_event, &count, NULL);
  g_assert_true (donar_tor_control_setevents (control, events,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  g_usleep (2300 * 1000);
  g_assert_cmpuint (count, ==, 0);
  version = torclient_getinfo (control, "version");
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
  g_autoptr (DonarTorControl) control = torclient_open_network_client ();
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *version = NULL;
  GThread *thread;
  gint64 start = g_get_monotonic_time ();

  g_assert_false (donar_tor_control_wait_for_descriptor_uploaded (control,
          nobody, donar_tor_control_deadline (300), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_TIMEOUT);
  g_assert_cmpfloat (torclient_seconds_since (start), <, 2);
  g_test_message ("%s", error->message);
  g_clear_error (&error);

  start = g_get_monotonic_time ();
  thread = g_thread_new ("cancel", cancel_later, cancellable);
  g_assert_false (donar_tor_control_wait_for_descriptor_uploaded (control,
          nobody, donar_tor_control_deadline (TIMEOUT_MS), cancellable,
          &error));
  g_thread_join (thread);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpfloat (torclient_seconds_since (start), <, 2);
  g_clear_error (&error);

  g_assert_false (donar_tor_control_wait_for_descriptor_uploaded (control,
          "not-an-id", donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_BAD_ARGUMENT);

  version = torclient_getinfo (control, "version");
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

  torclient_net.callee =
      torclient_launch_joined (DONAR_TOR_SECURITY_DEFAULT, 2, record_progress,
      reports);
  g_assert_cmpuint (reports->len, >=, 1);
  for (guint i = 1; i < reports->len; i++)
    g_assert_cmpuint (g_array_index (reports, guint, i), >=,
        g_array_index (reports, guint, i - 1));
  g_assert_cmpuint (g_array_index (reports, guint, reports->len - 1), ==, 100);

  g_assert_cmpint (donar_tor_launcher_get_pid (torclient_net.callee), >, 0);
  g_assert_cmpint (kill (donar_tor_launcher_get_pid (torclient_net.callee), 0),
      ==, 0);
  g_assert_cmpuint (donar_tor_launcher_get_control_port (torclient_net.callee),
      >, 0);
  g_assert_cmpuint (donar_tor_launcher_get_socks_port (torclient_net.callee), >,
      0);
  g_assert_cmpint (g_stat (donar_tor_launcher_get_data_dir (torclient_net.
              callee), &status), ==, 0);
  g_assert_cmpint (status.st_mode & 0777, ==, 0700);
  g_assert_true (g_file_test (donar_tor_launcher_get_cookie_file
          (torclient_net.callee), G_FILE_TEST_IS_REGULAR));

  control = donar_tor_launcher_open_control (torclient_net.callee,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (donar_tor_control_get_socks_port (control, &socks_port,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (socks_port, ==,
      donar_tor_launcher_get_socks_port (torclient_net.callee));
  listeners = torclient_getinfo (control, "net/listeners/socks");
  g_test_message ("net/listeners/socks=%s", listeners);

  /* The guards: at launch, then at run time. */
  config = torclient_getinfo (control, "config-text");
  g_assert_nonnull (strstr (config, "NumEntryGuards 2"));
  g_assert_nonnull (strstr (config, "ExtendedErrors"));
  g_assert_nonnull (strstr (config, "IsolateSOCKSAuth"));
  g_clear_pointer (&config, g_free);
  g_assert_true (donar_tor_control_setconf (control, "NumEntryGuards", "3",
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  config = torclient_getinfo (control, "config-text");
  g_assert_nonnull (strstr (config, "NumEntryGuards 3"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  torclient_net_init ();
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
  torclient_add_onion_tests ();
  return g_test_run ();
}
