/* The SOCKS5 client codec: requests byte by byte, the server's replies
 * over every split with each type of bound address, every reply code
 * mapped, and truncated, garbage and off-protocol replies refused. */
#include "donar-socks.h"

#include <string.h>

#define ONION "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion"

static void
test_greeting (void)
{
  guint8 out[8];
  gsize written;

  g_assert_cmpint (donar_socks_build_greeting (out, sizeof out, &written),
      ==, DONAR_SOCKS_OK);
  g_assert_cmpuint (written, ==, 3);
  g_assert_cmpuint (out[0], ==, 0x05);  /* VER */
  g_assert_cmpuint (out[1], ==, 0x01);  /* NMETHODS */
  g_assert_cmpuint (out[2], ==, 0x02);  /* USERNAME/PASSWORD only */
  g_assert_cmpint (donar_socks_build_greeting (out, 2, &written), ==,
      DONAR_SOCKS_ERROR_BUFFER_TOO_SMALL);
  g_assert_cmpuint (written, ==, 0);
}

static gchar *
string_of (gsize length, gchar c)
{
  gchar *text = g_malloc (length + 1);

  memset (text, c, length);
  text[length] = '\0';
  return text;
}

static void
test_auth (void)
{
  guint8 out[DONAR_SOCKS_MAX_AUTH_LENGTH];
  gsize written;
  gchar *longest = string_of (255, 'u');
  gchar *over = string_of (256, 'u');

  g_assert_cmpint (donar_socks_build_auth ("link-3", "pw", out, sizeof out,
          &written), ==, DONAR_SOCKS_OK);
  g_assert_cmpuint (written, ==, 11);
  g_assert_cmpuint (out[0], ==, 0x01);  /* subnegotiation version */
  g_assert_cmpuint (out[1], ==, 6);     /* ULEN */
  g_assert_cmpmem (out + 2, 6, "link-3", 6);
  g_assert_cmpuint (out[8], ==, 2);     /* PLEN */
  g_assert_cmpmem (out + 9, 2, "pw", 2);

  g_assert_cmpint (donar_socks_build_auth (longest, longest, out, sizeof out,
          &written), ==, DONAR_SOCKS_OK);
  g_assert_cmpuint (written, ==, DONAR_SOCKS_MAX_AUTH_LENGTH);
  g_assert_cmpuint (out[1], ==, 255);
  g_assert_cmpuint (out[257], ==, 255);

  g_assert_cmpint (donar_socks_build_auth (over, "pw", out, sizeof out,
          &written), ==, DONAR_SOCKS_ERROR_BAD_USERNAME);
  g_assert_cmpint (donar_socks_build_auth ("", "pw", out, sizeof out,
          &written), ==, DONAR_SOCKS_ERROR_BAD_USERNAME);
  g_assert_cmpint (donar_socks_build_auth (NULL, "pw", out, sizeof out,
          &written), ==, DONAR_SOCKS_ERROR_BAD_USERNAME);
  g_assert_cmpint (donar_socks_build_auth ("u", over, out, sizeof out,
          &written), ==, DONAR_SOCKS_ERROR_BAD_PASSWORD);
  g_assert_cmpint (donar_socks_build_auth ("u", "", out, sizeof out,
          &written), ==, DONAR_SOCKS_ERROR_BAD_PASSWORD);
  g_assert_cmpint (donar_socks_build_auth ("link-3", "pw", out, 10,
          &written), ==, DONAR_SOCKS_ERROR_BUFFER_TOO_SMALL);
  g_assert_cmpuint (written, ==, 0);
  g_free (longest);
  g_free (over);
}

static void
test_connect (void)
{
  guint8 out[DONAR_SOCKS_MAX_CONNECT_LENGTH];
  gsize written, n = strlen (ONION);
  GString *longest = g_string_new (NULL);
  const gchar *bad_hosts[] = {
    "", "a b.onion", ONION "\r\n", "a..onion", ".onion", "onion.",
    "-a.onion", "a-.onion", "a_b.onion", "a/b.onion", "a:443",
    "caf\xc3\xa9.onion",
    /* A label of 64 bytes: one too many. */
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.onion",
  };

  g_assert_cmpint (donar_socks_build_connect (ONION, 443, out, sizeof out,
          &written), ==, DONAR_SOCKS_OK);
  g_assert_cmpuint (written, ==, 7 + n);
  g_assert_cmpuint (out[0], ==, 0x05);  /* VER */
  g_assert_cmpuint (out[1], ==, 0x01);  /* CONNECT */
  g_assert_cmpuint (out[2], ==, 0x00);  /* RSV */
  g_assert_cmpuint (out[3], ==, 0x03);  /* DOMAINNAME */
  g_assert_cmpuint (out[4], ==, n);
  g_assert_cmpmem (out + 5, n, ONION, n);
  g_assert_cmpuint (out[5 + n], ==, 0x01);
  g_assert_cmpuint (out[6 + n], ==, 0xbb);

  /* 255 bytes: four 63-byte labels, the last with an inner '-'. */
  for (guint label = 0; label < 4; label++) {
    if (label > 0)
      g_string_append_c (longest, '.');
    for (guint i = 0; i < 63; i++)
      g_string_append_c (longest, 'a' + (i % 26));
  }
  longest->str[longest->len - 2] = '-';
  g_assert_cmpuint (longest->len, ==, 255);
  g_assert_cmpint (donar_socks_build_connect (longest->str, 1, out,
          sizeof out, &written), ==, DONAR_SOCKS_OK);
  g_assert_cmpuint (written, ==, DONAR_SOCKS_MAX_CONNECT_LENGTH);
  g_assert_cmpuint (out[4], ==, 255);
  g_string_append_c (longest, 'x');
  g_assert_cmpint (donar_socks_build_connect (longest->str, 1, out,
          sizeof out, &written), ==, DONAR_SOCKS_ERROR_BAD_HOST);
  g_string_free (longest, TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (bad_hosts); i++)
    g_assert_cmpint (donar_socks_build_connect (bad_hosts[i], 443, out,
            sizeof out, &written), ==, DONAR_SOCKS_ERROR_BAD_HOST);
  g_assert_cmpint (donar_socks_build_connect (NULL, 443, out, sizeof out,
          &written), ==, DONAR_SOCKS_ERROR_BAD_HOST);
  g_assert_cmpint (donar_socks_build_connect (ONION, 0, out, sizeof out,
          &written), ==, DONAR_SOCKS_ERROR_BAD_PORT);
  g_assert_cmpint (donar_socks_build_connect (ONION, 443, out, 6 + n,
          &written), ==, DONAR_SOCKS_ERROR_BUFFER_TOO_SMALL);
  g_assert_cmpuint (written, ==, 0);
}

typedef struct
{
  DonarSocksError error;
  guint replies;                /* whole replies read */
  DonarSocksReader reader;
  GByteArray *rest;             /* the bytes after the handshake */
} Outcome;

/* Plays the client over a server stream cut into `chunk`-byte reads. */
static void
run_client (const guint8 * stream, gsize total, gsize chunk, Outcome * outcome)
{
  gsize offset = 0;

  donar_socks_reader_init (&outcome->reader);
  outcome->error = DONAR_SOCKS_OK;
  outcome->replies = 0;
  outcome->rest = g_byte_array_new ();
  while (offset < total && outcome->error == DONAR_SOCKS_OK) {
    const guint8 *data = stream + offset;
    gsize length = MIN (chunk, total - offset);

    offset += length;
    while (length > 0 && outcome->error == DONAR_SOCKS_OK) {
      gboolean reply_done;

      if (outcome->reader.stage == DONAR_SOCKS_STAGE_OPEN) {
        g_byte_array_append (outcome->rest, data, length);
        break;
      }
      outcome->error = donar_socks_reader_feed (&outcome->reader, &data,
          &length, &reply_done);
      if (reply_done)
        outcome->replies++;
      else if (outcome->error == DONAR_SOCKS_OK)
        g_assert_cmpuint (length, ==, 0);
    }
  }
  if (outcome->error == DONAR_SOCKS_OK)
    outcome->error = donar_socks_reader_finish (&outcome->reader);
}

static void
outcome_clear (Outcome * outcome)
{
  g_byte_array_unref (outcome->rest);
}

/* The method selection, the auth status, a CONNECT reply with the given
 * bound address, then 5 bytes of the peer's data. */
static gsize
server_stream (guint8 * stream, guint8 reply_code, guint8 type,
    const guint8 * address, gsize address_length)
{
  gsize n = 0;

  stream[n++] = 0x05;
  stream[n++] = 0x02;
  stream[n++] = 0x01;
  stream[n++] = 0x00;
  stream[n++] = 0x05;
  stream[n++] = reply_code;
  stream[n++] = 0x00;
  stream[n++] = type;
  if (type == DONAR_SOCKS_ATYP_DOMAINNAME)
    stream[n++] = address_length;
  memcpy (stream + n, address, address_length);
  n += address_length;
  stream[n++] = 0x1f;
  stream[n++] = 0x90;
  memcpy (stream + n, "HELLO", 5);
  return n + 5;
}

static void
check_bound_address (guint8 type, const guint8 * address, gsize length)
{
  guint8 stream[512];
  gsize total = server_stream (stream, 0x00, type, address, length);

  for (gsize chunk = 1; chunk <= total; chunk++) {
    Outcome outcome;

    run_client (stream, total, chunk, &outcome);
    g_assert_cmpint (outcome.error, ==, DONAR_SOCKS_OK);
    g_assert_cmpuint (outcome.replies, ==, 3);
    g_assert_cmpint (outcome.reader.stage, ==, DONAR_SOCKS_STAGE_OPEN);
    g_assert_cmpuint (outcome.reader.bound_type, ==, type);
    g_assert_cmpmem (outcome.reader.bound_address,
        outcome.reader.bound_address_length, address, length);
    g_assert_cmpuint (outcome.reader.bound_port, ==, 8080);
    g_assert_cmpmem (outcome.rest->data, outcome.rest->len, "HELLO", 5);
    outcome_clear (&outcome);
  }
}

static void
test_every_split_every_address_type (void)
{
  const guint8 ipv4[4] = { 127, 0, 0, 1 };
  guint8 ipv6[16] = { 0 };
  guint8 name[255];

  ipv6[15] = 1;
  memset (name, 'n', sizeof name);
  check_bound_address (DONAR_SOCKS_ATYP_IPV4, ipv4, 4);
  check_bound_address (DONAR_SOCKS_ATYP_IPV6, ipv6, 16);
  check_bound_address (DONAR_SOCKS_ATYP_DOMAINNAME, (const guint8 *) ONION,
      strlen (ONION));
  check_bound_address (DONAR_SOCKS_ATYP_DOMAINNAME, name, 255);
  check_bound_address (DONAR_SOCKS_ATYP_DOMAINNAME, name, 0);
}

/* Each reply stops the reader where it ends, so the client can answer. */
static void
test_stops_after_each_reply (void)
{
  const guint8 stream[] = { 0x05, 0x02, 0x01, 0x00, 0x05, 0x00, 0x00, 0x01,
    0, 0, 0, 0, 0, 0, 'd'
  };
  DonarSocksReader reader;
  const guint8 *data = stream;
  gsize length = sizeof stream;
  gboolean done;

  donar_socks_reader_init (&reader);
  g_assert_cmpint (donar_socks_reader_feed (&reader, &data, &length, &done),
      ==, DONAR_SOCKS_OK);
  g_assert_true (done);
  g_assert_cmpint (reader.stage, ==, DONAR_SOCKS_STAGE_AUTH);
  g_assert_cmpuint (length, ==, sizeof stream - 2);
  g_assert_cmpint (donar_socks_reader_feed (&reader, &data, &length, &done),
      ==, DONAR_SOCKS_OK);
  g_assert_true (done);
  g_assert_cmpint (reader.stage, ==, DONAR_SOCKS_STAGE_CONNECT);
  g_assert_cmpuint (length, ==, sizeof stream - 4);
  g_assert_cmpint (donar_socks_reader_feed (&reader, &data, &length, &done),
      ==, DONAR_SOCKS_OK);
  g_assert_true (done);
  g_assert_cmpint (reader.stage, ==, DONAR_SOCKS_STAGE_OPEN);
  g_assert_cmpuint (length, ==, 1);
  g_assert_cmpint (donar_socks_reader_feed (&reader, &data, &length, &done),
      ==, DONAR_SOCKS_OK);
  g_assert_false (done);
  g_assert_cmpuint (length, ==, 1);
  g_assert_cmpuint (*data, ==, 'd');
  g_assert_cmpint (donar_socks_reader_finish (&reader), ==, DONAR_SOCKS_OK);
}

static void
test_reply_codes (void)
{
  const struct
  {
    guint8 code;
    DonarSocksError error;
  } codes[] = {
    {0x01, DONAR_SOCKS_ERROR_GENERAL_FAILURE},
    {0x02, DONAR_SOCKS_ERROR_NOT_ALLOWED},
    {0x03, DONAR_SOCKS_ERROR_NETWORK_UNREACHABLE},
    {0x04, DONAR_SOCKS_ERROR_HOST_UNREACHABLE},
    {0x05, DONAR_SOCKS_ERROR_CONNECTION_REFUSED},
    {0x06, DONAR_SOCKS_ERROR_TTL_EXPIRED},
    {0x07, DONAR_SOCKS_ERROR_COMMAND_NOT_SUPPORTED},
    {0x08, DONAR_SOCKS_ERROR_ADDRESS_TYPE_NOT_SUPPORTED},
    {0x09, DONAR_SOCKS_ERROR_UNKNOWN_REPLY},
    {0xef, DONAR_SOCKS_ERROR_UNKNOWN_REPLY},
    {0xf0, DONAR_SOCKS_ERROR_ONION_DESCRIPTOR_NOT_FOUND},
    {0xf1, DONAR_SOCKS_ERROR_ONION_DESCRIPTOR_INVALID},
    {0xf2, DONAR_SOCKS_ERROR_ONION_INTRODUCTION_FAILED},
    {0xf3, DONAR_SOCKS_ERROR_ONION_RENDEZVOUS_FAILED},
    {0xf4, DONAR_SOCKS_ERROR_ONION_MISSING_CLIENT_AUTH},
    {0xf5, DONAR_SOCKS_ERROR_ONION_BAD_CLIENT_AUTH},
    {0xf6, DONAR_SOCKS_ERROR_ONION_BAD_ADDRESS},
    {0xf7, DONAR_SOCKS_ERROR_ONION_INTRODUCTION_TIMED_OUT},
    {0xf8, DONAR_SOCKS_ERROR_UNKNOWN_REPLY},
    {0xff, DONAR_SOCKS_ERROR_UNKNOWN_REPLY},
  };
  const guint8 zero[4] = { 0 };

  g_assert_cmpint (donar_socks_error_from_reply_code (0), ==, DONAR_SOCKS_OK);
  for (guint i = 0; i < G_N_ELEMENTS (codes); i++) {
    guint8 stream[64];
    gsize total = server_stream (stream, codes[i].code,
        DONAR_SOCKS_ATYP_IPV4, zero, 4);
    Outcome outcome;

    g_assert_cmpint (donar_socks_error_from_reply_code (codes[i].code), ==,
        codes[i].error);
    run_client (stream, total, 1, &outcome);
    g_assert_cmpint (outcome.error, ==, codes[i].error);
    g_assert_cmpuint (outcome.reader.reply_code, ==, codes[i].code);
    g_assert_cmpint (outcome.reader.stage, ==, DONAR_SOCKS_STAGE_CONNECT);
    g_assert_cmpuint (outcome.rest->len, ==, 0);
    /* The refusal sticks. */
    g_assert_cmpint (donar_socks_reader_finish (&outcome.reader), ==,
        codes[i].error);
    outcome_clear (&outcome);
  }
}

static void
test_error_messages (void)
{
  for (gint e = DONAR_SOCKS_OK;
      e <= DONAR_SOCKS_ERROR_ONION_INTRODUCTION_TIMED_OUT; e++) {
    const gchar *message = donar_socks_error_message (e);

    g_assert_nonnull (message);
    g_assert_cmpstr (message, !=, "SOCKS: unknown error");
    for (gint other = DONAR_SOCKS_OK; other < e; other++)
      g_assert_cmpstr (donar_socks_error_message (other), !=, message);
  }
  g_assert_nonnull (strstr (donar_socks_error_message
          (DONAR_SOCKS_ERROR_ONION_DESCRIPTOR_NOT_FOUND), "not found"));
}

static void
check_refused (const guint8 * stream, gsize total, DonarSocksError expected)
{
  for (gsize chunk = 1; chunk <= MAX (total, 1); chunk++) {
    Outcome outcome;

    run_client (stream, total, chunk, &outcome);
    g_assert_cmpint (outcome.error, ==, expected);
    g_assert_cmpuint (outcome.rest->len, ==, 0);
    outcome_clear (&outcome);
  }
}

static void
test_off_protocol (void)
{
  const guint8 no_method[] = { 0x05, 0xff };
  const guint8 no_auth[] = { 0x05, 0x00 };
  const guint8 gssapi[] = { 0x05, 0x01 };
  const guint8 socks4[] = { 0x04, 0x02 };
  const guint8 auth_failed[] = { 0x05, 0x02, 0x01, 0x01 };
  const guint8 auth_version[] = { 0x05, 0x02, 0x05, 0x00 };
  const guint8 connect_version[] = { 0x05, 0x02, 0x01, 0x00, 0x04, 0x00,
    0x00, 0x01, 0, 0, 0, 0, 0, 0
  };
  const guint8 reserved[] = { 0x05, 0x02, 0x01, 0x00, 0x05, 0x00, 0x01,
    0x01, 0, 0, 0, 0, 0, 0
  };
  const guint8 address_type[] = { 0x05, 0x02, 0x01, 0x00, 0x05, 0x00,
    0x00, 0x02, 0, 0, 0, 0, 0, 0
  };
  const gchar *http = "HTTP/1.0 501 Tor is not an HTTP Proxy\r\n";

  check_refused (no_method, sizeof no_method,
      DONAR_SOCKS_ERROR_NO_ACCEPTABLE_METHOD);
  check_refused (no_auth, sizeof no_auth, DONAR_SOCKS_ERROR_UNEXPECTED_METHOD);
  check_refused (gssapi, sizeof gssapi, DONAR_SOCKS_ERROR_UNEXPECTED_METHOD);
  check_refused (socks4, sizeof socks4, DONAR_SOCKS_ERROR_BAD_VERSION);
  check_refused (auth_failed, sizeof auth_failed,
      DONAR_SOCKS_ERROR_AUTH_FAILED);
  check_refused (auth_version, sizeof auth_version,
      DONAR_SOCKS_ERROR_BAD_VERSION);
  check_refused (connect_version, sizeof connect_version,
      DONAR_SOCKS_ERROR_BAD_VERSION);
  check_refused (reserved, sizeof reserved, DONAR_SOCKS_ERROR_BAD_RESERVED);
  check_refused (address_type, sizeof address_type,
      DONAR_SOCKS_ERROR_BAD_ADDRESS_TYPE);
  check_refused ((const guint8 *) http, strlen (http),
      DONAR_SOCKS_ERROR_BAD_VERSION);
}

static void
test_truncated (void)
{
  const guint8 ipv4[4] = { 10, 0, 0, 1 };
  guint8 stream[64];
  gsize total = server_stream (stream, 0x00, DONAR_SOCKS_ATYP_IPV4, ipv4, 4);

  /* Every cut before the end of the CONNECT reply is a truncated
   * handshake, the empty stream included. */
  for (gsize cut = 0; cut < total - 5; cut++)
    check_refused (stream, cut, DONAR_SOCKS_ERROR_TRUNCATED);
}

static void
test_error_sticks (void)
{
  const guint8 bad[] = { 0x04, 0x02 };
  const guint8 good[] = { 0x05, 0x02 };
  DonarSocksReader reader;
  const guint8 *data = bad;
  gsize length = sizeof bad;
  gboolean done;

  donar_socks_reader_init (&reader);
  g_assert_cmpint (donar_socks_reader_feed (&reader, &data, &length, &done),
      ==, DONAR_SOCKS_ERROR_BAD_VERSION);
  data = good;
  length = sizeof good;
  g_assert_cmpint (donar_socks_reader_feed (&reader, &data, &length, &done),
      ==, DONAR_SOCKS_ERROR_BAD_VERSION);
  g_assert_false (done);
  g_assert_cmpuint (length, ==, sizeof good);
}

/* Random bytes never make the reader read or write out of bounds (the
 * sanitizer builds watch), and never open a stream by chance without three
 * well-formed replies. */
static void
test_garbage (void)
{
  GRand *rand = g_rand_new_with_seed (1928);

  for (guint round = 0; round < 2000; round++) {
    guint8 stream[600];
    gsize total = g_rand_int_range (rand, 0, sizeof stream);
    Outcome outcome;

    for (gsize i = 0; i < total; i++)
      stream[i] = g_rand_int (rand);
    /* Half the rounds get a valid start so the CONNECT parser is reached. */
    if (round % 2 == 0 && total >= 8) {
      memcpy (stream, "\x05\x02\x01\x00\x05\x00\x00", 7);
      stream[7] = 1 + g_rand_int_range (rand, 0, 4);
    }
    run_client (stream, total, 1 + g_rand_int_range (rand, 0, 16), &outcome);
    if (outcome.error == DONAR_SOCKS_OK) {
      g_assert_cmpint (outcome.reader.stage, ==, DONAR_SOCKS_STAGE_OPEN);
      g_assert_cmpuint (outcome.replies, ==, 3);
    }
    outcome_clear (&outcome);
  }
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/socks/greeting", test_greeting);
  g_test_add_func ("/socks/auth", test_auth);
  g_test_add_func ("/socks/connect", test_connect);
  g_test_add_func ("/socks/every-split-every-address-type",
      test_every_split_every_address_type);
  g_test_add_func ("/socks/stops-after-each-reply",
      test_stops_after_each_reply);
  g_test_add_func ("/socks/reply-codes", test_reply_codes);
  g_test_add_func ("/socks/error-messages", test_error_messages);
  g_test_add_func ("/socks/off-protocol", test_off_protocol);
  g_test_add_func ("/socks/truncated", test_truncated);
  g_test_add_func ("/socks/error-sticks", test_error_sticks);
  g_test_add_func ("/socks/garbage", test_garbage);
  return g_test_run ();
}
