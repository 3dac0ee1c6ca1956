/* donar-netmodel-calibrate: the figures of seed 000, section 3 that the Tor
 * link model is calibrated on, measured on the model, for each security
 * configuration.  docs/netmodel.md compares them with the paper.
 *
 *   donar-netmodel-calibrate [--calls N] [--seed S] [--security NAME]
 *                            [--set NAME=VALUE ...] [--json] [--quick]
 *
 * Single-link voice calls as in the paper: a 172-byte packet every 40 ms
 * (25 packets/s) from caller to callee over one link, a new link (a new
 * seed) for each call. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "donar-netmodel.h"

#define FRAME_US 40000
#define FRAME_BYTES 172
#define GOAL_US 360000
#define HISTOGRAM_BINS 30000    /* 1 ms bins, the last one open */

typedef struct
{
  guint frames;
  guint lost;
  guint late;                   /* after 360 ms, or lost */
  gboolean failed;
  gint64 max_us;
  guint32 histogram[HISTOGRAM_BINS];
} CallStats;

typedef struct
{
  gdouble median_ms;
  gdouble p75_ms;
  gdouble p99_ms;
  gdouble max_ms;
  gboolean unacceptable;
  gboolean failed;
} CallFigures;

typedef struct
{
  const char *name;
  gint64 duration_us;
  /* Fig. 3: calls whose p99 misses 360 ms (lost frames count as late). */
  gdouble unacceptable;
  gdouble unacceptable_survivors;       /* among calls whose link held */
  gdouble failed;
  gdouble median_p99_ms;
  /* Fig. 5: one-way latency distribution of each link. */
  gdouble median_of_medians_ms;
  gdouble p10_of_medians_ms;
  gdouble p90_of_medians_ms;
  gdouble spiky;                /* max >= 3 x p75 */
  gdouble spiky_best_half;      /* the same among the lower medians */
  gdouble spiky_worst_half;
} DurationFigures;

typedef struct
{
  DonarSecurity security;
  guint relays;                 /* on the path (path_relays or the default) */
  DurationFigures durations[3];
  guint n_durations;
  /* Fig. 4 */
  gdouble failed_10min_formula;
  gdouble failed_60min_formula;
  gdouble failed_10min;
  gdouble failed_60min;
  guint failure_circuits;
  gdouble simultaneous_failures;        /* calls where >= 2 links fail at once */
  /* Reopen */
  gdouble setup_median_s;
  /* Cost */
  gdouble ns_per_send;
} SecurityFigures;

static gdouble
histogram_percentile (const guint32 * histogram, guint count, gdouble q)
{
  guint64 wanted = (guint64) ceil (q * count), seen = 0;
  guint i;

  if (count == 0)
    return NAN;
  if (wanted == 0)
    wanted = 1;
  for (i = 0; i < HISTOGRAM_BINS; i++) {
    seen += histogram[i];
    if (seen >= wanted)
      return i + 0.5;
  }
  return HISTOGRAM_BINS;
}

static void
run_call (const DonarNetModelParams * params, guint64 seed,
    gint64 duration_us, CallStats * stats, CallFigures * figures)
{
  DonarNetModel *m = donar_net_model_new_with_params (params, 1, seed, 0);
  guint delivered;
  gint64 t;

  memset (stats, 0, sizeof (*stats));
  for (t = 0; t < duration_us; t += FRAME_US) {
    gint64 arrival = donar_net_model_send (m, 0, 0, t, FRAME_BYTES);

    stats->frames++;
    if (arrival < 0) {
      stats->lost++;
      stats->late++;
    } else {
      gint64 delay = arrival - t;

      stats->histogram[MIN (delay / 1000, HISTOGRAM_BINS - 1)]++;
      stats->max_us = MAX (stats->max_us, delay);
      if (delay > GOAL_US)
        stats->late++;
    }
  }
  stats->failed = donar_net_model_failure_time (m, 0) < duration_us;
  donar_net_model_free (m);

  delivered = stats->frames - stats->lost;
  figures->median_ms = histogram_percentile (stats->histogram, delivered, 0.5);
  figures->p75_ms = histogram_percentile (stats->histogram, delivered, 0.75);
  figures->p99_ms = histogram_percentile (stats->histogram, delivered, 0.99);
  figures->max_ms = stats->max_us / 1000.0;
  figures->unacceptable = stats->late > stats->frames / 100;
  figures->failed = stats->failed;
}

static int
compare_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return (x > y) - (x < y);
}

static gdouble
sorted_percentile (const gdouble * sorted, guint n, gdouble q)
{
  guint i = (guint) floor (q * (n - 1) + 0.5);

  return n == 0 ? NAN : sorted[MIN (i, n - 1)];
}

static void
measure_duration (const DonarNetModelParams * params, guint64 seed,
    guint n_calls, const char *name, gint64 duration_us, DurationFigures * out)
{
  CallStats *stats = g_new (CallStats, 1);
  CallFigures *calls = g_new0 (CallFigures, n_calls);
  gdouble *medians = g_new (gdouble, n_calls);
  gdouble *p99s = g_new (gdouble, n_calls);
  gdouble median_split;
  guint i, unacceptable = 0, survivors = 0, unacceptable_survivors = 0,
      failed = 0, spiky = 0, best = 0, best_spiky = 0, worst = 0,
      worst_spiky = 0;

  for (i = 0; i < n_calls; i++) {
    /* The duration in the seed: calls of different lengths are different
     * links, as in the paper. */
    run_call (params, seed + i * 1000003 + duration_us, duration_us, stats,
        &calls[i]);
    medians[i] = calls[i].median_ms;
    p99s[i] = calls[i].p99_ms;
  }
  qsort (medians, n_calls, sizeof (gdouble), compare_double);
  qsort (p99s, n_calls, sizeof (gdouble), compare_double);
  median_split = sorted_percentile (medians, n_calls, 0.5);

  for (i = 0; i < n_calls; i++) {
    gboolean is_spiky = calls[i].max_ms >= 3.0 * calls[i].p75_ms;

    unacceptable += calls[i].unacceptable;
    failed += calls[i].failed;
    if (!calls[i].failed) {
      survivors++;
      unacceptable_survivors += calls[i].unacceptable;
    }
    spiky += is_spiky;
    if (calls[i].median_ms <= median_split) {
      best++;
      best_spiky += is_spiky;
    } else {
      worst++;
      worst_spiky += is_spiky;
    }
  }

  out->name = name;
  out->duration_us = duration_us;
  out->unacceptable = (gdouble) unacceptable / n_calls;
  out->unacceptable_survivors = survivors ?
      (gdouble) unacceptable_survivors / survivors : NAN;
  out->failed = (gdouble) failed / n_calls;
  out->median_p99_ms = sorted_percentile (p99s, n_calls, 0.5);
  out->median_of_medians_ms = median_split;
  out->p10_of_medians_ms = sorted_percentile (medians, n_calls, 0.1);
  out->p90_of_medians_ms = sorted_percentile (medians, n_calls, 0.9);
  out->spiky = (gdouble) spiky / n_calls;
  out->spiky_best_half = best ? (gdouble) best_spiky / best : NAN;
  out->spiky_worst_half = worst ? (gdouble) worst_spiky / worst : NAN;

  g_free (p99s);
  g_free (medians);
  g_free (calls);
  g_free (stats);
}

/* Fig. 4: circuits of 12-link calls (so that shared guards count). */
static void
measure_failures (const DonarNetModelParams * params, guint64 seed,
    guint n_models, SecurityFigures * out)
{
  guint i, link, n_links = 12, by_10 = 0, by_60 = 0, simultaneous = 0;
  gdouble *setups = g_new (gdouble, n_models);

  out->failed_10min_formula =
      donar_net_model_params_failed_fraction (params, 600.0);
  out->failed_60min_formula =
      donar_net_model_params_failed_fraction (params, 3600.0);

  for (i = 0; i < n_models; i++) {
    DonarNetModel *m = donar_net_model_new_with_params (params, n_links,
        seed + i, 0);
    GHashTable *times = g_hash_table_new_full (g_int64_hash, g_int64_equal,
        g_free, NULL);
    gboolean together = FALSE;

    for (link = 0; link < n_links; link++) {
      gint64 failure = donar_net_model_failure_time (m, link);

      by_10 += failure <= 600 * G_GINT64_CONSTANT (1000000);
      by_60 += failure <= 3600 * G_GINT64_CONSTANT (1000000);
      if (failure <= 5400 * G_GINT64_CONSTANT (1000000)) {
        gint64 *key = g_new (gint64, 1);

        *key = failure;
        if (g_hash_table_contains (times, key)) {
          together = TRUE;
          g_free (key);
        } else {
          g_hash_table_add (times, key);
        }
      }
    }
    simultaneous += together;
    setups[i] = (donar_net_model_reopen (m, 0, 0)) / 1e6;
    g_hash_table_destroy (times);
    donar_net_model_free (m);
  }

  qsort (setups, n_models, sizeof (gdouble), compare_double);
  out->setup_median_s = sorted_percentile (setups, n_models, 0.5);
  out->failure_circuits = n_models * n_links;
  out->failed_10min = (gdouble) by_10 / (n_models * n_links);
  out->failed_60min = (gdouble) by_60 / (n_models * n_links);
  out->simultaneous_failures = (gdouble) simultaneous / n_models;
  g_free (setups);
}

/* The cost of a send in a 12-link call of 90 minutes: every frame on 2
 * links, both directions.  The only clock reads are here, in the tool. */
static gdouble
measure_speed (const DonarNetModelParams * params, guint64 seed)
{
  DonarNetModel *m = donar_net_model_new_with_params (params, 12, seed, 0);
  gint64 t, begin, sends = 0;
  guint frame = 0;
  volatile gint64 sink = 0;

  begin = g_get_monotonic_time ();
  for (t = 0; t < 5400 * G_GINT64_CONSTANT (1000000); t += FRAME_US) {
    guint link = (frame * 2) % 12, dir;

    for (dir = 0; dir < 2; dir++) {
      sink += donar_net_model_send (m, link, dir, t, FRAME_BYTES);
      sink += donar_net_model_send (m, link + 1, dir, t, FRAME_BYTES);
      sends += 2;
    }
    frame++;
  }
  (void) sink;
  donar_net_model_free (m);
  return (g_get_monotonic_time () - begin) * 1000.0 / sends;
}

static void
print_table (const SecurityFigures * f)
{
  guint i;

  printf ("== %s (%u relays, %u guard(s) on the path)\n",
      donar_security_to_string (f->security), f->relays,
      donar_security_path_guards (f->security));
  printf ("%-8s %12s %12s %8s %10s %10s %16s %8s %8s %8s\n", "call",
      "unaccept.", "unacc.held", "failed", "p99 med", "lat. med",
      "lat. med p10-p90", "spiky", "best", "worst");
  for (i = 0; i < f->n_durations; i++) {
    const DurationFigures *d = &f->durations[i];

    printf ("%-8s %11.1f%% %11.1f%% %7.1f%% %8.0fms %8.0fms %7.0f-%-6.0fms"
        " %7.1f%% %7.1f%% %7.1f%%\n", d->name, 100 * d->unacceptable,
        100 * d->unacceptable_survivors, 100 * d->failed, d->median_p99_ms,
        d->median_of_medians_ms, d->p10_of_medians_ms, d->p90_of_medians_ms,
        100 * d->spiky, 100 * d->spiky_best_half, 100 * d->spiky_worst_half);
  }
  printf ("failed links (%u circuits): 10 min %.1f%% (formula %.1f%%), "
      "60 min %.1f%% (formula %.1f%%)\n", f->failure_circuits,
      100 * f->failed_10min, 100 * f->failed_10min_formula,
      100 * f->failed_60min, 100 * f->failed_60min_formula);
  printf ("12-link calls with >= 2 links failing at once within 90 min: "
      "%.1f%%\n", 100 * f->simultaneous_failures);
  printf ("reopen: median setup %.2f s; cost %.0f ns per send\n\n",
      f->setup_median_s, f->ns_per_send);
}

/* A JSON number, or null for a figure that was not measured. */
static const char *
json_number (gchar * buffer, gdouble value)
{
  if (!isfinite (value))
    return "null";
  g_snprintf (buffer, G_ASCII_DTOSTR_BUF_SIZE, "%.1f", value);
  return buffer;
}

static void
print_json (const SecurityFigures * f, gboolean last)
{
  gchar number[G_ASCII_DTOSTR_BUF_SIZE];
  guint i;

  printf ("  \"%s\": {\n    \"relays\": %u,\n    \"calls\": {\n",
      donar_security_to_string (f->security), f->relays);
  for (i = 0; i < f->n_durations; i++) {
    const DurationFigures *d = &f->durations[i];

    printf ("      \"%s\": {\"unacceptable\": %.4f, "
        "\"unacceptable_held\": %.4f, \"failed\": %.4f, "
        "\"median_p99_ms\": %.1f, \"median_latency_ms\": %.1f, "
        "\"p10_latency_ms\": %.1f, \"p90_latency_ms\": %.1f, "
        "\"max_over_3x_p75\": %.4f, \"max_over_3x_p75_best_half\": %.4f, "
        "\"max_over_3x_p75_worst_half\": %.4f}%s\n", d->name,
        d->unacceptable, d->unacceptable_survivors, d->failed,
        d->median_p99_ms, d->median_of_medians_ms, d->p10_of_medians_ms,
        d->p90_of_medians_ms, d->spiky, d->spiky_best_half,
        d->spiky_worst_half, i + 1 < f->n_durations ? "," : "");
  }
  printf ("    },\n    \"failed_10min\": %.4f, \"failed_10min_formula\": %.4f,"
      "\n    \"failed_60min\": %.4f, \"failed_60min_formula\": %.4f,\n"
      "    \"simultaneous_failures\": %.4f, \"setup_median_s\": %.3f,\n"
      "    \"ns_per_send\": %s\n  }%s\n", f->failed_10min,
      f->failed_10min_formula, f->failed_60min, f->failed_60min_formula,
      f->simultaneous_failures, f->setup_median_s,
      json_number (number, f->ns_per_send), last ? "" : ",");
}

static gboolean
apply_settings (DonarNetModelParams * params, gchar ** settings)
{
  guint i;

  for (i = 0; settings != NULL && settings[i] != NULL; i++) {
    gchar **pair = g_strsplit (settings[i], "=", 2);
    gchar *end = NULL;
    gdouble value = pair[1] ? g_ascii_strtod (pair[1], &end) : NAN;
    gboolean ok = pair[1] != NULL && end != pair[1] && *end == '\0'
        && donar_net_model_params_set (params, pair[0], value);

    if (!ok) {
      gchar *names = g_strjoinv (" ",
          (gchar **) donar_net_model_params_names ());

      fprintf (stderr, "bad --set '%s'; parameters: %s\n", settings[i], names);
      g_free (names);
    }
    g_strfreev (pair);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  gint calls = 256;
  gint64 seed = 1;
  gchar *security_name = NULL;
  gboolean json = FALSE, quick = FALSE;
  gchar **settings = NULL;
  GOptionEntry entries[] = {
    {"calls", 'n', 0, G_OPTION_ARG_INT, &calls,
        "Calls per configuration and duration (default 256)", "N"},
    {"seed", 's', 0, G_OPTION_ARG_INT64, &seed, "First seed (default 1)",
        "S"},
    {"security", 0, 0, G_OPTION_ARG_STRING, &security_name,
        "Only this configuration: default, 2hop or 1way", "NAME"},
    {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL},
    {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &settings,
        "Change a model parameter (repeatable)", "NAME=VALUE"},
    {"quick", 0, 0, G_OPTION_ARG_NONE, &quick,
        "Skip the 90-minute calls and the speed run", NULL},
    G_OPTION_ENTRY_NULL
  };
  GOptionContext *context;
  GError *error = NULL;
  DonarSecurity only = DONAR_SECURITY_DEFAULT;
  guint s, n_done = 0, n_wanted;

  context = g_option_context_new ("- calibration figures of the link model");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error)) {
    fprintf (stderr, "%s\n", error->message);
    return 2;
  }
  g_option_context_free (context);
  if (security_name != NULL
      && !donar_security_from_string (security_name, &only)) {
    fprintf (stderr, "unknown security configuration '%s'\n", security_name);
    return 2;
  }
  if (calls < 2) {
    fprintf (stderr, "--calls must be at least 2\n");
    return 2;
  }

  n_wanted = security_name ? 1 : DONAR_SECURITY_COUNT;
  if (json)
    printf ("{\n");
  for (s = 0; s < DONAR_SECURITY_COUNT; s++) {
    SecurityFigures f;
    DonarNetModelParams params;

    if (security_name != NULL && s != only)
      continue;
    memset (&f, 0, sizeof (f));
    f.security = (DonarSecurity) s;
    donar_net_model_params_init (&params, f.security);
    if (!apply_settings (&params, settings)) {
      g_free (security_name);
      g_strfreev (settings);
      return 2;
    }
    f.relays = donar_net_model_params_path_length (&params);
    measure_duration (&params, seed, calls, "30s", 30 * G_GINT64_CONSTANT
        (1000000), &f.durations[f.n_durations++]);
    measure_duration (&params, seed, calls, "5min", 300 *
        G_GINT64_CONSTANT (1000000), &f.durations[f.n_durations++]);
    if (!quick)
      measure_duration (&params, seed, calls, "90min", 5400 *
          G_GINT64_CONSTANT (1000000), &f.durations[f.n_durations++]);
    measure_failures (&params, seed, 1000, &f);
    f.ns_per_send = quick ? NAN : measure_speed (&params, seed);

    n_done++;
    if (json)
      print_json (&f, n_done == n_wanted);
    else
      print_table (&f);
  }
  if (json)
    printf ("}\n");
  g_free (security_name);
  g_strfreev (settings);
  return 0;
}
