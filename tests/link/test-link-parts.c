/* The pure parts of the link engine: the call address, the bounded record
 * queue, the backoff, the loop's guard against SIGPIPE. */
#include "donar-backoff.h"
#include "donar-call-address.h"
#include "donar-link-engine.h"
#include "donar-link-failure.h"
#include "donar-link-sigpipe.h"
#include "donar-record-queue.h"
#include "donar-rendezvous-match.h"
#include "../unit/donar-test-critical.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ONION "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion"
#define SECRET_HEX \
  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

static void
test_address_round_trip (void)
{
  DonarCallAddress address;
  GError *error = NULL;
  gchar *text;
  const gchar *in = "donar://" ONION ":5004?secret=" SECRET_HEX
      "&auth=" "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRST";

  g_assert_true (donar_call_address_parse (in, &address, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (address.host, ==, ONION);
  g_assert_cmpuint (address.port, ==, 5004);
  g_assert_cmpuint (address.secret[0], ==, 0);
  g_assert_cmpuint (address.secret[31], ==, 0x1f);
  g_assert_cmpstr (address.client_auth_key, ==,
      "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRST");
  text = donar_call_address_to_string (&address);
  g_assert_cmpstr (text, ==, in);
  g_free (text);
  donar_call_address_clear (&address);
  g_assert_null (address.host);
  g_assert_cmpuint (address.secret[31], ==, 0);

  g_assert_true (donar_call_address_parse ("donar://127.0.0.1:7/?secret="
          SECRET_HEX, &address, &error));
  g_assert_null (address.client_auth_key);
  donar_call_address_clear (&address);
}

static void
test_address_refused (void)
{
  const struct
  {
    const gchar *text;
    gint code;
  } bad[] = {
    {"http://" ONION ":1?secret=" SECRET_HEX, DONAR_CALL_ADDRESS_ERROR_SYNTAX},
    {"donar://example.org:1?secret=" SECRET_HEX,
        DONAR_CALL_ADDRESS_ERROR_HOST},
    /* v2-length and wrong-version onions */
    {"donar://abcdefghijklmnop.onion:1?secret=" SECRET_HEX,
        DONAR_CALL_ADDRESS_ERROR_HOST},
    {"donar://pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscrya.onion"
          ":1?secret=" SECRET_HEX, DONAR_CALL_ADDRESS_ERROR_HOST},
    {"donar://" ONION "?secret=" SECRET_HEX, DONAR_CALL_ADDRESS_ERROR_PORT},
    {"donar://" ONION ":0?secret=" SECRET_HEX, DONAR_CALL_ADDRESS_ERROR_PORT},
    {"donar://" ONION ":1", DONAR_CALL_ADDRESS_ERROR_SECRET},
    {"donar://" ONION ":1?secret=0011", DONAR_CALL_ADDRESS_ERROR_SECRET},
    {"donar://" ONION ":1?secret=" SECRET_HEX "&secret=" SECRET_HEX,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX},
    {"donar://" ONION ":1?secret=" SECRET_HEX "&x=1",
        DONAR_CALL_ADDRESS_ERROR_SYNTAX},
    {"donar://" ONION ":1?secret=" SECRET_HEX "&auth=short",
        DONAR_CALL_ADDRESS_ERROR_AUTH},
    {"donar://user@" ONION ":1?secret=" SECRET_HEX,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX},
    {"donar://" ONION ":1?secret=" SECRET_HEX "#x",
        DONAR_CALL_ADDRESS_ERROR_SYNTAX},
    {"donar://" ONION ":1#x?secret=" SECRET_HEX,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX},
    {"donar://" ONION ":1/x?secret=" SECRET_HEX,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX},
    {NULL, DONAR_CALL_ADDRESS_ERROR_SYNTAX},
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    DonarCallAddress address;
    GError *error = NULL;

    g_assert_false (donar_call_address_parse (bad[i].text, &address, &error));
    g_assert_error (error, DONAR_CALL_ADDRESS_ERROR, bad[i].code);
    g_assert_null (address.host);
    g_clear_error (&error);
  }
}

/* The elements' URI: the address, then the settings in order, untouched
 * but for the percent-decoding; and back. */
static void
test_uri_caller (void)
{
  DonarCallUri uri;
  GError *error = NULL;
  gchar *text;
  const gchar *in = "donar://" ONION ":5004?secret=" SECRET_HEX
      "&tor-control=9051&policy=double-send&address-file=/tmp/a%20b.txt";

  g_assert_true (donar_call_uri_parse (in, &uri, &error));
  g_assert_no_error (error);
  g_assert_false (uri.callee);
  g_assert_cmpstr (uri.address, ==, "donar://" ONION ":5004?secret="
      SECRET_HEX);
  g_assert_cmpuint (g_strv_length (uri.names), ==, 3);
  g_assert_cmpstr (uri.names[0], ==, "tor-control");
  g_assert_cmpstr (uri.values[0], ==, "9051");
  g_assert_cmpstr (uri.names[1], ==, "policy");
  g_assert_cmpstr (uri.values[1], ==, "double-send");
  g_assert_cmpstr (uri.names[2], ==, "address-file");
  g_assert_cmpstr (uri.values[2], ==, "/tmp/a b.txt");
  text = donar_call_uri_to_string (&uri);
  g_assert_cmpstr (text, ==, in);
  g_free (text);
  donar_call_uri_clear (&uri);
  g_assert_null (uri.address);

  /* The settings may come first; the address is written as the parser
   * writes call addresses (the secret's hex in lower case). */
  g_assert_true (donar_call_uri_parse ("donar://127.0.0.1:7/?links=6&secret="
          "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"
          "&auth=abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrst", &uri,
          &error));
  text = donar_call_uri_to_string (&uri);
  g_assert_cmpstr (text, ==, "donar://127.0.0.1:7?secret=" SECRET_HEX
      "&auth=ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRST&links=6");
  g_free (text);
  donar_call_uri_clear (&uri);

  /* A plain address is a URI without settings. */
  g_assert_true (donar_call_uri_parse ("donar://" ONION ":5004?secret="
          SECRET_HEX, &uri, &error));
  g_assert_null (uri.names[0]);
  text = donar_call_uri_to_string (&uri);
  g_assert_cmpstr (text, ==, "donar://" ONION ":5004?secret=" SECRET_HEX);
  g_free (text);
  donar_call_uri_clear (&uri);
}

static void
test_uri_callee (void)
{
  DonarCallUri uri;
  GError *error = NULL;
  gchar *text;

  g_assert_true (donar_call_uri_parse ("donar://callee", &uri, &error));
  g_assert_no_error (error);
  g_assert_true (uri.callee);
  g_assert_null (uri.address);
  g_assert_null (uri.names[0]);
  text = donar_call_uri_to_string (&uri);
  g_assert_cmpstr (text, ==, "donar://callee");
  g_free (text);
  donar_call_uri_clear (&uri);

  g_assert_true (donar_call_uri_parse ("donar://callee/?tor-control=9051&"
          "address-file=address.txt&call=a%26b", &uri, &error));
  g_assert_true (uri.callee);
  g_assert_cmpstr (uri.values[2], ==, "a&b");
  text = donar_call_uri_to_string (&uri);
  g_assert_cmpstr (text, ==, "donar://callee?tor-control=9051&"
      "address-file=address.txt&call=a%26b");
  g_free (text);
  donar_call_uri_clear (&uri);

  /* Empty values are values (a setting back to its "none"). */
  g_assert_true (donar_call_uri_parse ("donar://callee?key-file=", &uri,
          &error));
  g_assert_cmpstr (uri.values[0], ==, "");
  donar_call_uri_clear (&uri);
}

static void
test_uri_refused (void)
{
  const struct
  {
    const gchar *text;
    gint code;
    const gchar *reason;
  } bad[] = {
    {"donar://callee?secret=" SECRET_HEX, DONAR_CALL_ADDRESS_ERROR_SECRET,
        "callee form takes no secret"},
    {"donar://callee?auth=ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRST",
        DONAR_CALL_ADDRESS_ERROR_AUTH, "callee form takes no auth"},
    {"donar://callee:5004", DONAR_CALL_ADDRESS_ERROR_PORT, "no port"},
    {"donar://callee/x", DONAR_CALL_ADDRESS_ERROR_SYNTAX, "donar://callee"},
    {"donar://Callee", DONAR_CALL_ADDRESS_ERROR_HOST, "or callee"},
    {"donar:callee", DONAR_CALL_ADDRESS_ERROR_SYNTAX, "starts with donar://"},
    {"donar://callee?links=6&links=7", DONAR_CALL_ADDRESS_ERROR_SYNTAX,
        "repeated parameter \"links\""},
    {"donar://callee?=6", DONAR_CALL_ADDRESS_ERROR_SYNTAX, "without a name"},
    {"donar://callee?links", DONAR_CALL_ADDRESS_ERROR_SYNTAX, "malformed"},
    {"donar://callee?links=%zz", DONAR_CALL_ADDRESS_ERROR_SYNTAX,
        "malformed"},
    {"donar://" ONION ":1?tor-control=9051", DONAR_CALL_ADDRESS_ERROR_SECRET,
        "no secret"},
    {"donar://" ONION ":1?secret=" SECRET_HEX "&secret=" SECRET_HEX,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX, "repeated parameter \"secret\""},
    {"donar://" ONION ":1?secret=" SECRET_HEX "&links=6#x",
        DONAR_CALL_ADDRESS_ERROR_SYNTAX, "not a donar URI"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    DonarCallUri uri;
    GError *error = NULL;

    g_assert_false (donar_call_uri_parse (bad[i].text, &uri, &error));
    g_assert_error (error, DONAR_CALL_ADDRESS_ERROR, bad[i].code);
    if (strstr (error->message, bad[i].reason) == NULL)
      g_error ("%s: \"%s\" not in \"%s\"", bad[i].text, bad[i].reason,
          error->message);
    g_assert_null (uri.address);
    g_assert_null (uri.names);
    g_clear_error (&error);
  }

  /* A call address alone still takes no setting: donar-call's. */
  {
    DonarCallAddress address;
    GError *error = NULL;

    g_assert_false (donar_call_address_parse ("donar://callee", &address,
            &error));
    g_assert_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_HOST);
    g_clear_error (&error);
    g_assert_false (donar_call_address_parse ("donar://" ONION ":1?secret="
            SECRET_HEX "&junk", &address, &error));
    g_assert_error (error, DONAR_CALL_ADDRESS_ERROR,
        DONAR_CALL_ADDRESS_ERROR_SYNTAX);
    g_clear_error (&error);
  }
}

static void
test_record_queue_drops_oldest (void)
{
  DonarRecordQueue queue;
  guint8 record[300] = { 0 };
  GBytes *head;

  donar_record_queue_init (&queue, 250);
  for (guint i = 0; i < 2; i++) {
    memset (record, i, sizeof record);
    g_assert_cmpuint (donar_record_queue_push (&queue, record, 100), ==, 0);
  }
  /* 300 bytes would pass the cap: record 0 goes. */
  memset (record, 2, sizeof record);
  g_assert_cmpuint (donar_record_queue_push (&queue, record, 100), ==, 1);
  g_assert_cmpuint (queue.bytes, ==, 200);
  g_assert_cmpuint (queue.dropped_records, ==, 1);
  g_assert_cmpuint (queue.dropped_bytes, ==, 100);
  head = donar_record_queue_pop (&queue);
  g_assert_cmpuint (((const guint8 *) g_bytes_get_data (head, NULL))[0], ==, 1);
  g_bytes_unref (head);
  /* One record larger than the cap empties the queue and stays. */
  g_assert_cmpuint (donar_record_queue_push (&queue, record, 300), ==, 1);
  g_assert_cmpuint (queue.bytes, ==, 300);
  donar_record_queue_clear (&queue);
  g_assert_cmpuint (queue.bytes, ==, 0);
  g_assert_null (donar_record_queue_pop (&queue));
}

static void
test_backoff (void)
{
  gint64 ms = G_TIME_SPAN_MILLISECOND;

  /* Half the step with no jitter: 500 ms, 1, 2, 4 s, ... up to 30 s. */
  g_assert_cmpint (donar_backoff_delay (0, 500 * ms, 30000 * ms, 0), ==,
      250 * ms);
  g_assert_cmpint (donar_backoff_delay (3, 500 * ms, 30000 * ms, 0), ==,
      2000 * ms);
  g_assert_cmpint (donar_backoff_delay (3, 500 * ms, 30000 * ms, 0.5), ==,
      3000 * ms);
  g_assert_cmpint (donar_backoff_delay (10, 500 * ms, 30000 * ms, 0), ==,
      15000 * ms);
  g_assert_cmpint (donar_backoff_delay (1000, 500 * ms, 30000 * ms, 0.999),
      <, 30000 * ms);
}

/* A write to a connection its peer closed, inside the guard, as libevent
 * writes in the loop: the write fails with EPIPE, and the process (which
 * has SIGPIPE's default, so dies of it unguarded) lives on, with no
 * SIGPIPE left pending and the thread's mask as it was. */
static void
test_sigpipe_guard (void)
{
  DonarSigpipeGuard guard;
  sigset_t mask, pending;
  int pair[2];
  const gchar byte = 0;
  ssize_t n;
  int write_errno;

  /* A shell may have passed on SIG_IGN. */
  signal (SIGPIPE, SIG_DFL);
  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM, 0, pair), ==, 0);
  close (pair[1]);
  donar_sigpipe_block (&guard);
  n = write (pair[0], &byte, 1);
  write_errno = errno;
  donar_sigpipe_unblock (&guard);
  g_assert_cmpint (n, ==, -1);
  g_assert_cmpint (write_errno, ==, EPIPE);
  g_assert_cmpint (sigpending (&pending), ==, 0);
  g_assert_false (sigismember (&pending, SIGPIPE));
  g_assert_cmpint (pthread_sigmask (SIG_SETMASK, NULL, &mask), ==, 0);
  g_assert_false (sigismember (&mask, SIGPIPE));
  close (pair[0]);
}

/* What a dial saw, as the user is told it: tor's ExtendedErrors and the
 * classic codes, a port that is not a SocksPort; and which cause wins. */
static void
test_failure_from_socks (void)
{
  const struct
  {
    DonarSocksError error;
    DonarSocksStage stage;
    gint first_byte;
    const gchar *name;
  } cases[] = {
    {DONAR_SOCKS_ERROR_ONION_DESCRIPTOR_NOT_FOUND, DONAR_SOCKS_STAGE_CONNECT,
        5, "descriptor-not-found"},
    {DONAR_SOCKS_ERROR_ONION_INTRODUCTION_TIMED_OUT,
        DONAR_SOCKS_STAGE_CONNECT, 5, "introduction-failed"},
    {DONAR_SOCKS_ERROR_ONION_BAD_CLIENT_AUTH, DONAR_SOCKS_STAGE_CONNECT, 5,
        "client-auth-wrong"},
    {DONAR_SOCKS_ERROR_HOST_UNREACHABLE, DONAR_SOCKS_STAGE_CONNECT, 5,
        "onion-unreachable"},
    {DONAR_SOCKS_ERROR_CONNECTION_REFUSED, DONAR_SOCKS_STAGE_CONNECT, 5,
        "onion-refused"},
    {DONAR_SOCKS_ERROR_GENERAL_FAILURE, DONAR_SOCKS_STAGE_CONNECT, 5,
        "tor-failed"},
    {DONAR_SOCKS_ERROR_BAD_VERSION, DONAR_SOCKS_STAGE_METHOD, 'H',
        "socks-http"},
    {DONAR_SOCKS_ERROR_BAD_VERSION, DONAR_SOCKS_STAGE_METHOD, 4,
        "socks-not-socks"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpstr (donar_link_failure_to_string
        (donar_link_failure_from_socks (cases[i].error, cases[i].stage,
                cases[i].first_byte)), ==, cases[i].name);
  /* A SocksPort that is not one explains everything after it; a wrong
   * secret explains more than a descriptor not found. */
  g_assert_cmpint (donar_link_failure_max (DONAR_LINK_FAILURE_SOCKS_HTTP,
          DONAR_LINK_FAILURE_WRONG_SECRET), ==, DONAR_LINK_FAILURE_SOCKS_HTTP);
  g_assert_cmpint (donar_link_failure_max
      (DONAR_LINK_FAILURE_DESCRIPTOR_NOT_FOUND,
          DONAR_LINK_FAILURE_WRONG_SECRET), ==,
      DONAR_LINK_FAILURE_WRONG_SECRET);
  g_assert_nonnull (strstr (donar_link_failure_explain
          (DONAR_LINK_FAILURE_CONNECT_REFUSED, TRUE), "tor's SocksPort"));
  g_assert_nonnull (strstr (donar_link_failure_explain
          (DONAR_LINK_FAILURE_CONNECT_REFUSED, FALSE), "callee's port"));
}

static DonarServiceCircuit
service_circuit (const gchar * id, guint64 guard, guint64 second,
    guint64 third, guint64 rendezvous)
{
  DonarServiceCircuit c;

  memset (&c, 0, sizeof c);
  g_strlcpy (c.id, id, sizeof c.id);
  c.relays[0] = guard;
  c.relays[1] = second;
  c.relays[2] = third;
  c.relays[3] = rendezvous;
  c.n_relays = 4;
  return c;
}

/* A callee's link is the circuit that ends at the rendezvous point its
 * caller told; where two do, it crosses what both cross. */
static void
test_rendezvous_match (void)
{
  DonarServiceCircuit circuits[] = {
    service_circuit ("1", 0xa1, 0xb1, 0xc1, 0xe1),
    service_circuit ("2", 0xa2, 0xb2, 0xc2, 0xe2),
    service_circuit ("3", 0xa1, 0xb2, 0xc3, 0xe2),
    /* The guard of one circuit the rendezvous point of another. */
    service_circuit ("4", 0xe1, 0xb4, 0xc4, 0xe4),
  };
  guint64 relays[DONAR_MAX_PATH_RELAYS];
  const guint64 only_one[] = { 0xa1, 0xb1, 0xc1, 0xe1 };
  const guint64 two[] = { 0xb2, 0xe2 };
  const guint64 one_hop[] = { 0xe4 };

  g_assert_cmpuint (donar_rendezvous_match (circuits, 4, 0xe1, relays), ==, 4);
  g_assert_cmpmem (relays, 4 * sizeof relays[0], only_one, sizeof only_one);
  /* Two circuits end at 0xe2: the link crosses 0xb2 and 0xe2, whichever
   * it is, and may or may not cross the rest. */
  g_assert_cmpuint (donar_rendezvous_match (circuits, 4, 0xe2, relays), ==, 2);
  g_assert_cmpmem (relays, 2 * sizeof relays[0], two, sizeof two);
  /* Told of a relay no circuit ends at (a guard, or one not built yet). */
  g_assert_cmpuint (donar_rendezvous_match (circuits, 4, 0xa1, relays), ==, 0);
  g_assert_cmpuint (donar_rendezvous_match (circuits, 0, 0xe1, relays), ==, 0);
  /* A single onion's circuit: the rendezvous point alone. */
  circuits[3].relays[0] = 0xe4;
  circuits[3].n_relays = 1;
  g_assert_cmpuint (donar_rendezvous_match (circuits, 4, 0xe4, relays), ==, 1);
  g_assert_cmpmem (relays, sizeof relays[0], one_hop, sizeof one_hop);
}

/* Misuse of the engine and the address is a critical that does nothing
 * (docs/api.md, "Contracts"). */
static void
test_misuse_is_refused (void)
{
  DonarLinkEngineSettings settings;
  DonarLinkEngineStats stats;

  settings.socks_host = NULL;
  EXPECT_CRITICAL ("*role <=*",
      donar_link_engine_settings_init (&settings, (DonarRole) 2));
  g_assert_null (settings.socks_host);
  EXPECT_CRITICAL ("*engine != NULL*",
      g_assert_false (donar_link_engine_send_frame (NULL, NULL, 0, NULL)));
  EXPECT_CRITICAL ("*engine != NULL*",
      g_assert_null (donar_link_engine_pop_frame (NULL, 0)));
  EXPECT_CRITICAL ("*engine != NULL*",
      donar_link_engine_get_stats (NULL, &stats));
  EXPECT_CRITICAL ("*engine != NULL*",
      g_assert_cmpint (donar_link_engine_get_end (NULL, NULL), ==,
          DONAR_LINK_END_NONE));
  EXPECT_CRITICAL ("*engine != NULL*", donar_link_engine_stop (NULL));
  donar_link_engine_free (NULL);
  EXPECT_CRITICAL ("*not NULL*",
      g_assert_null (donar_link_engine_new (NULL, NULL, NULL, NULL)));
  EXPECT_CRITICAL ("*not NULL*",
      g_assert_null (donar_call_address_to_string (NULL)));
  EXPECT_CRITICAL ("*not NULL*", donar_call_address_clear (NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/call-address/round-trip", test_address_round_trip);
  g_test_add_func ("/call-address/refused", test_address_refused);
  g_test_add_func ("/call-address/uri-caller", test_uri_caller);
  g_test_add_func ("/call-address/uri-callee", test_uri_callee);
  g_test_add_func ("/call-address/uri-refused", test_uri_refused);
  g_test_add_func ("/record-queue/drops-oldest",
      test_record_queue_drops_oldest);
  g_test_add_func ("/backoff/doubles", test_backoff);
  g_test_add_func ("/sigpipe/guard", test_sigpipe_guard);
  g_test_add_func ("/link-failure/from-socks", test_failure_from_socks);
  g_test_add_func ("/link-parts/rendezvous-match", test_rendezvous_match);
  g_test_add_func ("/link-parts/misuse-is-refused", test_misuse_is_refused);
  return g_test_run ();
}
