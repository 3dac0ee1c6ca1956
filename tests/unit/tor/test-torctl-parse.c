/* Reply parsers and the keyword=value / QuotedString splitter under them:
 * hand-written replies from control-spec, then every way each can be
 * refused. */
#include "torctl-test-reply.h"

#include <string.h>

#define SERVICE_ID "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd"
#define HEX64 "0123456789ABCDEF0123456789ABCDEF0123456789abcdef0123456789abcdef"
#define FP_A "$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA~guard"
#define FP_B "$BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB~middle"
#define FP_C "$CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC~rendezvous"

static void
test_unquote (void)
{
  const struct
  {
    const gchar *quoted;
    const gchar *value;
    gsize consumed;
  } good[] = {
    {"\"\"", "", 2},
    {"\"plain\" rest", "plain", 7},
    {"\"a\\\"b\\\\c\"", "a\"b\\c", 9},
    {"\"\\n\\t\\r\"", "\n\t\r", 8},
    {"\"\\101\\60x\\7\"", "A0x\a", 12},
    {"\"\\303\\251\"", "\xc3\xa9", 10},
    {"\"\\q\\ \"", "q ", 6},
    {"\"\\1234\"", "S4", 7},
  };
  const gchar *bad[] = {
    "plain", "\"open", "\"ends in backslash\\", "\"\\0\"", "\"\\000\"",
    "\"\\400\"", "",
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++) {
    gchar *value;
    gsize consumed;

    g_assert_cmpint (donar_torctl_unquote (good[i].quoted, &consumed,
            &value), ==, DONAR_TORCTL_OK);
    g_assert_cmpstr (value, ==, good[i].value);
    g_assert_cmpuint (consumed, ==, good[i].consumed);
    g_free (value);
  }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    gchar *value;
    gsize consumed;

    g_assert_cmpint (donar_torctl_unquote (bad[i], &consumed, &value), ==,
        DONAR_TORCTL_ERROR_MALFORMED);
    g_assert_null (value);
  }
}

static void
test_arguments (void)
{
  DonarTorctlArguments *arguments;
  GString *many;
  const gchar *bad[] = {
    "A \"quoted word\"", "K=\"open", "K=\"v\"x", "K=v\"w", "=v", "K\"=v",
    "K=\"\\0\"",
  };

  g_assert_cmpint (donar_torctl_arguments_parse
      ("  AUTH  METHODS=COOKIE,SAFECOOKIE  COOKIEFILE=\"/a b/c\" EMPTY= "
          "x=1=2 flag ", 1, &arguments), ==, DONAR_TORCTL_OK);
  g_assert_cmpuint (arguments->n_arguments, ==, 6);
  g_assert_cmpstr (donar_torctl_arguments_word (arguments, 0), ==, "AUTH");
  g_assert_cmpstr (donar_torctl_arguments_word (arguments, 1), ==, "flag");
  g_assert_null (donar_torctl_arguments_word (arguments, 2));
  g_assert_cmpstr (donar_torctl_arguments_lookup (arguments, "METHODS"), ==,
      "COOKIE,SAFECOOKIE");
  g_assert_cmpstr (donar_torctl_arguments_lookup (arguments, "COOKIEFILE"),
      ==, "/a b/c");
  g_assert_cmpstr (donar_torctl_arguments_lookup (arguments, "EMPTY"), ==, "");
  g_assert_cmpstr (donar_torctl_arguments_lookup (arguments, "x"), ==, "1=2");
  g_assert_null (donar_torctl_arguments_lookup (arguments, "methods"));
  donar_torctl_arguments_free (arguments);

  /* Leading words are taken raw, '=' and all. */
  g_assert_cmpint (donar_torctl_arguments_parse ("1 BUILT $F=nick K=v", 3,
          &arguments), ==, DONAR_TORCTL_OK);
  g_assert_cmpstr (donar_torctl_arguments_word (arguments, 2), ==, "$F=nick");
  g_assert_cmpstr (donar_torctl_arguments_lookup (arguments, "K"), ==, "v");
  donar_torctl_arguments_free (arguments);

  g_assert_cmpint (donar_torctl_arguments_parse ("", 0, &arguments), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpuint (arguments->n_arguments, ==, 0);
  donar_torctl_arguments_free (arguments);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_assert_cmpint (donar_torctl_arguments_parse (bad[i], 0, &arguments),
        ==, DONAR_TORCTL_ERROR_MALFORMED);
    g_assert_null (arguments);
  }

  many = g_string_new (NULL);
  for (guint i = 0; i < DONAR_TORCTL_MAX_ARGUMENTS; i++)
    g_string_append_printf (many, "K%u=%u ", i, i);
  g_assert_cmpint (donar_torctl_arguments_parse (many->str, 0, &arguments),
      ==, DONAR_TORCTL_OK);
  donar_torctl_arguments_free (arguments);
  g_string_append (many, "one-more");
  g_assert_cmpint (donar_torctl_arguments_parse (many->str, 0, &arguments),
      ==, DONAR_TORCTL_ERROR_MALFORMED);
  g_string_free (many, TRUE);
}

static DonarTorctlError
protocolinfo_of (const gchar * text, DonarTorctlProtocolInfo * info)
{
  DonarTorctlReply *reply = reply_of (text);
  DonarTorctlError error = donar_torctl_parse_protocolinfo (reply, info);

  donar_torctl_reply_free (reply);
  return error;
}

static void
test_protocolinfo (void)
{
  DonarTorctlProtocolInfo info;

  g_assert_cmpint (protocolinfo_of ("250-PROTOCOLINFO 1\r\n"
          "250-AUTH METHODS=COOKIE,SAFECOOKIE,HASHEDPASSWORD,FUTURE "
          "COOKIEFILE=\"/home/d \\\"q\\\"\\\\caf\\303\\251/control_auth_cookie\" "
          "COOKIEFILE=\"/second\"\r\n"
          "250-VERSION Tor=\"0.4.9.1-alpha\" EXTRA=1\r\n"
          "250-FUTURE \"an unterminated grammar of its own\r\n"
          "250 OK\r\n", &info), ==, DONAR_TORCTL_OK);
  g_assert_cmpuint (info.protocol_version, ==, 1);
  g_assert_cmpuint (info.methods, ==, DONAR_TORCTL_AUTH_COOKIE
      | DONAR_TORCTL_AUTH_SAFECOOKIE | DONAR_TORCTL_AUTH_HASHEDPASSWORD);
  g_assert_cmpstr (info.cookie_file, ==,
      "/home/d \"q\"\\caf\xc3\xa9/control_auth_cookie");
  g_assert_cmpstr (info.tor_version, ==, "0.4.9.1-alpha");
  donar_torctl_protocol_info_clear (&info);

  g_assert_cmpint (protocolinfo_of ("250-PROTOCOLINFO 1\r\n"
          "250-AUTH METHODS=NULL\r\n250 OK\r\n", &info), ==, DONAR_TORCTL_OK);
  g_assert_cmpuint (info.methods, ==, DONAR_TORCTL_AUTH_NULL);
  g_assert_null (info.cookie_file);
  g_assert_null (info.tor_version);
  donar_torctl_protocol_info_clear (&info);

  g_assert_cmpint (protocolinfo_of ("250-PROTOCOLINFO 1\r\n"
          "250-VERSION Tor=\"0.4.9.1\"\r\n250 OK\r\n", &info), ==,
      DONAR_TORCTL_ERROR_MISSING_FIELD);
  g_assert_null (info.tor_version);
  g_assert_cmpint (protocolinfo_of ("250-AUTH METHODS=NULL\r\n250 OK\r\n",
          &info), ==, DONAR_TORCTL_ERROR_MISSING_FIELD);
  g_assert_cmpint (protocolinfo_of ("250-PROTOCOLINFO 1\r\n"
          "250-AUTH COOKIEFILE=\"/x\"\r\n250 OK\r\n", &info), ==,
      DONAR_TORCTL_ERROR_MISSING_FIELD);
  g_assert_cmpint (protocolinfo_of ("250-PROTOCOLINFO one\r\n"
          "250-AUTH METHODS=NULL\r\n250 OK\r\n", &info), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (protocolinfo_of ("250-PROTOCOLINFO 1\r\n"
          "250-AUTH METHODS=COOKIE COOKIEFILE=\"/open\r\n250 OK\r\n", &info),
      ==, DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_null (info.cookie_file);
  g_assert_cmpint (protocolinfo_of ("250-PROTOCOLINFO 1\r\n"
          "250-AUTH METHODS=NULL\r\n250 NOT OK\r\n", &info), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (protocolinfo_of ("515 Authentication failed\r\n", &info),
      ==, DONAR_TORCTL_ERROR_REFUSED);
}

static DonarTorctlError
authchallenge_of (const gchar * text, DonarTorctlAuthChallenge * challenge)
{
  DonarTorctlReply *reply = reply_of (text);
  DonarTorctlError error = donar_torctl_parse_authchallenge (reply,
      challenge);

  donar_torctl_reply_free (reply);
  return error;
}

static void
test_authchallenge (void)
{
  DonarTorctlAuthChallenge challenge;

  g_assert_cmpint (authchallenge_of ("250 AUTHCHALLENGE SERVERHASH=" HEX64
          " SERVERNONCE=" HEX64 "\r\n", &challenge), ==, DONAR_TORCTL_OK);
  g_assert_cmpuint (challenge.server_hash[0], ==, 0x01);
  g_assert_cmpuint (challenge.server_nonce[31], ==, 0xef);
  g_assert_cmpint (authchallenge_of ("250 AUTHCHALLENGE SERVERHASH=" HEX64
          "00 SERVERNONCE=" HEX64 "\r\n", &challenge), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (authchallenge_of ("250 AUTHCHALLENGE SERVERHASH=" HEX64
          " SERVERNONCE=XY" HEX64 "\r\n", &challenge), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (authchallenge_of ("250 AUTHCHALLENGE SERVERHASH=" HEX64
          "\r\n", &challenge), ==, DONAR_TORCTL_ERROR_MISSING_FIELD);
  g_assert_cmpint (authchallenge_of ("250 SOMETHING SERVERHASH=" HEX64
          " SERVERNONCE=" HEX64 "\r\n", &challenge), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (authchallenge_of ("250-AUTHCHALLENGE SERVERHASH=" HEX64
          " SERVERNONCE=" HEX64 "\r\n250 OK\r\n", &challenge), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (authchallenge_of ("513 Unrecognized authentication "
          "method\r\n", &challenge), ==, DONAR_TORCTL_ERROR_REFUSED);
}

static DonarTorctlError
add_onion_of (const gchar * text, DonarTorctlOnion * onion)
{
  DonarTorctlReply *reply = reply_of (text);
  DonarTorctlError error = donar_torctl_parse_add_onion (reply, onion);

  donar_torctl_reply_free (reply);
  return error;
}

static void
test_add_onion (void)
{
  DonarTorctlOnion onion;

  g_assert_cmpint (add_onion_of ("250-ServiceID=" SERVICE_ID "\r\n"
          "250-PrivateKey=ED25519-V3:YHBlTl2M+/w==\r\n"
          "250-ClientAuthV3=KEYONE\r\n250-ClientAuthV3=KEYTWO\r\n"
          "250-Future=1\r\n250 OK\r\n", &onion), ==, DONAR_TORCTL_OK);
  g_assert_cmpstr (onion.service_id, ==, SERVICE_ID);
  g_assert_cmpstr (onion.private_key, ==, "YHBlTl2M+/w==");
  g_assert_cmpuint (g_strv_length (onion.client_auth_v3), ==, 2);
  g_assert_cmpstr (onion.client_auth_v3[1], ==, "KEYTWO");
  donar_torctl_onion_clear (&onion);
  g_assert_null (onion.service_id);

  g_assert_cmpint (add_onion_of ("250-ServiceID=" SERVICE_ID "\r\n"
          "250 OK\r\n", &onion), ==, DONAR_TORCTL_OK);
  g_assert_null (onion.private_key);
  g_assert_cmpuint (g_strv_length (onion.client_auth_v3), ==, 0);
  donar_torctl_onion_clear (&onion);

  g_assert_cmpint (add_onion_of ("250 OK\r\n", &onion), ==,
      DONAR_TORCTL_ERROR_MISSING_FIELD);
  g_assert_null (onion.client_auth_v3);
  g_assert_cmpint (add_onion_of ("250-ServiceID=exampleonion1234\r\n"
          "250 OK\r\n", &onion), ==, DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (add_onion_of ("250-ServiceID=" SERVICE_ID "\r\n"
          "250-ServiceID=" SERVICE_ID "\r\n250 OK\r\n", &onion), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (add_onion_of ("250-ServiceID=" SERVICE_ID "\r\n"
          "250-PrivateKey=RSA1024:abc\r\n250 OK\r\n", &onion), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (add_onion_of ("250-ServiceID=" SERVICE_ID "\r\n"
          "250-PrivateKey=ED25519-V3:\r\n250 OK\r\n", &onion), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (add_onion_of ("250-ServiceID\r\n250 OK\r\n", &onion), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (add_onion_of ("512 Tor is in anonymous hidden service "
          "mode\r\n", &onion), ==, DONAR_TORCTL_ERROR_REFUSED);
}

static DonarTorctlError
getinfo_of (const gchar * text, GHashTable ** values)
{
  DonarTorctlReply *reply = reply_of (text);
  DonarTorctlError error = donar_torctl_parse_getinfo (reply, values);

  donar_torctl_reply_free (reply);
  return error;
}

static void
test_getinfo (void)
{
  GHashTable *values;

  g_assert_cmpint (getinfo_of ("250-version=0.4.9.1 (git-0123)\r\n"
          "250-net/listeners/socks=\"127.0.0.1:9050\"\r\n"
          "250+circuit-status=\r\n1 BUILT " FP_A "\r\n.\r\n"
          "250-empty=\r\n250 OK\r\n", &values), ==, DONAR_TORCTL_OK);
  g_assert_cmpstr (g_hash_table_lookup (values, "version"), ==,
      "0.4.9.1 (git-0123)");
  g_assert_cmpstr (g_hash_table_lookup (values, "net/listeners/socks"), ==,
      "\"127.0.0.1:9050\"");
  g_assert_cmpstr (g_hash_table_lookup (values, "circuit-status"), ==,
      "1 BUILT " FP_A "\n");
  g_assert_cmpstr (g_hash_table_lookup (values, "empty"), ==, "");
  g_hash_table_unref (values);

  g_assert_cmpint (getinfo_of ("250-a=1\r\n250-a=2\r\n250 OK\r\n", &values),
      ==, DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_null (values);
  g_assert_cmpint (getinfo_of ("250-novalue\r\n250 OK\r\n", &values), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (getinfo_of ("250-=1\r\n250 OK\r\n", &values), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (getinfo_of ("250+k=inline\r\ndata\r\n.\r\n250 OK\r\n",
          &values), ==, DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (getinfo_of ("552 Unrecognized key \"nope\"\r\n", &values),
      ==, DONAR_TORCTL_ERROR_REFUSED);
}

static void
test_bootstrap (void)
{
  DonarTorctlBootstrap bootstrap;
  DonarTorctlReply *reply;

  g_assert_cmpint (donar_torctl_parse_bootstrap ("NOTICE BOOTSTRAP "
          "PROGRESS=14 TAG=handshake SUMMARY=\"Handshaking with a relay\"",
          &bootstrap), ==, DONAR_TORCTL_OK);
  g_assert_cmpstr (bootstrap.severity, ==, "NOTICE");
  g_assert_cmpuint (bootstrap.progress, ==, 14);
  g_assert_cmpstr (bootstrap.tag, ==, "handshake");
  g_assert_cmpstr (bootstrap.summary, ==, "Handshaking with a relay");
  g_assert_null (bootstrap.warning);
  donar_torctl_bootstrap_clear (&bootstrap);

  reply = reply_of ("650 STATUS_CLIENT WARN BOOTSTRAP PROGRESS=5 "
      "TAG=conn SUMMARY=\"Connecting to a relay\" WARNING=\"Connection "
      "refused\" REASON=CONNECTREFUSED COUNT=3 RECOMMENDATION=warn "
      "HOSTID=\"$AAAA\" HOSTADDR=\"127.0.0.1:5000\"\r\n");
  g_assert_cmpint (donar_torctl_parse_bootstrap_event (reply, &bootstrap),
      ==, DONAR_TORCTL_OK);
  g_assert_cmpstr (bootstrap.severity, ==, "WARN");
  g_assert_cmpstr (bootstrap.warning, ==, "Connection refused");
  g_assert_cmpstr (bootstrap.reason, ==, "CONNECTREFUSED");
  donar_torctl_bootstrap_clear (&bootstrap);
  donar_torctl_reply_free (reply);

  reply = reply_of ("650 STATUS_CLIENT NOTICE CIRCUIT_ESTABLISHED\r\n");
  g_assert_cmpint (donar_torctl_parse_bootstrap_event (reply, &bootstrap),
      ==, DONAR_TORCTL_ERROR_MALFORMED);
  donar_torctl_reply_free (reply);
  reply = reply_of ("250 OK\r\n");
  g_assert_cmpint (donar_torctl_parse_bootstrap_event (reply, &bootstrap),
      ==, DONAR_TORCTL_ERROR_MALFORMED);
  donar_torctl_reply_free (reply);

  g_assert_cmpint (donar_torctl_parse_bootstrap ("NOTICE BOOTSTRAP "
          "PROGRESS=101 TAG=done", &bootstrap), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (donar_torctl_parse_bootstrap ("NOTICE BOOTSTRAP "
          "PROGRESS=-1 TAG=done", &bootstrap), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (donar_torctl_parse_bootstrap ("NOTICE BOOTSTRAP "
          "PROGRESS=0100 TAG=done", &bootstrap), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (donar_torctl_parse_bootstrap ("NOTICE BOOTSTRAP "
          "PROGRESS=100", &bootstrap), ==, DONAR_TORCTL_ERROR_MISSING_FIELD);
  g_assert_cmpint (donar_torctl_parse_bootstrap ("NOTICE BOOTSTRAP "
          "TAG=done", &bootstrap), ==, DONAR_TORCTL_ERROR_MISSING_FIELD);
  g_assert_cmpint (donar_torctl_parse_bootstrap ("NOTICE", &bootstrap), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (donar_torctl_parse_bootstrap ("NOTICE BOOTSTRAP "
          "PROGRESS=1 TAG=x SUMMARY=\"open", &bootstrap), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_null (bootstrap.tag);
}

static void
test_circuit (void)
{
  DonarTorctlCircuit circuit;
  DonarTorctlReply *reply;

  g_assert_cmpint (donar_torctl_parse_circuit ("42 BUILT " FP_A "," FP_B ","
          FP_C " BUILD_FLAGS=IS_INTERNAL,NEED_CAPACITY,NEED_UPTIME "
          "PURPOSE=HS_CLIENT_REND HS_STATE=HSCR_JOINED "
          "REND_QUERY=" SERVICE_ID " TIME_CREATED=2025-01-02T03:04:05.678901 "
          "SOCKS_USERNAME=\"donar link 3\" SOCKS_PASSWORD=\"x\\\"y\"",
          &circuit), ==, DONAR_TORCTL_OK);
  g_assert_cmpstr (circuit.id, ==, "42");
  g_assert_cmpint (circuit.state, ==, DONAR_TORCTL_CIRCUIT_BUILT);
  g_assert_cmpuint (g_strv_length (circuit.path), ==, 3);
  g_assert_cmpstr (circuit.path[0], ==, FP_A);
  g_assert_cmpstr (circuit.path[2], ==, FP_C);
  g_assert_cmpuint (g_strv_length (circuit.build_flags), ==, 3);
  g_assert_cmpstr (circuit.build_flags[1], ==, "NEED_CAPACITY");
  g_assert_cmpstr (circuit.purpose, ==, "HS_CLIENT_REND");
  g_assert_cmpstr (circuit.rend_query, ==, SERVICE_ID);
  g_assert_cmpstr (circuit.socks_username, ==, "donar link 3");
  g_assert_cmpstr (circuit.socks_password, ==, "x\"y");
  donar_torctl_circuit_clear (&circuit);

  /* Not extended yet: no path; the first argument is a keyword. */
  g_assert_cmpint (donar_torctl_parse_circuit ("7 LAUNCHED "
          "BUILD_FLAGS=NEED_CAPACITY PURPOSE=GENERAL", &circuit), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpint (circuit.state, ==, DONAR_TORCTL_CIRCUIT_LAUNCHED);
  g_assert_cmpuint (g_strv_length (circuit.path), ==, 0);
  g_assert_cmpstr (circuit.purpose, ==, "GENERAL");
  g_assert_null (circuit.socks_username);
  donar_torctl_circuit_clear (&circuit);

  g_assert_cmpint (donar_torctl_parse_circuit ("8 CLOSED", &circuit), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpint (circuit.state, ==, DONAR_TORCTL_CIRCUIT_CLOSED);
  g_assert_cmpuint (g_strv_length (circuit.build_flags), ==, 0);
  donar_torctl_circuit_clear (&circuit);

  /* Old tor: '=' in the LongName; older: bare nicknames; a new status. */
  g_assert_cmpint (donar_torctl_parse_circuit ("9 EXTENDED $ABCD=moria1,"
          "$EF01~moria2 REASON=NONE", &circuit), ==, DONAR_TORCTL_OK);
  g_assert_cmpstr (circuit.path[0], ==, "$ABCD=moria1");
  donar_torctl_circuit_clear (&circuit);
  g_assert_cmpint (donar_torctl_parse_circuit ("10 SOMEDAY moria1,moria2",
          &circuit), ==, DONAR_TORCTL_OK);
  g_assert_cmpint (circuit.state, ==, DONAR_TORCTL_CIRCUIT_UNKNOWN);
  g_assert_cmpstr (circuit.path[1], ==, "moria2");
  donar_torctl_circuit_clear (&circuit);

  g_assert_cmpint (donar_torctl_parse_circuit ("12345678901234567 BUILT",
          &circuit), ==, DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (donar_torctl_parse_circuit ("1-2 BUILT", &circuit), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (donar_torctl_parse_circuit ("1", &circuit), ==,
      DONAR_TORCTL_ERROR_MISSING_FIELD);
  g_assert_cmpint (donar_torctl_parse_circuit ("", &circuit), ==,
      DONAR_TORCTL_ERROR_MISSING_FIELD);
  g_assert_cmpint (donar_torctl_parse_circuit ("1 BUILT " FP_A ",," FP_B,
          &circuit), ==, DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (donar_torctl_parse_circuit ("1 BUILT " FP_A
          " BUILD_FLAGS=A,", &circuit), ==, DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (donar_torctl_parse_circuit ("1 BUILT " FP_A
          " SOCKS_USERNAME=\"open", &circuit), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_null (circuit.id);

  reply = reply_of ("650 CIRC 5 FAILED " FP_A " REASON=TIMEOUT\r\n");
  g_assert_cmpint (donar_torctl_parse_circuit_event (reply, &circuit), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpstr (circuit.id, ==, "5");
  g_assert_cmpint (circuit.state, ==, DONAR_TORCTL_CIRCUIT_FAILED);
  donar_torctl_circuit_clear (&circuit);
  donar_torctl_reply_free (reply);
  reply = reply_of ("650 STREAM 5 NEW 0 x.onion:443\r\n");
  g_assert_cmpint (donar_torctl_parse_circuit_event (reply, &circuit), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  donar_torctl_reply_free (reply);
}

static void
test_circuit_status (void)
{
  GPtrArray *circuits;

  g_assert_cmpint (donar_torctl_parse_circuit_status ("1 BUILT " FP_A
          " SOCKS_USERNAME=\"link-0\"\n2 BUILT " FP_B
          " SOCKS_USERNAME=\"link-1\"\n\n3 LAUNCHED\n", &circuits), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpuint (circuits->len, ==, 3);
  g_assert_cmpstr (((DonarTorctlCircuit *) circuits->pdata[1])->socks_username,
      ==, "link-1");
  g_ptr_array_unref (circuits);

  g_assert_cmpint (donar_torctl_parse_circuit_status ("", &circuits), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpuint (circuits->len, ==, 0);
  g_ptr_array_unref (circuits);

  /* Without a final line end, as a one-line GETINFO value has it. */
  g_assert_cmpint (donar_torctl_parse_circuit_status ("4 BUILT " FP_C,
          &circuits), ==, DONAR_TORCTL_OK);
  g_assert_cmpuint (circuits->len, ==, 1);
  g_ptr_array_unref (circuits);

  g_assert_cmpint (donar_torctl_parse_circuit_status ("1 BUILT\nbad!id "
          "BUILT\n", &circuits), ==, DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_null (circuits);
}

/* A reply built by hand (as a fuzz harness may) with no line at all. */
static void
test_reply_without_lines (void)
{
  const DonarTorctlReply empty = { 650, 0, NULL };
  const DonarTorctlReply empty_ok = { 250, 0, NULL };
  DonarTorctlProtocolInfo info;
  DonarTorctlAuthChallenge challenge;
  DonarTorctlOnion onion;
  DonarTorctlBootstrap bootstrap;
  DonarTorctlCircuit circuit;
  GHashTable *values;

  g_assert_false (donar_torctl_reply_is_event (&empty, NULL));
  g_assert_cmpint (donar_torctl_parse_protocolinfo (&empty_ok, &info), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (donar_torctl_parse_authchallenge (&empty_ok, &challenge),
      ==, DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (donar_torctl_parse_add_onion (&empty_ok, &onion), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (donar_torctl_parse_getinfo (&empty_ok, &values), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (donar_torctl_parse_bootstrap_event (&empty, &bootstrap),
      ==, DONAR_TORCTL_ERROR_MALFORMED);
  g_assert_cmpint (donar_torctl_parse_circuit_event (&empty, &circuit), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/torctl/parse/unquote", test_unquote);
  g_test_add_func ("/torctl/parse/arguments", test_arguments);
  g_test_add_func ("/torctl/parse/protocolinfo", test_protocolinfo);
  g_test_add_func ("/torctl/parse/authchallenge", test_authchallenge);
  g_test_add_func ("/torctl/parse/add-onion", test_add_onion);
  g_test_add_func ("/torctl/parse/getinfo", test_getinfo);
  g_test_add_func ("/torctl/parse/bootstrap", test_bootstrap);
  g_test_add_func ("/torctl/parse/circuit", test_circuit);
  g_test_add_func ("/torctl/parse/circuit-status", test_circuit_status);
  g_test_add_func ("/torctl/parse/reply-without-lines",
      test_reply_without_lines);
  return g_test_run ();
}
