/* ADAPTIVE's choices, worked out by hand: copies of a frame on links with
 * no relay in common, and a link that turns slow left within a few
 * frames, both ends running the real sessions. */
#include "donar-session-private.h"

#include <string.h>

#define MS 1000
#define PERIOD (40 * MS)

/* Four links, 0 to 30 ms above the fastest, all heard just now. */
static void
hear_all (DonarDelays * d, guint32 peer_ms)
{
  for (guint link = 0; link < 4; link++)
    donar_delays_on_arrival (d, link, peer_ms / 40, peer_ms,
        ((gint64) peer_ms + 100 + 10 * link) * MS);
}

/* Links 0 and 1 cross relay A, links 2 and 3 relay B.  Without
 * spread_copies a frame's two copies never share a relay.  With it (the
 * default) the second copy also keeps off the previous frame's links, and
 * every link left shares a relay with the first copy or the previous
 * frame's: the cheapest of them wins, so a frame's two copies cross one
 * relay and its piggybacked copy the other. */
static void
copies_on_two_relays (gboolean spread)
{
  static const guint64 relay_a = 0xa, relay_b = 0xb;
  static const guint best[4][2] = { {0, 2}, {1, 2}, {0, 2}, {1, 2} };
  static const guint spread_out[4][2] = { {0, 1}, {2, 3}, {0, 1}, {2, 3} };
  const guint (*expected)[2] = spread ? spread_out : best;
  DonarAdaptive adaptive;
  DonarDelays delays;
  DonarGroups groups;
  DonarPaths paths;
  GRand *rand = g_rand_new_with_seed (1);
  guint links[2], prev[2], n_prev = 0;

  donar_groups_init (&groups, 4, 1, 1, rand);
  donar_paths_init (&paths, 4);
  for (guint link = 0; link < 4; link++) {
    donar_groups_link_up (&groups, link);
    donar_paths_set (&paths, link, link < 2 ? &relay_a : &relay_b, 1);
  }
  g_assert_true (donar_paths_share (&paths, 0, 1));
  g_assert_false (donar_paths_share (&paths, 1, 2));
  donar_delays_init (&delays, 4, PERIOD, 0);
  donar_adaptive_init (&adaptive, 2.0, 360 * MS);
  g_assert_true (adaptive.spread_copies);
  adaptive.spread_copies = spread;

  for (guint f = 0; f < 28; f++) {
    guint32 peer_ms = 1000 + 40 * f;
    guint n;

    hear_all (&delays, peer_ms);
    n = donar_adaptive_pick (&adaptive, &delays, &groups, &paths, prev,
        n_prev, (peer_ms + 200) * (gint64) MS, links);
    if (f < 24) {
      /* Calm: the second copies are saved up (a credit of 1 a frame, up
       * to 25).  Each frame on the best link apart from the previous
       * frame's, and off its relay, as its copy rides along: 0, then 2 (1
       * shares relay A with 0: 10 + 100 ms against 20), then 0 again. */
      g_assert_cmpuint (n, ==, 1);
      g_assert_cmpuint (links[0], ==, f % 2 == 0 ? 0 : 2);
    } else {
      /* Credit full: two copies a frame.  Without spreading: after
       * {0, 2}, both are the previous frame's: 1 (10 + 100, shares A with
       * 0) beats 3 (30 + 100, shares B with 2); its second copy is 2 (20)
       * rather than 0 (0 + 100, relay A).  Spreading: after frame 23 on 2,
       * frame 24's first copy is 0, and its second 1 (10 + 100, relay A)
       * rather than 3 (30 + 100, relay B as frame 23); then 2 (20) and 3
       * (30 + 100), off the links of {0, 1}. */
      g_assert_cmpuint (n, ==, 2);
      g_assert_cmpuint (links[0], ==, expected[f - 24][0]);
      g_assert_cmpuint (links[1], ==, expected[f - 24][1]);
      g_assert_true (donar_paths_share (&paths, links[0], links[1]) == spread);
      if (spread)
        g_assert_false (donar_paths_share (&paths, links[0], prev[0]));
    }
    memcpy (prev, links, n * sizeof links[0]);
    n_prev = n;
  }
  g_rand_free (rand);
}

static void
test_copies_share_no_relay (void)
{
  copies_on_two_relays (FALSE);
}

static void
test_spread_copies_across_relays (void)
{
  copies_on_two_relays (TRUE);
}

/* Before the first round trip, twelve links known of nothing, 0 to 5
 * through guard A and 6 to 11 through guard B, as tor told them.  Round
 * the links in link order, frame 0 would go on {0, 1}, frame 1 on {2, 3}:
 * the frame and its piggybacked copy all through A.  Each frame's second
 * copy goes through the other guard instead: {0, 6}, {1, 7}, ... {5, 11},
 * then round again, so that no guard's spike holds a frame whole. */
static void
test_blind_copies_across_guards (void)
{
  static const guint64 guard_a = 0xa, guard_b = 0xb;
  DonarAdaptive adaptive;
  DonarDelays delays;
  DonarGroups groups;
  DonarPaths paths;
  GRand *rand = g_rand_new_with_seed (1);
  guint links[2], prev[2], n_prev = 0;

  donar_groups_init (&groups, 12, 3, 3, rand);
  donar_paths_init (&paths, 12);
  for (guint link = 0; link < 12; link++) {
    donar_groups_link_up (&groups, link);
    donar_paths_set (&paths, link, link < 6 ? &guard_a : &guard_b, 1);
  }
  donar_delays_init (&delays, 12, PERIOD, 0);
  donar_adaptive_init (&adaptive, 2.0, 360 * MS);
  for (guint f = 0; f < 12; f++) {
    gint64 now = (gint64) f * PERIOD;
    guint n = donar_adaptive_pick (&adaptive, &delays, &groups, &paths, prev,
        n_prev, now, links);

    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpuint (links[0], ==, f % 6);
    g_assert_cmpuint (links[1], ==, 6 + f % 6);
    for (guint k = 0; k < n; k++)
      donar_groups_mark_used (&groups, links[k], now);
    memcpy (prev, links, sizeof links);
    n_prev = n;
  }
  g_rand_free (rand);
}

/* Six links, 0-2 behind guard a and 3-5 behind guard b, each link's
 * opening answered in answered_ms (-1: not yet); three frames picked
 * blind at budget 2 must go on expected's links. */
static void
check_blind_picks (const gint64 answered_ms[6], const guint expected[3][2])
{
  static const guint64 guard_a = 0xa, guard_b = 0xb;
  DonarAdaptive adaptive;
  DonarDelays delays;
  DonarGroups groups;
  DonarPaths paths;
  GRand *rand = g_rand_new_with_seed (1);
  guint links[2], prev[2], n_prev = 0;

  donar_groups_init (&groups, 6, 3, 3, rand);
  donar_paths_init (&paths, 6);
  donar_delays_init (&delays, 6, PERIOD, 0);
  for (guint link = 0; link < 6; link++) {
    donar_groups_link_up (&groups, link);
    donar_paths_set (&paths, link, link < 3 ? &guard_a : &guard_b, 1);
    donar_delays_on_opening_sent (&delays, link, 0);
    if (answered_ms[link] >= 0)
      donar_delays_on_opening_answered (&delays, link, answered_ms[link] * MS);
  }
  donar_adaptive_init (&adaptive, 2.0, 360 * MS);
  for (guint f = 0; f < 3; f++) {
    gint64 now = 600 * MS + (gint64) f * PERIOD;
    guint n = donar_adaptive_pick (&adaptive, &delays, &groups, &paths, prev,
        n_prev, now, links);

    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpuint (links[0], ==, expected[f][0]);
    g_assert_cmpuint (links[1], ==, expected[f][1]);
    for (guint k = 0; k < n; k++)
      donar_groups_mark_used (&groups, links[k], now);
    memcpy (prev, links, sizeof links);
    n_prev = n;
  }
  g_rand_free (rand);
}

/* Those six links; the openings of
 * links 4, 5 and 3 answered in 300, 350 and 500 ms, those of 0-2 not yet.
 * Worked out by hand: each frame's first copy rounds the links off the
 * previous frame's (0, then 1, then 2: links never used, lowest first);
 * its second goes behind the other guard, on the fastest opening there
 * that the previous frame did not use: 4, then 5 (4 carried frame 0),
 * then 4 again. */
static void
test_blind_second_copy_on_fastest_opening (void)
{
  static const guint expected[3][2] = { {0, 4}, {1, 5}, {2, 4} };
  static const gint64 answered_ms[6] = { -1, -1, -1, 500, 300, 350 };
  DonarDelays delays;

  donar_delays_init (&delays, 6, PERIOD, 0);
  donar_delays_on_opening_sent (&delays, 5, 0);
  donar_delays_on_opening_answered (&delays, 5, 350 * MS);
  g_assert_cmpint (donar_delays_opening_round_trip (&delays, 5), ==, 350 * MS);
  g_assert_cmpint (donar_delays_opening_round_trip (&delays, 0), ==,
      DONAR_DELAY_UNKNOWN);
  check_blind_picks (answered_ms, expected);
}

/* The same six links, every opening answered in 250 ms (as in donar-sim,
 * whose openings all take the same time): the openings tell no link apart,
 * so the second copy goes round the links behind the other guard as the
 * first does.  By hand: 3 (never used, lowest first), 4 (3 carried frame
 * 0), then 5, never used, where the lowest tied link would have been 3. */
static void
test_blind_second_copy_tied_openings_go_round (void)
{
  static const guint expected[3][2] = { {0, 3}, {1, 4}, {2, 5} };
  static const gint64 answered_ms[6] = { 250, 250, 250, 250, 250, 250 };

  check_blind_picks (answered_ms, expected);
}

/* Four links with no relay known, 100 to 130 ms; the first 24 frames in
 * one copy each (the credit saving up), then two.  Worked out by hand:
 * frame 23 went on link 1, so frame 24's first copy is link 0; its second
 * copy is the best link after 0, link 1, the previous frame's, unless
 * spread_copies keeps it off the previous frame's links too: then 2, and
 * from there on every frame's two copies avoid the two of the frame
 * before, {1, 3} after {0, 2}, four links for a frame and its
 * piggybacked copy. */
static void
pick_with_credit (gboolean spread, guint frame, guint * links, guint * prev,
    guint * n_prev)
{
  DonarAdaptive adaptive;
  DonarDelays delays;
  DonarGroups groups;
  DonarPaths paths;
  GRand *rand = g_rand_new_with_seed (1);
  guint n = 0;

  donar_groups_init (&groups, 4, 1, 1, rand);
  donar_paths_init (&paths, 4);
  for (guint link = 0; link < 4; link++)
    donar_groups_link_up (&groups, link);
  donar_delays_init (&delays, 4, PERIOD, 0);
  donar_adaptive_init (&adaptive, 2.0, 360 * MS);
  adaptive.spread_copies = spread;
  *n_prev = 0;
  for (guint f = 0; f <= frame; f++) {
    guint32 peer_ms = 1000 + 40 * f;

    if (f > 0) {
      memcpy (prev, links, n * sizeof links[0]);
      *n_prev = n;
    }
    hear_all (&delays, peer_ms);
    n = donar_adaptive_pick (&adaptive, &delays, &groups, &paths, prev,
        *n_prev, (peer_ms + 200) * (gint64) MS, links);
    g_assert_cmpuint (n, ==, f < 24 ? 1 : 2);
  }
  g_rand_free (rand);
}

static void
test_spread_copies (void)
{
  static const guint spread[4][2] = { {0, 2}, {1, 3}, {0, 2}, {1, 3} };
  guint links[2], prev[2], n_prev;

  pick_with_credit (FALSE, 24, links, prev, &n_prev);
  g_assert_cmpuint (n_prev, ==, 1);
  g_assert_cmpuint (prev[0], ==, 1);
  g_assert_cmpuint (links[0], ==, 0);
  g_assert_cmpuint (links[1], ==, 1);
  for (guint f = 24; f < 28; f++) {
    pick_with_credit (TRUE, f, links, prev, &n_prev);
    g_assert_cmpuint (links[0], ==, spread[f - 24][0]);
    g_assert_cmpuint (links[1], ==, spread[f - 24][1]);
    for (guint k = 0; k < n_prev; k++)
      g_assert_true (links[0] != prev[k] && links[1] != prev[k]);
  }
}

/* Two sessions over four links of fixed one-way delays, in 1 ms steps:
 * each record arrives after its link's delay, and never before the one
 * sent ahead of it on the same link and direction. */
#define LINKS 12
#define QUEUE 256
#define FRAMES_KEPT 256

typedef struct
{
  gint64 arrival;
  gsize length;
  guint8 data[DONAR_CELL_PAYLOAD];
} Record;

typedef struct _Net Net;

typedef struct
{
  Net *net;
  guint side;
} End;

struct _Net
{
  guint n_links;                /* the first n_links of LINKS */
  DonarSession *session[2];
  End end[2];
  Record queue[2][LINKS][QUEUE];
  guint head[2][LINKS], count[2][LINKS];
  gint64 last_arrival[2][LINKS];
  gint64 now;
  gint64 slow_from;             /* link 0 takes 1 s from then on */
  gint64 frozen_from;           /* the last link delivers nothing from then */
  guint n_loaded;               /* links 0 to n_loaded - 1 take 2 s */
  gint64 callee_mute_from;      /* the callee hands over no frame from then */
  guint sent_on_0_before, sent_on_0_after;
  /* The caller's DATA records: when each link last took one, and the
   * longest it went without since the first frame. */
  gint64 last_data[LINKS];
  gint64 longest_gap[LINKS];
  guint data_sent[LINKS];
  /* The callee's DATA records on each link after 3 s. */
  guint callee_data_late[LINKS];
  guint delivered;
  /* When each of the caller's first frames reached the callee (the first
   * frame's sequence number is drawn at random). */
  guint32 first_seq;
  gint64 arrival[FRAMES_KEPT];
};

static gint64
link_delay (Net * net, guint link)
{
  static const gint64 base[LINKS] = { 80, 100, 110, 120, 130, 140, 150,
    160, 170, 180, 190, 200
  };

  if (link == 0 && net->now >= net->slow_from)
    return 1000 * MS;
  if (link < net->n_loaded)
    return 2000 * MS;
  if (link == net->n_links - 1 && net->now >= net->frozen_from)
    return G_MAXINT64 / 2;
  return base[link] * MS;
}

static void
on_send (gpointer user_data, guint link, const guint8 * record, gsize length)
{
  End *end = user_data;
  Net *net = end->net;
  guint side = end->side;
  Record *r;

  g_assert_cmpuint (net->count[side][link], <, QUEUE);
  r = &net->queue[side][link][(net->head[side][link] +
          net->count[side][link]) % QUEUE];
  r->arrival = MAX (net->last_arrival[side][link],
      net->now + link_delay (net, link));
  net->last_arrival[side][link] = r->arrival;
  r->length = length;
  memcpy (r->data, record, length);
  net->count[side][link]++;
  if (side == 0 && record[3] == DONAR_WIRE_TYPE_DATA) {
    net->longest_gap[link] = MAX (net->longest_gap[link],
        net->now - net->last_data[link]);
    net->last_data[link] = net->now;
    net->data_sent[link]++;
  }
  if (side == 1 && record[3] == DONAR_WIRE_TYPE_DATA &&
      net->now >= 3000 * MS)
    net->callee_data_late[link]++;
  /* The caller's DATA records on link 0. */
  if (side == 0 && link == 0 && record[3] == DONAR_WIRE_TYPE_DATA) {
    if (net->now < net->slow_from)
      net->sent_on_0_before++;
    else
      net->sent_on_0_after++;
  }
}

static void
on_deliver (gpointer user_data, guint32 seq, const guint8 * frame,
    gsize length, guint link, gboolean piggybacked)
{
  End *end = user_data;

  if (end->side == 1) {
    end->net->delivered++;
    guint32 f = seq - end->net->first_seq;

    if (f < FRAMES_KEPT && end->net->arrival[f] == 0)
      end->net->arrival[f] = end->net->now;
  }
}

static Net *
net_new (guint n_links, gdouble budget, gint64 slow_from, gint64 frozen_from)
{
  static const DonarCallbacks callbacks =
      { on_send, on_deliver, NULL, NULL, NULL };
  static const guint8 secret[32] = { 1, 2, 3 };
  DonarConfig config;
  Net *net = g_new0 (Net, 1);

  donar_config_init (&config);
  net->n_links = n_links;
  config.n_links = n_links;
  config.n_1st = 1;
  config.n_2nd = 1;
  config.policy = DONAR_POLICY_ADAPTIVE;
  config.budget = budget;
  net->slow_from = slow_from;
  net->frozen_from = frozen_from;
  net->callee_mute_from = G_MAXINT64;
  for (guint side = 0; side < 2; side++) {
    net->end[side].net = net;
    net->end[side].side = side;
    net->session[side] = donar_session_new (&config, side == 0 ?
        DONAR_ROLE_CALLER : DONAR_ROLE_CALLEE, secret, sizeof secret,
        &callbacks, &net->end[side], 0, NULL);
    g_assert_nonnull (net->session[side]);
  }
  for (guint link = 0; link < net->n_links; link++)
    for (guint side = 0; side < 2; side++) {
      guint8 nonce[DONAR_WIRE_NONCE] = { side, link };

      donar_session_link_up (net->session[side], link, nonce, 0);
    }
  /* The openings (CHALLENGE, HELLOs) cross before the first frame. */
  for (gboolean any = TRUE; any;) {
    any = FALSE;
    for (guint side = 0; side < 2; side++)
      for (guint link = 0; link < net->n_links; link++)
        while (net->count[side][link] > 0) {
          Record *r = &net->queue[side][link][net->head[side][link]];

          g_assert_cmpint (donar_session_receive (net->session[1 - side],
                  link, r->data, r->length, 0), ==, DONAR_OK);
          net->head[side][link] = (net->head[side][link] + 1) % QUEUE;
          net->count[side][link]--;
          any = TRUE;
        }
  }
  return net;
}

/* One millisecond: what is due arrives, the timers, a frame each period
 * from each side. */
static void
net_step (Net * net)
{
  static guint8 frame[172];

  for (guint side = 0; side < 2; side++)
    for (guint link = 0; link < net->n_links; link++)
      while (net->count[side][link] > 0) {
        Record *r = &net->queue[side][link][net->head[side][link]];

        if (r->arrival > net->now)
          break;
        g_assert_cmpint (donar_session_receive (net->session[1 - side],
                link, r->data, r->length, net->now), ==, DONAR_OK);
        net->head[side][link] = (net->head[side][link] + 1) % QUEUE;
        net->count[side][link]--;
      }
  for (guint side = 0; side < 2; side++)
    donar_session_handle_expiry (net->session[side], net->now);
  if (net->now % PERIOD == 0)
    for (guint side = 0; side < 2; side++)
      if (side == 0 || net->now < net->callee_mute_from)
        g_assert_cmpint (donar_session_send_frame (net->session[side], frame,
                sizeof frame, net->now), ==, DONAR_OK);
}

static void
net_free (Net * net)
{
  donar_session_free (net->session[0]);
  donar_session_free (net->session[1]);
  g_free (net);
}

static void
test_slow_link_left (void)
{
  Net *net = net_new (4, 1.0, 3000 * MS, G_MAXINT64);

  for (net->now = 0; net->now < 5000 * MS; net->now += MS)
    net_step (net);

  g_test_message ("link 0: %u before, %u after; %u delivered",
      net->sent_on_0_before, net->sent_on_0_after, net->delivered);
  /* Before, link 0 (80 ms) took every other frame, turn about with link
   * 1 (100 ms), the copy of each frame riding with the next: about 37 of
   * the 75 frames of 0 to 3 s. */
  g_assert_cmpuint (net->sent_on_0_before, >=, 30);
  /* Then it takes 1 s.  Word of the caller's frame sent on it at 3.0 s
   * should have come back by 3.18 s (80 ms there, the callee's next frame
   * within 40 ms, 80 ms back on link 0 or 100 on link 1): from then the
   * missing word counts against link 0, which is behind link 1 by 20 ms
   * at 3.2 s.  Frames of 3.0, 3.08 and 3.16 s at most, and one more for
   * the callee's own frames on link 0 stuck as well. */
  g_assert_cmpuint (net->sent_on_0_after, <=, 4);
  /* The copies saved every frame sent into the slow link: all but the
   * last few, still on their way at the end, came. */
  g_assert_cmpuint (net->delivered, >=, 125 - 3);
  net_free (net);
}

/* Twelve steady links, 80 to 200 ms, for 30 s at this budget: then the
 * longest each went without a frame of the caller's, its first and last
 * included. */
static Net *
run_steady (gdouble budget)
{
  Net *net = net_new (12, budget, G_MAXINT64, G_MAXINT64);

  for (net->now = 0; net->now < 30000 * MS; net->now += MS)
    net_step (net);
  for (guint link = 0; link < net->n_links; link++) {
    net->longest_gap[link] = MAX (net->longest_gap[link],
        net->now - net->last_data[link]);
    g_test_message ("link %u: %u frames, at most %" G_GINT64_FORMAT
        " ms without one", link, net->data_sent[link],
        net->longest_gap[link] / MS);
  }
  return net;
}

/* At budget 1 links 0 and 1 take the frames in turn, and the other ten,
 * of which no news comes, only the once-a-second probe of the link known
 * of the longest.  Known equally long ago (of nothing), the one sent on
 * the longest ago goes first, so the probe goes round them: each takes a
 * frame every 10 s, none goes longer without (in link order the probe
 * went to the first of them every time, and links 6 to 11 never carried
 * a frame in 30 s). */
static void
test_every_link_probed_at_budget_1 (void)
{
  Net *net = run_steady (1.0);

  for (guint link = 0; link < net->n_links; link++)
    g_assert_cmpint (net->longest_gap[link], <=, 10000 * MS);
  net_free (net);
}

/* A guard loaded with bulk traffic from the start: the 6 links through
 * it (0 to 5) take 2 s, both ways, the other 6 their 140 to 200 ms.  No
 * round trip is known until an acknowledgement comes back, and on the
 * loaded links that takes 4 s: link order alone would have both the
 * frames and their piggybacked copies on links 0 and 1 until then, 100
 * frames 2 s late in a row, a dropped call (25 frames missing or more
 * than 1 s late).  Round the links instead, a frame on link k has its
 * copy on link k + 1, so only the frames on links 0 to 4 miss, 5 in a
 * row, until the fast links' acknowledgements (within 0.5 s) let the
 * delays choose. */
static void
test_loaded_guard_at_start (void)
{
  Net *net = net_new (12, 1.0, G_MAXINT64, G_MAXINT64);
  guint run = 0, longest = 0;

  net->n_loaded = 6;
  net->first_seq = net->session[0]->next_seq;
  for (net->now = 0; net->now < 9000 * MS; net->now += MS)
    net_step (net);
  for (guint f = 0; f < 150; f++) {
    gint64 late = net->arrival[f] == 0 ? G_MAXINT64 :
        net->arrival[f] - f * PERIOD;

    run = late > 1000 * MS ? run + 1 : 0;
    longest = MAX (longest, run);
  }
  g_test_message ("at most %u frames in a row later than 1 s", longest);
  g_assert_cmpuint (longest, <=, 5);
  net_free (net);
}

/* The twelve steady links: ADAPTIVE sends on the fastest few,
 * and the once-a-second probe of the link known of the longest would come
 * to each of the nine or so others every nine seconds or so; at budget 2
 * every link takes a frame (a second copy) at least every 4 s, within a
 * few frames of it: before the first round trip every frame goes round
 * the links in two copies, so the links fall due two a frame, and a frame
 * takes one as its second copy; the twelfth at most 6 frames late.
 * Nobody's link goes unknown. */
static void
test_every_link_probed (void)
{
  Net *net = run_steady (2.0);

  for (guint link = 0; link < net->n_links; link++)
    g_assert_cmpint (net->longest_gap[link], <=, 4000 * MS + 6 * PERIOD);
  net_free (net);
}

/* Of twelve links, link 11, the slowest (200 ms), is one ADAPTIVE does not
 * use but to probe it; at 3 s its circuit freezes for good, both ways.  At budget 2 it is sent on at least
 * every 4 s (a frame's second copy), so a probe goes into it by 7.04 s at
 * the latest; unanswered while the other links deliver, the probe makes
 * it late, and the link engine gives it up once the lateness reaches its
 * stall timeout (5 s): by 7.04 s + 5 s + the least round trip (about 0.2
 * s).  The bound asked: within 10 s of the freeze. */
static void
test_frozen_link_found (void)
{
  Net *net = net_new (12, 2.0, G_MAXINT64, 3000 * MS);
  gint64 found = 0;

  for (net->now = 0; net->now < 20000 * MS && found == 0; net->now += MS) {
    net_step (net);
    if (donar_session_get_link_lateness (net->session[0], 11, net->now) >=
        5 * G_USEC_PER_SEC)
      found = net->now;
    /* No other link is ever late that long. */
    for (guint link = 0; link < 11; link++)
      g_assert_cmpint (donar_session_get_link_lateness (net->session[0],
              link, net->now), <, 5 * G_USEC_PER_SEC);
  }
  g_test_message ("link 11 frozen at 3 s, given up at %" G_GINT64_FORMAT
      " ms", found / MS);
  g_assert_cmpint (found, >, 3000 * MS + 5 * G_USEC_PER_SEC);
  g_assert_cmpint (found, <=, 3000 * MS + 10 * G_USEC_PER_SEC);
  net_free (net);
}

/* The callee stops handing over frames at 3 s (muted, on hold): it goes
 * on acknowledging the caller's frames, the latest of its own frames again
 * every 160 ms (4 periods), so the caller never takes it for a stalled
 * path and withholds nothing.  From 3 s to 10 s: 7 s of keepalives, 43
 * or 44 of them; the caller's frames all come. */
static void
test_muted_peer_acknowledges (void)
{
  Net *net = net_new (4, 2.0, G_MAXINT64, G_MAXINT64);
  DonarSessionStats caller, callee;

  net->callee_mute_from = 3000 * MS;
  for (net->now = 0; net->now < 10000 * MS; net->now += MS) {
    net_step (net);
    donar_session_get_stats (net->session[0], &caller);
    g_assert_false (caller.no_link_in_time);
  }
  donar_session_get_stats (net->session[1], &callee);
  g_test_message ("callee: %" G_GUINT64_FORMAT " keepalives; caller: %"
      G_GUINT64_FORMAT " frames withheld, %u delivered", callee.keepalives,
      caller.frames_withheld, net->delivered);
  g_assert_cmpuint (caller.stalls, ==, 0);
  g_assert_cmpuint (caller.frames_withheld, ==, 0);
  g_assert_cmpuint (callee.keepalives, >=, 43);
  g_assert_cmpuint (callee.keepalives, <=, 44);
  /* 250 frames; the last few still on their way at 10 s. */
  g_assert_cmpuint (net->delivered, >=, 250 - 3);
  net_free (net);
}

/* A callee that never hands over a frame (a listener, the README's demo):
 * its acknowledgements alone, every 160 ms from the first of the caller's
 * frames that comes, give the caller its round trip and its links' delays.
 * Links 0 to 3 take 2 s.  Blind, the caller would go round the links for
 * the whole call, two a frame: frames 0, 6, 12, ... on links {0, 1} with
 * their copy on {2, 3}, a sixth of the call 2 s late.  Told, it leaves them
 * at the first acknowledgement: frame 2 on {4, 5} comes at 80 + 130 ms,
 * the callee's answer goes out at once on link 4 and is back at 340 ms.
 * From 1 s on (frame 25) every frame is in time.  The callee's
 * acknowledgements go from 210 ms, every 160 ms: 62 before 10 s, none
 * with a frame. */
static void
test_silent_callee_acknowledges (void)
{
  Net *net = net_new (12, 2.0, G_MAXINT64, G_MAXINT64);
  DonarSessionStats callee;
  gint64 known_at = G_MAXINT64;
  guint late = 0;

  net->n_loaded = 4;
  net->callee_mute_from = 0;
  net->first_seq = net->session[0]->next_seq;
  for (net->now = 0; net->now < 10000 * MS; net->now += MS) {
    net_step (net);
    if (known_at == G_MAXINT64 &&
        donar_session_get_least_round_trip (net->session[0]) >= 0)
      known_at = net->now;
  }
  for (guint f = 25; f < 240; f++)
    if (net->arrival[f] == 0 || net->arrival[f] - f * PERIOD > 360 * MS)
      late++;
  donar_session_get_stats (net->session[1], &callee);
  g_test_message ("round trip known at %" G_GINT64_FORMAT " ms; %u of "
      "frames 25-239 late; callee: %" G_GUINT64_FORMAT " keepalives, %"
      G_GUINT64_FORMAT " frames sent", known_at / MS, late,
      callee.keepalives, callee.frames_sent);
  g_assert_cmpint (known_at, <=, 400 * MS);
  g_assert_cmpuint (late, ==, 0);
  g_assert_cmpuint (callee.frames_sent, ==, 0);
  g_assert_cmpuint (callee.keepalives, ==, 62);
  net_free (net);
}

/* A silent callee's acknowledgements are all its caller knows of its
 * links: each keepalive goes on the link whose way here is the fastest
 * and, at budget 2, in a second copy on the next.  Links 0 to 3 take 2 s:
 * their late frames keep arriving, so the link last heard (what the
 * keepalive took before) is often one of them.  By hand: once their
 * delays are reported (3 s in), the callee sends nothing on them, and
 * every keepalive is two records, on the fastest two of links 4 to 11
 * (130 to 200 ms, no relay known): links 4 and 5. */
static void
test_keepalive_on_fastest_ways (void)
{
  Net *net = net_new (12, 2.0, G_MAXINT64, G_MAXINT64);
  DonarSessionStats callee;
  guint64 keepalives_at_3s = 0, records = 0;

  net->n_loaded = 4;
  net->callee_mute_from = 0;
  for (net->now = 0; net->now < 10000 * MS; net->now += MS) {
    net_step (net);
    if (net->now == 3000 * MS - MS) {
      donar_session_get_stats (net->session[1], &callee);
      keepalives_at_3s = callee.keepalives;
    }
  }
  donar_session_get_stats (net->session[1], &callee);
  for (guint link = 0; link < 12; link++) {
    g_test_message ("link %u: %u records from the callee after 3 s", link,
        net->callee_data_late[link]);
    records += net->callee_data_late[link];
    if (link < 4 || link > 5)
      g_assert_cmpuint (net->callee_data_late[link], ==, 0);
  }
  g_assert_cmpuint (callee.keepalives, >, keepalives_at_3s);
  g_assert_cmpuint (records, ==, 2 * (callee.keepalives - keepalives_at_3s));
  g_assert_cmpuint (net->callee_data_late[4], ==, net->callee_data_late[5]);
  net_free (net);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/adaptive/copies-share-no-relay",
      test_copies_share_no_relay);
  g_test_add_func ("/adaptive/slow-link-left", test_slow_link_left);
  g_test_add_func ("/adaptive/spread-copies", test_spread_copies);
  g_test_add_func ("/adaptive/blind-copies-across-guards",
      test_blind_copies_across_guards);
  g_test_add_func ("/adaptive/blind-second-copy-on-fastest-opening",
      test_blind_second_copy_on_fastest_opening);
  g_test_add_func ("/adaptive/blind-second-copy-tied-openings-go-round",
      test_blind_second_copy_tied_openings_go_round);
  g_test_add_func ("/adaptive/spread-copies-across-relays",
      test_spread_copies_across_relays);
  g_test_add_func ("/adaptive/every-link-probed-at-budget-1",
      test_every_link_probed_at_budget_1);
  g_test_add_func ("/adaptive/every-link-probed", test_every_link_probed);
  g_test_add_func ("/adaptive/loaded-guard-at-start",
      test_loaded_guard_at_start);
  g_test_add_func ("/adaptive/frozen-link-found", test_frozen_link_found);
  g_test_add_func ("/adaptive/muted-peer-acknowledges",
      test_muted_peer_acknowledges);
  g_test_add_func ("/adaptive/silent-callee-acknowledges",
      test_silent_callee_acknowledges);
  g_test_add_func ("/adaptive/keepalive-on-fastest-ways",
      test_keepalive_on_fastest_ways);
  return g_test_run ();
}
