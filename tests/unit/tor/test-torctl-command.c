/* Control-port command builders: the exact bytes of each command, quoting
 * that round-trips, and no argument able to inject a line or break the
 * command (the GString is left untouched when one is refused). */
#include "donar-torctl.h"

#include <string.h>

#define SERVICE_ID "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd"
#define CLIENT_KEY "BJ4ZMTSXGHJ4OG2MDYXIXLPVWCUYWNHYG7PWZFIVE5Z4BFA3F3WQ"

/* A GString that already holds an earlier command, as a write queue does. */
static GString *
queue_new (void)
{
  return g_string_new ("QUEUED\r\n");
}

static void
assert_queue (GString * queue, const gchar * command)
{
  gchar *expected = g_strconcat ("QUEUED\r\n", command, NULL);

  g_assert_cmpstr (queue->str, ==, expected);
  g_free (expected);
  g_string_free (queue, TRUE);
}

static void
assert_refused (DonarTorctlError error, GString * queue)
{
  g_assert_cmpint (error, ==, DONAR_TORCTL_ERROR_BAD_ARGUMENT);
  assert_queue (queue, "");
}

static void
test_authentication_commands (void)
{
  guint8 bytes[32];
  GString *out;

  for (guint i = 0; i < 32; i++)
    bytes[i] = i * 8 + 1;

  out = queue_new ();
  donar_torctl_command_protocolinfo (out);
  assert_queue (out, "PROTOCOLINFO 1\r\n");

  out = queue_new ();
  donar_torctl_command_authchallenge (out, bytes);
  assert_queue (out, "AUTHCHALLENGE SAFECOOKIE "
      "0109111921293139414951596169717981899199A1A9B1B9C1C9D1D9E1E9F1F9\r\n");

  out = queue_new ();
  donar_torctl_command_authenticate_none (out);
  assert_queue (out, "AUTHENTICATE\r\n");

  out = queue_new ();
  donar_torctl_command_authenticate_cookie (out, bytes);
  assert_queue (out, "AUTHENTICATE "
      "0109111921293139414951596169717981899199A1A9B1B9C1C9D1D9E1E9F1F9\r\n");

  out = queue_new ();
  donar_torctl_command_authenticate_safecookie (out, bytes);
  assert_queue (out, "AUTHENTICATE "
      "0109111921293139414951596169717981899199A1A9B1B9C1C9D1D9E1E9F1F9\r\n");
}

static void
test_password_quoting (void)
{
  GString *out = queue_new ();
  gchar *unquoted;
  gsize consumed;
  const gchar *quoted;

  g_assert_cmpint (donar_torctl_command_authenticate_password (out,
          "pa\"ss\\w rd"), ==, DONAR_TORCTL_OK);
  quoted = out->str + strlen ("QUEUED\r\nAUTHENTICATE ");
  g_assert_cmpint (donar_torctl_unquote (quoted, &consumed, &unquoted), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpstr (unquoted, ==, "pa\"ss\\w rd");
  g_assert_cmpstr (quoted + consumed, ==, "\r\n");
  g_free (unquoted);
  assert_queue (out, "AUTHENTICATE \"pa\\\"ss\\\\w rd\"\r\n");

  out = queue_new ();
  g_assert_cmpint (donar_torctl_command_authenticate_password (out, ""), ==,
      DONAR_TORCTL_OK);
  assert_queue (out, "AUTHENTICATE \"\"\r\n");

  /* Bytes above ASCII (a UTF-8 password) pass inside the quotes. */
  out = queue_new ();
  g_assert_cmpint (donar_torctl_command_authenticate_password (out,
          "caf\xc3\xa9"), ==, DONAR_TORCTL_OK);
  assert_queue (out, "AUTHENTICATE \"caf\xc3\xa9\"\r\n");

  out = queue_new ();
  assert_refused (donar_torctl_command_authenticate_password (out,
          "secret\r\nSIGNAL HALT"), out);
  out = queue_new ();
  assert_refused (donar_torctl_command_authenticate_password (out, "a\nb"),
      out);
  out = queue_new ();
  assert_refused (donar_torctl_command_authenticate_password (out, "a\rb"),
      out);
  out = queue_new ();
  assert_refused (donar_torctl_command_authenticate_password (out, "tab\t"),
      out);
  out = queue_new ();
  assert_refused (donar_torctl_command_authenticate_password (out, NULL), out);
}

static void
test_add_onion (void)
{
  const DonarTorctlOnionPort ports[] = { {443, 40001}, {444, 40002} };
  const gchar *keys[] = { CLIENT_KEY, CLIENT_KEY, NULL };
  DonarTorctlOnionRequest request = {
    .ports = ports,
    .n_ports = 1,
  };
  GString *out;

  out = queue_new ();
  g_assert_cmpint (donar_torctl_command_add_onion (out, &request), ==,
      DONAR_TORCTL_OK);
  assert_queue (out, "ADD_ONION NEW:ED25519-V3 Port=443,127.0.0.1:40001\r\n");

  request.flags = DONAR_TORCTL_ONION_DISCARD_PK | DONAR_TORCTL_ONION_V3_AUTH;
  request.n_ports = 2;
  request.client_auth_v3 = keys;
  out = queue_new ();
  g_assert_cmpint (donar_torctl_command_add_onion (out, &request), ==,
      DONAR_TORCTL_OK);
  assert_queue (out, "ADD_ONION NEW:ED25519-V3 Flags=DiscardPK,V3Auth "
      "Port=443,127.0.0.1:40001 Port=444,127.0.0.1:40002 "
      "ClientAuthV3=" CLIENT_KEY " ClientAuthV3=" CLIENT_KEY "\r\n");

  request.private_key = "YHBlTl2MlJvmsyNvjAf5bRN3ytFnnBC0T79y0rS7yUF+/w==";
  request.flags = DONAR_TORCTL_ONION_DETACH
      | DONAR_TORCTL_ONION_NON_ANONYMOUS
      | DONAR_TORCTL_ONION_MAX_STREAMS_CLOSE_CIRCUIT;
  request.max_streams = 12;
  request.n_ports = 1;
  request.client_auth_v3 = NULL;
  out = queue_new ();
  g_assert_cmpint (donar_torctl_command_add_onion (out, &request), ==,
      DONAR_TORCTL_OK);
  assert_queue (out, "ADD_ONION ED25519-V3:"
      "YHBlTl2MlJvmsyNvjAf5bRN3ytFnnBC0T79y0rS7yUF+/w== "
      "Flags=Detach,NonAnonymous,MaxStreamsCloseCircuit MaxStreams=12 "
      "Port=443,127.0.0.1:40001\r\n");
}

static void
test_add_onion_refusals (void)
{
  DonarTorctlOnionPort ports[] = { {443, 40001} };
  const gchar *bad_keys[][2] = {
    {CLIENT_KEY "\r\nSIGNAL HALT", NULL},
    {"BJ4ZMTSXGHJ4OG2MDYXIXLPVWCUYWNHYG7PWZFIVE5Z4BFA3F3W", NULL},
    {CLIENT_KEY "A", NULL},
    {"BJ4ZMTSXGHJ4OG2MDYXIXLPVWCUYWNHYG7PWZFIVE5Z4BFA3F3W1", NULL},
    {"BJ4ZMTSXGHJ4OG2MDYXIXLPVWCUYWNHYG7PWZFIVE5Z4BFA3F3W ", NULL},
  };
  const gchar *bad_blobs[] = {
    "", "abc def", "abc\r\nSIGNAL HALT", "abc=def", "abc===", "===",
    "ab\"c",
  };
  DonarTorctlOnionRequest request = {.ports = ports,.n_ports = 1 };
  DonarTorctlOnionRequest bad;
  GString *out;

  for (guint i = 0; i < G_N_ELEMENTS (bad_keys); i++) {
    bad = request;
    bad.client_auth_v3 = bad_keys[i];
    out = queue_new ();
    assert_refused (donar_torctl_command_add_onion (out, &bad), out);
  }
  for (guint i = 0; i < G_N_ELEMENTS (bad_blobs); i++) {
    bad = request;
    bad.private_key = bad_blobs[i];
    out = queue_new ();
    assert_refused (donar_torctl_command_add_onion (out, &bad), out);
  }
  bad = request;
  bad.n_ports = 0;
  out = queue_new ();
  assert_refused (donar_torctl_command_add_onion (out, &bad), out);
  bad = request;
  bad.flags = 1 << 10;
  out = queue_new ();
  assert_refused (donar_torctl_command_add_onion (out, &bad), out);
  bad = request;
  bad.max_streams = 65536;
  out = queue_new ();
  assert_refused (donar_torctl_command_add_onion (out, &bad), out);
  ports[0].target_port = 0;
  out = queue_new ();
  assert_refused (donar_torctl_command_add_onion (out, &request), out);
  ports[0].target_port = 40001;
  ports[0].virtual_port = 0;
  out = queue_new ();
  assert_refused (donar_torctl_command_add_onion (out, &request), out);
}

static void
test_del_onion (void)
{
  const gchar *bad[] = {
    "", "pg6mmjiyjmcrsslv", SERVICE_ID "a", SERVICE_ID ".onion",
    "PG6MMJIYJMCRSSLVYKFWNNTLARU7P5SVN6Y2YMMJU6NUBXNDF4PSCRYD",
    "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscry1",
    "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscr\r\n",
  };
  GString *out = queue_new ();

  g_assert_cmpint (donar_torctl_command_del_onion (out, SERVICE_ID), ==,
      DONAR_TORCTL_OK);
  assert_queue (out, "DEL_ONION " SERVICE_ID "\r\n");
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    out = queue_new ();
    assert_refused (donar_torctl_command_del_onion (out, bad[i]), out);
  }
  out = queue_new ();
  assert_refused (donar_torctl_command_del_onion (out, NULL), out);
}

/* The secret key as tor's control-spec wants it: base64 with its
 * padding (bytes 0..31 written out by hand). */
static void
test_onion_client_auth (void)
{
  guint8 key[DONAR_TORCTL_X25519_KEY_BYTES];
  GString *out;

  for (guint i = 0; i < sizeof key; i++)
    key[i] = i;
  out = queue_new ();
  g_assert_cmpint (donar_torctl_command_onion_client_auth_add (out,
          SERVICE_ID, key), ==, DONAR_TORCTL_OK);
  assert_queue (out, "ONION_CLIENT_AUTH_ADD " SERVICE_ID
      " x25519:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\r\n");
  out = queue_new ();
  g_assert_cmpint (donar_torctl_command_onion_client_auth_remove (out,
          SERVICE_ID), ==, DONAR_TORCTL_OK);
  assert_queue (out, "ONION_CLIENT_AUTH_REMOVE " SERVICE_ID "\r\n");

  out = queue_new ();
  assert_refused (donar_torctl_command_onion_client_auth_add (out,
          SERVICE_ID ".onion", key), out);
  out = queue_new ();
  assert_refused (donar_torctl_command_onion_client_auth_add (out,
          SERVICE_ID, NULL), out);
  out = queue_new ();
  assert_refused (donar_torctl_command_onion_client_auth_remove (out,
          "pg6mmjiyjmcrsslv\r\nSIGNAL HALT"), out);
}

static void
test_getinfo (void)
{
  const gchar *keys[] = { "status/bootstrap-phase", "circuit-status",
    "net/listeners/socks", NULL
  };
  const gchar *bad[][3] = {
    {"version", "version\r\nSIGNAL HALT", NULL},
    {"version circuit-status", NULL, NULL},
    {"", NULL, NULL},
    {"version\"", NULL, NULL},
    {"caf\xc3\xa9", NULL, NULL},
  };
  const gchar *none[] = { NULL };
  GString *out = queue_new ();

  g_assert_cmpint (donar_torctl_command_getinfo (out, keys), ==,
      DONAR_TORCTL_OK);
  assert_queue (out, "GETINFO status/bootstrap-phase circuit-status "
      "net/listeners/socks\r\n");
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    out = queue_new ();
    assert_refused (donar_torctl_command_getinfo (out, bad[i]), out);
  }
  out = queue_new ();
  assert_refused (donar_torctl_command_getinfo (out, none), out);
  out = queue_new ();
  assert_refused (donar_torctl_command_getinfo (out, NULL), out);
}

static void
test_setevents (void)
{
  const gchar *events[] = { "CIRC", "STATUS_CLIENT", "HS_DESC", NULL };
  const gchar *bad[][2] = {
    {"CIRC\r\nSIGNAL", NULL}, {"CIRC STREAM", NULL}, {"", NULL},
    {"CIRC2", NULL},
  };
  GString *out = queue_new ();

  g_assert_cmpint (donar_torctl_command_setevents (out, events), ==,
      DONAR_TORCTL_OK);
  assert_queue (out, "SETEVENTS CIRC STATUS_CLIENT HS_DESC\r\n");
  out = queue_new ();
  g_assert_cmpint (donar_torctl_command_setevents (out, NULL), ==,
      DONAR_TORCTL_OK);
  assert_queue (out, "SETEVENTS\r\n");
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    out = queue_new ();
    assert_refused (donar_torctl_command_setevents (out, bad[i]), out);
  }
}

static void
test_setconf (void)
{
  const DonarTorctlConfEntry entries[] = {
    {"NumEntryGuards", "2"},
    {"SocksPort", "127.0.0.1:9050"},
    {"HiddenServiceSingleHopMode", NULL},
    {"Nickname", "two words"},
    {"ContactInfo", "say \"hi\" \\o/"},
    {"Empty", ""},
    {"Path", "/tmp/donar-x/data_dir"},
  };
  const DonarTorctlConfEntry bad[] = {
    {"Socks Port", "9050"},
    {"SocksPort=9050 ControlPort", "1"},
    {"", "1"},
    {NULL, "1"},
    {"Log", "notice\r\nSIGNAL HALT"},
    {"Log", "notice\nstdout"},
    {"Log", "notice\x7f"},
  };
  GString *out = queue_new ();
  gchar *value;
  gsize consumed;
  const gchar *quoted;

  g_assert_cmpint (donar_torctl_command_setconf (out, entries,
          G_N_ELEMENTS (entries)), ==, DONAR_TORCTL_OK);
  quoted = strstr (out->str, "ContactInfo=") + strlen ("ContactInfo=");
  g_assert_cmpint (donar_torctl_unquote (quoted, &consumed, &value), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpstr (value, ==, "say \"hi\" \\o/");
  g_free (value);
  assert_queue (out, "SETCONF NumEntryGuards=2 SocksPort=127.0.0.1:9050 "
      "HiddenServiceSingleHopMode Nickname=\"two words\" "
      "ContactInfo=\"say \\\"hi\\\" \\\\o/\" Empty=\"\" "
      "Path=/tmp/donar-x/data_dir\r\n");

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    DonarTorctlConfEntry pair[2] = { entries[0], bad[i] };

    out = queue_new ();
    assert_refused (donar_torctl_command_setconf (out, pair, 2), out);
  }
  out = queue_new ();
  assert_refused (donar_torctl_command_setconf (out, entries, 0), out);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/torctl/command/authentication",
      test_authentication_commands);
  g_test_add_func ("/torctl/command/password-quoting", test_password_quoting);
  g_test_add_func ("/torctl/command/add-onion", test_add_onion);
  g_test_add_func ("/torctl/command/add-onion-refusals",
      test_add_onion_refusals);
  g_test_add_func ("/torctl/command/del-onion", test_del_onion);
  g_test_add_func ("/torctl/command/onion-client-auth", test_onion_client_auth);
  g_test_add_func ("/torctl/command/getinfo", test_getinfo);
  g_test_add_func ("/torctl/command/setevents", test_setevents);
  g_test_add_func ("/torctl/command/setconf", test_setconf);
  return g_test_run ();
}
