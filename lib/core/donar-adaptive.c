/* The choice of ADAPTIVE: every link's delay predicted from what the
 * session measured (lib/core/donar-delays.c), then the least of them. */
#include "donar-adaptive.h"

/* News of a link older than this is stale: the link may have recovered
 * (most spikes last under a second, seed 000 Fig. 5), so it is tried
 * again at its base delay. */
#define STALE_US (2 * G_USEC_PER_SEC)
/* A stale link that was slow when last seen waits twice as long before
 * each new try, up to this: a spike can last a minute. */
#define MAX_PROBE_INTERVAL_US (32 * G_USEC_PER_SEC)
/* A link more than this above its base is in a spike, not in its jitter:
 * a frame on it is worth a second copy. */
#define UNSURE_US (60 * 1000)
/* A frame and its copy go on links with no relay in common unless every
 * such link is predicted later than this: a link 100 ms slower still
 * makes the 360 ms deadline from the bases seen on Tor (100 to 250 ms),
 * and a relay in common can take both copies in one spike. */
#define SHARED_RELAY_PENALTY_US (100 * 1000)
/* After a probe the next frame carries the probe's only other copy: it
 * goes on a link known to be well, unless all of those are this late. */
#define AFTER_PROBE_PENALTY_US (200 * 1000)
/* Once a second, the link known of the longest (or never) carries a frame,
 * whatever its prediction: a link that neither side uses is known of by
 * nobody, and may be the one that recovered, or the one that has hung. */
#define PROBE_EVERY_FRAMES 25
/* And with a budget above 1, every link is sent on at least this often,
 * a frame's second copy: a circuit that froze while nobody used it is then
 * found (its probe unanswered) and replaced within 10 s, the probe's period
 * plus the 5 s a link may be late while others deliver (issue 24).  At
 * budget 1 a probe takes a frame's only copy, which costs calls: there the
 * once-a-second probe of the stalest link has to do. */
#define PROBE_PERIOD_US (4 * G_USEC_PER_SEC)
/* While no link is known to deliver in time, a link takes frames while
 * it holds fewer than this of ours without word: a few cells, which a
 * path that recovers lets out at once, and enough over a dozen links for
 * a second of frames to go out whole before any is withheld. */
#define STALL_IN_FLIGHT 3
/* Second copies saved up in calm times, for the unsure ones. */
#define MAX_CREDIT 25.0

void
donar_adaptive_init (DonarAdaptive * adaptive, gdouble budget,
    gint64 deadline_us)
{
  adaptive->budget = budget;
  adaptive->deadline_us = deadline_us;
  adaptive->over_bound = adaptive->in_time = 0;
  adaptive->no_link_in_time = FALSE;
  adaptive->in_time_since = G_MININT64;
  adaptive->stalled_since = G_MININT64;
  adaptive->stall_probe_us = G_MININT64;
  adaptive->stalled_frames = adaptive->stalls = adaptive->frames_withheld = 0;
  donar_fate_init (&adaptive->fate, DONAR_MAX_LINKS);
  adaptive->credit = 0;
  adaptive->spread_copies = TRUE;
  adaptive->last_was_probe = FALSE;
  adaptive->frames_since_probe = 0;
  adaptive->prior_known = FALSE;
  for (guint i = 0; i < DONAR_MAX_LINKS; i++) {
    adaptive->probed_us[i] = G_MININT64;
    adaptive->probe_interval_us[i] = STALE_US;
    adaptive->last_excess_us[i] = 0;
  }
}

typedef struct
{
  gint64 predicted;
  gint64 fresh;                 /* when its newest news was measured */
  gboolean stale;
  gboolean unsure;
} Prediction;

/* The base a link with no base known is taken to have: the median of the
 * others'.  Sorted by insertion as they come: a dozen values, once a frame,
 * where qsort's set-up and calls cost ten times more. */
static gint64
prior_floor (const DonarGroups * groups, const DonarLinkView * views)
{
  gint64 floors[DONAR_MAX_LINKS];
  guint n = 0;

  for (guint link = 0; link < groups->n_links; link++) {
    gint64 floor = views[link].floor;
    guint k;

    if (!groups->up[link] || floor == DONAR_DELAY_UNKNOWN)
      continue;
    for (k = n; k > 0 && floors[k - 1] > floor; k--)
      floors[k] = floors[k - 1];
    floors[k] = floor;
    n++;
  }
  if (n == 0)
    return 0;
  return floors[n / 2];
}

static void
predict (DonarAdaptive * adaptive, const DonarLinkView * view, guint link,
    gint64 prior, gint64 now, Prediction * p)
{
  if (adaptive->over_bound & (1u << link)) {
    /* Only a probe goes on it, when its turn comes as the link known of
     * the longest: what it holds already will be late. */
    p->stale = p->unsure = TRUE;
    p->fresh = adaptive->probed_us[link];
    p->predicted = G_MAXINT64 / 4;
    return;
  }

  gint64 fresh = view->fresh, floor = view->floor;
  gint64 known = view->predicted;
  gint64 excess = view->excess;

  if (floor == DONAR_DELAY_UNKNOWN)
    floor = prior;
  /* Frames overdue on it: its delay is known to be at least that. */
  if (excess > 0) {
    known = known == DONAR_DELAY_UNKNOWN ? excess : MAX (known, excess);
    fresh = now;
  }
  p->fresh = known == DONAR_DELAY_UNKNOWN ? G_MININT64 : fresh;
  p->stale = known == DONAR_DELAY_UNKNOWN || now - fresh > STALE_US;
  p->unsure = p->stale || known - floor > UNSURE_US;
  if (!p->stale) {
    adaptive->last_excess_us[link] = known - floor;
    p->predicted = known;
  } else if (adaptive->probed_us[link] == G_MININT64 ||
      now - adaptive->probed_us[link] > adaptive->probe_interval_us[link])
    /* Idle long enough to have recovered: worth a frame, whose copy
     * follows on another link. */
    p->predicted = floor;
  else
    /* As it was when last known. */
    p->predicted = floor + MAX (adaptive->last_excess_us[link], 0);
}

static gboolean
listed (guint link, const guint * list, guint n)
{
  for (guint k = 0; k < n; k++)
    if (list[k] == link)
      return TRUE;
  return FALSE;
}

/* The up link known of the longest ago, other than avoid[]; -1 if none.
 * Of links known of equally long ago (those known of nothing, above all)
 * the one sent on the longest ago: link order would probe the first of
 * them again and again, the others never. */
static gint
stalest_link (const DonarGroups * groups, const Prediction * p,
    const guint * avoid, guint n_avoid)
{
  gint stalest = -1;

  for (guint link = 0; link < groups->n_links; link++)
    if (groups->up[link] && !listed (link, avoid, n_avoid) &&
        (stalest < 0 || p[link].fresh < p[stalest].fresh ||
            (p[link].fresh == p[stalest].fresh &&
                groups->last_used[link] < groups->last_used[stalest])))
      stalest = link;
  return stalest;
}

/* The stale up link sent on the longest ago (or never), other than
 * avoid[]; -1 if none. */
static gint
idlest_link (const DonarGroups * groups, const Prediction * p,
    const guint * avoid, guint n_avoid)
{
  gint idlest = -1;

  for (guint link = 0; link < groups->n_links; link++)
    if (groups->up[link] && p[link].stale && !listed (link, avoid, n_avoid) &&
        (idlest < 0 || groups->last_used[link] < groups->last_used[idlest]))
      idlest = link;
  return idlest;
}

/* The up link with the least predicted delay, other than avoid[] (unless
 * nothing else is up), with a penalty on those that share a relay with
 * one of avoid[]; -1 if none is up.  Which links those are is worked out
 * once, as masks, rather than for every link and every one of avoid[]. */
static gint
best_link (guint32 up, const DonarPaths * paths, const DonarFate * fate,
    const Prediction * p, const guint * avoid, guint n_avoid, gint exclude)
{
  gint best = -1;
  gint64 best_cost = G_MAXINT64;
  guint32 avoided = 0, sharing = 0, candidates;

  for (guint k = 0; k < n_avoid; k++) {
    avoided |= 1u << avoid[k];
    sharing |= donar_paths_sharing (paths, avoid[k]) |
        donar_fate_together (fate, avoid[k]);
  }
  if (exclude >= 0)
    up &= ~(1u << exclude);
  candidates = up & ~avoided;
  if (candidates == 0)
    candidates = up;
  /* In link order: the first of equal costs wins. */
  while (candidates) {
    guint link = __builtin_ctz (candidates);
    gint64 cost = p[link].predicted;

    candidates &= candidates - 1;
    if (sharing & (1u << link))
      cost += SHARED_RELAY_PENALTY_US;
    if (best < 0 || cost < best_cost) {
      best = link;
      best_cost = cost;
    }
  }
  return best;
}

gint64
donar_adaptive_bound (const DonarAdaptive * adaptive,
    const DonarDelays * delays)
{
  gint64 round_trip = donar_delays_least_round_trip (delays);

  if (round_trip == DONAR_DELAY_UNKNOWN)
    return G_MAXINT64;
  /* The excess counts from the least round trip, half of which is the way
   * there: a frame that far behind has been on its way for more than the
   * deadline.  Never less than a frame period, the excess's own grain. */
  return MAX (adaptive->deadline_us - round_trip / 2, delays->frame_period_us);
}

/* A link's news says it is in a spike: well above its base. */
static inline gboolean
spiking (const Prediction * p, const DonarLinkView * view, gint64 prior)
{
  gint64 floor = view->floor == DONAR_DELAY_UNKNOWN ? prior : view->floor;

  return !p->stale && p->predicted - floor > UNSURE_US;
}

/* Each link that went into a spike at its latest news is set beside the
 * others: those that went in with it, within about a one-way delay (half
 * the least round trip), share its fate; those known calm then do not. */
static void
note_fate (DonarAdaptive * adaptive, const DonarDelays * delays,
    const Prediction * p, const DonarLinkView * views, guint32 known,
    gint64 prior)
{
  gint64 round_trip = donar_delays_least_round_trip (delays);
  gint64 window = round_trip == DONAR_DELAY_UNKNOWN ?
      STALE_US : MAX (round_trip / 2, delays->frame_period_us);

  for (guint32 rest = known; rest; rest &= rest - 1) {
    guint link = __builtin_ctz (rest);
    gboolean spike = spiking (&p[link], &views[link], prior);
    guint32 calm = 0;

    if (p[link].stale)
      continue;
    if (spike && !adaptive->fate.in_spike[link])
      for (guint32 others = known; others; others &= others - 1) {
        guint other = __builtin_ctz (others);

        if (!spiking (&p[other], &views[other], prior) && !p[other].stale &&
            ABS (p[other].fresh - p[link].fresh) <= window)
          calm |= 1u << other;
      }
    donar_fate_note (&adaptive->fate, link, spike, p[link].fresh, calm, window);
  }
}

/* Which links are over their bound, and which the peer lately said
 * delivered our frames (within a deadline, and not over it). */
static void
classify (DonarAdaptive * adaptive, const DonarDelays * delays,
    const DonarLinkView * views, guint32 up, gint64 now)
{
  gint64 bound = donar_adaptive_bound (adaptive, delays);

  adaptive->over_bound = adaptive->in_time = 0;
  for (guint32 rest = up; rest; rest &= rest - 1) {
    guint link = __builtin_ctz (rest);

    if (views[link].excess > bound)
      adaptive->over_bound |= 1u << link;
    else if (views[link].acked != G_MININT64 &&
        now - views[link].acked <= adaptive->deadline_us)
      adaptive->in_time |= 1u << link;
  }
}

/* candidates without the previous frame's links, as far as that leaves
 * any: its copy rides with this frame. */
static guint32
off_previous (guint32 candidates, const guint * prev, guint n_prev)
{
  for (guint k = 0; k < n_prev && (candidates & ~(1u << prev[k])); k++)
    candidates &= ~(1u << prev[k]);
  return candidates;
}

/* Of candidates (not 0), the link sent on the longest ago: round the
 * links. */
static guint
sent_longest_ago (const DonarGroups * groups, guint32 candidates)
{
  gint oldest = -1;

  for (; candidates; candidates &= candidates - 1) {
    guint link = __builtin_ctz (candidates);

    if (oldest < 0 || groups->last_used[link] < groups->last_used[oldest])
      oldest = link;
  }
  return oldest;
}

/* No link is known to deliver in time.  Every cell written into a stalled
 * path is one that the fresh frames will wait behind once it recovers,
 * however slowly its backlog drains then; but most such states are only
 * a spike of the links in use, shorter than STALE_US, in which the frames
 * that get through as it eases are what keeps the call.  So:
 * - the moment the peer is heard (its path is back), a link that holds
 *   nothing of ours, if one is left, takes the frame;
 * - for a spike's length, each frame goes once, round the links (the one
 *   sent on the longest ago first);
 * - then, while the peer is still heard now and then (news that some way
 *   works; our frames may only wait for a slow way back) or some link
 *   holds fewer than STALL_IN_FLIGHT of ours, each frame goes once, on
 *   such a link if there is one;
 * - once the peer is silent too and every link holds that many, one frame
 *   a least round trip (no answer can come sooner) goes out, on the link
 *   that holds the most already, and the rest are withheld: the other
 *   links hold at the release what the first seconds gave them, whatever
 *   the stall's length. */
static guint
pick_stalled (DonarAdaptive * adaptive, const DonarDelays * delays,
    const DonarGroups * groups, const DonarLinkView * views, guint32 up,
    const guint * prev, guint n_prev, gint64 now, guint * links)
{
  gint64 period = MAX (donar_delays_least_round_trip (delays),
      delays->frame_period_us);
  gboolean heard = now - delays->last_heard_us <= 2 * delays->frame_period_us;
  gboolean silent = now - delays->last_heard_us > adaptive->deadline_us;
  guint32 clean = 0, room = 0, candidates;
  guint oldest;

  if (!adaptive->no_link_in_time) {
    adaptive->stalls++;
    adaptive->stall_probe_us = G_MININT64;
    adaptive->stalled_since = now;
  }
  adaptive->no_link_in_time = TRUE;
  adaptive->stalled_frames++;
  for (guint32 rest = up; rest; rest &= rest - 1) {
    guint link = __builtin_ctz (rest);

    if (views[link].in_flight == 0)
      clean |= 1u << link;
    if (views[link].in_flight < STALL_IN_FLIGHT)
      room |= 1u << link;
  }
  if (heard && clean)
    candidates = clean;
  else if (now - adaptive->stalled_since < STALE_US)
    candidates = up;
  else if (room || !silent)
    candidates = room ? room : up;
  else if (adaptive->stall_probe_us != G_MININT64 &&
      now - adaptive->stall_probe_us < period) {
    adaptive->frames_withheld++;
    return 0;
  } else {
    /* A probe: on the link that holds the most already, where one cell
     * more delays the least, so that the others drain at the release as
     * soon as they can. */
    guint most = 0;

    for (guint32 rest = up; rest; rest &= rest - 1)
      most = MAX (most, views[__builtin_ctz (rest)].in_flight);
    candidates = 0;
    for (guint32 rest = up; rest; rest &= rest - 1)
      if (views[__builtin_ctz (rest)].in_flight == most)
        candidates |= 1u << __builtin_ctz (rest);
    adaptive->stall_probe_us = now;
  }
  oldest = sent_longest_ago (groups, off_previous (candidates, prev, n_prev));
  adaptive->last_was_probe = TRUE;
  adaptive->probed_us[oldest] = now;
  links[0] = oldest;
  return 1;
}

/* Whether an up link has told no delay yet. */
static gboolean
some_unheard (const DonarLinkView * views, guint32 up)
{
  for (guint32 rest = up; rest; rest &= rest - 1)
    if (views[__builtin_ctz (rest)].floor == DONAR_DELAY_UNKNOWN)
      return TRUE;
  return FALSE;
}

/* Of candidates, the links whose opening took the least round trip (all
 * tied at it); 0 where no opening has been answered.  Openings that tell
 * no link apart (an emulation whose openings take no time) leave the
 * choice to the caller's round. */
static guint32
fastest_openings (const DonarDelays * delays, guint32 candidates)
{
  guint32 fastest = 0;
  gint64 least = DONAR_DELAY_UNKNOWN;

  for (; candidates; candidates &= candidates - 1) {
    guint link = __builtin_ctz (candidates);
    gint64 rtt = donar_delays_opening_round_trip (delays, link);

    if (rtt < least) {
      least = rtt;
      fastest = 0;
    }
    if (rtt == least && rtt != DONAR_DELAY_UNKNOWN)
      fastest |= 1u << link;
  }
  return fastest;
}

/* No round trip known yet, and links not heard from: no acknowledgement
 * has come back on any link, so a delay is known only against the other
 * links heard, and one whose frames have not come back for seconds looks
 * as good as a link never tried.  This is the start of every call, and
 * it lasts while every link used so far is slow: at a guard loaded with
 * bulk traffic, the first links used are as likely as not to be the
 * loaded guard's, and their acknowledgements take seconds to come.
 * What is known is each link's opening: the round trip from our first
 * message of it to the peer's HELLO crossed the circuit's relays less
 * than a second ago, and their queues last longer than that.  So a
 * frame goes first on the link sent on the longest ago, round the links,
 * as pick_stalled does: the links of the other guards then carry every
 * other frame or its piggybacked copy, and their acknowledgements bring
 * the first round trip within one.  Its second copy, where the budget has
 * one, goes on the link whose opening was the fastest (of those tied,
 * the one sent on the longest ago), the one likeliest to deliver it in
 * time while the first explores.  As far as the paths
 * known allow, that link has no relay in common with the first: a guard
 * in a spike holds all the links through it, and the order the links
 * came up in may have put two of them side by side.  Both copies keep off
 * the previous frame's links, whose copy rides with this one. */
static guint
pick_blind (DonarAdaptive * adaptive, const DonarDelays * delays,
    const DonarGroups * groups, const DonarPaths * paths, guint32 up,
    const guint * prev, guint n_prev, gint64 now, guint * links)
{
  guint n = 0;
  guint32 candidates = off_previous (up, prev, n_prev);

  while (n < 2 && candidates) {
    guint32 apart = n == 0 ? candidates :
        candidates & ~donar_paths_sharing (paths, links[0]);
    guint32 pool = apart ? apart : candidates;
    guint32 fastest = n == 1 ? fastest_openings (delays, pool) : 0;
    guint link = sent_longest_ago (groups, fastest ? fastest : pool);

    links[n++] = link;
    candidates &= ~(1u << link);
    adaptive->probed_us[link] = now;
    /* A second copy where the budget has it. */
    if (adaptive->credit < 1.0)
      break;
    adaptive->credit -= 1.0;
  }
  adaptive->last_was_probe = FALSE;
  return n;
}

guint
donar_adaptive_pick (DonarAdaptive * adaptive, const DonarDelays * delays,
    const DonarGroups * groups, const DonarPaths * paths, const guint * prev,
    guint n_prev, gint64 now, guint * links)
{
  Prediction p[DONAR_MAX_LINKS];
  DonarLinkView views[DONAR_MAX_LINKS];
  gint64 prior;
  gint first, second, idlest;
  gboolean trouble, idle_due;
  guint n = 0;
  guint32 up = 0;

  /* What the delays say of each link, read once for the base and the
   * predictions both. */
  for (guint link = 0; link < groups->n_links; link++)
    if (groups->up[link])
      up |= 1u << link;
  donar_delays_views (delays, up, now, views);
  classify (adaptive, delays, views, up, now);
  adaptive->credit = MIN (adaptive->credit + adaptive->budget - 1.0,
      MAX_CREDIT);
  if (up == 0)
    return 0;
  if (adaptive->in_time == 0 && adaptive->over_bound != 0)
    return pick_stalled (adaptive, delays, groups, views, up, prev, n_prev,
        now, links);
  if (donar_delays_least_round_trip (delays) == DONAR_DELAY_UNKNOWN &&
      some_unheard (views, up))
    return pick_blind (adaptive, delays, groups, paths, up, prev, n_prev,
        now, links);
  if (adaptive->no_link_in_time)
    adaptive->in_time_since = now;
  adaptive->no_link_in_time = FALSE;
  /* The floors change seldom (a new least delay, a new bucket): the
   * median of the last frame stands while they and the links up do not. */
  if (!adaptive->prior_known || up != adaptive->prior_up ||
      delays->floor_changes != adaptive->prior_floor_changes) {
    adaptive->prior = prior_floor (groups, views);
    adaptive->prior_up = up;
    adaptive->prior_floor_changes = delays->floor_changes;
    adaptive->prior_known = TRUE;
  }
  prior = adaptive->prior;
  for (guint link = 0; link < groups->n_links; link++)
    if (groups->up[link]) {
      predict (adaptive, &views[link], link, prior, now, &p[link]);
      /* A probe's frame has its only other copy in the next message:
       * that one goes on a link known to be well. */
      if (adaptive->last_was_probe && p[link].stale)
        p[link].predicted += AFTER_PROBE_PENALTY_US;
    }

  note_fate (adaptive, delays, p, views, up & ~adaptive->over_bound, prior);
  /* The previous frame's copy rides with this one: on a path of its own.
   * A link over its bound takes nothing but its probes. */
  first = best_link (up & ~adaptive->over_bound, paths, &adaptive->fate, p,
      prev, n_prev, -1);
  idlest = idlest_link (groups, p, prev, n_prev);
  idle_due = adaptive->budget > 1.0 && idlest >= 0 &&
      (groups->last_used[idlest] == G_MININT64 ||
      now - groups->last_used[idlest] >= PROBE_PERIOD_US);
  if (++adaptive->frames_since_probe >= PROBE_EVERY_FRAMES && !idle_due &&
      !adaptive->last_was_probe && first >= 0 && !p[first].stale) {
    gint stalest = stalest_link (groups, p, prev, n_prev);

    if (stalest >= 0 && p[stalest].stale) {
      first = stalest;
      adaptive->frames_since_probe = 0;
    }
  }
  if (first < 0)
    return 0;
  links[n++] = first;
  /* Links in trouble together: every frame in two copies on links that
   * were not seen to jump with each other, as DOUBLE-SEND's groups do,
   * on credit if need be (repaid in the calm that follows), until the
   * trouble is a spike's length old. */
  trouble = adaptive->budget > 1.0 && adaptive->fate.joint_onset_us !=
      G_MININT64 && now - adaptive->fate.joint_onset_us < STALE_US;
  if (idle_due && idlest != first && adaptive->credit > -MAX_CREDIT) {
    /* A link idle for a probe period: the frame's second copy, paid from
     * the budget's credit, so that the frame's first copy still goes on
     * the best link. */
    links[n++] = idlest;
    adaptive->credit -= 1.0;
  } else if ((adaptive->credit >= 1.0 || (trouble &&
              adaptive->credit > -MAX_CREDIT)) && (p[first].unsure ||
          trouble || adaptive->credit >= MAX_CREDIT)) {
    guint avoid[1 + DONAR_MAX_LINKS];
    guint n_avoid = 1;

    avoid[0] = first;
    if (adaptive->spread_copies)
      for (guint k = 0; k < n_prev && n_avoid < G_N_ELEMENTS (avoid); k++)
        avoid[n_avoid++] = prev[k];
    second = best_link (up & ~adaptive->over_bound, paths, &adaptive->fate,
        p, avoid, n_avoid, first);
    if (second >= 0) {
      links[n++] = second;
      adaptive->credit -= 1.0;
    }
  }
  adaptive->last_was_probe = FALSE;
  for (guint i = 0; i < n; i++) {
    guint link = links[i];

    if (!p[link].stale)
      continue;
    adaptive->last_was_probe = TRUE;
    adaptive->probed_us[link] = now;
    adaptive->probe_interval_us[link] =
        adaptive->last_excess_us[link] > UNSURE_US ?
        MIN (2 * adaptive->probe_interval_us[link], MAX_PROBE_INTERVAL_US) :
        STALE_US;
  }
  return n;
}
