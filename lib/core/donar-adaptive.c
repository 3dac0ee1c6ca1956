/* The choice of ADAPTIVE. */
#include "donar-adaptive.h"

#include <stdlib.h>

/* Knowledge of a link older than this is stale: the link is tried again
 * (a probe), its base taken for its delay.  Spikes seldom last longer
 * (seed 000, Fig. 5). */
#define STALE_US donar_adaptive_stale_us
/* Credit is kept for at most this many second copies. */
#define MAX_CREDIT 25.0

gdouble donar_adaptive_share_penalty_us = 0;
gdouble donar_adaptive_unsure_us = 60000;
gint64 donar_adaptive_stale_us = 2000000;
gint64 donar_adaptive_gap_frames = 3;
static void tune (void) {
  static gboolean done;
  if (done) return;
  done = TRUE;
  if (g_getenv ("AD_SHARE")) donar_adaptive_share_penalty_us = g_ascii_strtod (g_getenv ("AD_SHARE"), NULL);
  if (g_getenv ("AD_UNSURE")) donar_adaptive_unsure_us = g_ascii_strtod (g_getenv ("AD_UNSURE"), NULL);
  if (g_getenv ("AD_GAP")) donar_adaptive_gap_frames = atoi (g_getenv ("AD_GAP"));
  if (g_getenv ("AD_STALE")) donar_adaptive_stale_us = g_ascii_strtod (g_getenv ("AD_STALE"), NULL);
}

void
donar_adaptive_init (DonarAdaptive * adaptive, gdouble budget)
{
  adaptive->budget = budget;
  adaptive->credit = 0;
  for (guint i = 0; i < DONAR_MAX_LINKS; i++)
    adaptive->probed_us[i] = G_MININT64;
}

typedef struct
{
  gint64 predicted;
  gboolean stale;
  gboolean unsure;
} Prediction;

static int
compare_gint64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* The base a link with no base known is taken to have: the median of the
 * others'. */
static gint64
prior_floor (const DonarDelays * delays, const DonarGroups * groups)
{
  gint64 floors[DONAR_MAX_LINKS];
  guint n = 0;

  for (guint link = 0; link < groups->n_links; link++)
    if (groups->up[link] &&
        donar_delays_floor (delays, link) != DONAR_DELAY_UNKNOWN)
      floors[n++] = donar_delays_floor (delays, link);
  if (n == 0)
    return 0;
  qsort (floors, n, sizeof floors[0], compare_gint64);
  return floors[n / 2];
}

static void
predict (const DonarAdaptive * adaptive, const DonarDelays * delays,
    guint link, gint64 prior, gint64 now, Prediction * p)
{
  gint64 fresh, floor = donar_delays_floor (delays, link);
  gint64 known = donar_delays_predict (delays, link, now, &fresh);

  if (floor == DONAR_DELAY_UNKNOWN)
    floor = prior;
  p->stale = known == DONAR_DELAY_UNKNOWN || now - fresh > STALE_US;
  p->unsure = p->stale || known - floor > donar_adaptive_unsure_us;
  if (!p->stale)
    /* News of every link in use comes with each of the peer's frames:
     * when it stops, for all we know the link has stopped too. */
    p->predicted = MAX (known, now - fresh - donar_adaptive_gap_frames *
        delays->frame_period_us);
  else if (adaptive->probed_us[link] == G_MININT64 ||
      now - adaptive->probed_us[link] > STALE_US)
    /* Idle long enough to have recovered: worth a frame, whose copy
     * follows on another link. */
    p->predicted = floor;
  else
    p->predicted = known == DONAR_DELAY_UNKNOWN ? G_MAXINT64 / 2 :
        MAX (known, floor);
}

static gboolean
listed (guint link, const guint * list, guint n)
{
  for (guint k = 0; k < n; k++)
    if (list[k] == link)
      return TRUE;
  return FALSE;
}

/* The up link with the least predicted delay, other than avoid[] (unless
 * nothing else is up), with a penalty on those that share a relay with
 * one of avoid[]; -1 if none is up. */
static gint
best_link (const DonarGroups * groups, const DonarPaths * paths,
    const Prediction * p, const guint * avoid, guint n_avoid, gint exclude)
{
  gint best = -1;
  gint64 best_cost = G_MAXINT64;

  for (guint pass = 0; pass < 2 && best < 0; pass++)
    for (guint link = 0; link < groups->n_links; link++) {
      gint64 cost;

      if (!groups->up[link] || (gint) link == exclude ||
          (pass == 0 && listed (link, avoid, n_avoid)))
        continue;
      cost = p[link].predicted;
      for (guint k = 0; k < n_avoid; k++)
        if (donar_paths_share (paths, link, avoid[k])) {
          cost += donar_adaptive_share_penalty_us;
          break;
        }
      if (best < 0 || cost < best_cost) {
        best = link;
        best_cost = cost;
      }
    }
  return best;
}

guint
donar_adaptive_pick (DonarAdaptive * adaptive, const DonarDelays * delays,
    const DonarGroups * groups, const DonarPaths * paths, const guint * prev,
    guint n_prev, gint64 now, guint * links)
{
  Prediction p[DONAR_MAX_LINKS];
  tune ();
  gint64 prior = prior_floor (delays, groups);
  gint first, second;
  guint n = 0;

  for (guint link = 0; link < groups->n_links; link++)
    if (groups->up[link])
      predict (adaptive, delays, link, prior, now, &p[link]);

  adaptive->credit = MIN (adaptive->credit + adaptive->budget - 1.0,
      MAX_CREDIT);
  /* The previous frame's copy rides with this one: on a path of its own. */
  first = best_link (groups, paths, p, prev, n_prev, -1);
  if (first < 0)
    return 0;
  links[n++] = first;
  if (adaptive->credit >= 1.0 && (p[first].unsure ||
          adaptive->credit >= MAX_CREDIT)) {
    second = best_link (groups, paths, p, links, 1, first);
    if (second >= 0) {
      links[n++] = second;
      adaptive->credit -= 1.0;
    }
  }
  if (g_getenv ("AD_DEBUG") && now >= atof (g_getenv ("AD_DEBUG")) * 1e6 && now <= atof (g_getenv ("AD_DEBUG")) * 1e6 + 2e6) {
    GString *g = g_string_new (NULL);
    g_string_append_printf (g, "%p t=%.2f pick %d%s:", (void *) delays, now / 1e6, links[0], n > 1 ? "+" : "");
    for (guint link = 0; link < groups->n_links; link++)
      if (groups->up[link])
        g_string_append_printf (g, " %u:%lld%s%s/%lld", link, (long long) (p[link].predicted / 1000), p[link].stale ? "s" : "", delays->links[link].overdue ? "o" : "", (long long) (donar_delays_floor (delays, link) == DONAR_DELAY_UNKNOWN ? -1 : donar_delays_floor (delays, link) / 1000));
    const DonarLinkDelay *d1 = &delays->links[1];
    g_string_append_printf (g, " L1[heard=%d lh=%.2f ld=%lld rep=%d rt=%.2f ru=%lld g=%d]", d1->heard, d1->last_heard_us/1e6, (long long) d1->last_delay_us, d1->reported, d1->report_time_us/1e6, (long long) d1->report_us, d1->report_growing);
    g_print ("%s\n", g->str);
    g_string_free (g, TRUE);
  }
  for (guint i = 0; i < n; i++)
    if (p[links[i]].stale)
      adaptive->probed_us[links[i]] = now;
  return n;
}
