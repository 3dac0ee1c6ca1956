/* The playout-delay estimator: a sliding-window quantile of the relative
 * one-way delays, a margin, fast growth and slow shrinking, bounds.
 * docs/jitterbuffer.md describes the algorithm and its constants. */
#include "donar-playout.h"
#include "donar-versioned.h"

#include <string.h>

typedef struct
{
  gint64 arrival_us;
  gint64 delay_us;
} Sample;

typedef struct
{
  gint64 start_us;
  gint64 min_us;
} Bucket;

typedef struct
{
  gint64 since_us;              /* arrival time from which ... */
  gint64 offset_us;             /* ... this playout offset is in force */
} Change;

struct _DonarPlayout
{
  DonarPlayoutConfig config;
  guint32 share_ppm;
  gint64 base_delay_us;         /* DONAR_PLAYOUT_UNKNOWN if unknown */

  /* The window: a FIFO by arrival time and the same delays sorted. */
  Sample *fifo;
  guint fifo_head, n_samples, capacity;
  gint64 *sorted;

  Bucket buckets[DONAR_PLAYOUT_BASE_BUCKETS];
  guint n_buckets;
  gint64 base_us;
  /* The smallest relative delay ever seen: no playout offset was below it,
   * which bounds how far back the late-frame test must look. */
  gint64 floor_us;

  gboolean started;
  gint64 last_arrival_us;
  gint64 offset_us;
  gint64 quantile_us;
  gboolean limited;

  /* The playout offset over time: a ring of its changes, oldest first. */
  Change history[DONAR_PLAYOUT_HISTORY];
  guint history_head, history_len;
  gboolean history_wrapped;

  guint64 frames, late;
};

DONAR_VERSIONED_DEFINE (config_versions, DonarPlayoutConfig,
    sizeof (DonarPlayoutConfig));
DONAR_VERSIONED_DEFINE (stats_versions, DonarPlayoutStats,
    sizeof (DonarPlayoutStats));

static void
config_init (DonarPlayoutConfig * config)
{
  config->share = DONAR_PLAYOUT_DEFAULT_SHARE;
  config->window_us = DONAR_PLAYOUT_DEFAULT_WINDOW_US;
  config->margin_us = DONAR_PLAYOUT_DEFAULT_MARGIN_US;
  config->shrink_us_per_s = DONAR_PLAYOUT_DEFAULT_SHRINK_US_PER_S;
  config->min_us = DONAR_PLAYOUT_DEFAULT_MIN_US;
  config->max_us = DONAR_PLAYOUT_DEFAULT_MAX_US;
  config->deadline_us = DONAR_PLAYOUT_DEFAULT_DEADLINE_US;
  config->base_window_us = DONAR_PLAYOUT_DEFAULT_BASE_WINDOW_US;
  config->max_samples = DONAR_PLAYOUT_DEFAULT_MAX_SAMPLES;
}

void
donar_playout_config_init_versioned (gint config_version,
    DonarPlayoutConfig * config)
{
  donar_versioned_defaults (&config_versions, config_version, config,
      (DonarVersionedDefaults) config_init);
}

static gboolean
config_is_valid (const DonarPlayoutConfig * config)
{
  return config->share > 0.0 && config->share <= 1.0 &&
      config->window_us > 0 && config->margin_us >= 0 &&
      config->shrink_us_per_s >= 0 && config->min_us >= 0 &&
      config->max_us >= config->min_us && config->deadline_us >= 0 &&
      config->base_window_us >= 0 && config->max_samples > 0;
}

gboolean
donar_playout_config_is_valid_versioned (gint config_version,
    const DonarPlayoutConfig * config)
{
  return donar_versioned_is_valid (&config_versions, config_version, config,
      (DonarVersionedDefaults) config_init,
      (gboolean (*)(gconstpointer)) config_is_valid);
}

static void
apply_config (DonarPlayout * p, const DonarPlayoutConfig * config)
{
  guint capacity = config->max_samples;

  g_return_if_fail (donar_playout_config_is_valid (config));

  p->config = *config;
  /* In parts per million, so that the rank below is exact integer
   * arithmetic: 0.99 * 100 is 99.000000000000014 in binary. */
  p->share_ppm = (guint32) (config->share * 1e6 + 0.5);

  if (capacity != p->capacity) {
    Sample *fifo = g_new (Sample, capacity);
    gint64 *sorted = g_new (gint64, capacity);
    guint keep = MIN (p->n_samples, capacity);
    guint skip = p->n_samples - keep;

    /* Keep the newest samples, re-sorted from the FIFO. */
    p->n_samples = 0;
    for (guint i = 0; i < keep; i++) {
      Sample s = p->fifo[(p->fifo_head + skip + i) % p->capacity];
      guint lo = 0, hi = p->n_samples;

      fifo[i] = s;
      while (lo < hi) {
        guint mid = (lo + hi) / 2;

        if (sorted[mid] <= s.delay_us)
          lo = mid + 1;
        else
          hi = mid;
      }
      memmove (sorted + lo + 1, sorted + lo,
          (p->n_samples - lo) * sizeof *sorted);
      sorted[lo] = s.delay_us;
      p->n_samples++;
    }
    g_free (p->fifo);
    g_free (p->sorted);
    p->fifo = fifo;
    p->sorted = sorted;
    p->fifo_head = 0;
    p->capacity = capacity;
  }
}

DonarPlayout *
donar_playout_new_versioned (gint config_version,
    const DonarPlayoutConfig * config)
{
  DonarPlayoutConfig latest;
  DonarPlayout *p;

  g_return_val_if_fail (config != NULL, NULL);
  if (!donar_versioned_over_defaults (&config_versions, config_version,
          config, &latest, (DonarVersionedDefaults) config_init))
    return NULL;
  g_return_val_if_fail (config_is_valid (&latest), NULL);

  p = g_new0 (DonarPlayout, 1);
  p->base_delay_us = DONAR_PLAYOUT_UNKNOWN;
  apply_config (p, &latest);
  return p;
}

void
donar_playout_free (DonarPlayout * playout)
{
  if (playout == NULL)
    return;
  g_free (playout->fifo);
  g_free (playout->sorted);
  g_free (playout);
}

void
donar_playout_reset (DonarPlayout * p)
{
  g_return_if_fail (p != NULL);
  p->fifo_head = 0;
  p->n_samples = 0;
  p->n_buckets = 0;
  p->started = FALSE;
  p->history_head = 0;
  p->history_len = 0;
  p->history_wrapped = FALSE;
  p->frames = 0;
  p->late = 0;
  p->limited = FALSE;
  p->quantile_us = 0;
}

void
donar_playout_set_config_versioned (DonarPlayout * p, gint config_version,
    const DonarPlayoutConfig * config)
{
  DonarPlayoutConfig latest;

  g_return_if_fail (p != NULL);
  if (!donar_versioned_over_defaults (&config_versions, config_version,
          config, &latest, (DonarVersionedDefaults) config_init))
    return;
  g_return_if_fail (config_is_valid (&latest));
  apply_config (p, &latest);
}

void
donar_playout_get_config_versioned (const DonarPlayout * p,
    gint config_version, DonarPlayoutConfig * config)
{
  g_return_if_fail (p != NULL);
  donar_versioned_copy (&config_versions, config_version, &p->config, config);
}

void
donar_playout_set_base_delay (DonarPlayout * p, gint64 base_delay_us)
{
  g_return_if_fail (p != NULL);
  p->base_delay_us = base_delay_us < 0 ? DONAR_PLAYOUT_UNKNOWN : base_delay_us;
}

/* Index of the first sorted delay above (upper) or at least (!upper)
 * value. */
static guint
sorted_search (const DonarPlayout * p, gint64 value, gboolean upper)
{
  guint lo = 0, hi = p->n_samples;

  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;

    if (upper ? p->sorted[mid] <= value : p->sorted[mid] < value)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void
drop_oldest_sample (DonarPlayout * p)
{
  gint64 delay = p->fifo[p->fifo_head].delay_us;
  guint at = sorted_search (p, delay, FALSE);

  g_assert (at < p->n_samples && p->sorted[at] == delay);
  memmove (p->sorted + at, p->sorted + at + 1,
      (p->n_samples - at - 1) * sizeof *p->sorted);
  p->fifo_head = (p->fifo_head + 1) % p->capacity;
  p->n_samples--;
}

static void
add_sample (DonarPlayout * p, gint64 arrival_us, gint64 delay_us)
{
  Sample *sample;
  guint at;

  while (p->n_samples > 0 &&
      p->fifo[p->fifo_head].arrival_us <= arrival_us - p->config.window_us)
    drop_oldest_sample (p);
  if (p->n_samples == p->capacity)
    drop_oldest_sample (p);

  sample = &p->fifo[(p->fifo_head + p->n_samples) % p->capacity];
  sample->arrival_us = arrival_us;
  sample->delay_us = delay_us;
  at = sorted_search (p, delay_us, TRUE);
  memmove (p->sorted + at + 1, p->sorted + at,
      (p->n_samples - at) * sizeof *p->sorted);
  p->sorted[at] = delay_us;
  p->n_samples++;
}

/* The base: the minimum over buckets of base_window_us / BUCKETS each, the
 * oldest dropped once it is out of the span (LEDBAT's base delay history,
 * RFC 6817, in shorter buckets). */
static void
update_base (DonarPlayout * p, gint64 arrival_us, gint64 delay_us)
{
  gint64 span = p->config.base_window_us;
  gint64 len = span / DONAR_PLAYOUT_BASE_BUCKETS;
  gint64 base;

  if (p->n_buckets == 0 ||
      (len > 0 && arrival_us >= p->buckets[p->n_buckets - 1].start_us + len)) {
    if (p->n_buckets == DONAR_PLAYOUT_BASE_BUCKETS) {
      memmove (p->buckets, p->buckets + 1,
          (DONAR_PLAYOUT_BASE_BUCKETS - 1) * sizeof *p->buckets);
      p->n_buckets--;
    }
    p->buckets[p->n_buckets].start_us = arrival_us;
    p->buckets[p->n_buckets].min_us = delay_us;
    p->n_buckets++;
  } else if (delay_us < p->buckets[p->n_buckets - 1].min_us) {
    p->buckets[p->n_buckets - 1].min_us = delay_us;
  }
  /* After a silence longer than the span, only the new bucket is left. */
  while (len > 0 && p->n_buckets > 1 &&
      p->buckets[0].start_us + len <= arrival_us - span) {
    memmove (p->buckets, p->buckets + 1,
        (p->n_buckets - 1) * sizeof *p->buckets);
    p->n_buckets--;
  }

  base = p->buckets[0].min_us;
  for (guint i = 1; i < p->n_buckets; i++)
    base = MIN (base, p->buckets[i].min_us);
  p->base_us = base;
}

/* The delay that `share` of the window does not exceed: the k-th smallest,
 * k = ceil (share * n). */
static gint64
window_quantile (const DonarPlayout * p)
{
  guint64 k = ((guint64) p->n_samples * p->share_ppm + 999999) / 1000000;

  k = CLAMP (k, 1, p->n_samples);
  return p->sorted[k - 1];
}

/* Was a frame sent at send_us, arriving at arrival_us, due before it
 * arrived?  Its playout time is the first t at which t >= send + O(t), O
 * being the offset in force at t; the history holds O's changes. */
static gboolean
was_late (const DonarPlayout * p, gint64 send_us, gint64 arrival_us)
{
  gint64 end = arrival_us;

  for (guint i = p->history_len; i > 0; i--) {
    const Change *c =
        &p->history[(p->history_head + i - 1) % DONAR_PLAYOUT_HISTORY];
    gint64 due = MAX (c->since_us, send_us + c->offset_us);

    if (due < end)
      return TRUE;
    end = c->since_us;
    /* Every offset so far was at least floor: nothing older can be due. */
    if (end <= send_us + p->floor_us)
      return FALSE;
  }
  /* Older than what the history remembers: more than its length of
   * playout changes ago, late whatever they were. */
  return p->history_wrapped;
}

static void
record_offset (DonarPlayout * p, gint64 since_us, gint64 offset_us)
{
  Change *change;

  if (p->history_len > 0) {
    Change *last = &p->history[(p->history_head + p->history_len - 1) %
        DONAR_PLAYOUT_HISTORY];

    if (last->offset_us == offset_us)
      return;
    if (last->since_us == since_us) {
      last->offset_us = offset_us;
      return;
    }
  }
  if (p->history_len == DONAR_PLAYOUT_HISTORY) {
    p->history_head = (p->history_head + 1) % DONAR_PLAYOUT_HISTORY;
    p->history_len--;
    p->history_wrapped = TRUE;
  }
  change = &p->history[(p->history_head + p->history_len) %
      DONAR_PLAYOUT_HISTORY];
  change->since_us = since_us;
  change->offset_us = offset_us;
  p->history_len++;
}

gboolean
donar_playout_push (DonarPlayout * p, gint64 send_us, gint64 arrival_us)
{
  const DonarPlayoutConfig *c;
  gint64 delay, want, lower, upper, cap;
  gboolean late;

  g_return_val_if_fail (p != NULL, FALSE);
  c = &p->config;
  if (p->started && arrival_us < p->last_arrival_us)
    arrival_us = p->last_arrival_us;
  delay = arrival_us - send_us;

  late = p->started && was_late (p, send_us, arrival_us);
  if (!p->started || delay < p->floor_us)
    p->floor_us = delay;

  add_sample (p, arrival_us, delay);
  update_base (p, arrival_us, delay);

  /* The least delay that plays `share` of the window, plus the margin. */
  p->quantile_us = window_quantile (p) - p->base_us;
  want = p->base_us + p->quantile_us + c->margin_us;

  /* Bounds, in offsets: [base + min, base + MIN (max, deadline cap)]. */
  cap = c->max_us;
  if (c->deadline_us > 0) {
    gint64 budget = c->deadline_us;

    if (p->base_delay_us != DONAR_PLAYOUT_UNKNOWN)
      budget -= p->base_delay_us;
    cap = MIN (cap, budget);
  }
  /* A base beyond the deadline: no frame can make it, play them early. */
  cap = MAX (cap, c->min_us);
  lower = p->base_us + c->min_us;
  upper = p->base_us + cap;
  p->limited = want > upper;
  want = CLAMP (want, lower, upper);

  if (!p->started || want >= p->offset_us) {
    /* Up at once: every ms short is more late frames. */
    p->offset_us = want;
  } else {
    /* Down slowly: at most shrink_us_per_s per second of arrivals. */
    gint64 step = (arrival_us - p->last_arrival_us) * c->shrink_us_per_s /
        G_USEC_PER_SEC;

    p->offset_us = MAX (want, p->offset_us - step);
  }
  /* The bounds hold at once, whatever the rate (e.g. a new base delay). */
  p->offset_us = CLAMP (p->offset_us, lower, upper);

  p->started = TRUE;
  p->last_arrival_us = arrival_us;
  record_offset (p, arrival_us, p->offset_us);

  p->frames++;
  if (late)
    p->late++;
  return late;
}

gboolean
donar_playout_get_offset (const DonarPlayout * p, gint64 * offset_us)
{
  g_return_val_if_fail (p != NULL, FALSE);
  g_return_val_if_fail (offset_us != NULL, FALSE);
  if (!p->started)
    return FALSE;
  *offset_us = p->offset_us;
  return TRUE;
}

gint64
donar_playout_get_target (const DonarPlayout * p)
{
  g_return_val_if_fail (p != NULL, 0);
  return p->started ? p->offset_us - p->base_us : p->config.min_us;
}

static void
get_stats (const DonarPlayout * p, DonarPlayoutStats * stats)
{
  memset (stats, 0, sizeof *stats);
  stats->frames = p->frames;
  stats->late = p->late;
  stats->target_us = donar_playout_get_target (p);
  stats->offset_us = p->started ? p->offset_us : 0;
  stats->base_us = p->started ? p->base_us : 0;
  stats->quantile_us = p->started ? p->quantile_us : 0;
  stats->window_frames = p->n_samples;
  stats->limited = p->limited;
}

void
donar_playout_get_stats_versioned (const DonarPlayout * p,
    gint stats_version, DonarPlayoutStats * stats)
{
  DonarPlayoutStats latest;

  g_return_if_fail (p != NULL);
  get_stats (p, &latest);
  donar_versioned_copy (&stats_versions, stats_version, &latest, stats);
}

guint
donar_playout_count_above (const DonarPlayout * p, gint64 above_base_us)
{
  g_return_val_if_fail (p != NULL, 0);
  if (!p->started)
    return 0;
  return p->n_samples - sorted_search (p, p->base_us + above_base_us, TRUE);
}
