/* The control-port reply reader: hand-written transcripts (control-spec
 * sections 2.3, 3.21, 3.24, 3.27, 3.9, 4.1) come out whole over every
 * split of the stream, and every class of malformed stream is refused and
 * stays refused. */
#include "donar-torctl.h"

#include <string.h>

#define SERVICE_ID "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd"

/* A PROTOCOLINFO reply, an event, an AUTHCHALLENGE reply, an ADD_ONION
 * reply, a bootstrap event, then a GETINFO reply with two data blocks, one
 * of them dot-stuffed. */
static const gchar transcript[] =
    "250-PROTOCOLINFO 1\r\n"
    "250-AUTH METHODS=COOKIE,SAFECOOKIE COOKIEFILE=\"/run/tor/control.authcookie\"\r\n"
    "250-VERSION Tor=\"0.4.9.1-alpha\"\r\n"
    "250 OK\r\n"
    "650 CIRC 7 LAUNCHED BUILD_FLAGS=NEED_CAPACITY PURPOSE=GENERAL\r\n"
    "250 AUTHCHALLENGE SERVERHASH=0C4E8A7E4E7E3F2B5C5AFE0A1BB1C5E5E9A8B1F7D2A4C1B0E3D4F5A6B7C8D9E0 "
    "SERVERNONCE=1F2E3D4C5B6A79880102030405060708090A0B0C0D0E0F101112131415161718\r\n"
    "250-ServiceID=" SERVICE_ID "\r\n"
    "250-PrivateKey=ED25519-V3:YHBlTl2MlJvmsyNvjAf5bRN3ytFnnBC0T79y0rS7yUFdydz9ctQtdL3D1rBwWfR9c1ryO9l3+tE0MU/dX5kA4A==\r\n"
    "250 OK\r\n"
    "650-STATUS_CLIENT NOTICE BOOTSTRAP PROGRESS=75 TAG=enough_dirinfo SUMMARY=\"Loaded enough directory info to build circuits\"\r\n"
    "650 OK\r\n"
    "250+config-text=\r\n"
    "SocksPort 9050\r\n"
    "..starts with a dot\r\n"
    "\r\n"
    "...\r\n"
    ".\r\n"
    "250+circuit-status=\r\n"
    "3 BUILT $AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA~guard,$BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB~middle PURPOSE=HS_CLIENT_REND SOCKS_USERNAME=\"link-3\"\r\n"
    ".\r\n"
    "250-status/bootstrap-phase=NOTICE BOOTSTRAP PROGRESS=100 TAG=done SUMMARY=\"Done\"\r\n"
    "250 OK\r\n";

/* Feeds the stream in pieces cut at the given offsets (ascending, the last
 * being the length) and collects the replies. */
static GPtrArray *
read_cut (const gchar * stream, const gsize * cuts, guint n_cuts,
    DonarTorctlError * error)
{
  DonarTorctlReader *reader = donar_torctl_reader_new ();
  GPtrArray *replies = g_ptr_array_new_with_free_func ((GDestroyNotify)
      donar_torctl_reply_free);
  gsize offset = 0;

  *error = DONAR_TORCTL_OK;
  for (guint c = 0; c < n_cuts && *error == DONAR_TORCTL_OK; c++) {
    const guint8 *data = (const guint8 *) stream + offset;
    gsize length = cuts[c] - offset;

    offset = cuts[c];
    while (TRUE) {
      DonarTorctlReply *reply;

      *error = donar_torctl_reader_next (reader, &data, &length, &reply);
      if (reply != NULL)
        g_ptr_array_add (replies, reply);
      if (*error != DONAR_TORCTL_OK || reply == NULL)
        break;
    }
    if (*error == DONAR_TORCTL_OK)
      g_assert_cmpuint (length, ==, 0);
  }
  if (*error == DONAR_TORCTL_OK)
    *error = donar_torctl_reader_finish (reader);
  donar_torctl_reader_free (reader);
  return replies;
}

static GPtrArray *
read_in_chunks (const gchar * stream, gsize total, gsize chunk,
    DonarTorctlError * error)
{
  gsize n_cuts = (total + chunk - 1) / chunk;
  gsize *cuts = g_new (gsize, MAX (n_cuts, 1));
  GPtrArray *replies;

  for (gsize i = 0; i < n_cuts; i++)
    cuts[i] = MIN ((i + 1) * chunk, total);
  replies = read_cut (stream, cuts, n_cuts, error);
  g_free (cuts);
  return replies;
}

static void
check_transcript (GPtrArray * replies)
{
  DonarTorctlReply *reply;
  DonarTorctlProtocolInfo info;
  DonarTorctlAuthChallenge challenge;
  DonarTorctlOnion onion;
  DonarTorctlBootstrap bootstrap;
  DonarTorctlCircuit circuit;
  GHashTable *values;
  GPtrArray *circuits;

  g_assert_cmpuint (replies->len, ==, 6);

  reply = replies->pdata[0];
  g_assert_cmpuint (reply->code, ==, 250);
  g_assert_cmpuint (reply->n_lines, ==, 4);
  g_assert_cmpstr (reply->lines[2].text, ==, "VERSION Tor=\"0.4.9.1-alpha\"");
  g_assert_false (donar_torctl_reply_is_event (reply, NULL));
  g_assert_cmpint (donar_torctl_parse_protocolinfo (reply, &info), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpstr (info.cookie_file, ==, "/run/tor/control.authcookie");
  donar_torctl_protocol_info_clear (&info);

  reply = replies->pdata[1];
  g_assert_cmpuint (reply->code, ==, 650);
  g_assert_true (donar_torctl_reply_is_event (reply, NULL));
  g_assert_true (donar_torctl_reply_is_event (reply, "CIRC"));
  g_assert_false (donar_torctl_reply_is_event (reply, "CIR"));
  g_assert_cmpint (donar_torctl_parse_circuit_event (reply, &circuit), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpstr (circuit.id, ==, "7");
  g_assert_cmpint (circuit.state, ==, DONAR_TORCTL_CIRCUIT_LAUNCHED);
  donar_torctl_circuit_clear (&circuit);

  reply = replies->pdata[2];
  g_assert_cmpuint (reply->n_lines, ==, 1);
  g_assert_cmpint (donar_torctl_parse_authchallenge (reply, &challenge), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpuint (challenge.server_hash[0], ==, 0x0c);
  g_assert_cmpuint (challenge.server_nonce[31], ==, 0x18);

  reply = replies->pdata[3];
  g_assert_cmpint (donar_torctl_parse_add_onion (reply, &onion), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpstr (onion.service_id, ==, SERVICE_ID);
  donar_torctl_onion_clear (&onion);

  reply = replies->pdata[4];
  g_assert_cmpuint (reply->code, ==, 650);
  g_assert_cmpuint (reply->n_lines, ==, 2);
  g_assert_true (donar_torctl_reply_is_event (reply, "STATUS_CLIENT"));
  g_assert_cmpint (donar_torctl_parse_bootstrap_event (reply, &bootstrap),
      ==, DONAR_TORCTL_OK);
  g_assert_cmpuint (bootstrap.progress, ==, 75);
  donar_torctl_bootstrap_clear (&bootstrap);

  reply = replies->pdata[5];
  g_assert_cmpuint (reply->n_lines, ==, 4);
  g_assert_cmpstr (reply->lines[0].text, ==, "config-text=");
  g_assert_cmpstr (reply->lines[0].data, ==,
      "SocksPort 9050\n.starts with a dot\n\n..\n");
  g_assert_cmpuint (reply->lines[0].data_length, ==,
      strlen (reply->lines[0].data));
  g_assert_null (reply->lines[2].data);
  g_assert_cmpint (donar_torctl_parse_getinfo (reply, &values), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpuint (g_hash_table_size (values), ==, 3);
  g_assert_cmpint (donar_torctl_parse_circuit_status (g_hash_table_lookup
          (values, "circuit-status"), &circuits), ==, DONAR_TORCTL_OK);
  g_assert_cmpuint (circuits->len, ==, 1);
  g_assert_cmpstr (((DonarTorctlCircuit *) circuits->pdata[0])->socks_username,
      ==, "link-3");
  g_ptr_array_unref (circuits);
  g_assert_cmpint (donar_torctl_parse_bootstrap (g_hash_table_lookup (values,
              "status/bootstrap-phase"), &bootstrap), ==, DONAR_TORCTL_OK);
  g_assert_cmpuint (bootstrap.progress, ==, 100);
  g_assert_cmpstr (bootstrap.tag, ==, "done");
  donar_torctl_bootstrap_clear (&bootstrap);
  g_hash_table_unref (values);
}

static void
test_every_chunk_size (void)
{
  gsize total = strlen (transcript);

  for (gsize chunk = 1; chunk <= total; chunk++) {
    DonarTorctlError error;
    GPtrArray *replies = read_in_chunks (transcript, total, chunk, &error);

    g_assert_cmpint (error, ==, DONAR_TORCTL_OK);
    check_transcript (replies);
    g_ptr_array_unref (replies);
  }
}

static void
test_every_cut_in_two (void)
{
  gsize total = strlen (transcript);

  for (gsize cut = 0; cut <= total; cut++) {
    gsize cuts[2] = { cut, total };
    DonarTorctlError error;
    GPtrArray *replies = read_cut (transcript, cuts, 2, &error);

    g_assert_cmpint (error, ==, DONAR_TORCTL_OK);
    check_transcript (replies);
    g_ptr_array_unref (replies);
  }
}

/* The error a stream gives, fed whole and fed byte by byte. */
static DonarTorctlError
stream_error (const gchar * stream, gsize length, guint * n_replies)
{
  DonarTorctlError whole, bytewise;
  GPtrArray *replies;
  guint first;

  replies = read_in_chunks (stream, length, MAX (length, 1), &whole);
  first = replies->len;
  g_ptr_array_unref (replies);
  replies = read_in_chunks (stream, length, 1, &bytewise);
  g_assert_cmpint (whole, ==, bytewise);
  g_assert_cmpuint (first, ==, replies->len);
  if (n_replies != NULL)
    *n_replies = replies->len;
  g_ptr_array_unref (replies);
  return whole;
}

static void
check_malformed (const gchar * stream, DonarTorctlError expected)
{
  g_assert_cmpint (stream_error (stream, strlen (stream), NULL), ==, expected);
}

static void
test_line_ends (void)
{
  check_malformed ("250 OK\n", DONAR_TORCTL_ERROR_BARE_LF);
  check_malformed ("250-A\r\n250 OK\n", DONAR_TORCTL_ERROR_BARE_LF);
  check_malformed ("250+x=\r\nab\ncd\r\n.\r\n250 OK\r\n",
      DONAR_TORCTL_ERROR_BARE_LF);
  check_malformed ("250 O\rK\r\n", DONAR_TORCTL_ERROR_BARE_CR);
  check_malformed ("250 OK\r\r\n", DONAR_TORCTL_ERROR_BARE_CR);
  g_assert_cmpint (stream_error ("250 O\0K\r\n", 9, NULL), ==,
      DONAR_TORCTL_ERROR_NUL_BYTE);
}

static void
test_status_codes (void)
{
  check_malformed ("OK\r\n", DONAR_TORCTL_ERROR_BAD_STATUS_CODE);
  check_malformed ("25 OK\r\n", DONAR_TORCTL_ERROR_BAD_STATUS_CODE);
  check_malformed ("2a0 OK\r\n", DONAR_TORCTL_ERROR_BAD_STATUS_CODE);
  check_malformed ("099 OK\r\n", DONAR_TORCTL_ERROR_BAD_STATUS_CODE);
  check_malformed ("750 OK\r\n", DONAR_TORCTL_ERROR_BAD_STATUS_CODE);
  check_malformed ("\r\n", DONAR_TORCTL_ERROR_BAD_STATUS_CODE);
  check_malformed ("250\r\n", DONAR_TORCTL_ERROR_BAD_SEPARATOR);
  check_malformed ("2500 OK\r\n", DONAR_TORCTL_ERROR_BAD_SEPARATOR);
  check_malformed ("250_OK\r\n", DONAR_TORCTL_ERROR_BAD_SEPARATOR);
  check_malformed ("250-A\r\n251 OK\r\n",
      DONAR_TORCTL_ERROR_MIXED_STATUS_CODES);
  /* An event never lands inside another reply. */
  check_malformed ("250-A\r\n650 CIRC 1 BUILT\r\n250 OK\r\n",
      DONAR_TORCTL_ERROR_MIXED_STATUS_CODES);
  /* A reply line with an empty text is fine. */
  check_malformed ("250 \r\n", DONAR_TORCTL_OK);
}

static gchar *
line_of_length (const gchar * head, gsize length)
{
  GString *line = g_string_new (head);

  while (line->len < length)
    g_string_append_c (line, 'x');
  g_string_append (line, "\r\n");
  return g_string_free (line, FALSE);
}

static void
test_line_length_bound (void)
{
  gchar *longest = line_of_length ("250 ", DONAR_TORCTL_MAX_LINE_LENGTH);
  gchar *over = line_of_length ("250 ", DONAR_TORCTL_MAX_LINE_LENGTH + 1);
  gchar *data_line = line_of_length ("", DONAR_TORCTL_MAX_LINE_LENGTH + 1);
  gchar *data = g_strconcat ("250+k=\r\n", data_line, ".\r\n250 OK\r\n",
      NULL);

  check_malformed (longest, DONAR_TORCTL_OK);
  check_malformed (over, DONAR_TORCTL_ERROR_LINE_TOO_LONG);
  check_malformed (data, DONAR_TORCTL_ERROR_LINE_TOO_LONG);
  g_free (longest);
  g_free (over);
  g_free (data_line);
  g_free (data);
}

static gchar *
reply_of_lines (guint n_lines)
{
  GString *reply = g_string_new (NULL);

  for (guint i = 0; i + 1 < n_lines; i++)
    g_string_append_printf (reply, "250-line %u\r\n", i);
  g_string_append (reply, "250 OK\r\n");
  return g_string_free (reply, FALSE);
}

static void
test_lines_bound (void)
{
  gchar *most = reply_of_lines (DONAR_TORCTL_MAX_LINES);
  gchar *over = reply_of_lines (DONAR_TORCTL_MAX_LINES + 1);
  guint n_replies;

  g_assert_cmpint (stream_error (most, strlen (most), &n_replies), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpuint (n_replies, ==, 1);
  check_malformed (over, DONAR_TORCTL_ERROR_TOO_MANY_LINES);
  g_free (most);
  g_free (over);
}

/* A data block of `lines` lines of 99 bytes (100 with the line end). */
static gchar *
reply_with_data (gsize lines)
{
  GString *reply = g_string_new ("250+k=\r\n");

  for (gsize i = 0; i < lines; i++) {
    for (guint j = 0; j < 99; j++)
      g_string_append_c (reply, 'd');
    g_string_append (reply, "\r\n");
  }
  g_string_append (reply, ".\r\n250 OK\r\n");
  return g_string_free (reply, FALSE);
}

static void
test_data_bound (void)
{
  gsize fitting = DONAR_TORCTL_MAX_DATA_BYTES / 100;
  gchar *most = reply_with_data (fitting);
  gchar *over = reply_with_data (fitting + 1);
  DonarTorctlError error;
  GPtrArray *replies;

  replies = read_in_chunks (most, strlen (most), 4096, &error);
  g_assert_cmpint (error, ==, DONAR_TORCTL_OK);
  g_assert_cmpuint (replies->len, ==, 1);
  g_assert_cmpuint (((DonarTorctlReply *) replies->pdata[0])->
      lines[0].data_length, ==, fitting * 100);
  g_ptr_array_unref (replies);
  replies = read_in_chunks (over, strlen (over), 4096, &error);
  g_assert_cmpint (error, ==, DONAR_TORCTL_ERROR_DATA_TOO_LONG);
  g_assert_cmpuint (replies->len, ==, 0);
  g_ptr_array_unref (replies);
  g_free (most);
  g_free (over);
}

static void
test_truncated (void)
{
  guint n_replies;

  check_malformed ("250-A\r\n", DONAR_TORCTL_ERROR_TRUNCATED);
  check_malformed ("250 OK", DONAR_TORCTL_ERROR_TRUNCATED);
  check_malformed ("250 OK\r", DONAR_TORCTL_ERROR_TRUNCATED);
  check_malformed ("250+k=\r\nabc\r\n", DONAR_TORCTL_ERROR_TRUNCATED);
  /* Inside a data block "250 OK" is data: the block never ended. */
  check_malformed ("250+k=\r\nabc\r\n250 OK\r\n", DONAR_TORCTL_ERROR_TRUNCATED);
  check_malformed ("250+k=\r\nabc\r\n.\r\n", DONAR_TORCTL_ERROR_TRUNCATED);
  /* Whole replies before the cut still came out. */
  g_assert_cmpint (stream_error ("250 OK\r\n650 CIRC 1 BUILT\r\n250-A", 31,
          &n_replies), ==, DONAR_TORCTL_ERROR_TRUNCATED);
  g_assert_cmpuint (n_replies, ==, 2);
  check_malformed ("", DONAR_TORCTL_OK);
}

static void
test_error_sticks (void)
{
  DonarTorctlReader *reader = donar_torctl_reader_new ();
  const gchar *bad = "250 OK\n";
  const gchar *good = "250 OK\r\n";
  const guint8 *data = (const guint8 *) bad;
  gsize length = strlen (bad);
  DonarTorctlReply *reply;

  g_assert_cmpint (donar_torctl_reader_next (reader, &data, &length, &reply),
      ==, DONAR_TORCTL_ERROR_BARE_LF);
  g_assert_null (reply);
  data = (const guint8 *) good;
  length = strlen (good);
  g_assert_cmpint (donar_torctl_reader_next (reader, &data, &length, &reply),
      ==, DONAR_TORCTL_ERROR_BARE_LF);
  g_assert_null (reply);
  g_assert_cmpuint (length, ==, strlen (good));
  g_assert_cmpint (donar_torctl_reader_finish (reader), ==,
      DONAR_TORCTL_ERROR_BARE_LF);
  donar_torctl_reader_free (reader);
}

static void
test_error_messages (void)
{
  for (gint e = DONAR_TORCTL_OK;
      e <= DONAR_TORCTL_ERROR_SERVER_HASH_MISMATCH; e++) {
    const gchar *message = donar_torctl_error_message (e);

    g_assert_nonnull (message);
    g_assert_null (strstr (message, "unknown"));
    for (gint other = DONAR_TORCTL_OK; other < e; other++)
      g_assert_cmpstr (donar_torctl_error_message (other), !=, message);
  }
}

/* Runs every parser on a reply; none may crash or leak, whatever the
 * reply holds. */
static void
parse_every_way (const DonarTorctlReply * reply)
{
  DonarTorctlProtocolInfo info;
  DonarTorctlAuthChallenge challenge;
  DonarTorctlOnion onion;
  DonarTorctlBootstrap bootstrap;
  DonarTorctlCircuit circuit;
  GHashTable *values;
  GPtrArray *circuits;

  if (donar_torctl_parse_protocolinfo (reply, &info) == DONAR_TORCTL_OK)
    donar_torctl_protocol_info_clear (&info);
  donar_torctl_parse_authchallenge (reply, &challenge);
  if (donar_torctl_parse_add_onion (reply, &onion) == DONAR_TORCTL_OK)
    donar_torctl_onion_clear (&onion);
  if (donar_torctl_parse_getinfo (reply, &values) == DONAR_TORCTL_OK)
    g_hash_table_unref (values);
  if (donar_torctl_parse_bootstrap_event (reply, &bootstrap) == DONAR_TORCTL_OK)
    donar_torctl_bootstrap_clear (&bootstrap);
  if (donar_torctl_parse_circuit_event (reply, &circuit) == DONAR_TORCTL_OK)
    donar_torctl_circuit_clear (&circuit);
  for (guint i = 0; i < reply->n_lines; i++) {
    const gchar *text = reply->lines[i].data != NULL
        ? reply->lines[i].data : reply->lines[i].text;

    if (donar_torctl_parse_circuit_status (text, &circuits) == DONAR_TORCTL_OK)
      g_ptr_array_unref (circuits);
    if (donar_torctl_parse_bootstrap (text, &bootstrap) == DONAR_TORCTL_OK)
      donar_torctl_bootstrap_clear (&bootstrap);
  }
}

/* Streams of mostly well-framed lines of random pieces, with now and then
 * a stray piece that breaks the framing, cut at random: they reach every
 * state of the reader and of the parsers, and the sanitizer builds watch
 * the bounds. */
static const gchar *pieces[] = {
  " ", "=", "\"", "\\", "\\0", "\\377", "\\\"", "OK", "CIRC", "STATUS_CLIENT",
  "NOTICE", "BOOTSTRAP", "PROGRESS=", "100", "TAG=", "SUMMARY=", "ServiceID=",
  "PrivateKey=ED25519-V3:", "ClientAuthV3=", "AUTHCHALLENGE",
  "SERVERHASH=", "SERVERNONCE=", "0123456789abcdef", "PROTOCOLINFO", "1",
  "AUTH", "METHODS=", "SAFECOOKIE,", "COOKIEFILE=", "VERSION", "Tor=",
  "$A~b,", "7", "BUILT", "BUILD_FLAGS=", "SOCKS_USERNAME=", ",", ".", "\xff",
};

static void
append_random_line (GString * stream, GRand * rand, const gchar * code,
    gchar separator)
{
  guint n_pieces = g_rand_int_range (rand, 0, 10);

  g_string_append (stream, code);
  g_string_append_c (stream, separator);
  for (guint i = 0; i < n_pieces; i++)
    g_string_append (stream,
        pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);
  g_string_append (stream, "\r\n");
}

static void
append_random_reply (GString * stream, GRand * rand)
{
  static const gchar *codes[] = { "250", "650", "515", "251" };
  static const gchar *strays[] = { "\n", "\r", "2", "\r\n", ".\r\n" };
  const gchar *code = codes[g_rand_int_range (rand, 0, G_N_ELEMENTS (codes))];
  guint n_lines = g_rand_int_range (rand, 0, 5);

  for (guint i = 0; i < n_lines; i++) {
    gboolean data = g_rand_int_range (rand, 0, 4) == 0;

    append_random_line (stream, rand, code, data ? '+' : '-');
    if (data) {
      guint n_data = g_rand_int_range (rand, 0, 4);

      for (guint j = 0; j < n_data; j++)
        append_random_line (stream, rand, ".", ' ');
      g_string_append (stream, ".\r\n");
    }
  }
  append_random_line (stream, rand, code, ' ');
  if (g_rand_int_range (rand, 0, 20) == 0)
    g_string_append (stream,
        strays[g_rand_int_range (rand, 0, G_N_ELEMENTS (strays))]);
}

static void
test_garbage (void)
{
  GRand *rand = g_rand_new_with_seed (2119);
  guint n_replies = 0;

  for (guint round = 0; round < 2000; round++) {
    GString *stream = g_string_new (NULL);
    guint n = g_rand_int_range (rand, 1, 6);
    DonarTorctlError error;
    GPtrArray *replies;

    for (guint i = 0; i < n; i++)
      append_random_reply (stream, rand);
    replies = read_in_chunks (stream->str, stream->len,
        g_rand_int_range (rand, 1, 64), &error);
    for (guint i = 0; i < replies->len; i++)
      parse_every_way (replies->pdata[i]);
    n_replies += replies->len;
    g_ptr_array_unref (replies);
    g_string_free (stream, TRUE);
  }
  /* The generator must reach the parsers, not just the framing checks. */
  g_assert_cmpuint (n_replies, >, 2000);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/torctl/reader/every-chunk-size", test_every_chunk_size);
  g_test_add_func ("/torctl/reader/every-cut-in-two", test_every_cut_in_two);
  g_test_add_func ("/torctl/reader/line-ends", test_line_ends);
  g_test_add_func ("/torctl/reader/status-codes", test_status_codes);
  g_test_add_func ("/torctl/reader/line-length-bound", test_line_length_bound);
  g_test_add_func ("/torctl/reader/lines-bound", test_lines_bound);
  g_test_add_func ("/torctl/reader/data-bound", test_data_bound);
  g_test_add_func ("/torctl/reader/truncated", test_truncated);
  g_test_add_func ("/torctl/reader/error-sticks", test_error_sticks);
  g_test_add_func ("/torctl/reader/error-messages", test_error_messages);
  g_test_add_func ("/torctl/reader/garbage", test_garbage);
  return g_test_run ();
}
