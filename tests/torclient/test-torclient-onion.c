/* Onion services on real tor: ADD_ONION services of the launched callee
 * tor reached through the network's client, client authorization, the
 * callee tor stopped under an open connection, and a 1way tor's single
 * onion.  Registered after /torclient/callee/join (test-torclient.c). */
#include "donar-client-auth.h"
#include "torclient-test-net.h"
#include "torclient-test-socks.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#define EXCHANGE_BYTES (16 * 1024)
#define VIRTUAL_PORT 5060

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
    GSocket *socket =
        torclient_test_socks_dial (torclient_net.socks_port, username,
        host, VIRTUAL_PORT, early_data, &socks_error, &error);

    if (socket != NULL) {
      g_test_message ("dialed %s in %.2f s", host,
          torclient_seconds_since (start));
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
      torclient_seconds_since (start));
  /* Waiting again returns at once. */
  g_assert_true (donar_tor_control_wait_for_descriptor_uploaded (control,
          service_id, donar_tor_control_deadline (1), NULL, &error));
  g_assert_no_error (error);

  caller = dial_onion (service_id, username, early_data);
  exchange (listener, caller, early_data);
  g_test_message ("%s.onion carried %d bytes each way %.2f s after it was "
      "made", service_id, EXCHANGE_BYTES, torclient_seconds_since (start));
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
  g_autoptr (DonarTorControl) control = torclient_open_network_client ();
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

  g_assert_nonnull (torclient_net.callee);
  control = donar_tor_launcher_open_control (torclient_net.callee,
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

/* A lasting address (lib/call's key file): the key of a first ADD_ONION,
 * given back to a second one once the first is gone, publishes the same
 * onion, whose descriptor tor uploads; a second ADD_ONION of a key tor
 * serves is refused. */
static void
test_onion_kept_key (void)
{
  g_autoptr (DonarTorControl) control = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GSocket) listener = NULL;
  g_autofree gchar *service_id = NULL;
  g_autofree gchar *key = NULL;
  DonarTorOnionOptions options = {
    .virtual_port = VIRTUAL_PORT,
    .keep_private_key = TRUE,
  };
  DonarTorctlOnion onion;
  gint64 deadline = donar_tor_control_deadline (UPLOAD_TIMEOUT_MS);

  g_assert_nonnull (torclient_net.callee);
  control = donar_tor_launcher_open_control (torclient_net.callee,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  listener = listen_loopback (&options.target_port);
  g_assert_true (donar_tor_control_add_onion (control, &options, &onion,
          deadline, NULL, &error));
  g_assert_no_error (error);
  service_id = g_strdup (onion.service_id);
  key = g_strdup (onion.private_key);
  donar_torctl_onion_clear (&onion);
  g_assert_cmpuint (strlen (key), ==, 88);

  /* Served: the same key is refused ("550 Onion address collision"). */
  options.keep_private_key = FALSE;
  options.private_key = key;
  g_assert_false (donar_tor_control_add_onion (control, &options, &onion,
          deadline, NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_REFUSED);
  g_test_message ("%s", error->message);
  g_clear_error (&error);

  g_assert_true (donar_tor_control_del_onion (control, service_id, deadline,
          NULL, &error));
  g_assert_no_error (error);
  g_assert_true (donar_tor_control_add_onion (control, &options, &onion,
          deadline, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (onion.service_id, ==, service_id);
  g_assert_null (onion.private_key);
  donar_torctl_onion_clear (&onion);
  g_assert_true (donar_tor_control_wait_for_descriptor_uploaded (control,
          service_id, deadline, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (donar_tor_control_del_onion (control, service_id, deadline,
          NULL, &error));
  g_assert_no_error (error);
  explicit_bzero (key, strlen (key));
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
    GSocket *socket =
        torclient_test_socks_dial (torclient_net.socks_extended_port,
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
  control = donar_tor_launcher_open_control (torclient_net.callee,
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

  client = torclient_open_network_client ();
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

  control = donar_tor_launcher_open_control (torclient_net.callee,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  pid = donar_tor_launcher_get_pid (torclient_net.callee);
  data_dir = g_strdup (donar_tor_launcher_get_data_dir (torclient_net.callee));

  start = g_get_monotonic_time ();
  donar_tor_launcher_stop (torclient_net.callee);
  g_test_message ("tor stopped in %.2f s", torclient_seconds_since (start));
  g_assert_cmpfloat (torclient_seconds_since (start), <, 4);
  g_assert_cmpint (donar_tor_launcher_get_pid (torclient_net.callee), ==, 0);
  g_assert_cmpint (kill (pid, 0), ==, -1);
  g_assert_cmpint (errno, ==, ESRCH);
  g_assert_false (g_file_test (data_dir, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (torclient_launched_left (), ==, 0);

  start = g_get_monotonic_time ();
  g_assert_null (donar_tor_control_getinfo (control, "version",
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_CLOSED);
  g_assert_cmpfloat (torclient_seconds_since (start), <, 1);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  /* And it stays so. */
  g_assert_false (donar_tor_control_setconf (control, "NumEntryGuards", "1",
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_error (error, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_CLOSED);

  g_clear_pointer (&torclient_net.callee, donar_tor_launcher_free);
}

/* 1way: a single-onion tor, without a SocksPort.  Its ADD_ONION services
 * keep their full circuits (tor 0.4.9); its configured single onion reaches
 * the rendezvous point in one hop. */
/* A single onion with client authorization (an authorized_clients file
 * in its directory): refused without the key, reached with it. */
static void
one_way_client_auth (DonarTorLauncher * launcher, DonarTorControl * control)
{
  g_autoptr (DonarTorControl) client = torclient_open_network_client ();
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

  launcher =
      torclient_launch_joined (DONAR_TOR_SECURITY_ONE_WAY, 0, NULL, NULL);
  g_assert_cmpuint (donar_tor_launcher_get_socks_port (launcher), ==, 0);
  control = donar_tor_launcher_open_control (launcher,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (donar_tor_control_get_socks_port (control, &socks_port,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_cmpuint (socks_port, ==, 0);
  config = torclient_getinfo (control, "config-text");
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

void
torclient_add_onion_tests (void)
{
  g_test_add_func ("/torclient/callee/onion-reachable", test_onion_reachable);
  g_test_add_func ("/torclient/callee/onion-kept-key", test_onion_kept_key);
  g_test_add_func ("/torclient/callee/onion-client-auth",
      test_onion_client_auth);
  g_test_add_func ("/torclient/callee/stop-closes-control",
      test_launcher_stop_closes_control);
  g_test_add_func ("/torclient/one-way/launch-and-reach",
      test_launcher_one_way);
}
