/* Relay ids and the stream paths of circuits, from control-port replies
 * written as tor 0.4.8 sends them: a caller's rendezvous circuit, circuits
 * that tell no client's path, and names and lines that are not what tor
 * sends. */
#include "torctl-test-reply.h"

#define GUARD "$5CECC5C30ACC4B3DE462792323967087CC53D947~Quintex43"
#define MIDDLE "$1B0B2F8F2B2A6E3EDD1D2F9B7D6F08CDB2B1DB9E~pnymMiddle"
#define RENDEZVOUS "$8f5e6a1f2c2e9c8d7b6a5f4e3d2c1b0a99887766=rp"
#define GUARD_ID G_GUINT64_CONSTANT (0x5CECC5C30ACC4B3D)
#define MIDDLE_ID G_GUINT64_CONSTANT (0x1B0B2F8F2B2A6E3E)
#define RENDEZVOUS_ID G_GUINT64_CONSTANT (0x8F5E6A1F2C2E9C8D)
#define SERVICE "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd"
#define MAX_IDS 8
#define CREATED " TIME_CREATED=2024-05-01T10:00:00.123456"

static void
test_relay_id (void)
{
  const gchar *bad[] = {
    "Quintex43",                /* a bare nickname */
    "",
    "$",
    "$5CECC5C30ACC4B3D~short",
    "$5CECC5C30ACC4B3DE462792323967087CC53D94~one-digit-short",
    "$5CECC5C30ACC4B3DE462792323967087CC53D9470~one-digit-long",
    "$5CECC5C30ACC4B3DE462792323967087CC53D94G~not-hex",
    "$5CECC5C30ACC4B3DE462792323967087CC53D947 nick",
    "5CECC5C30ACC4B3DE462792323967087CC53D947",
  };
  guint64 id;

  g_assert_cmpint (donar_torctl_relay_id (GUARD, &id), ==, DONAR_TORCTL_OK);
  g_assert_cmphex (id, ==, GUARD_ID);
  g_assert_cmpint (donar_torctl_relay_id (RENDEZVOUS, &id), ==,
      DONAR_TORCTL_OK);
  g_assert_cmphex (id, ==, RENDEZVOUS_ID);
  /* The nickname is no part of the id. */
  g_assert_cmpint (donar_torctl_relay_id
      ("$5CECC5C30ACC4B3DE462792323967087CC53D947", &id), ==, DONAR_TORCTL_OK);
  g_assert_cmphex (id, ==, GUARD_ID);
  g_assert_cmpint (donar_torctl_relay_id
      ("$5cecc5c30acc4b3de462792323967087cc53d947=other", &id), ==,
      DONAR_TORCTL_OK);
  g_assert_cmphex (id, ==, GUARD_ID);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    id = 1;
    g_assert_cmpint (donar_torctl_relay_id (bad[i], &id), ==,
        DONAR_TORCTL_ERROR_MALFORMED);
    g_assert_cmphex (id, ==, 0);
  }
  g_assert_cmpint (donar_torctl_relay_id (NULL, &id), ==,
      DONAR_TORCTL_ERROR_MALFORMED);
}

static GPtrArray *
circuit_status_of (const gchar * text)
{
  DonarTorctlReply *reply = reply_of (text);
  GHashTable *values;
  GPtrArray *circuits;

  g_assert_cmpint (donar_torctl_parse_getinfo (reply, &values), ==,
      DONAR_TORCTL_OK);
  donar_torctl_reply_free (reply);
  g_assert_cmpint (donar_torctl_parse_circuit_status (g_hash_table_lookup
          (values, "circuit-status"), &circuits), ==, DONAR_TORCTL_OK);
  g_hash_table_unref (values);
  return circuits;
}

static void
test_circuit_status (void)
{
  GPtrArray *circuits = circuit_status_of ("250+circuit-status=\r\n"
      /* A caller's link: its stream is on the rendezvous circuit. */
      "7 BUILT " GUARD "," MIDDLE "," RENDEZVOUS
      " BUILD_FLAGS=IS_INTERNAL,NEED_CAPACITY,NEED_UPTIME"
      " PURPOSE=HS_CLIENT_REND HS_STATE=HSCR_JOINED REND_QUERY=" SERVICE
      CREATED " SOCKS_USERNAME=\"donar-0000abcd-3-0\""
      " SOCKS_PASSWORD=\"donar\"\r\n"
      /* No SOCKS_USERNAME: no client's stream is isolated on it. */
      "8 BUILT " GUARD "," MIDDLE " BUILD_FLAGS=NEED_CAPACITY PURPOSE=GENERAL"
      CREATED "\r\n"
      /* Carries no stream, whatever it says. */
      "9 BUILT " GUARD "," MIDDLE "," RENDEZVOUS " BUILD_FLAGS=IS_INTERNAL"
      " PURPOSE=HS_CLIENT_INTRO HS_STATE=HSCI_DONE REND_QUERY=" SERVICE
      CREATED " SOCKS_USERNAME=\"donar-0000abcd-3-0\"\r\n"
      /* Not built yet: no path. */
      "10 LAUNCHED BUILD_FLAGS=NEED_CAPACITY PURPOSE=GENERAL" CREATED
      " SOCKS_USERNAME=\"donar-0000abcd-4-0\"\r\n"
      /* A relay named the old way, without fingerprint. */
      "11 BUILT " GUARD ",pnymMiddle PURPOSE=GENERAL"
      " SOCKS_USERNAME=\"donar-0000abcd-5-0\"\r\n" ".\r\n" "250 OK\r\n");
  const DonarTorctlCircuit *c;
  guint64 ids[MAX_IDS];
  guint n = 99;

  g_assert_cmpuint (circuits->len, ==, 5);
  c = g_ptr_array_index (circuits, 0);
  g_assert_true (donar_torctl_circuit_stream_path (c, ids, G_N_ELEMENTS (ids),
          &n));
  g_assert_cmpstr (c->socks_username, ==, "donar-0000abcd-3-0");
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmphex (ids[0], ==, GUARD_ID);
  g_assert_cmphex (ids[1], ==, MIDDLE_ID);
  g_assert_cmphex (ids[2], ==, RENDEZVOUS_ID);
  /* Longer paths are cut to the room given. */
  g_assert_true (donar_torctl_circuit_stream_path (c, ids, 2, &n));
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmphex (ids[1], ==, MIDDLE_ID);

  for (guint i = 1; i < circuits->len; i++) {
    n = 99;
    g_assert_false (donar_torctl_circuit_stream_path (g_ptr_array_index
            (circuits, i), ids, G_N_ELEMENTS (ids), &n));
    g_assert_cmpuint (n, ==, 0);
  }
  g_ptr_array_unref (circuits);
}

static gboolean
event_path (const gchar * text, guint64 * ids, guint max_ids, guint * n)
{
  DonarTorctlReply *reply = reply_of (text);
  DonarTorctlCircuit circuit;
  gboolean found;

  g_assert_cmpint (donar_torctl_parse_circuit_event (reply, &circuit), ==,
      DONAR_TORCTL_OK);
  donar_torctl_reply_free (reply);
  found = donar_torctl_circuit_stream_path (&circuit, ids, max_ids, n);
  donar_torctl_circuit_clear (&circuit);
  return found;
}

static void
test_circuit_event (void)
{
  guint64 ids[MAX_IDS];
  guint n;

  /* Extended a hop: the path so far. */
  g_assert_true (event_path ("650 CIRC 12 EXTENDED " GUARD "," MIDDLE
          " BUILD_FLAGS=NEED_CAPACITY PURPOSE=GENERAL" CREATED
          " SOCKS_USERNAME=\"donar-1-0-1\" SOCKS_PASSWORD=\"donar\"\r\n",
          ids, G_N_ELEMENTS (ids), &n));
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmphex (ids[0], ==, GUARD_ID);
  g_assert_true (event_path ("650 CIRC 12 BUILT " GUARD "," MIDDLE ","
          RENDEZVOUS " PURPOSE=GENERAL SOCKS_USERNAME=\"donar-1-0-1\"\r\n",
          ids, G_N_ELEMENTS (ids), &n));
  g_assert_cmpuint (n, ==, 3);

  /* Gone, or never used by a client. */
  g_assert_false (event_path ("650 CIRC 12 CLOSED " GUARD "," MIDDLE
          " PURPOSE=GENERAL REASON=FINISHED"
          " SOCKS_USERNAME=\"donar-1-0-1\"\r\n", ids, G_N_ELEMENTS (ids), &n));
  g_assert_false (event_path ("650 CIRC 13 FAILED " GUARD " PURPOSE=GENERAL"
          " REASON=TIMEOUT SOCKS_USERNAME=\"donar-1-0-1\"\r\n", ids,
          G_N_ELEMENTS (ids), &n));
  g_assert_false (event_path ("650 CIRC 14 BUILT " GUARD "," MIDDLE
          " BUILD_FLAGS=NEED_CAPACITY PURPOSE=GENERAL\r\n", ids,
          G_N_ELEMENTS (ids), &n));
  g_assert_false (event_path ("650 CIRC 15 BUILT " GUARD
          ",$1B0B2F8F2B2A6E3EDD1D2F9B7D6F08CDB2B1DB~cut PURPOSE=GENERAL"
          " SOCKS_USERNAME=\"donar-1-0-1\"\r\n", ids, G_N_ELEMENTS (ids), &n));
  g_assert_cmpuint (n, ==, 0);
}

static DonarTorctlCircuit *
event_of (const gchar * text)
{
  DonarTorctlReply *reply = reply_of (text);
  DonarTorctlCircuit *circuit = g_new0 (DonarTorctlCircuit, 1);

  g_assert_cmpint (donar_torctl_parse_circuit_event (reply, circuit), ==,
      DONAR_TORCTL_OK);
  donar_torctl_reply_free (reply);
  return circuit;
}

static void
circuit_free (DonarTorctlCircuit * circuit)
{
  donar_torctl_circuit_clear (circuit);
  g_free (circuit);
}

/* A callee's side: the circuits its tor built to a caller's rendezvous
 * point for the call's onion, and no other. */
static void
test_service_circuit (void)
{
  DonarTorctlCircuit *built = event_of ("650 CIRC 21 BUILT " GUARD ","
      MIDDLE "," RENDEZVOUS " BUILD_FLAGS=IS_INTERNAL,NEED_CAPACITY"
      " PURPOSE=HS_SERVICE_REND HS_STATE=HSSR_JOINED REND_QUERY=" SERVICE
      CREATED "\r\n");
  DonarTorctlCircuit *other_onion = event_of ("650 CIRC 22 BUILT " GUARD
      "," RENDEZVOUS " PURPOSE=HS_SERVICE_REND HS_STATE=HSSR_JOINED"
      " REND_QUERY=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
  DonarTorctlCircuit *client = event_of ("650 CIRC 23 BUILT " GUARD ","
      RENDEZVOUS " PURPOSE=HS_CLIENT_REND HS_STATE=HSCR_JOINED REND_QUERY="
      SERVICE "\r\n");
  DonarTorctlCircuit *extended = event_of ("650 CIRC 24 EXTENDED " GUARD
      " PURPOSE=HS_SERVICE_REND HS_STATE=HSSR_CONNECTING REND_QUERY="
      SERVICE "\r\n");
  DonarTorctlCircuit *closed = event_of ("650 CIRC 21 CLOSED " GUARD ","
      MIDDLE "," RENDEZVOUS " PURPOSE=HS_SERVICE_REND REND_QUERY=" SERVICE
      " REASON=FINISHED\r\n");
  guint64 ids[MAX_IDS];
  guint n = 99;

  g_assert_true (donar_torctl_circuit_service_path (built, SERVICE, ids,
          G_N_ELEMENTS (ids), &n));
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmphex (ids[0], ==, GUARD_ID);
  g_assert_cmphex (ids[2], ==, RENDEZVOUS_ID);
  g_assert_false (donar_torctl_circuit_service_gone (built, SERVICE));
  /* Another onion's, a client's, one still being built, one closed. */
  g_assert_false (donar_torctl_circuit_service_path (other_onion, SERVICE,
          ids, G_N_ELEMENTS (ids), &n));
  g_assert_cmpuint (n, ==, 0);
  g_assert_false (donar_torctl_circuit_service_path (client, SERVICE, ids,
          G_N_ELEMENTS (ids), &n));
  g_assert_false (donar_torctl_circuit_service_path (extended, SERVICE, ids,
          G_N_ELEMENTS (ids), &n));
  g_assert_false (donar_torctl_circuit_service_path (closed, SERVICE, ids,
          G_N_ELEMENTS (ids), &n));
  g_assert_true (donar_torctl_circuit_service_gone (closed, SERVICE));
  g_assert_false (donar_torctl_circuit_service_gone (closed, NULL));
  g_assert_false (donar_torctl_circuit_service_path (built, NULL, ids,
          G_N_ELEMENTS (ids), &n));
  /* Nor is a service's circuit any client's stream path. */
  g_assert_false (donar_torctl_circuit_stream_path (built, ids,
          G_N_ELEMENTS (ids), &n));
  circuit_free (built);
  circuit_free (other_onion);
  circuit_free (client);
  circuit_free (extended);
  circuit_free (closed);
}

/* Lines that break the grammar are refused by the parser before any path
 * is looked for: nothing is made of them. */
static void
test_malformed (void)
{
  const gchar *bad[] = {
    "7 BUILT " GUARD " PURPOSE=GENERAL SOCKS_USERNAME=\"donar-1-0-1\n",
    "7 BUILT " GUARD ",," MIDDLE " SOCKS_USERNAME=\"donar-1-0-1\"\n",
    "7-1 BUILT " GUARD " SOCKS_USERNAME=\"donar-1-0-1\"\n",
    "7\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    GPtrArray *circuits = (GPtrArray *) & circuits;

    g_assert_cmpint (donar_torctl_parse_circuit_status (bad[i], &circuits),
        !=, DONAR_TORCTL_OK);
    g_assert_null (circuits);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/torctl/relay/id", test_relay_id);
  g_test_add_func ("/torctl/relay/circuit-status", test_circuit_status);
  g_test_add_func ("/torctl/relay/circuit-event", test_circuit_event);
  g_test_add_func ("/torctl/relay/service-circuit", test_service_circuit);
  g_test_add_func ("/torctl/relay/malformed", test_malformed);
  return g_test_run ();
}
