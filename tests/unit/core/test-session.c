/* Two endpoints of a call joined in memory: frames both ways, piggybacked
 * copies, the invariants of seed 000, bad and foreign input. */
#include "donar-session-private.h"
#include "../donar-test-critical.h"

#include <string.h>

#define FRAME_US (40 * 1000)

typedef struct
{
  guint32 seq;
  guint link;
  gboolean piggybacked;
  guint8 data[DONAR_WIRE_MAX_MESSAGE];
  gsize length;
} Delivered;

typedef struct _Endpoint Endpoint;

struct _Endpoint
{
  DonarSession *session;
  Endpoint *peer;
  DonarRole role;
  DonarWireKey key;             /* what it sends with, to check its output */
  GArray *delivered;
  /* What it sends: withheld per link (a slow link), or passed at once. */
  GPtrArray *held[DONAR_MAX_LINKS];
  gboolean hold[DONAR_MAX_LINKS];
  /* Sent before the peer's end of the link was open. */
  GPtrArray *waiting[DONAR_MAX_LINKS];
  GBytes *hello[DONAR_MAX_LINKS];
  /* The nonce each link last opened with: the peer's HELLO answers it. */
  guint8 nonce[DONAR_MAX_LINKS][DONAR_WIRE_NONCE];
  guint opened;
  gboolean drop_next[DONAR_MAX_LINKS];
  gint64 now;
  /* Links the first copies of our frames went on, from our own output:
   * seq -> bitmask. */
  GHashTable *first_links;
  guint piggybacked_sent;
  guint violations;
  GBytes *last_record;
  /* The peer's BYE: how many came, on which link, why. */
  guint peer_ended;
  guint peer_ended_link;
  DonarByeReason peer_ended_reason;
  /* The peer's sessions told: first ones, and restarts. */
  guint peer_sessions;
  guint peer_restarts;
  /* RENDEZVOUS: sent by this end; told by the peer, the last on which
   * link and of which relay. */
  guint rendezvous_sent;
  guint rendezvous_told;
  guint rendezvous_link;
  guint64 rendezvous_relay;
};

static const guint8 secret[] = "a call secret of 32 random bytes";

static void
check_output (Endpoint * e, guint link, const guint8 * record, gsize length)
{
  DonarWireMessage m;
  DonarWireHello hello;
  guint8 type;

  g_assert_cmpuint (length, <=, DONAR_CELL_PAYLOAD);
  g_assert_cmpint (donar_wire_peek_type (record + 2, length - 2, &type), ==,
      DONAR_OK);
  if (type == DONAR_WIRE_TYPE_HELLO) {
    g_assert_cmpint (donar_wire_decode_hello (record + 2, length - 2,
            &e->key, &hello), ==, DONAR_OK);
    g_assert_cmpuint (hello.link, ==, link);
    if (e->hello[link])
      g_bytes_unref (e->hello[link]);
    e->hello[link] = g_bytes_new (record, length);
    return;
  }
  if (type == DONAR_WIRE_TYPE_CHALLENGE) {
    guint8 nonce[DONAR_WIRE_NONCE];

    g_assert_cmpint (e->role, ==, DONAR_ROLE_CALLEE);
    g_assert_cmpint (donar_wire_decode_challenge (record + 2, length - 2,
            nonce), ==, DONAR_OK);
    g_assert_cmpmem (nonce, DONAR_WIRE_NONCE, e->nonce[link], DONAR_WIRE_NONCE);
    return;
  }
  if (type == DONAR_WIRE_TYPE_RENDEZVOUS) {
    guint8 told;
    guint64 relay;

    g_assert_cmpint (e->role, ==, DONAR_ROLE_CALLER);
    g_assert_cmpint (donar_wire_decode_rendezvous (record + 2, length - 2,
            &told, &relay), ==, DONAR_OK);
    g_assert_cmpuint (told, ==, link);
    e->rendezvous_sent++;
    return;
  }
  if (type == DONAR_WIRE_TYPE_BYE) {
    DonarWireBye bye;

    g_assert_cmpint (donar_wire_decode_bye (record + 2, length - 2, &bye), ==,
        DONAR_OK);
    g_assert_cmpuint (bye.link, ==, link);
    return;
  }
  g_assert_cmpint (donar_wire_decode_data (record + 2, length - 2, &m), ==,
      DONAR_OK);
  g_assert_cmpuint (m.link, ==, link);
  {
    guint mask = GPOINTER_TO_UINT (g_hash_table_lookup (e->first_links,
            GUINT_TO_POINTER (m.seq)));
    g_hash_table_insert (e->first_links, GUINT_TO_POINTER (m.seq),
        GUINT_TO_POINTER (mask | (1u << link)));
  }
  for (guint i = 1; i < m.n_frames; i++) {
    guint32 seq = m.seq - m.frames[i].age;
    guint mask = GPOINTER_TO_UINT (g_hash_table_lookup (e->first_links,
            GUINT_TO_POINTER (seq)));

    e->piggybacked_sent++;
    if (mask & (1u << link))
      e->violations++;
  }
}

/* Records in flight, delivered in order: an endpoint that answers (the
 * opening of a link) never receives from within its own receive. */
typedef struct
{
  Endpoint *to;
  guint link;
  GBytes *record;
  gint64 now;                   /* the links take no time */
} InFlight;

static GQueue in_flight = G_QUEUE_INIT;
static gboolean delivering;

/* Takes the record; every one must be accepted. */
static void
deliver (Endpoint * to, guint link, GBytes * record, gint64 now)
{
  InFlight *f = g_new (InFlight, 1);

  f->to = to;
  f->link = link;
  f->record = record;
  f->now = now;
  g_queue_push_tail (&in_flight, f);
  if (delivering)
    return;
  delivering = TRUE;
  while ((f = g_queue_pop_head (&in_flight))) {
    gsize length;
    const guint8 *data = g_bytes_get_data (f->record, &length);

    g_assert_cmpint (donar_session_receive (f->to->session, f->link, data,
            length, f->now), ==, DONAR_OK);
    g_bytes_unref (f->record);
    g_free (f);
  }
  delivering = FALSE;
}

static void
on_send (gpointer user_data, guint link, const guint8 * record, gsize length)
{
  Endpoint *e = user_data;

  check_output (e, link, record, length);
  if (e->last_record)
    g_bytes_unref (e->last_record);
  e->last_record = g_bytes_new (record, length);
  if (e->drop_next[link]) {
    e->drop_next[link] = FALSE;
    return;
  }
  if (e->hold[link]) {
    g_ptr_array_add (e->held[link], g_bytes_new (record, length));
    return;
  }
  if (!e->peer->session->open[link]) {
    g_ptr_array_add (e->waiting[link], g_bytes_new (record, length));
    return;
  }
  deliver (e->peer, link, g_bytes_new (record, length), e->now);
}

static void
on_deliver (gpointer user_data, guint32 seq, const guint8 * frame,
    gsize length, guint link, gboolean piggybacked)
{
  Endpoint *e = user_data;
  Delivered d = { seq, link, piggybacked, {0}, length };

  memcpy (d.data, frame, length);
  g_array_append_val (e->delivered, d);
}

static void
on_peer_ended (gpointer user_data, guint link, DonarByeReason reason)
{
  Endpoint *e = user_data;

  e->peer_ended++;
  e->peer_ended_link = link;
  e->peer_ended_reason = reason;
}

static void
on_peer_session (gpointer user_data, guint link, gboolean restarted)
{
  Endpoint *e = user_data;

  if (restarted)
    e->peer_restarts++;
  else
    e->peer_sessions++;
}

static void
on_peer_rendezvous (gpointer user_data, guint link, guint64 relay)
{
  Endpoint *e = user_data;

  e->rendezvous_told++;
  e->rendezvous_link = link;
  e->rendezvous_relay = relay;
}

static const DonarCallbacks callbacks = { on_send, on_deliver,
  on_peer_ended, on_peer_session, on_peer_rendezvous
};

static void
endpoint_init (Endpoint * e, DonarRole role, const DonarConfig * config)
{
  DonarError error;

  memset (e, 0, sizeof *e);
  e->role = role;
  e->session = donar_session_new (config, role, secret, sizeof secret,
      &callbacks, e, 0, &error);
  g_assert_cmpint (error, ==, DONAR_OK);
  g_assert_nonnull (e->session);
  donar_wire_key_derive (secret, sizeof secret,
      role == DONAR_ROLE_CALLER ? DONAR_WIRE_CALLER_TO_CALLEE :
      DONAR_WIRE_CALLEE_TO_CALLER, &e->key);
  e->delivered = g_array_new (FALSE, FALSE, sizeof (Delivered));
  e->first_links = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < DONAR_MAX_LINKS; i++) {
    e->held[i] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
    e->waiting[i] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
  }
}

static void
endpoint_clear (Endpoint * e)
{
  donar_session_free (e->session);
  g_array_free (e->delivered, TRUE);
  g_hash_table_destroy (e->first_links);
  for (guint i = 0; i < DONAR_MAX_LINKS; i++) {
    g_ptr_array_free (e->held[i], TRUE);
    g_ptr_array_free (e->waiting[i], TRUE);
    if (e->hello[i])
      g_bytes_unref (e->hello[i]);
  }
  if (e->last_record)
    g_bytes_unref (e->last_record);
}

static void
deliver_all (Endpoint * to, guint link, GPtrArray * records)
{
  for (guint i = 0; i < records->len; i++)
    deliver (to, link, g_bytes_ref (g_ptr_array_index (records, i)), to->now);
  g_ptr_array_set_size (records, 0);
}

/* e's end of the link opens with a new nonce (a callee's CHALLENGE goes
 * out); nothing is delivered. */
static void
open_end (Endpoint * e, guint link)
{
  memset (e->nonce[link], 0, DONAR_WIRE_NONCE);
  e->nonce[link][0] = e->role;
  e->nonce[link][1] = link;
  e->nonce[link][2] = ++e->opened;
  donar_session_link_up (e->session, link, e->nonce[link], e->now);
}

/* Opens e's end of the link and hands it what the peer sent on the link
 * before: the opening runs as far as both ends are open. */
static void
bring_up (Endpoint * e, guint link)
{
  open_end (e, link);
  deliver_all (e, link, e->peer->waiting[link]);
}

/* These tests were written for ALTERNATE, donar_config_init ()'s policy
 * before it took the product's (DONAR_DEFAULT_POLICY). */
static void
config_init_alternate (DonarConfig * config)
{
  donar_config_init (config);
  config->policy = DONAR_POLICY_ALTERNATE;
}

static void
pair_init (Endpoint * caller, Endpoint * callee, const DonarConfig * config)
{
  DonarConfig callee_config = *config;

  callee_config.seed = config->seed + 1000;
  endpoint_init (caller, DONAR_ROLE_CALLER, config);
  endpoint_init (callee, DONAR_ROLE_CALLEE, &callee_config);
  caller->peer = callee;
  callee->peer = caller;
  for (guint link = 0; link < config->n_links; link++) {
    bring_up (caller, link);
    bring_up (callee, link);
  }
}

static void
release_held (Endpoint * e, guint link)
{
  deliver_all (e->peer, link, e->held[link]);
}

/* Frame n of an endpoint: 20 bytes naming its sender and number. */
static void
make_frame (guint8 * frame, DonarRole role, guint n)
{
  memset (frame, 0, 20);
  frame[0] = role;
  frame[1] = n >> 8;
  frame[2] = n & 0xff;
}

/* Both endpoints send a frame every 40 ms and run their timers. */
static void
run_call (Endpoint * a, Endpoint * b, guint frames, guint * sent)
{
  for (guint f = 0; f < frames; f++) {
    Endpoint *e[2] = { a, b };

    for (guint k = 0; k < 2; k++) {
      guint8 frame[20];

      e[k]->now += FRAME_US;
      if (e[k]->now >= donar_session_get_expiry (e[k]->session))
        donar_session_handle_expiry (e[k]->session, e[k]->now);
      make_frame (frame, e[k]->role, sent[k]++);
      g_assert_cmpint (donar_session_send_frame (e[k]->session, frame,
              sizeof frame, e[k]->now), ==, DONAR_OK);
    }
  }
}

static void
test_frames_both_ways (void)
{
  DonarConfig config;
  Endpoint caller, callee;
  guint sent[2] = { 0, 0 };

  config_init_alternate (&config);
  pair_init (&caller, &callee, &config);
  run_call (&caller, &callee, 100, sent);

  /* Links without delay: every frame once, in order, intact. */
  for (guint k = 0; k < 2; k++) {
    Endpoint *receiver = k == 0 ? &callee : &caller;

    g_assert_cmpuint (receiver->delivered->len, ==, 100);
    for (guint n = 0; n < 100; n++) {
      Delivered *d = &g_array_index (receiver->delivered, Delivered, n);
      guint8 expected[20];

      make_frame (expected, k == 0 ? DONAR_ROLE_CALLER : DONAR_ROLE_CALLEE, n);
      g_assert_cmpmem (d->data, d->length, expected, sizeof expected);
      g_assert_false (d->piggybacked);
      if (n > 0)
        g_assert_cmpuint (d->seq, ==,
            g_array_index (receiver->delivered, Delivered, n - 1).seq + 1);
    }
  }
  /* ALTERNATE piggybacks the previous frame in every message but the
   * first. */
  g_assert_cmpuint (caller.piggybacked_sent, ==, 99);
  g_assert_cmpuint (caller.violations, ==, 0);
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

/* A peer with ADAPTIVE acknowledges our frames: the least round trip comes
 * from them.  In run_call the caller sends first at each instant and the
 * links take no time: the callee's message of the same instant
 * acknowledges the caller's frame (0 ms), the caller's next one, 40 ms
 * later, the callee's.  A peer with one of the paper's policies sends no
 * acknowledgements. */
static void
test_round_trip_from_acknowledgements (void)
{
  const DonarPolicy policies[] = { DONAR_POLICY_ADAPTIVE,
    DONAR_POLICY_ALTERNATE
  };

  for (guint i = 0; i < G_N_ELEMENTS (policies); i++) {
    gboolean adaptive = policies[i] == DONAR_POLICY_ADAPTIVE;
    DonarConfig config;
    Endpoint caller, callee;
    guint sent[2] = { 0, 0 };

    donar_config_init (&config);
    config.policy = policies[i];
    pair_init (&caller, &callee, &config);
    g_assert_false (donar_session_peer_acknowledges (caller.session));
    g_assert_cmpint (donar_session_get_least_round_trip (caller.session), ==,
        -1);
    run_call (&caller, &callee, 10, sent);
    g_assert_cmpint (donar_session_peer_acknowledges (caller.session), ==,
        adaptive);
    g_assert_cmpint (donar_session_peer_acknowledges (callee.session), ==,
        adaptive);
    g_assert_cmpint (donar_session_get_least_round_trip (caller.session), ==,
        adaptive ? 0 : -1);
    g_assert_cmpint (donar_session_get_least_round_trip (callee.session), ==,
        adaptive ? FRAME_US : -1);
    endpoint_clear (&caller);
    endpoint_clear (&callee);
  }
}

/* The copy of a frame never travels on a link its first copy took: every
 * policy, links failing and coming back, groups changing every window. */
static void
test_copy_never_on_the_same_link (void)
{
  for (DonarPolicy policy = DONAR_POLICY_SIMPLE;
      policy <= DONAR_POLICY_DOUBLE_SEND; policy++) {
    DonarConfig config;
    Endpoint caller, callee;
    guint sent[2] = { 0, 0 };

    donar_config_init (&config);
    config.policy = policy;
    config.redundancy = 2;
    config.seed = 11 + policy;
    pair_init (&caller, &callee, &config);
    for (guint round = 0; round < 20; round++) {
      guint link = (round * 5) % 12;

      run_call (&caller, &callee, 30, sent);
      donar_session_link_down (caller.session, link, caller.now);
      donar_session_link_down (callee.session, link, callee.now);
      run_call (&caller, &callee, 10, sent);
      bring_up (&caller, link);
      bring_up (&callee, link);
    }
    g_assert_cmpuint (caller.violations, ==, 0);
    g_assert_cmpuint (callee.violations, ==, 0);
    if (policy == DONAR_POLICY_ALTERNATE || policy == DONAR_POLICY_DOUBLE_SEND)
      g_assert_cmpuint (caller.piggybacked_sent, >, 800);
    else                        /* only when a failed link moves them */
      g_assert_cmpuint (caller.piggybacked_sent, <, 40);
    g_assert_cmpuint (callee.delivered->len, ==, 800);
    endpoint_clear (&caller);
    endpoint_clear (&callee);
  }
}

/* A message lost on its link: the frame arrives as the piggybacked copy in
 * the next frame's message, on another link. */
static void
test_lost_frame_recovered_by_piggyback (void)
{
  DonarConfig config;
  Endpoint caller, callee;
  guint sent[2] = { 0, 0 };
  Delivered *d;
  guint links[2];
  DonarScheduler peek;

  config_init_alternate (&config);
  pair_init (&caller, &callee, &config);
  run_call (&caller, &callee, 10, sent);

  /* The link the caller's next frame will take. */
  peek = caller.session->scheduler;
  donar_scheduler_pick (&peek, &caller.session->groups, links);
  caller.drop_next[links[0]] = TRUE;
  run_call (&caller, &callee, 2, sent);

  g_assert_cmpuint (callee.delivered->len, ==, 12);
  d = &g_array_index (callee.delivered, Delivered, 10);
  g_assert_true (d->piggybacked);
  g_assert_cmpuint (d->link, !=, links[0]);
  g_assert_cmpuint (d->data[2], ==, 10);
  d = &g_array_index (callee.delivered, Delivered, 11);
  g_assert_false (d->piggybacked);
  g_assert_cmpuint (d->data[2], ==, 11);
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

static void
test_no_piggyback_older_than_the_limit (void)
{
  DonarConfig config;
  Endpoint caller, callee;
  guint8 frame[20] = { 0 };

  config_init_alternate (&config);
  pair_init (&caller, &callee, &config);
  g_assert_cmpint (donar_session_send_frame (caller.session, frame, 20,
          1000), ==, DONAR_OK);
  /* 200 ms later: still young enough. */
  g_assert_cmpint (donar_session_send_frame (caller.session, frame, 20,
          201000), ==, DONAR_OK);
  g_assert_cmpuint (caller.piggybacked_sent, ==, 1);
  /* 200 ms and 1 µs after the previous one: too old. */
  g_assert_cmpint (donar_session_send_frame (caller.session, frame, 20,
          401001), ==, DONAR_OK);
  g_assert_cmpuint (caller.piggybacked_sent, ==, 1);
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

static void
test_frame_sizes (void)
{
  DonarConfig config;
  Endpoint caller, callee;
  static guint8 frame[DONAR_CELL_PAYLOAD];
  gsize max;

  config_init_alternate (&config);
  pair_init (&caller, &callee, &config);
  max = donar_session_get_max_frame (caller.session);
  /* ALTERNATE sends the scores only: 498 - (2 + 19 + 12 links * 2 + 6
   * frames * 2 links * 2 + 3) = 426. */
  g_assert_cmpuint (max, ==, 498 - (2 + 19 + 24 + 24 + 3));
  g_assert_cmpint (donar_session_send_frame (caller.session, frame, max + 1,
          0), ==, DONAR_ERROR_FRAME_TOO_LARGE);
  g_assert_cmpint (donar_session_send_frame (caller.session, frame, 0, 0), ==,
      DONAR_ERROR_EMPTY_FRAME);
  g_assert_cmpint (donar_session_send_frame (caller.session, frame, max, 0),
      ==, DONAR_OK);
  /* A second full frame: no room for the previous one as a copy. */
  g_assert_cmpint (donar_session_send_frame (caller.session, frame, max,
          40000), ==, DONAR_OK);
  g_assert_cmpuint (caller.piggybacked_sent, ==, 0);
  /* The paper's 172-byte frames: the previous one always rides along. */
  g_assert_cmpint (donar_session_send_frame (caller.session, frame, 172,
          80000), ==, DONAR_OK);
  g_assert_cmpint (donar_session_send_frame (caller.session, frame, 172,
          120000), ==, DONAR_OK);
  g_assert_cmpuint (caller.piggybacked_sent, ==, 1);
  g_assert_cmpuint (callee.delivered->len, ==, 4);
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

static void
test_no_link_then_copy (void)
{
  DonarConfig config;
  Endpoint caller, callee;
  guint8 frame[20] = { 7 };

  config_init_alternate (&config);
  pair_init (&caller, &callee, &config);
  for (guint link = 0; link < 12; link++)
    donar_session_link_down (caller.session, link, 0);
  g_assert_cmpint (donar_session_send_frame (caller.session, frame, 20, 0),
      ==, DONAR_ERROR_NO_LINK);
  caller.now = 10000;
  /* Link 3 dialed again: the callee's end opens anew and challenges. */
  donar_session_link_down (callee.session, 3, 0);
  bring_up (&caller, 3);
  bring_up (&callee, 3);
  frame[0] = 8;
  g_assert_cmpint (donar_session_send_frame (caller.session, frame, 20,
          40000), ==, DONAR_OK);
  /* The frame no link could take rides with the next one. */
  g_assert_cmpuint (callee.delivered->len, ==, 2);
  g_assert_cmpuint (g_array_index (callee.delivered, Delivered, 0).data[0],
      ==, 7);
  g_assert_true (g_array_index (callee.delivered, Delivered, 0).piggybacked);
  g_assert_cmpuint (g_array_index (callee.delivered, Delivered, 0).link, ==, 3);
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

static GBytes *
record_of (Endpoint * e)
{
  return g_bytes_ref (e->last_record);
}

static DonarError
feed (Endpoint * to, guint link, GBytes * record)
{
  gsize length;
  const guint8 *data = g_bytes_get_data (record, &length);

  return donar_session_receive (to->session, link, data, length, to->now);
}

static void
test_foreign_input_rejected (void)
{
  DonarConfig config;
  Endpoint caller, callee, stranger;
  guint8 frame[20] = { 0 };
  DonarSessionStats stats;
  DonarLinkStats link_stats;
  GBytes *data, *hello;
  guint link;
  static const guint8 garbage[] = { 0xff, 0xff, 1, 2, 3 };
  static const guint8 other[] = "not the secret of this call";
  guint8 challenge[DONAR_WIRE_PREFIX + DONAR_WIRE_CHALLENGE];
  gsize size;

  config_init_alternate (&config);
  pair_init (&caller, &callee, &config);
  g_assert_cmpint (donar_session_send_frame (caller.session, frame, 20, 0),
      ==, DONAR_OK);
  data = record_of (&caller);
  hello = g_bytes_ref (caller.hello[4]);

  /* The caller's HELLO reflected back to it: the other direction's key. */
  g_assert_cmpint (feed (&caller, 4, hello), ==, DONAR_ERROR_BAD_AUTHENTICATOR);
  /* A HELLO moved to another link than the one it names (the callee's
   * new CHALLENGEs on 5 and 6 are not for the caller's open links). */
  donar_session_link_down (callee.session, 5, 0);
  callee.drop_next[5] = TRUE;
  open_end (&callee, 5);
  g_assert_cmpint (feed (&callee, 5, hello), ==, DONAR_ERROR_BAD_LINK);
  /* Data on a new connection that has not said HELLO. */
  donar_session_link_down (callee.session, 6, 0);
  callee.drop_next[6] = TRUE;
  open_end (&callee, 6);
  g_assert_cmpint (feed (&callee, 6, data), ==, DONAR_ERROR_NOT_AUTHENTICATED);
  donar_session_get_link_stats (callee.session, 6, &link_stats);
  g_assert_false (link_stats.authenticated);
  donar_session_get_link_stats (callee.session, 7, &link_stats);
  g_assert_true (link_stats.authenticated);
  /* A link that is down (one that does not exist is a critical:
   * test_session_misuse_is_refused). */
  donar_session_link_down (callee.session, 8, 0);
  g_assert_cmpint (feed (&callee, 8, hello), ==, DONAR_ERROR_INVALID_ARGUMENT);

  /* A caller who knows the onion address but not the call's secret: its
   * HELLO answers link 9's CHALLENGE, and fails the tag. */
  memset (&stranger, 0, sizeof stranger);
  config.seed = 77;
  stranger.session = donar_session_new (&config, DONAR_ROLE_CALLER, other,
      sizeof other, &callbacks, &stranger, 0, NULL);
  donar_wire_key_derive (other, sizeof other, DONAR_WIRE_CALLER_TO_CALLEE,
      &stranger.key);
  stranger.delivered = g_array_new (FALSE, FALSE, sizeof (Delivered));
  stranger.first_links = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < DONAR_MAX_LINKS; i++) {
    stranger.held[i] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
    stranger.waiting[i] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
  }
  stranger.hold[9] = TRUE;
  stranger.peer = &callee;
  open_end (&stranger, 9);
  donar_session_link_down (callee.session, 9, 0);
  callee.drop_next[9] = TRUE;
  open_end (&callee, 9);
  size = donar_wire_encode_challenge (callee.nonce[9], challenge,
      sizeof challenge);
  g_assert_cmpint (donar_session_receive (stranger.session, 9, challenge,
          size, 0), ==, DONAR_OK);
  g_assert_nonnull (stranger.hello[9]);
  g_assert_cmpint (donar_session_identify_link (callee.session,
          (const guint8 *) g_bytes_get_data (stranger.hello[9], NULL) + 2,
          g_bytes_get_size (stranger.hello[9]) - 2, callee.nonce[9], &link),
      ==, DONAR_ERROR_BAD_AUTHENTICATOR);
  g_assert_cmpint (feed (&callee, 9, stranger.hello[9]), ==,
      DONAR_ERROR_BAD_AUTHENTICATOR);
  endpoint_clear (&stranger);

  /* The caller's own HELLO names its link, for a callee that accepted a
   * connection it cannot tell apart, if it answers that connection's
   * CHALLENGE: played again on another connection, it is refused. */
  g_assert_cmpint (donar_session_identify_link (callee.session,
          (const guint8 *) g_bytes_get_data (hello, NULL) + 2,
          g_bytes_get_size (hello) - 2, callee.nonce[4], &link), ==, DONAR_OK);
  g_assert_cmpuint (link, ==, 4);
  g_assert_cmpint (donar_session_identify_link (callee.session,
          (const guint8 *) g_bytes_get_data (hello, NULL) + 2,
          g_bytes_get_size (hello) - 2, callee.nonce[9], &link), ==,
      DONAR_ERROR_REPLAY);

  /* Garbage: a lying length breaks the link's stream for good. */
  g_assert_cmpint (donar_session_receive (callee.session, 1, garbage,
          sizeof garbage, 0), ==, DONAR_ERROR_OVERSIZE);
  g_assert_cmpint (donar_session_receive (callee.session, 1, garbage,
          sizeof garbage, 0), ==, DONAR_ERROR_STREAM_BROKEN);

  donar_session_get_stats (callee.session, &stats);
  /* Moved HELLO, unauthenticated data, stranger, garbage, broken stream;
   * the call on a link that is down is the caller's mistake, not
   * input. */
  g_assert_cmpuint (stats.messages_rejected, ==, 5);
  g_assert_cmpuint (stats.frames_delivered, ==, 1);
  g_bytes_unref (data);
  g_bytes_unref (hello);
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

/* The peer restarts: its new session (new epoch, new numbers, new
 * connections) is heard at once, and a late connection of its old one is
 * refused. */
static void
test_peer_restart (void)
{
  DonarConfig config;
  Endpoint caller, callee, restarted;
  guint sent[2] = { 0, 0 };
  GBytes *old_hello;

  config_init_alternate (&config);
  pair_init (&caller, &callee, &config);
  run_call (&caller, &callee, 5, sent);
  old_hello = g_bytes_ref (caller.hello[3]);
  /* Twelve links of one session: told once, on each side. */
  g_assert_cmpuint (callee.peer_sessions, ==, 1);
  g_assert_cmpuint (caller.peer_sessions, ==, 1);
  g_assert_cmpuint (callee.peer_restarts, ==, 0);

  config.seed = 99;
  endpoint_init (&restarted, DONAR_ROLE_CALLER, &config);
  restarted.peer = &callee;
  callee.peer = &restarted;
  for (guint link = 0; link < 12; link++) {
    donar_session_link_down (callee.session, link, 0);
    bring_up (&restarted, link);
    bring_up (&callee, link);
  }
  sent[0] = 0;
  run_call (&restarted, &callee, 5, sent);
  g_assert_cmpuint (callee.delivered->len, ==, 10);
  /* The callee's five, and the one before them that its first message
   * carries. */
  g_assert_cmpuint (restarted.delivered->len, ==, 6);
  /* The callee is told of the restart once, over twelve new links; the
   * new caller heard the callee's session for the first time. */
  g_assert_cmpuint (callee.peer_restarts, ==, 1);
  g_assert_cmpuint (callee.peer_sessions, ==, 1);
  g_assert_cmpuint (restarted.peer_sessions, ==, 1);

  /* A late connection of the old session: its HELLO answered another
   * CHALLENGE. */
  donar_session_link_down (callee.session, 3, 0);
  callee.drop_next[3] = TRUE;
  open_end (&callee, 3);
  g_assert_cmpint (feed (&callee, 3, old_hello), ==, DONAR_ERROR_REPLAY);
  g_bytes_unref (old_hello);
  endpoint_clear (&restarted);
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

/* Hang-up: the caller's BYE reaches the callee on every open link, once
 * told; the caller sends no frame after it.  A BYE is believed only from
 * a link that proved it is the peer's. */
static void
test_bye_ends_the_call (void)
{
  DonarConfig config;
  Endpoint caller, callee;
  guint sent[2] = { 0, 0 };
  guint8 frame[20] = { 0 }, record[DONAR_WIRE_PREFIX + DONAR_WIRE_BYE];
  DonarWireBye forged = { 6, DONAR_BYE_HUNG_UP };
  DonarSessionStats before, after;
  gboolean by_peer;
  DonarByeReason reason;

  config_init_alternate (&config);
  pair_init (&caller, &callee, &config);
  run_call (&caller, &callee, 5, sent);
  g_assert_false (donar_session_has_ended (callee.session, NULL, NULL));

  /* A BYE on a connection that has not said HELLO ends nothing. */
  donar_session_link_down (callee.session, 6, 0);
  callee.drop_next[6] = TRUE;
  open_end (&callee, 6);
  g_assert_cmpuint (donar_wire_encode_bye (&forged, record, sizeof record),
      ==, sizeof record);
  g_assert_cmpint (donar_session_receive (callee.session, 6, record,
          sizeof record, 0), ==, DONAR_ERROR_NOT_AUTHENTICATED);
  g_assert_false (donar_session_has_ended (callee.session, NULL, NULL));
  /* The rejected link is closed, and dialed again. */
  donar_session_link_down (callee.session, 6, 0);
  donar_session_link_down (caller.session, 6, 0);
  bring_up (&caller, 6);
  bring_up (&callee, 6);
  /* Link 7 has gone down at the caller: 11 links open there. */
  donar_session_link_down (caller.session, 7, 0);

  donar_session_get_stats (caller.session, &before);
  donar_session_end (caller.session, DONAR_BYE_HUNG_UP, caller.now);
  donar_session_end (caller.session, DONAR_BYE_FAILED, caller.now);
  donar_session_get_stats (caller.session, &after);
  g_assert_cmpuint (after.messages_sent - before.messages_sent, ==, 11);
  g_assert_cmpuint (callee.peer_ended, ==, 1);
  g_assert_cmpint (callee.peer_ended_reason, ==, DONAR_BYE_HUNG_UP);
  g_assert_true (donar_session_has_ended (callee.session, &by_peer, &reason));
  g_assert_true (by_peer);
  g_assert_cmpint (reason, ==, DONAR_BYE_HUNG_UP);
  g_assert_true (donar_session_has_ended (caller.session, &by_peer, &reason));
  g_assert_false (by_peer);
  g_assert_cmpint (reason, ==, DONAR_BYE_HUNG_UP);

  g_assert_cmpint (donar_session_send_frame (caller.session, frame,
          sizeof frame, caller.now), ==, DONAR_ERROR_CALL_ENDED);
  g_assert_cmpint (donar_session_send_frame (callee.session, frame,
          sizeof frame, callee.now), ==, DONAR_ERROR_CALL_ENDED);
  g_assert_cmpuint (caller.peer_ended, ==, 0);
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

/* The caller tells the last relay of a link's path, its rendezvous point,
 * once a connection and again when it changes, after its HELLO; the
 * callee hears it from a link whose HELLO it checked, and from no one
 * else. */
static void
test_rendezvous_told (void)
{
  DonarConfig config;
  Endpoint caller, callee;
  const guint64 path[] = { 0x1111, 0x2222, 0x3333 };
  const guint64 other[] = { 0x1111, 0x2222, 0x4444 };
  guint8 record[DONAR_WIRE_PREFIX + DONAR_WIRE_RENDEZVOUS];

  config_init_alternate (&config);
  pair_init (&caller, &callee, &config);
  g_assert_cmpuint (callee.rendezvous_told, ==, 0);

  donar_session_set_link_path (caller.session, 2, path, 3);
  g_assert_cmpuint (callee.rendezvous_told, ==, 1);
  g_assert_cmpuint (callee.rendezvous_link, ==, 2);
  g_assert_cmphex (callee.rendezvous_relay, ==, 0x3333);
  /* The same rendezvous point: nothing new to tell. */
  donar_session_set_link_path (caller.session, 2, path, 3);
  g_assert_cmpuint (caller.rendezvous_sent, ==, 1);
  donar_session_set_link_path (caller.session, 2, other, 3);
  g_assert_cmpuint (callee.rendezvous_told, ==, 2);
  g_assert_cmphex (callee.rendezvous_relay, ==, 0x4444);

  /* Known before the link opens: told right behind the HELLO. */
  donar_session_link_down (caller.session, 4, 0);
  donar_session_link_down (callee.session, 4, 0);
  donar_session_set_link_path (caller.session, 4, path, 3);
  g_assert_cmpuint (caller.rendezvous_sent, ==, 2);
  bring_up (&caller, 4);
  bring_up (&callee, 4);
  g_assert_cmpuint (callee.rendezvous_told, ==, 3);
  g_assert_cmpuint (callee.rendezvous_link, ==, 4);
  g_assert_cmphex (callee.rendezvous_relay, ==, 0x3333);

  /* A callee tells none: its circuits end where the caller chose. */
  donar_session_set_link_path (callee.session, 2, path, 3);
  g_assert_cmpuint (callee.rendezvous_sent, ==, 0);
  g_assert_cmpuint (donar_wire_encode_rendezvous (5, 0x5555, record,
          sizeof record), ==, sizeof record);
  g_assert_cmpint (donar_session_receive (caller.session, 5, record,
          sizeof record, 0), ==, DONAR_ERROR_UNEXPECTED);
  /* Nor on a connection that has not said HELLO. */
  donar_session_link_down (callee.session, 6, 0);
  callee.drop_next[6] = TRUE;
  open_end (&callee, 6);
  g_assert_cmpuint (donar_wire_encode_rendezvous (6, 0x5555, record,
          sizeof record), ==, sizeof record);
  g_assert_cmpint (donar_session_receive (callee.session, 6, record,
          sizeof record, 0), ==, DONAR_ERROR_NOT_AUTHENTICATED);
  /* Nor one naming another link than it came on. */
  g_assert_cmpuint (donar_wire_encode_rendezvous (3, 0x5555, record,
          sizeof record), ==, sizeof record);
  g_assert_cmpint (donar_session_receive (callee.session, 7, record,
          sizeof record, 0), ==, DONAR_ERROR_BAD_LINK);
  g_assert_cmpuint (callee.rendezvous_told, ==, 3);
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

/* A reason this version does not know still ends the call. */
static void
test_bye_unknown_reason (void)
{
  DonarConfig config;
  Endpoint caller, callee;
  guint8 record[DONAR_WIRE_PREFIX + DONAR_WIRE_BYE];
  DonarWireBye bye = { 2, 200 };

  config_init_alternate (&config);
  pair_init (&caller, &callee, &config);
  donar_wire_encode_bye (&bye, record, sizeof record);
  g_assert_cmpint (donar_session_receive (caller.session, 2, record,
          sizeof record, 0), ==, DONAR_OK);
  g_assert_cmpuint (caller.peer_ended, ==, 1);
  g_assert_cmpuint (caller.peer_ended_link, ==, 2);
  g_assert_cmpint (caller.peer_ended_reason, ==, DONAR_BYE_UNKNOWN);
  /* The same BYE moved to another link is refused. */
  g_assert_cmpint (donar_session_receive (caller.session, 3, record,
          sizeof record, 0), ==, DONAR_ERROR_BAD_LINK);
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

/* A link whose messages come 10 frames late: the callee measures it, the
 * caller hears the callee's score and stops using it. */
static void
test_slow_link_leaves_the_active_groups (void)
{
  DonarConfig config;
  Endpoint caller, callee;
  guint sent[2] = { 0, 0 };
  guint members[DONAR_MAX_LINKS], slow;
  DonarLinkStats stats;

  config_init_alternate (&config);
  config.seed = 5;
  config.alarm_frames = 0;      /* the paper's: only at the window */
  pair_init (&caller, &callee, &config);
  g_assert_cmpuint (donar_groups_members (&caller.session->groups,
          DONAR_GROUP_1ST, members), ==, 3);
  slow = members[0];
  caller.hold[slow] = TRUE;
  for (guint f = 0; f < 50 * 3; f++) {
    run_call (&caller, &callee, 1, sent);
    if (f % 10 == 9)
      release_held (&caller, slow);
  }
  donar_session_get_link_stats (callee.session, slow, &stats);
  g_assert_cmpint (stats.local_score, >, 300);
  donar_session_get_link_stats (caller.session, slow, &stats);
  g_assert_cmpint (stats.remote_score, >, 300);
  g_assert_cmpint (stats.group, ==, DONAR_GROUP_INACTIVE);
  /* And every frame arrived, most through the piggybacked copies. */
  g_assert_cmpuint (callee.delivered->len, ==, 150);
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

/* The same slow link with alarms: the callee sees its frames overtaken by
 * 8 later ones and says so in its next message; both sides take the link
 * out long before the first window ends (frame 50). */
static void
test_alarm_takes_a_slow_link_out_at_once (void)
{
  DonarConfig config;
  Endpoint caller, callee;
  guint sent[2] = { 0, 0 };
  guint members[DONAR_MAX_LINKS], slow;
  DonarSessionStats stats;

  config_init_alternate (&config);
  config.seed = 5;
  g_assert_cmpuint (config.alarm_frames, ==, 8);
  pair_init (&caller, &callee, &config);
  donar_groups_members (&caller.session->groups, DONAR_GROUP_1ST, members);
  slow = members[0];
  caller.hold[slow] = TRUE;
  /* ALTERNATE on 6 links: the slow link takes every 6th frame, so its
   * first frame is overtaken by 8 others within 14 frames. */
  run_call (&caller, &callee, 20, sent);
  g_assert_cmpint (caller.session->groups.group[slow], ==,
      DONAR_GROUP_INACTIVE);
  donar_session_get_stats (caller.session, &stats);
  g_assert_cmpuint (stats.windows, ==, 0);
  g_assert_cmpuint (stats.alarms, >=, 1);
  /* Nothing more went on it after the alarm: what was held is all it got. */
  {
    guint held = caller.held[slow]->len;

    run_call (&caller, &callee, 20, sent);
    g_assert_cmpuint (caller.held[slow]->len, ==, held);
  }
  /* The frames it held came as copies on the other links. */
  g_assert_cmpuint (callee.delivered->len, ==, 40);
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

static void
test_bad_settings (void)
{
  DonarConfig config;
  DonarError error;

  donar_config_init (&config);
  g_assert_cmpint (donar_config_validate (&config), ==, DONAR_OK);
  config.n_1st = 10;            /* 10 + 3 > 12 links */
  g_assert_cmpint (donar_config_validate (&config), ==,
      DONAR_ERROR_INVALID_ARGUMENT);
  g_assert_null (donar_session_new (&config, DONAR_ROLE_CALLER, secret,
          sizeof secret, &callbacks, NULL, 0, &error));
  g_assert_cmpint (error, ==, DONAR_ERROR_INVALID_ARGUMENT);
  donar_config_init (&config);
  config.n_links = DONAR_MAX_LINKS + 1;
  g_assert_cmpint (donar_config_validate (&config), !=, DONAR_OK);
  donar_config_init (&config);
  config.redundancy = DONAR_MAX_REDUNDANCY + 1;
  g_assert_cmpint (donar_config_validate (&config), !=, DONAR_OK);
  donar_config_init (&config);
  g_assert_null (donar_session_new (&config, DONAR_ROLE_CALLER, secret, 0,
          &callbacks, NULL, 0, &error));
  g_assert_cmpint (error, ==, DONAR_ERROR_INVALID_ARGUMENT);
}

/* The call gives one g_critical matching pattern, and only that. */
/* Misuse of a link's entry points is a g_critical that changes nothing,
 * never a silent return: 12 links, so link 12 is out of range.  A link
 * reported up twice, or down while closed, is no misuse and no message. */
static void
test_link_misuse_is_refused (void)
{
  DonarConfig config;
  Endpoint caller, callee;
  DonarSessionStats st;
  const guint64 relays[] = { 7 };
  guint8 nonce[DONAR_WIRE_NONCE] = { 1 };

  donar_config_init (&config);
  g_assert_cmpuint (config.n_links, ==, 12);
  /* Every link opened: the callee's 12 CHALLENGEs (18 bytes and the 2 of
   * the length prefix) and HELLOs (55 and 2). */
  pair_init (&caller, &callee, &config);
  donar_session_get_stats (callee.session, &st);
  g_assert_cmpuint (st.bytes_sent, ==, 12 * (20 + 57));

  EXPECT_CRITICAL ("*link < *n_links*",
      donar_session_link_up (callee.session, 12, nonce, 0));
  EXPECT_CRITICAL ("*nonce != NULL*",
      donar_session_link_up (callee.session, 0, NULL, 0));
  EXPECT_CRITICAL ("*link < *n_links*",
      donar_session_link_accepted (callee.session, 12, nonce, 0));
  EXPECT_CRITICAL ("*link < *n_links*",
      donar_session_link_down (callee.session, 12, 0));
  EXPECT_CRITICAL ("*link < *n_links*",
      donar_session_set_link_path (callee.session, 12, relays, 1));
  EXPECT_CRITICAL ("*relays != NULL*",
      donar_session_set_link_path (callee.session, 0, NULL, 2));
  EXPECT_CRITICAL ("*session != NULL*",
      donar_session_handle_expiry (NULL, 0));
  /* Up again while open: no new CHALLENGE, as none of the above sent. */
  open_end (&callee, 0);
  donar_session_get_stats (callee.session, &st);
  g_assert_cmpuint (st.bytes_sent, ==, 12 * (20 + 57));
  /* Down twice: quiet. */
  donar_session_link_down (callee.session, 0, 0);
  donar_session_link_down (callee.session, 0, 0);
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

/* The rest of the session's misuse (docs/api.md, "Contracts"): a
 * critical and the failure value, nothing written. */
static void
test_session_misuse_is_refused (void)
{
  DonarConfig config;
  Endpoint caller, callee;
  DonarSessionStats st = { 0 };
  DonarPolicy policy;
  guint8 nonce[DONAR_WIRE_NONCE] = { 1 };
  guint link = 99;

  donar_config_init (&config);
  pair_init (&caller, &callee, &config);
  EXPECT_CRITICAL ("*session != NULL*",
      g_assert_cmpint (donar_session_send_frame (NULL, nonce, 1, 0), ==,
          DONAR_ERROR_INVALID_ARGUMENT));
  EXPECT_CRITICAL ("*frame != NULL*",
      g_assert_cmpint (donar_session_send_frame (caller.session, NULL, 1,
              0), ==, DONAR_ERROR_INVALID_ARGUMENT));
  EXPECT_CRITICAL ("*link < *n_links*",
      g_assert_cmpint (donar_session_receive (callee.session, 12, nonce, 1,
              0), ==, DONAR_ERROR_INVALID_ARGUMENT));
  EXPECT_CRITICAL ("*nonce != NULL*",
      g_assert_cmpint (donar_session_identify_link (callee.session, nonce,
              1, NULL, &link), ==, DONAR_ERROR_INVALID_ARGUMENT));
  g_assert_cmpuint (link, ==, 99);
  EXPECT_CRITICAL ("*session != NULL*", donar_session_end (NULL,
          DONAR_BYE_HUNG_UP, 0));
  EXPECT_CRITICAL ("*session != NULL*",
      g_assert_false (donar_session_has_ended (NULL, NULL, NULL)));
  EXPECT_CRITICAL ("*not NULL*", donar_session_get_stats (caller.session,
          NULL));
  EXPECT_CRITICAL ("*version*",
      donar_session_get_stats_versioned (caller.session, 2, &st));
  g_assert_cmpuint (st.frames_sent, ==, 0);
  EXPECT_CRITICAL ("*link < *n_links*",
      g_assert_cmpint (donar_session_get_link_silence (caller.session, 12,
              0), ==, 0));
  EXPECT_CRITICAL ("*link < *n_links*",
      g_assert_cmpint (donar_session_get_link_lateness (caller.session, 12,
              0), ==, 0));
  EXPECT_CRITICAL ("*not NULL*",
      g_assert_cmpint (donar_config_validate (NULL), ==,
          DONAR_ERROR_INVALID_ARGUMENT));
  EXPECT_CRITICAL ("*policy != NULL*",
      g_assert_false (donar_policy_from_string ("simple", NULL)));
  g_assert_false (donar_policy_from_string ("none", &policy));
  endpoint_clear (&caller);
  endpoint_clear (&callee);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/session/frames-both-ways", test_frames_both_ways);
  g_test_add_func ("/session/link-misuse-is-refused",
      test_link_misuse_is_refused);
  g_test_add_func ("/session/session-misuse-is-refused",
      test_session_misuse_is_refused);
  g_test_add_func ("/session/round-trip-from-acknowledgements",
      test_round_trip_from_acknowledgements);
  g_test_add_func ("/session/copy-never-on-the-same-link",
      test_copy_never_on_the_same_link);
  g_test_add_func ("/session/lost-frame-recovered-by-piggyback",
      test_lost_frame_recovered_by_piggyback);
  g_test_add_func ("/session/no-piggyback-older-than-the-limit",
      test_no_piggyback_older_than_the_limit);
  g_test_add_func ("/session/frame-sizes", test_frame_sizes);
  g_test_add_func ("/session/no-link-then-copy", test_no_link_then_copy);
  g_test_add_func ("/session/foreign-input-rejected",
      test_foreign_input_rejected);
  g_test_add_func ("/session/peer-restart", test_peer_restart);
  g_test_add_func ("/session/bye-ends-the-call", test_bye_ends_the_call);
  g_test_add_func ("/session/bye-unknown-reason", test_bye_unknown_reason);
  g_test_add_func ("/session/rendezvous-told", test_rendezvous_told);
  g_test_add_func ("/session/slow-link-leaves-the-active-groups",
      test_slow_link_leaves_the_active_groups);
  g_test_add_func ("/session/alarm-takes-a-slow-link-out-at-once",
      test_alarm_takes_a_slow_link_out_at_once);
  g_test_add_func ("/session/bad-settings", test_bad_settings);
  return g_test_run ();
}
