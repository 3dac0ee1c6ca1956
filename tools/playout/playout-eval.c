/* donar-playout-eval: replays per-frame traces (donar-sim --frame-log, or
 * donar-playout-gen) through playout policies and compares them:
 *
 *   ideal     each stream delayed by its own 99th percentile (an oracle
 *             that knows the whole call; seed 000, section 2)
 *   static    one delay for every call, by hand from earlier runs: the
 *             99th percentile of all the calls given (as the paper set
 *             gstreamer's jitter buffer), or --static-ms
 *   adaptive  lib/playout, as donarjitterbuffer runs it, not knowing the
 *             absolute delay (the deadline bounds the buffer)
 *   adaptive, base known   the same, told the absolute base delay (the
 *             deadline bounds the one-way delay)
 *
 * A trace is one direction of one call: header seq,sent_ms,arrival_ms, one
 * row per frame in send order, arrival_ms empty if the frame never came.
 * Send and arrival times share one clock (donar-sim's), so arrival - send
 * is the one-way delay.  A frame is played at its playout time if it has
 * arrived by then (on time), else it is late (or lost); it is in time if
 * it is on time and its playout is within the deadline (360 ms).  A call
 * is successful if each of its directions has at least 99 % of its frames
 * in time (docs/evaluation.md's measure, with the jitter buffer's delay
 * counted).  docs/jitterbuffer.md. */
#include "donar-playout.h"
#include "frame-log-playout.h"
#include "tool-json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOST FRAME_LOG_LOST

typedef FrameLog Trace;

typedef struct
{
  guint64 frames, lost, late, in_time;
  gdouble delay_sum_us;
  guint64 estimator_late;
} DirResult;

enum
{
  POLICY_IDEAL,
  POLICY_STATIC,
  POLICY_ADAPTIVE,
  POLICY_ADAPTIVE_KNOWN,
  N_POLICIES
};

static const char *policy_names[N_POLICIES] = {
  "ideal", "static", "adaptive", "adaptive-base-known"
};

static const char *policy_labels[N_POLICIES] = {
  "ideal (own p99)", "static (all calls' p99)", "adaptive",
  "adaptive, base delay known"
};

static int
cmp_int64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* The least constant delay that plays `share` of the frames (those never
 * arriving count as infinitely late): the ceil (share * frames)-th smallest
 * delay, or the largest if fewer frames arrived. */
static gint64
constant_for_share (const gint64 * delays, guint n_arrived, guint64 n_frames,
    gdouble share)
{
  guint64 k = (guint64) ceil (share * n_frames - 1e-9);

  if (n_arrived == 0)
    return 0;
  k = CLAMP (k, 1, n_arrived);
  return delays[k - 1];
}

static gint64 *
sorted_delays (const Trace * t, guint * n_arrived)
{
  gint64 *d = g_new (gint64, t->n);
  guint m = 0;

  for (guint i = 0; i < t->n; i++)
    if (t->arrival_us[i] != LOST)
      d[m++] = t->arrival_us[i] - t->send_us[i];
  qsort (d, m, sizeof *d, cmp_int64);
  *n_arrived = m;
  return d;
}

static void
play_constant (const Trace * t, gint64 delay_us, gint64 deadline_us,
    DirResult * r)
{
  memset (r, 0, sizeof *r);
  for (guint i = 0; i < t->n; i++) {
    r->frames++;
    r->delay_sum_us += delay_us;
    if (t->arrival_us[i] == LOST)
      r->lost++;
    else if (t->arrival_us[i] - t->send_us[i] > delay_us)
      r->late++;
    else if (delay_us <= deadline_us)
      r->in_time++;
  }
}

/* The estimator fed in arrival order; then each frame is played at the
 * first time t >= send + O(t), O(t) the offset in force at t. */
static void
play_adaptive (const Trace * t, const DonarPlayoutConfig * config,
    gboolean base_known, gint64 deadline_us, DirResult * r)
{
  gint64 *due = g_new (gint64, t->n);
  gboolean any;

  memset (r, 0, sizeof *r);
  any = frame_log_playout_adaptive (t, config, base_known, due,
      &r->estimator_late);
  for (guint i = 0; i < t->n; i++) {
    r->frames++;
    if (!any) {
      r->lost++;
      continue;
    }
    r->delay_sum_us += due[i] - t->send_us[i];
    if (t->arrival_us[i] == LOST)
      r->lost++;
    else if (t->arrival_us[i] > due[i])
      r->late++;
    else if (due[i] - t->send_us[i] <= deadline_us)
      r->in_time++;
  }
  g_free (due);
}

typedef struct
{
  guint64 frames, lost, late, in_time, estimator_late;
  gdouble delay_sum_us, over_ideal_sum_us;
  guint directions, calls, successful;
} Total;

/* A run: its options, its traces, each policy's replay of each trace and
 * the totals. */
typedef struct
{
  DonarPlayoutConfig config;
  gdouble deadline_ms, static_ms;
  gboolean json, per_call;
  GPtrArray *traces;
  gint64 static_us;
  gboolean static_given;
  DirResult *results[N_POLICIES];
  Total totals[N_POLICIES];
  /* The replay's late frames are the estimator's own count. */
  gboolean consistent;
} Eval;

/* The options, in the units given (ms, s) into config; the paths given
 * (NULL if none). */
static gboolean
parse_options (Eval * e, int *argc, char ***argv, gchar *** paths)
{
  DonarPlayoutConfig *config = &e->config;
  gdouble share = DONAR_PLAYOUT_DEFAULT_SHARE, window_s, margin_ms;
  gdouble shrink_ms_per_s, min_ms, max_ms;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) context = NULL;
  GOptionEntry entries[] = {
    {"json", 0, 0, G_OPTION_ARG_NONE, &e->json, "JSON instead of text", NULL},
    {"per-call", 0, 0, G_OPTION_ARG_NONE, &e->per_call,
        "a line per direction and policy", NULL},
    {"deadline", 0, 0, G_OPTION_ARG_DOUBLE, &e->deadline_ms,
        "one-way delay budget (360 ms)", "MS"},
    {"static-ms", 0, 0, G_OPTION_ARG_DOUBLE, &e->static_ms,
        "the static buffer (default: the p99 of all the calls given)", "MS"},
    {"share", 0, 0, G_OPTION_ARG_DOUBLE, &share,
        "adaptive: target share (0.99)", "SHARE"},
    {"window", 0, 0, G_OPTION_ARG_DOUBLE, &window_s,
        "adaptive: window (10 s)", "S"},
    {"margin", 0, 0, G_OPTION_ARG_DOUBLE, &margin_ms,
        "adaptive: safety margin (10 ms)", "MS"},
    {"shrink-rate", 0, 0, G_OPTION_ARG_DOUBLE, &shrink_ms_per_s,
        "adaptive: how fast it comes down (2 ms/s)", "MS_PER_S"},
    {"min-latency", 0, 0, G_OPTION_ARG_DOUBLE, &min_ms,
        "adaptive: least target (20 ms)", "MS"},
    {"max-latency", 0, 0, G_OPTION_ARG_DOUBLE, &max_ms,
        "adaptive: largest target (1000 ms)", "MS"},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, paths, NULL,
        NULL},
    G_OPTION_ENTRY_NULL
  };

  donar_playout_config_init (config);
  window_s = config->window_us / 1e6;
  margin_ms = config->margin_us / 1e3;
  shrink_ms_per_s = config->shrink_us_per_s / 1e3;
  min_ms = config->min_us / 1e3;
  max_ms = config->max_us / 1e3;
  e->deadline_ms = 360;
  e->static_ms = -1;
  context = g_option_context_new ("TRACE.csv|DIR... - compare playout "
      "policies on per-frame traces");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, argc, argv, &error)) {
    fprintf (stderr, "donar-playout-eval: %s\n", error->message);
    return FALSE;
  }
  config->share = share;
  config->window_us = (gint64) (window_s * 1e6);
  config->margin_us = (gint64) (margin_ms * 1e3);
  config->shrink_us_per_s = (gint64) (shrink_ms_per_s * 1e3);
  config->min_us = (gint64) (min_ms * 1e3);
  config->max_us = (gint64) (max_ms * 1e3);
  config->deadline_us = (gint64) (e->deadline_ms * 1e3);
  if (*paths == NULL || !donar_playout_config_is_valid (config) ||
      e->deadline_ms <= 0) {
    fprintf (stderr, "donar-playout-eval: give trace files or directories; "
        "share in (0, 1], times >= 0, min <= max, deadline > 0\n");
    g_strfreev (*paths);
    return FALSE;
  }
  return TRUE;
}

/* The static buffer: --static-ms, or the p99 of every frame of every
 * call. */
static void
choose_static_delay (Eval * e)
{
  guint64 total = 0, all_frames = 0;
  gint64 *all;

  e->static_given = e->static_ms >= 0;
  if (e->static_given) {
    e->static_us = (gint64) (e->static_ms * 1e3);
    return;
  }
  for (guint i = 0; i < e->traces->len; i++)
    all_frames += ((Trace *) g_ptr_array_index (e->traces, i))->n;
  all = g_new (gint64, all_frames);
  for (guint i = 0; i < e->traces->len; i++) {
    const Trace *t = g_ptr_array_index (e->traces, i);

    for (guint f = 0; f < t->n; f++)
      if (t->arrival_us[f] != LOST)
        all[total++] = t->arrival_us[f] - t->send_us[f];
  }
  qsort (all, total, sizeof *all, cmp_int64);
  e->static_us = constant_for_share (all, total, all_frames, 0.99);
  g_free (all);
}

/* Each trace through each policy. */
static void
replay_traces (Eval * e)
{
  gint64 deadline_us = e->config.deadline_us;

  for (guint p = 0; p < N_POLICIES; p++)
    e->results[p] = g_new0 (DirResult, e->traces->len);
  for (guint i = 0; i < e->traces->len; i++) {
    const Trace *t = g_ptr_array_index (e->traces, i);
    guint n_arrived;
    gint64 *d = sorted_delays (t, &n_arrived);

    play_constant (t, constant_for_share (d, n_arrived, t->n, 0.99),
        deadline_us, &e->results[POLICY_IDEAL][i]);
    play_constant (t, e->static_us, deadline_us, &e->results[POLICY_STATIC][i]);
    play_adaptive (t, &e->config, FALSE, deadline_us,
        &e->results[POLICY_ADAPTIVE][i]);
    play_adaptive (t, &e->config, TRUE, deadline_us,
        &e->results[POLICY_ADAPTIVE_KNOWN][i]);
    g_free (d);
  }
}

/* Policy p's totals over the directions, and its successful calls: the
 * directions with the same call number, or a file alone. */
static void
total_policy (Eval * e, guint p, GHashTable * calls)
{
  Total *total = &e->totals[p];
  GHashTableIter iter;
  gpointer value;

  g_hash_table_remove_all (calls);
  for (guint i = 0; i < e->traces->len; i++) {
    const Trace *t = g_ptr_array_index (e->traces, i);
    const DirResult *r = &e->results[p][i];
    const DirResult *ideal = &e->results[POLICY_IDEAL][i];
    gboolean ok = r->in_time * 100 >= r->frames * 99;
    gpointer key = GINT_TO_POINTER (t->call >= 0 ? t->call : -1 - (gint) i);
    gpointer seen;

    total->frames += r->frames;
    total->lost += r->lost;
    total->late += r->late;
    total->in_time += r->in_time;
    total->delay_sum_us += r->delay_sum_us;
    total->over_ideal_sum_us += r->delay_sum_us / r->frames -
        ideal->delay_sum_us / ideal->frames;
    total->estimator_late += r->estimator_late;
    total->directions++;
    if (p >= POLICY_ADAPTIVE && r->estimator_late != r->late)
      e->consistent = FALSE;
    /* A call is successful if all its directions are: 1 ok, 2 not. */
    if (!g_hash_table_lookup_extended (calls, key, NULL, &seen))
      g_hash_table_insert (calls, key, GINT_TO_POINTER (ok ? 1 : 2));
    else if (!ok)
      g_hash_table_insert (calls, key, GINT_TO_POINTER (2));
  }
  g_hash_table_iter_init (&iter, calls);
  while (g_hash_table_iter_next (&iter, NULL, &value)) {
    total->calls++;
    total->successful += GPOINTER_TO_INT (value) == 1;
  }
}

static void
total_policies (Eval * e)
{
  GHashTable *calls = g_hash_table_new (g_direct_hash, g_direct_equal);

  memset (e->totals, 0, sizeof e->totals);
  e->consistent = TRUE;
  for (guint p = 0; p < N_POLICIES; p++)
    total_policy (e, p, calls);
  g_hash_table_destroy (calls);
}

static const char *
trace_path (const Eval * e, guint i)
{
  return ((Trace *) g_ptr_array_index (e->traces, i))->path;
}

/* Policy p on each direction, a JSON array. */
static void
append_json_directions (GString * out, const Eval * e, guint p)
{
  g_string_append (out, ", \"directions_detail\": [");
  for (guint i = 0; i < e->traces->len; i++) {
    const DirResult *r = &e->results[p][i];

    g_string_append (out, i ? ", {\"trace\": " : "{\"trace\": ");
    tool_json_append_string (out, trace_path (e, i));
    g_string_append_printf (out,
        ", \"mean_delay_ms\": %.3f, "
        "\"late_share\": %.6f, \"in_time_share\": %.6f}",
        r->delay_sum_us / r->frames / 1e3, (gdouble) r->late / r->frames,
        (gdouble) r->in_time / r->frames);
  }
  g_string_append_c (out, ']');
}

static void
append_json (GString * out, const Eval * e)
{
  const DonarPlayoutConfig *config = &e->config;

  g_string_append_printf (out, "{\"directions\": %u, \"calls\": %u, "
      "\"frames\": %" G_GUINT64_FORMAT ", \"deadline_ms\": %.1f, "
      "\"static_ms\": %.3f, \"static_from\": \"%s\", \"adaptive\": "
      "{\"share\": %.4f, \"window_s\": %.1f, \"margin_ms\": %.1f, "
      "\"shrink_ms_per_s\": %.1f, \"min_latency_ms\": %.1f, "
      "\"max_latency_ms\": %.1f}, \"consistent\": %s, \"policies\": [",
      e->totals[0].directions, e->totals[0].calls, e->totals[0].frames,
      e->deadline_ms, e->static_us / 1e3,
      e->static_given ? "--static-ms" : "p99 of all calls", config->share,
      config->window_us / 1e6, config->margin_us / 1e3,
      config->shrink_us_per_s / 1e3, config->min_us / 1e3,
      config->max_us / 1e3, e->consistent ? "true" : "false");
  for (guint p = 0; p < N_POLICIES; p++) {
    const Total *t = &e->totals[p];

    g_string_append_printf (out, "%s{\"name\": \"%s\", "
        "\"mean_delay_ms\": %.3f, \"over_ideal_ms\": %.3f, "
        "\"late_share\": %.6f, \"lost_share\": %.6f, "
        "\"in_time_share\": %.6f, \"successful_calls\": %u, "
        "\"successful_share\": %.4f", p ? ", " : "", policy_names[p],
        t->delay_sum_us / t->frames / 1e3,
        t->over_ideal_sum_us / t->directions / 1e3,
        (gdouble) t->late / t->frames, (gdouble) t->lost / t->frames,
        (gdouble) t->in_time / t->frames, t->successful,
        (gdouble) t->successful / t->calls);
    if (e->per_call)
      append_json_directions (out, e, p);
    g_string_append_c (out, '}');
  }
  g_string_append (out, "]}\n");
}

/* Each direction under each policy, a line a direction. */
static void
append_text_directions (GString * out, const Eval * e)
{
  g_string_append (out, "\nper direction: mean delay ms / late % / in "
      "time %, by policy\n");
  for (guint i = 0; i < e->traces->len; i++) {
    g_string_append_printf (out, "%s", trace_path (e, i));
    for (guint p = 0; p < N_POLICIES; p++) {
      const DirResult *r = &e->results[p][i];

      g_string_append_printf (out, "  %.1f/%.2f/%.2f",
          r->delay_sum_us / r->frames / 1e3,
          100.0 * r->late / r->frames, 100.0 * r->in_time / r->frames);
    }
    g_string_append_c (out, '\n');
  }
}

static void
append_text (GString * out, const Eval * e)
{
  const DonarPlayoutConfig *config = &e->config;

  g_string_append_printf (out, "donar-playout-eval: %u calls (%u "
      "directions, %" G_GUINT64_FORMAT " frames), deadline %.0f ms\n"
      "static buffer: %.1f ms (%s)\n"
      "adaptive: share %.4f, window %.0f s, margin %.1f ms, shrink %.1f "
      "ms/s, latency in [%.0f, %.0f] ms\n\n",
      e->totals[0].calls, e->totals[0].directions, e->totals[0].frames,
      e->deadline_ms, e->static_us / 1e3,
      e->static_given ? "--static-ms" : "p99 of all calls", config->share,
      config->window_us / 1e6, config->margin_us / 1e3,
      config->shrink_us_per_s / 1e3, config->min_us / 1e3,
      config->max_us / 1e3);
  g_string_append_printf (out, "%-28s %10s %10s %8s %8s %9s %12s\n",
      "policy", "delay ms", "vs ideal", "late %", "lost %", "in time %",
      "successful %");
  for (guint p = 0; p < N_POLICIES; p++) {
    const Total *t = &e->totals[p];

    g_string_append_printf (out,
        "%-28s %10.1f %+10.1f %8.3f %8.3f %9.3f %12.1f\n",
        policy_labels[p], t->delay_sum_us / t->frames / 1e3,
        t->over_ideal_sum_us / t->directions / 1e3,
        100.0 * t->late / t->frames, 100.0 * t->lost / t->frames,
        100.0 * t->in_time / t->frames, 100.0 * t->successful / t->calls);
  }
  if (e->per_call)
    append_text_directions (out, e);
  if (!e->consistent)
    g_string_append (out, "\nwarning: the estimator's late count differs "
        "from the replay's\n");
}

int
main (int argc, char **argv)
{
  Eval e = { 0 };
  gchar **paths = NULL;
  g_autoptr (GError) error = NULL;
  GString *out;

  if (!parse_options (&e, &argc, &argv, &paths))
    return 2;
  e.traces = g_ptr_array_new_with_free_func ((GDestroyNotify) frame_log_free);
  for (guint i = 0; paths[i] && error == NULL; i++)
    frame_log_add_path (e.traces, paths[i], &error);
  g_strfreev (paths);
  if (error != NULL || e.traces->len == 0) {
    fprintf (stderr, "donar-playout-eval: %s\n",
        error ? error->message : "no traces");
    g_ptr_array_free (e.traces, TRUE);
    return 1;
  }

  choose_static_delay (&e);
  replay_traces (&e);
  total_policies (&e);
  out = g_string_new (NULL);
  if (e.json)
    append_json (out, &e);
  else
    append_text (out, &e);
  fputs (out->str, stdout);
  g_string_free (out, TRUE);

  for (guint p = 0; p < N_POLICIES; p++)
    g_free (e.results[p]);
  g_ptr_array_free (e.traces, TRUE);
  return 0;
}
