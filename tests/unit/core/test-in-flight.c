/* ADAPTIVE's bound on what is in flight on a link (issue 26), worked out
 * by hand over a small network of four links:
 *
 * - each way takes 100 ms on every link; the peer's messages come on
 *   every link, stamped 100 ms before they arrive, so the clocks' offset
 *   is 100 ms and the links' delays toward us are 0, 10, 20 and 30 ms
 *   above it (link 0 is the fastest);
 * - a frame we send at t reaches the peer at t + 100 ms, and its
 *   acknowledgement is back at t + 200 ms: the least round trip is 200 ms;
 * - the bound is then 360 - 200 / 2 = 260 ms of excess: a link is over it
 *   once its oldest frame without word was sent more than 460 ms before
 *   the peer's newest news (news that arrives at t left at t - 100, and is
 *   read as if it had come the fastest way: at t).
 *
 * A stall holds what a link carries (both ways) from its start to its
 * release, then lets it out in order, as a circuit behind a congested
 * guard would. */
#include "donar-session-private.h"

#include <string.h>

#define MS 1000
#define PERIOD (40 * MS)
#define LINKS 4
#define ONE_WAY (100 * MS)
#define MAX_SENDS 1024

typedef struct
{
  guint32 seq;
  guint link;
  gint64 sent;
  gboolean acked;
} Send;

typedef struct
{
  DonarDelays delays;
  DonarAdaptive adaptive;
  DonarGroups groups;
  DonarPaths paths;
  GRand *rand;
  Send sends[MAX_SENDS];
  guint n_sends;
  guint32 seq;
  guint prev[2], n_prev;
  /* Per link: held from stall_from until release (G_MAXINT64: never). */
  gint64 stall_from[LINKS];
  gint64 release[LINKS];
} Net;

static void
net_init (Net * net, gdouble budget)
{
  memset (net, 0, sizeof *net);
  net->rand = g_rand_new_with_seed (1);
  donar_groups_init (&net->groups, LINKS, 1, 1, net->rand);
  donar_paths_init (&net->paths, LINKS);
  for (guint link = 0; link < LINKS; link++) {
    donar_groups_link_up (&net->groups, link);
    net->stall_from[link] = net->release[link] = G_MAXINT64;
  }
  donar_delays_init (&net->delays, LINKS, PERIOD, 0);
  donar_adaptive_init (&net->adaptive, budget, 360 * MS);
}

static void
net_stall (Net * net, guint link, gint64 from, gint64 release)
{
  net->stall_from[link] = from;
  net->release[link] = release;
}

/* When what enters the link at `t` comes out of it. */
static gint64
net_through (const Net * net, guint link, gint64 t)
{
  if (t + ONE_WAY >= net->stall_from[link] && t < net->release[link])
    return MAX (t, net->release[link]) + ONE_WAY;
  return t + ONE_WAY;
}

/* Everything due by `now`: the peer's message sent at now - 100 ms on
 * every link that lets it through by now, and the acknowledgements of our
 * frames, which ride on the peer's messages. */
static void
net_deliver (Net * net, gint64 now)
{
  guint8 ages[LINKS];
  gboolean any = FALSE;
  guint32 ack = 0;
  gint32 newest[LINKS];

  for (guint link = 0; link < LINKS; link++) {
    gint64 left = now - ONE_WAY - 10 * MS * link;

    if (net_through (net, link, left) + 10 * MS * link <= now)
      donar_delays_on_arrival (&net->delays, link, 0,
          (guint32) (left / MS), now);
    newest[link] = -1;
  }
  /* A frame is acknowledged once it is through and the peer's word of it
   * is back: that word takes the fastest way that lets it through. */
  for (guint i = 0; i < net->n_sends; i++) {
    Send *s = &net->sends[i];
    gint64 there = net_through (net, s->link, s->sent);
    gboolean back = FALSE;

    for (guint link = 0; link < LINKS && !back; link++)
      back = net_through (net, link, there) <= now;
    if (!back)
      continue;
    if (!any || donar_seq_diff (s->seq, ack) > 0)
      ack = s->seq;
    any = TRUE;
    if (newest[s->link] < 0 || (gint32) s->seq > newest[s->link])
      newest[s->link] = s->seq;
  }
  if (!any)
    return;
  for (guint link = 0; link < LINKS; link++)
    ages[link] = newest[link] < 0 || ack - newest[link] >= DONAR_WIRE_ACK_NONE
        ? DONAR_WIRE_ACK_NONE : ack - newest[link];
  donar_delays_on_acks (&net->delays, ack, ages, LINKS, now);
}

/* One frame handed over at `now`: returns how many links took it. */
static guint
net_frame (Net * net, gint64 now, guint * links)
{
  guint n;

  net_deliver (net, now);
  n = donar_adaptive_pick (&net->adaptive, &net->delays, &net->groups,
      &net->paths, net->prev, net->n_prev, now, links);
  for (guint i = 0; i < n; i++) {
    g_assert_cmpuint (net->n_sends, <, MAX_SENDS);
    net->sends[net->n_sends++] = (Send) {
    net->seq, links[i], now, FALSE};
    donar_delays_on_send (&net->delays, links[i], net->seq, now);
    donar_groups_mark_used (&net->groups, links[i], now);
    net->prev[i] = links[i];
  }
  net->n_prev = n;
  net->seq++;
  return n;
}

static void
net_clear (Net * net)
{
  g_rand_free (net->rand);
}

/* The bound follows from the deadline and the least round trip. */
static void
test_bound_value (void)
{
  Net net;
  guint links[2];

  net_init (&net, 1.0);
  g_assert_cmpint (donar_adaptive_bound (&net.adaptive, &net.delays), ==,
      G_MAXINT64);
  for (gint64 t = 1000 * MS; t < 2000 * MS; t += PERIOD)
    net_frame (&net, t, links);
  g_assert_cmpint (donar_delays_least_round_trip (&net.delays), ==, 200 * MS);
  g_assert_cmpint (donar_adaptive_bound (&net.adaptive, &net.delays), ==,
      260 * MS);
  net_clear (&net);
}

/* Link 0 (the fastest) stalls at 3 s for 3 s.  It takes every other frame
 * (1.64 s, 1.72 s, ...: never the previous frame's link), so the first it
 * holds is that of 2.92 s (there at 3.02 s); with no word of it by 3.38 s
 * (2.92 + 0.46 s), from the frame of 3.4 s on link 0 is over its bound and
 * gets nothing but probes,
 * while the call goes on over the others.  Its release at 6 s lets out
 * what it held, at the peer at 6.1 s; the word of it is back at 6.2 s and
 * frees it. */
static void
test_link_over_bound_gets_probes (void)
{
  Net net;
  guint links[2];
  guint over_from = 0, probes = 0, sent_on_0 = 0;
  gint64 freed = 0;

  net_init (&net, 1.0);
  net_stall (&net, 0, 3000 * MS, 6000 * MS);
  for (gint64 t = 1000 * MS; t < 8000 * MS; t += PERIOD) {
    guint n = net_frame (&net, t, links);
    gboolean over = (net.adaptive.over_bound & 1) != 0;

    g_assert_cmpuint (n, >=, 1);
    g_assert_false (net.adaptive.no_link_in_time);
    if (over && over_from == 0)
      over_from = t / MS;
    if (!over && over_from != 0 && freed == 0)
      freed = t / MS;
    for (guint i = 0; i < n; i++)
      if (links[i] == 0 && t >= 3000 * MS && t < 6000 * MS) {
        sent_on_0++;
        if (over) {
          /* A probe: the newest frame, once, on the link known of the
           * longest. */
          g_assert_true (net.adaptive.last_was_probe);
          g_assert_cmpuint (n, ==, 1);
          probes++;
        }
      }
  }
  g_test_message ("over from %u ms, freed at %" G_GINT64_FORMAT " ms; "
      "%u frames on link 0 during the stall, %u of them probes", over_from,
      freed, sent_on_0, probes);
  g_assert_cmpuint (over_from, ==, 3400);
  /* Freed by the word of what it held, back 200 ms after the release. */
  g_assert_cmpint (freed, ==, 6200);
  /* Over its bound for about 2.6 s: a probe a second at most (the link
   * known of the longest, every 25 frames). */
  g_assert_cmpuint (probes, <=, 3);
  /* Before the bound: the frames of 3.0 s to over_from, every other one
   * (never the previous frame's link). */
  g_assert_cmpuint (sent_on_0 - probes, <=, (over_from - 3000) / 80 + 1);
  net_clear (&net);
}

/* Every link stalls at 2 s for 10 s, both ways.  Before, the frames went
 * on links 0 and 1 in turn (0 is the fastest; never the previous frame's
 * link): 1.72 s and 1.8 s on link 0, 1.76 s and 1.84 s on link 1.  The
 * frames of 1.8 s and later never reach the peer before 2 s, nor does the
 * word of those of 1.76 s and before after 1.96 s.  The peer is silent, so
 * its news is "now", and a link is over its bound once its oldest frame
 * without word is more than 460 ms old: link 0 (1.8 s) from 2.28 s, link 1
 * (1.84 s) from the frame of 2.32 s.  The other two were acknowledged at
 * no time (they had nothing in flight).  So from 2.32 s no link is in
 * time.  For a spike's length (2 s: most are shorter, and what gets
 * through as one eases keeps the call) every frame goes once, round the
 * links.  Then, the peer silent, one frame a least round trip (200 ms)
 * goes out, on the link that holds the most already, and the others are
 * withheld: the other links hold at the release what they took in the
 * first 2 s, whatever the stall's length.  When the peer's messages held
 * since 1.9 s come, at 12.1 s, every frame goes again. */
static void
test_every_link_stalled (void)
{
  Net net;
  guint links[2];
  gint64 stalled_at = 0, back_at = 0;
  guint per_link[LINKS] = { 0 };
  guint last[LINKS], n_last = 0;

  net_init (&net, 2.0);
  for (guint link = 0; link < LINKS; link++)
    net_stall (&net, link, 2000 * MS, 12000 * MS);
  for (gint64 t = 1000 * MS; t < 14000 * MS; t += PERIOD) {
    guint n = net_frame (&net, t, links);

    if (net.adaptive.no_link_in_time && stalled_at == 0)
      stalled_at = t / MS;
    if (!net.adaptive.no_link_in_time && stalled_at != 0 && back_at == 0)
      back_at = t / MS;
    if (!net.adaptive.no_link_in_time)
      continue;
    g_assert_cmpuint (n, ==, t < 4320 * MS || t >= 12100 * MS ||
        (t / MS - 4320) % 200 == 0 ? 1 : 0);
    if (n == 0)
      continue;
    per_link[links[0]]++;
    if (t >= 4320 * MS)
      continue;
    /* Round the links: four frames in a row on four links. */
    for (guint k = 0; k < n_last; k++)
      g_assert_cmpuint (last[k], !=, links[0]);
    if (n_last == LINKS - 1) {
      memmove (last, last + 1, (LINKS - 2) * sizeof last[0]);
      n_last--;
    }
    last[n_last++] = links[0];
  }
  g_test_message ("no link in time from %" G_GINT64_FORMAT " ms to %"
      G_GINT64_FORMAT " ms; frames a link: %u %u %u %u", stalled_at,
      back_at, per_link[0], per_link[1], per_link[2], per_link[3]);
  g_assert_cmpint (stalled_at, ==, 2320);
  /* The word of what the links held is back at 12.2 s. */
  g_assert_cmpint (back_at, ==, 12200);
  g_assert_cmpuint (net.adaptive.stalls, ==, 1);
  /* The frames of 2.32 s to 12.16 s, 247, of which those of 2.32 s to
   * 4.28 s (50), the probes of 4.32 s, 4.52 s, ... 12.12 s (39) and those
   * of 12.12 s and 12.16 s went out: 91. */
  g_assert_cmpuint (net.adaptive.stalled_frames, ==, 247);
  g_assert_cmpuint (net.adaptive.frames_withheld, ==, 247 - 91);
  /* The probes all on one link (it held the most, and holds more with
   * each): the three others hold about a quarter of the first 2 s each. */
  for (guint link = 0, probed = 0; link < LINKS; link++) {
    if (per_link[link] > 14) {
      g_assert_cmpuint (probed++, ==, 0);
      continue;
    }
    g_assert_cmpuint (per_link[link], >=, 12);
  }
  net_clear (&net);
}

/* Only the links in use (0 and 1) stall, both ways, from 3 s to 6 s: the
 * others (2 and 3, 20 and 30 ms slower) are well and were heard on all
 * along.  That is a spike of two links, not a stall of the call: the
 * frames move to links 2 and 3 as 0 and 1 fall behind, before either is
 * over its bound, and none is withheld. */
static void
test_links_in_use_stalled (void)
{
  Net net;
  guint links[2];
  guint on_2_or_3 = 0;

  net_init (&net, 1.0);
  net_stall (&net, 0, 3000 * MS, 6000 * MS);
  net_stall (&net, 1, 3000 * MS, 6000 * MS);
  for (gint64 t = 1000 * MS; t < 8000 * MS; t += PERIOD) {
    guint n = net_frame (&net, t, links);

    g_assert_cmpuint (n, ==, 1);
    g_assert_false (net.adaptive.no_link_in_time);
    if (t >= 3400 * MS && t < 6000 * MS && links[0] >= 2)
      on_2_or_3++;
  }
  g_test_message ("frames of 3.4 to 6 s on links 2 and 3: %u of 65", on_2_or_3);
  /* Once 0 and 1 are over their bound (from 3.4 s at the latest: their
   * frames of 2.92 s and 2.96 s have no word by then), only probes go on
   * them: a probe a second at most. */
  g_assert_cmpuint (on_2_or_3, >=, 65 - 3);
  g_assert_cmpuint (net.adaptive.stalls, ==, 0);
  g_assert_cmpuint (net.adaptive.frames_withheld, ==, 0);
  net_clear (&net);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/in-flight/bound", test_bound_value);
  g_test_add_func ("/in-flight/over-bound-gets-probes",
      test_link_over_bound_gets_probes);
  g_test_add_func ("/in-flight/links-in-use-stalled",
      test_links_in_use_stalled);
  g_test_add_func ("/in-flight/every-link-stalled", test_every_link_stalled);
  return g_test_run ();
}
