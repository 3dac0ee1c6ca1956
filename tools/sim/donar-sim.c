/* donar-sim: whole DONAR calls in virtual time over the Tor link model.
 * Both endpoints run lib/core unchanged; see docs/evaluation.md. */
#include "sim-report.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <errno.h>
#include <unistd.h>

#include "sim-frame-log.h"

typedef struct
{
  SimSettings settings;
  SimCallSummary *summaries;
  GMutex lock;
  guint done;
  guint calls;
  gboolean progress;
  const char *frame_log;        /* a directory, or NULL */
  const char *send_log;         /* a directory, or NULL */
  GError *error;
} Run;

/* The run reports its first error; the others go. */
static void
keep_first_error (Run * run, GError * error)
{
  g_mutex_lock (&run->lock);
  if (run->error == NULL)
    run->error = error;
  else
    g_error_free (error);
  g_mutex_unlock (&run->lock);
}

static void
run_one_call (gpointer data, gpointer user_data)
{
  Run *run = user_data;
  guint index = GPOINTER_TO_UINT (data) - 1;
  SimCallResult result;
  GError *error = NULL;

  if (!sim_run_call (&run->settings, index, &result, &error)) {
    keep_first_error (run, error);
    return;
  }
  sim_summarize_call (&result, run->settings.deadline_us,
      run->settings.drop_after_us, &run->summaries[index]);
  if (run->frame_log && !sim_write_frame_log (run->frame_log, index, &result,
          run->settings.config.frame_period_us, &error))
    keep_first_error (run, error);
  else if (run->send_log && result.sends &&
      !sim_write_send_log (run->send_log, index, &result, &error))
    keep_first_error (run, error);
  sim_call_result_clear (&result);

  g_mutex_lock (&run->lock);
  run->done++;
  if (run->progress)
    fprintf (stderr, "\rdonar-sim: %u/%u calls", run->done, run->calls);
  g_mutex_unlock (&run->lock);
}

static gdouble
cpu_seconds (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
      usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static gboolean
fail (const char *message)
{
  fprintf (stderr, "donar-sim: %s\n", message);
  return FALSE;
}

/* The command line as given: NULL until given, as GOption replaces a
 * default without freeing it. */
typedef struct
{
  gchar *policy, *security, *merge, *paths;
  gchar *trace, *histogram, *frame_log, *send_log;
  gchar *cut, *peer_restart, *guard_failure;
  gdouble kill_every_s;
  GStrv cross_traffic;
  GStrv sets;
  /* The protocol's from the library (DONAR_DEFAULT_*); links, n1st and
   * n2nd unset take the policy's. */
  gint calls, links, n1st, n2nd;
  gint window_ms, frame_ms, frame_bytes;
  gint redundancy, oracle_sends, oracle_lag_ms;
  gint jobs, deadline_ms, drop_after_ms, alarm_frames;
  gdouble duration, budget;
  gint64 seed;
  gboolean json, spread_copies, no_spread_copies, one_way;
} Options;

static void
options_init (Options * o)
{
  memset (o, 0, sizeof *o);
  o->calls = 1;
  o->n1st = o->n2nd = -1;
  o->window_ms = DONAR_DEFAULT_WINDOW_US / 1000;
  o->frame_ms = DONAR_DEFAULT_FRAME_PERIOD_US / 1000;
  o->frame_bytes = 172;
  o->redundancy = DONAR_DEFAULT_REDUNDANCY;
  o->oracle_sends = 1;
  o->deadline_ms = DONAR_DEFAULT_DEADLINE_US / 1000;
  o->drop_after_ms = 1000;
  o->alarm_frames = DONAR_DEFAULT_ALARM_FRAMES;
  o->duration = 300;
  o->budget = DONAR_DEFAULT_BUDGET;
  o->seed = 1;
}

static void
options_clear (Options * o)
{
  g_free (o->policy);
  g_free (o->security);
  g_free (o->merge);
  g_free (o->paths);
  g_free (o->trace);
  g_free (o->histogram);
  g_free (o->frame_log);
  g_free (o->send_log);
  g_free (o->cut);
  g_free (o->peer_restart);
  g_free (o->guard_failure);
  g_strfreev (o->cross_traffic);
  g_strfreev (o->sets);
}

/* The policy, the protocol's settings, the calls and the network. */
static void
add_call_entries (GOptionContext * context, Options * o)
{
  GOptionEntry entries[] = {
    {"policy", 0, 0, G_OPTION_ARG_STRING, &o->policy,
        "simple, torfone, alternate, double-send, adaptive or oracle "
          "(double-send)", "P"},
    {"budget", 0, 0, G_OPTION_ARG_DOUBLE, &o->budget,
          "adaptive: messages a frame on average, 1.0 (ALTERNATE's cells/s) "
          "to 2.0 (DOUBLE-SEND's) (" G_STRINGIFY (DONAR_DEFAULT_BUDGET) ")",
        "B"},
    {"spread-copies", 0, 0, G_OPTION_ARG_NONE, &o->spread_copies,
          "adaptive: a frame's second copy avoids the previous frame's "
          "links too, 4 links a frame and its piggybacked copy (default)",
        NULL},
    {"no-spread-copies", 0, 0, G_OPTION_ARG_NONE, &o->no_spread_copies,
        "adaptive: a frame's second copy on the best link apart from its "
          "first copy's, which may be the previous frame's", NULL},
    {"paths", 0, 0, G_OPTION_ARG_STRING, &o->paths,
        "adaptive: which sides learn their guard on each link from tor: "
          "own (each its half), caller (only the caller, as the link engine "
          "does today) or none (own)", "P"},
    {"security", 0, 0, G_OPTION_ARG_STRING, &o->security,
        "default, 2hop or 1way (default)", "S"},
    {"calls", 0, 0, G_OPTION_ARG_INT, &o->calls, "calls to run (1)", "N"},
    {"duration", 0, 0, G_OPTION_ARG_DOUBLE, &o->duration,
        "seconds of each call (300)", "SECONDS"},
    {"seed", 0, 0, G_OPTION_ARG_INT64, &o->seed, "seed of the run (1)", "S"},
    {"trace", 0, 0, G_OPTION_ARG_FILENAME, &o->trace,
        "replay link<i>.csv of DIR on link i (docs/netmodel.md)", "DIR"},
    {"cross-traffic", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->cross_traffic,
        "bulk downloads through a guard: start_s,duration_s,flows"
          "[,kib_per_s[,side[,guard]]] (100 KiB/s, caller, guard 0); "
          "repeatable", "SPEC"},
    {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->sets,
        "change a parameter of the link model (docs/netmodel.md); "
          "repeatable", "NAME=VALUE"},
    {"links", 0, 0, G_OPTION_ARG_INT, &o->links,
          "nLINKS (" G_STRINGIFY (DONAR_DEFAULT_LINKS) "; SIMPLE 1, TORFONE 2)",
        "N"},
    {"n1st", 0, 0, G_OPTION_ARG_INT, &o->n1st,
        "n1ST (" G_STRINGIFY (DONAR_DEFAULT_N_1ST) ")", "N"},
    {"n2nd", 0, 0, G_OPTION_ARG_INT, &o->n2nd,
        "n2ND (" G_STRINGIFY (DONAR_DEFAULT_N_2ND) ")", "N"},
    {"window-ms", 0, 0, G_OPTION_ARG_INT, &o->window_ms, "w (2000)", "MS"},
    {"frame-ms", 0, 0, G_OPTION_ARG_INT, &o->frame_ms, "Tframe (40)", "MS"},
    {"frame-bytes", 0, 0, G_OPTION_ARG_INT, &o->frame_bytes,
        "size of each frame (172)", "BYTES"},
    {"redundancy", 0, 0, G_OPTION_ARG_INT, &o->redundancy,
        "previous frames piggybacked ("
          G_STRINGIFY (DONAR_DEFAULT_REDUNDANCY) ")", "N"},
    {"alarm-frames", 0, 0, G_OPTION_ARG_INT, &o->alarm_frames,
        "take a link out at once when a frame of it is overtaken by N "
          "others; 0: only at the window, as the paper ("
          G_STRINGIFY (DONAR_DEFAULT_ALARM_FRAMES) ")", "N"},
    {"merge", 0, 0, G_OPTION_ARG_STRING, &o->merge,
        "scores: mean, local or remote (mean)", "M"},
    {"oracle-sends", 0, 0, G_OPTION_ARG_INT, &o->oracle_sends,
        "sends per frame of the oracle: 1 or 2 (1)", "N"},
    {"oracle-lag-ms", 0, 0, G_OPTION_ARG_INT, &o->oracle_lag_ms,
          "the oracle chooses by the delays of a send MS earlier, as a "
          "policy whose news of a link is a one-way delay old (0)",
        "MS"},
    {"deadline-ms", 0, 0, G_OPTION_ARG_INT, &o->deadline_ms,
        "one-way deadline of a frame (360)", "MS"},
    {"drop-after-ms", 0, 0, G_OPTION_ARG_INT, &o->drop_after_ms,
        "a frame later than this counts as missing for the dropped-call "
          "rule; 0: only lost frames (1000)", "MS"},
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

/* How the run runs, the faults it injects, what it writes. */
static void
add_run_entries (GOptionContext * context, Options * o)
{
  GOptionEntry entries[] = {
    {"jobs", 0, 0, G_OPTION_ARG_INT, &o->jobs,
        "calls run at once (the number of cores)", "N"},
    {"json", 0, 0, G_OPTION_ARG_NONE, &o->json, "print one JSON object",
        NULL},
    {"histogram", 0, 0, G_OPTION_ARG_FILENAME, &o->histogram,
        "write the latencies of all delivered frames to FILE as CSV rows "
          "latency_ms,frames", "FILE"},
    {"kill-link-every", 0, 0, G_OPTION_ARG_DOUBLE, &o->kill_every_s,
        "kill a link that is up, at random, every S seconds (0: never)", "S"},
    {"cut", 0, 0, G_OPTION_ARG_STRING, &o->cut,
          "cut every link from AT for DURATION seconds: nothing arrives "
          "meanwhile, and each link holds at most tor's stream window "
          "(500 cells) each way, the records beyond it lost; the report "
          "gives the frames later than DURATION + the deadline",
        "AT,DURATION"},
    {"guard-failure", 0, 0, G_OPTION_ARG_STRING, &o->guard_failure,
        "guard 0 of the caller (SIDE 0, the default) or of the callee (1) "
          "fails for good at AT seconds: the links through it break, new "
          "circuits take the side's other guard", "AT[,SIDE]"},
    {"peer-restart", 0, 0, G_OPTION_ARG_STRING, &o->peer_restart,
        "the callee's process dies at AT and is back DOWN seconds later "
          "(5) with a new session: every link breaks, the caller dials "
          "again with backoff", "AT[,DOWN]"},
    {"one-way", 0, 0, G_OPTION_ARG_NONE, &o->one_way,
        "the callee hands over no frame, as the README's demo: only the "
          "caller's frames count", NULL},
    {"frame-log", 0, 0, G_OPTION_ARG_FILENAME, &o->frame_log,
        "write each frame's fate to DIR/call<N>-dir<D>.csv (rows "
          "seq,sent_ms,arrival_ms; no arrival: lost)", "DIR"},
    {"send-log", 0, 0, G_OPTION_ARG_FILENAME, &o->send_log,
        "write every record sent to DIR/call<N>-sends.csv (rows "
          "dir,frame,link,caller_guard,callee_guard)", "DIR"},
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

static gboolean
options_parse (Options * o, int *argc, char ***argv)
{
  GOptionContext *context;
  GError *error = NULL;

  context = g_option_context_new ("- whole DONAR calls in virtual time");
  add_call_entries (context, o);
  add_run_entries (context, o);
  if (!g_option_context_parse (context, argc, argv, &error)) {
    fprintf (stderr, "donar-sim: %s\n", error->message);
    g_error_free (error);
    g_option_context_free (context);
    return FALSE;
  }
  g_option_context_free (context);
  if (o->policy == NULL)
    o->policy = g_strdup ("double-send");
  if (o->security == NULL)
    o->security = g_strdup ("default");
  if (o->merge == NULL)
    o->merge = g_strdup ("mean");
  return TRUE;
}

/* The policy, the security, the merge of scores and the plain ranges;
 * tells the first that is wrong. */
static gboolean
settings_choose_policy (const Options * o, SimSettings * s)
{
  gboolean ok = TRUE;

  s->oracle = g_strcmp0 (o->policy, "oracle") == 0;
  /* The oracle's messages are sized as ALTERNATE's (scores, no
   * acknowledgements), the policy it was measured against. */
  if (s->oracle)
    s->config.policy = DONAR_POLICY_ALTERNATE;
  if (!s->oracle && !donar_policy_from_string (o->policy, &s->config.policy))
    ok = fail ("--policy: simple, torfone, alternate, double-send, adaptive "
        "or oracle");
  if (!donar_security_from_string (o->security, &s->security))
    ok = ok && fail ("--security: default, 2hop or 1way");
  if (g_strcmp0 (o->merge, "mean") == 0)
    s->config.merge = DONAR_MERGE_MEAN;
  else if (g_strcmp0 (o->merge, "local") == 0)
    s->config.merge = DONAR_MERGE_LOCAL;
  else if (g_strcmp0 (o->merge, "remote") == 0)
    s->config.merge = DONAR_MERGE_REMOTE;
  else
    ok = ok && fail ("--merge: mean, local or remote");
  if (o->calls < 1 || o->duration <= 0 || o->frame_ms <= 0 ||
      o->window_ms <= 0 || o->deadline_ms <= 0 || o->redundancy < 0 ||
      o->jobs < 0 || o->drop_after_ms < 0 || o->alarm_frames < 0)
    ok = ok && fail ("--calls, --duration, --frame-ms, --window-ms and "
        "--deadline-ms must be positive");
  if (o->frame_bytes < 4 || o->frame_bytes > DONAR_CELL_PAYLOAD)
    ok = ok && fail ("--frame-bytes: 4 to 498 (the frame number takes 4)");
  if (s->oracle && o->oracle_sends != 1 && o->oracle_sends != 2)
    ok = ok && fail ("--oracle-sends: 1 or 2");
  if (o->oracle_lag_ms < 0)
    ok = ok && fail ("--oracle-lag-ms: 0 or more");
  return ok;
}

/* The protocol's settings (links, timing, ADAPTIVE's) and the paths the
 * sides learn; FALSE when they do not make a valid configuration. */
static gboolean
settings_configure_protocol (const Options * o, SimSettings * s)
{
  gboolean adaptive = !s->oracle && s->config.policy == DONAR_POLICY_ADAPTIVE;
  gint links = o->links;
  gboolean ok = TRUE;

  /* The baselines as the paper ran them: SIMPLE on one link, TORFONE on
   * two, unless told otherwise. */
  if (!s->oracle && s->config.policy == DONAR_POLICY_SIMPLE && links == 0)
    links = 1;
  if (!s->oracle && s->config.policy == DONAR_POLICY_TORFONE && links == 0)
    links = 2;
  if (links > 0)
    s->config.n_links = links;
  s->config.n_1st = o->n1st >= 0 ? (guint) o->n1st :
      MIN (s->config.n_1st, s->config.n_links);
  s->config.n_2nd = o->n2nd >= 0 ? (guint) o->n2nd :
      MIN (s->config.n_2nd, s->config.n_links - s->config.n_1st);
  s->config.window_us = (gint64) o->window_ms * 1000;
  s->config.frame_period_us = (gint64) o->frame_ms * 1000;
  s->config.redundancy = o->redundancy;
  s->config.alarm_frames = o->alarm_frames;
  s->config.budget = o->budget;
  if (o->no_spread_copies)
    s->config.spread_copies = FALSE;
  s->one_way = o->one_way;
  if (o->paths == NULL || g_strcmp0 (o->paths, "own") == 0)
    s->paths = SIM_PATHS_OWN;
  else if (g_strcmp0 (o->paths, "caller") == 0)
    s->paths = SIM_PATHS_CALLER;
  else if (g_strcmp0 (o->paths, "none") == 0)
    s->paths = SIM_PATHS_NONE;
  else
    ok = ok && fail ("--paths: own, caller or none");
  if (!(o->budget >= 1.0 && o->budget <= 2.0))
    ok = ok && fail ("--budget: from 1.0 to 2.0");
  if (o->spread_copies && !adaptive)
    ok = ok && fail ("--spread-copies: only with --policy adaptive");
  if (o->no_spread_copies && !adaptive)
    ok = ok && fail ("--no-spread-copies: only with --policy adaptive");
  if (o->spread_copies && o->no_spread_copies)
    ok = ok && fail ("--spread-copies and --no-spread-copies: one or the "
        "other");
  if (!ok)
    return FALSE;
  if (donar_config_validate (&s->config) != DONAR_OK)
    return fail ("these settings are not valid: check --links, --n1st, "
        "--n2nd (n1st >= 1, n1st + n2nd <= links <= 32), --redundancy "
        "(<= 8) and --alarm-frames (< 128)");
  if (!s->oracle && o->frame_bytes > (gint) (DONAR_CELL_PAYLOAD -
          donar_config_record_overhead (&s->config, 1)))
    return fail ("--frame-bytes: larger than one message can carry with "
        "these settings");
  return TRUE;
}

/* The link model's parameters (--set) and the cross traffic. */
static gboolean
settings_configure_network (const Options * o, SimSettings * s)
{
  GError *error = NULL;

  donar_net_model_params_init (&s->net_params, s->security);
  s->net_params_set = TRUE;
  for (guint i = 0; o->sets && o->sets[i]; i++) {
    const char *eq = strchr (o->sets[i], '=');
    g_autofree gchar *name = eq ? g_strndup (o->sets[i], eq - o->sets[i]) :
        NULL;
    gchar *end = NULL;
    gdouble value = eq ? g_ascii_strtod (eq + 1, &end) : 0;

    if (name == NULL || end == eq + 1 || *end != '\0' ||
        !donar_net_model_params_set (&s->net_params, name, value)) {
      fprintf (stderr, "donar-sim: --set %s: expected NAME=VALUE with a "
          "parameter of docs/netmodel.md and a non-negative number\n",
          o->sets[i]);
      return FALSE;
    }
  }
  for (guint i = 0; o->cross_traffic && o->cross_traffic[i]; i++) {
    if (i == SIM_MAX_CROSS_TRAFFIC)
      return fail ("--cross-traffic: at most 8");
    if (!sim_cross_traffic_parse (o->cross_traffic[i], s->security,
            &s->cross_traffic[i], &error)) {
      fail (error->message);
      g_error_free (error);
      return FALSE;
    }
    s->n_cross_traffic = i + 1;
  }
  return TRUE;
}

/* Parses "AT,LENGTH" in seconds, LENGTH default_length when only AT is
 * given; FALSE when AT is not a number. */
static gboolean
parse_at_and_length (const char *spec, gdouble default_length, gdouble * at,
    gdouble * length)
{
  gchar *end = NULL;

  *at = g_ascii_strtod (spec, &end);
  *length = default_length;
  if (end != spec && *end == ',')
    *length = g_ascii_strtod (end + 1, &end);
  return end != spec && *end == '\0';
}

/* The faults: links killed, a cut, a guard's failure, a peer's restart. */
static gboolean
settings_configure_faults (const Options * o, SimSettings * s)
{
  GError *error = NULL;
  gdouble at, length;

  if (o->kill_every_s < 0 || (o->kill_every_s > 0 && o->kill_every_s < 0.001))
    return fail ("--kill-link-every: seconds, 0 (never) or at least 0.001");
  s->kill_every_us = (gint64) (o->kill_every_s * G_USEC_PER_SEC);
  if (o->cut) {
    if (!parse_at_and_length (o->cut, -1, &at, &length) || at < 0 ||
        length <= 0)
      return fail ("--cut: AT,DURATION in seconds, AT >= 0 and DURATION > 0");
    s->cut_at_us = (gint64) (at * G_USEC_PER_SEC);
    s->cut_duration_us = (gint64) (length * G_USEC_PER_SEC);
  }
  if (o->guard_failure && !sim_guard_failure_parse (o->guard_failure, s,
          &error)) {
    fail (error->message);
    g_error_free (error);
    return FALSE;
  }
  if (o->peer_restart) {
    if (!parse_at_and_length (o->peer_restart, 5, &at, &length) || at < 0 ||
        length <= 0)
      return fail ("--peer-restart: AT[,DOWN] in seconds, AT >= 0 and "
          "DOWN > 0");
    s->peer_restart = TRUE;
    s->peer_restart_at_us = (gint64) (at * G_USEC_PER_SEC);
    s->peer_down_us = (gint64) (length * G_USEC_PER_SEC);
  }
  return TRUE;
}

/* What is left: the frames, the deadlines, the seed and the logs. */
static void
settings_finish (const Options * o, SimSettings * s)
{
  s->oracle_sends = o->oracle_sends;
  s->oracle_lag_us = (gint64) o->oracle_lag_ms * 1000;
  s->frame_bytes = o->frame_bytes;
  s->duration_us = (gint64) (o->duration * G_USEC_PER_SEC);
  s->seed = o->seed;
  s->trace_dir = o->trace;
  s->deadline_us = (gint64) o->deadline_ms * 1000;
  s->config.deadline_us = s->deadline_us;
  s->drop_after_us = o->drop_after_ms > 0 ?
      (gint64) o->drop_after_ms * 1000 : G_MAXINT64;
  s->log_sends = o->send_log != NULL;
}

static gboolean
make_log_dir (const char *option, const char *dir)
{
  if (dir && g_mkdir_with_parents (dir, 0755) != 0) {
    g_printerr ("donar-sim: %s: cannot make %s: %s\n", option, dir,
        g_strerror (errno));
    return FALSE;
  }
  return TRUE;
}

/* Runs the calls on `jobs` threads (0: a thread a core). */
static void
run_calls (Run * run, gint jobs)
{
  GThreadPool *pool;

  if (jobs == 0)
    jobs = g_get_num_processors ();
  pool = g_thread_pool_new (run_one_call, run, jobs, TRUE, NULL);
  for (guint c = 0; c < run->calls; c++)
    g_thread_pool_push (pool, GUINT_TO_POINTER (c + 1), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);
  if (run->progress)
    fprintf (stderr, "\n");
}

/* The histogram, then the report on stdout: FALSE on an error. */
static gboolean
report_run (const Run * run, const Options * o)
{
  const SimSettings *s = &run->settings;
  SimRunInfo info;
  GError *error = NULL;
  GString *report;

  info.policy =
      s->oracle ? "oracle" : donar_policy_to_string (s->config.policy);
  info.security = donar_security_to_string (s->security);
  info.oracle_sends = s->oracle ? o->oracle_sends : 0;
  info.oracle_lag_ms = s->oracle ? o->oracle_lag_ms : 0;
  info.calls = o->calls;
  info.duration_s = o->duration;
  info.seed = o->seed;
  info.cpu_s = cpu_seconds ();
  info.late_after_cut_us = s->cut_duration_us > 0 ?
      s->cut_duration_us + s->deadline_us : 0;
  if (o->histogram && !sim_write_histogram (o->histogram, run->summaries,
          o->calls, &error)) {
    fprintf (stderr, "donar-sim: %s\n", error->message);
    g_error_free (error);
    return FALSE;
  }
  report = sim_report (&info, run->summaries, o->json);
  fputs (report->str, stdout);
  g_string_free (report, TRUE);
  return TRUE;
}

/* The settings of the run from the options: 0, or the exit status. */
static int
settings_from_options (const Options * o, SimSettings * s)
{
  donar_config_init (&s->config);
  if (!settings_choose_policy (o, s) || !settings_configure_protocol (o, s)
      || !settings_configure_network (o, s)
      || !settings_configure_faults (o, s))
    return 2;
  settings_finish (o, s);
  if (!make_log_dir ("--frame-log", o->frame_log) ||
      !make_log_dir ("--send-log", o->send_log))
    return 1;
  return 0;
}

int
main (int argc, char **argv)
{
  Options o;
  Run run;
  int status;

  options_init (&o);
  if (!options_parse (&o, &argc, &argv)) {
    options_clear (&o);
    return 2;
  }
  memset (&run, 0, sizeof run);
  status = settings_from_options (&o, &run.settings);
  if (status != 0) {
    options_clear (&o);
    return status;
  }
  run.frame_log = o.frame_log;
  run.send_log = o.send_log;
  run.calls = o.calls;
  run.summaries = g_new0 (SimCallSummary, o.calls);
  run.progress = isatty (2) && (gdouble) o.calls * o.duration > 3600;
  g_mutex_init (&run.lock);
  run_calls (&run, o.jobs);
  if (run.error) {
    fprintf (stderr, "donar-sim: %s\n", run.error->message);
    g_error_free (run.error);
    status = 1;
  } else if (!report_run (&run, &o)) {
    status = 1;
  }
  for (guint c = 0; c < run.calls; c++)
    sim_call_summary_clear (&run.summaries[c]);
  g_free (run.summaries);
  g_mutex_clear (&run.lock);
  options_clear (&o);
  return status;
}
