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

int
main (int argc, char **argv)
{
  /* NULL until given: GOption replaces a default without freeing it. */
  g_autofree gchar *policy = NULL, *security = NULL, *merge = NULL;
  g_autofree gchar *trace = NULL, *histogram = NULL, *frame_log = NULL,
      *send_log = NULL;
  g_autofree gchar *cut = NULL, *peer_restart = NULL, *paths = NULL;
  g_autofree gchar *guard_failure = NULL;
  gdouble kill_every_s = 0;
  g_auto (GStrv) cross_traffic = NULL;
  g_auto (GStrv) sets = NULL;
  /* The protocol's from the library (DONAR_DEFAULT_*); links, n1st and
   * n2nd unset take the policy's. */
  gint calls = 1, links = 0, n1st = -1, n2nd = -1;
  gint window_ms = DONAR_DEFAULT_WINDOW_US / 1000;
  gint frame_ms = DONAR_DEFAULT_FRAME_PERIOD_US / 1000, frame_bytes = 172;
  gint redundancy = DONAR_DEFAULT_REDUNDANCY, oracle_sends = 1;
  gint oracle_lag_ms = 0;
  gint jobs = 0, deadline_ms = DONAR_DEFAULT_DEADLINE_US / 1000;
  gint drop_after_ms = 1000, alarm_frames = DONAR_DEFAULT_ALARM_FRAMES;
  gdouble duration = 300, budget = DONAR_DEFAULT_BUDGET;
  gint64 seed = 1;
  gboolean json = FALSE, spread_copies = FALSE, no_spread_copies = FALSE;
  gboolean one_way = FALSE;
  GOptionEntry entries[] = {
    {"policy", 0, 0, G_OPTION_ARG_STRING, &policy,
        "simple, torfone, alternate, double-send, adaptive or oracle "
          "(double-send)", "P"},
    {"budget", 0, 0, G_OPTION_ARG_DOUBLE, &budget,
          "adaptive: messages a frame on average, 1.0 (ALTERNATE's cells/s) "
          "to 2.0 (DOUBLE-SEND's) (" G_STRINGIFY (DONAR_DEFAULT_BUDGET) ")",
        "B"},
    {"spread-copies", 0, 0, G_OPTION_ARG_NONE, &spread_copies,
          "adaptive: a frame's second copy avoids the previous frame's "
          "links too, 4 links a frame and its piggybacked copy (default)",
        NULL},
    {"no-spread-copies", 0, 0, G_OPTION_ARG_NONE, &no_spread_copies,
        "adaptive: a frame's second copy on the best link apart from its "
          "first copy's, which may be the previous frame's", NULL},
    {"paths", 0, 0, G_OPTION_ARG_STRING, &paths,
        "adaptive: which sides learn their guard on each link from tor: "
          "own (each its half), caller (only the caller, as the link engine "
          "does today) or none (own)", "P"},
    {"security", 0, 0, G_OPTION_ARG_STRING, &security,
        "default, 2hop or 1way (default)", "S"},
    {"calls", 0, 0, G_OPTION_ARG_INT, &calls, "calls to run (1)", "N"},
    {"duration", 0, 0, G_OPTION_ARG_DOUBLE, &duration,
        "seconds of each call (300)", "SECONDS"},
    {"seed", 0, 0, G_OPTION_ARG_INT64, &seed, "seed of the run (1)", "S"},
    {"trace", 0, 0, G_OPTION_ARG_FILENAME, &trace,
        "replay link<i>.csv of DIR on link i (docs/netmodel.md)", "DIR"},
    {"cross-traffic", 0, 0, G_OPTION_ARG_STRING_ARRAY, &cross_traffic,
        "bulk downloads through a guard: start_s,duration_s,flows"
          "[,kib_per_s[,side[,guard]]] (100 KiB/s, caller, guard 0); "
          "repeatable", "SPEC"},
    {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
        "change a parameter of the link model (docs/netmodel.md); "
          "repeatable", "NAME=VALUE"},
    {"links", 0, 0, G_OPTION_ARG_INT, &links,
          "nLINKS (" G_STRINGIFY (DONAR_DEFAULT_LINKS) "; SIMPLE 1, TORFONE 2)",
        "N"},
    {"n1st", 0, 0, G_OPTION_ARG_INT, &n1st,
        "n1ST (" G_STRINGIFY (DONAR_DEFAULT_N_1ST) ")", "N"},
    {"n2nd", 0, 0, G_OPTION_ARG_INT, &n2nd,
        "n2ND (" G_STRINGIFY (DONAR_DEFAULT_N_2ND) ")", "N"},
    {"window-ms", 0, 0, G_OPTION_ARG_INT, &window_ms, "w (2000)", "MS"},
    {"frame-ms", 0, 0, G_OPTION_ARG_INT, &frame_ms, "Tframe (40)", "MS"},
    {"frame-bytes", 0, 0, G_OPTION_ARG_INT, &frame_bytes,
        "size of each frame (172)", "BYTES"},
    {"redundancy", 0, 0, G_OPTION_ARG_INT, &redundancy,
        "previous frames piggybacked ("
          G_STRINGIFY (DONAR_DEFAULT_REDUNDANCY) ")", "N"},
    {"alarm-frames", 0, 0, G_OPTION_ARG_INT, &alarm_frames,
        "take a link out at once when a frame of it is overtaken by N "
          "others; 0: only at the window, as the paper ("
          G_STRINGIFY (DONAR_DEFAULT_ALARM_FRAMES) ")", "N"},
    {"merge", 0, 0, G_OPTION_ARG_STRING, &merge,
        "scores: mean, local or remote (mean)", "M"},
    {"oracle-sends", 0, 0, G_OPTION_ARG_INT, &oracle_sends,
        "sends per frame of the oracle: 1 or 2 (1)", "N"},
    {"oracle-lag-ms", 0, 0, G_OPTION_ARG_INT, &oracle_lag_ms,
          "the oracle chooses by the delays of a send MS earlier, as a "
          "policy whose news of a link is a one-way delay old (0)",
        "MS"},
    {"deadline-ms", 0, 0, G_OPTION_ARG_INT, &deadline_ms,
        "one-way deadline of a frame (360)", "MS"},
    {"drop-after-ms", 0, 0, G_OPTION_ARG_INT, &drop_after_ms,
        "a frame later than this counts as missing for the dropped-call "
          "rule; 0: only lost frames (1000)", "MS"},
    {"jobs", 0, 0, G_OPTION_ARG_INT, &jobs,
        "calls run at once (the number of cores)", "N"},
    {"json", 0, 0, G_OPTION_ARG_NONE, &json, "print one JSON object", NULL},
    {"histogram", 0, 0, G_OPTION_ARG_FILENAME, &histogram,
        "write the latencies of all delivered frames to FILE as CSV rows "
          "latency_ms,frames", "FILE"},
    {"kill-link-every", 0, 0, G_OPTION_ARG_DOUBLE, &kill_every_s,
        "kill a link that is up, at random, every S seconds (0: never)", "S"},
    {"cut", 0, 0, G_OPTION_ARG_STRING, &cut,
          "cut every link from AT for DURATION seconds: nothing arrives "
          "meanwhile, and each link holds at most tor's stream window "
          "(500 cells) each way, the records beyond it lost; the report "
          "gives the frames later than DURATION + the deadline",
        "AT,DURATION"},
    {"guard-failure", 0, 0, G_OPTION_ARG_STRING, &guard_failure,
        "guard 0 of the caller (SIDE 0, the default) or of the callee (1) "
          "fails for good at AT seconds: the links through it break, new "
          "circuits take the side's other guard", "AT[,SIDE]"},
    {"peer-restart", 0, 0, G_OPTION_ARG_STRING, &peer_restart,
        "the callee's process dies at AT and is back DOWN seconds later "
          "(5) with a new session: every link breaks, the caller dials "
          "again with backoff", "AT[,DOWN]"},
    {"one-way", 0, 0, G_OPTION_ARG_NONE, &one_way,
        "the callee hands over no frame, as the README's demo: only the "
          "caller's frames count", NULL},
    {"frame-log", 0, 0, G_OPTION_ARG_FILENAME, &frame_log,
        "write each frame's fate to DIR/call<N>-dir<D>.csv (rows "
          "seq,sent_ms,arrival_ms; no arrival: lost)", "DIR"},
    {"send-log", 0, 0, G_OPTION_ARG_FILENAME, &send_log,
        "write every record sent to DIR/call<N>-sends.csv (rows "
          "dir,frame,link,caller_guard,callee_guard)", "DIR"},
    G_OPTION_ENTRY_NULL
  };
  GOptionContext *context;
  GError *error = NULL;
  Run run;
  SimSettings *s = &run.settings;
  SimRunInfo info;
  GThreadPool *pool;
  GString *report;
  gboolean ok = TRUE;
  int status = 0;

  context = g_option_context_new ("- whole DONAR calls in virtual time");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error)) {
    fprintf (stderr, "donar-sim: %s\n", error->message);
    g_error_free (error);
    g_option_context_free (context);
    return 2;
  }
  g_option_context_free (context);
  if (policy == NULL)
    policy = g_strdup ("double-send");
  if (security == NULL)
    security = g_strdup ("default");
  if (merge == NULL)
    merge = g_strdup ("mean");

  memset (&run, 0, sizeof run);
  donar_config_init (&s->config);
  s->oracle = g_strcmp0 (policy, "oracle") == 0;
  /* The oracle's messages are sized as ALTERNATE's (scores, no
   * acknowledgements), the policy it was measured against. */
  if (s->oracle)
    s->config.policy = DONAR_POLICY_ALTERNATE;
  if (!s->oracle && !donar_policy_from_string (policy, &s->config.policy))
    ok = fail ("--policy: simple, torfone, alternate, double-send, adaptive "
        "or oracle");
  if (!donar_security_from_string (security, &s->security))
    ok = ok && fail ("--security: default, 2hop or 1way");
  if (g_strcmp0 (merge, "mean") == 0)
    s->config.merge = DONAR_MERGE_MEAN;
  else if (g_strcmp0 (merge, "local") == 0)
    s->config.merge = DONAR_MERGE_LOCAL;
  else if (g_strcmp0 (merge, "remote") == 0)
    s->config.merge = DONAR_MERGE_REMOTE;
  else
    ok = ok && fail ("--merge: mean, local or remote");
  if (calls < 1 || duration <= 0 || frame_ms <= 0 || window_ms <= 0 ||
      deadline_ms <= 0 || redundancy < 0 || jobs < 0 || drop_after_ms < 0 ||
      alarm_frames < 0)
    ok = ok && fail ("--calls, --duration, --frame-ms, --window-ms and "
        "--deadline-ms must be positive");
  if (frame_bytes < 4 || frame_bytes > DONAR_CELL_PAYLOAD)
    ok = ok && fail ("--frame-bytes: 4 to 498 (the frame number takes 4)");
  if (s->oracle && oracle_sends != 1 && oracle_sends != 2)
    ok = ok && fail ("--oracle-sends: 1 or 2");
  if (oracle_lag_ms < 0)
    ok = ok && fail ("--oracle-lag-ms: 0 or more");
  if (!ok)
    return 2;

  /* The baselines as the paper ran them: SIMPLE on one link, TORFONE on
   * two, unless told otherwise. */
  if (!s->oracle && s->config.policy == DONAR_POLICY_SIMPLE && links == 0)
    links = 1;
  if (!s->oracle && s->config.policy == DONAR_POLICY_TORFONE && links == 0)
    links = 2;
  if (links > 0)
    s->config.n_links = links;
  s->config.n_1st = n1st >= 0 ? (guint) n1st :
      MIN (s->config.n_1st, s->config.n_links);
  s->config.n_2nd = n2nd >= 0 ? (guint) n2nd :
      MIN (s->config.n_2nd, s->config.n_links - s->config.n_1st);
  s->config.window_us = (gint64) window_ms *1000;
  s->config.frame_period_us = (gint64) frame_ms *1000;
  s->config.redundancy = redundancy;
  s->config.alarm_frames = alarm_frames;
  s->config.budget = budget;
  if (no_spread_copies)
    s->config.spread_copies = FALSE;
  s->one_way = one_way;
  if (paths == NULL || g_strcmp0 (paths, "own") == 0)
    s->paths = SIM_PATHS_OWN;
  else if (g_strcmp0 (paths, "caller") == 0)
    s->paths = SIM_PATHS_CALLER;
  else if (g_strcmp0 (paths, "none") == 0)
    s->paths = SIM_PATHS_NONE;
  else
    ok = ok && fail ("--paths: own, caller or none");
  if (!(budget >= 1.0 && budget <= 2.0))
    ok = ok && fail ("--budget: from 1.0 to 2.0");
  if (spread_copies && (s->oracle || s->config.policy != DONAR_POLICY_ADAPTIVE))
    ok = ok && fail ("--spread-copies: only with --policy adaptive");
  if (no_spread_copies && (s->oracle ||
          s->config.policy != DONAR_POLICY_ADAPTIVE))
    ok = ok && fail ("--no-spread-copies: only with --policy adaptive");
  if (spread_copies && no_spread_copies)
    ok = ok && fail ("--spread-copies and --no-spread-copies: one or the "
        "other");
  if (!ok)
    return 2;
  if (donar_config_validate (&s->config) != DONAR_OK) {
    fail ("these settings are not valid: check --links, --n1st, --n2nd "
        "(n1st >= 1, n1st + n2nd <= links <= 32), --redundancy (<= 8) and "
        "--alarm-frames (< 128)");
    return 2;
  }
  if (!s->oracle && frame_bytes > (gint) (DONAR_CELL_PAYLOAD -
          donar_config_record_overhead (&s->config, 1))) {
    fail ("--frame-bytes: larger than one message can carry with these "
        "settings");
    return 2;
  }
  donar_net_model_params_init (&s->net_params, s->security);
  s->net_params_set = TRUE;
  for (guint i = 0; sets && sets[i]; i++) {
    const char *eq = strchr (sets[i], '=');
    g_autofree gchar *name = eq ? g_strndup (sets[i], eq - sets[i]) : NULL;
    gchar *end = NULL;
    gdouble value = eq ? g_ascii_strtod (eq + 1, &end) : 0;

    if (name == NULL || end == eq + 1 || *end != '\0' ||
        !donar_net_model_params_set (&s->net_params, name, value)) {
      fprintf (stderr, "donar-sim: --set %s: expected NAME=VALUE with a "
          "parameter of docs/netmodel.md and a non-negative number\n", sets[i]);
      return 2;
    }
  }
  for (guint i = 0; cross_traffic && cross_traffic[i]; i++) {
    if (i == SIM_MAX_CROSS_TRAFFIC) {
      fail ("--cross-traffic: at most 8");
      return 2;
    }
    if (!sim_cross_traffic_parse (cross_traffic[i], s->security,
            &s->cross_traffic[i], &error)) {
      fail (error->message);
      g_error_free (error);
      return 2;
    }
    s->n_cross_traffic = i + 1;
  }
  if (kill_every_s < 0 || (kill_every_s > 0 && kill_every_s < 0.001)) {
    fail ("--kill-link-every: seconds, 0 (never) or at least 0.001");
    return 2;
  }
  s->kill_every_us = (gint64) (kill_every_s * G_USEC_PER_SEC);
  if (cut) {
    gchar *end = NULL;
    gdouble at = g_ascii_strtod (cut, &end), length = -1;

    if (end != cut && *end == ',')
      length = g_ascii_strtod (end + 1, &end);
    if (at < 0 || length <= 0 || *end != '\0') {
      fail ("--cut: AT,DURATION in seconds, AT >= 0 and DURATION > 0");
      return 2;
    }
    s->cut_at_us = (gint64) (at * G_USEC_PER_SEC);
    s->cut_duration_us = (gint64) (length * G_USEC_PER_SEC);
  }
  if (guard_failure && !sim_guard_failure_parse (guard_failure, s, &error)) {
    fail (error->message);
    g_error_free (error);
    return 2;
  }
  if (peer_restart) {
    gchar *end = NULL;
    gdouble at = g_ascii_strtod (peer_restart, &end), down = 5;

    if (end != peer_restart && *end == ',')
      down = g_ascii_strtod (end + 1, &end);
    if (end == peer_restart || at < 0 || down <= 0 || *end != '\0') {
      fail ("--peer-restart: AT[,DOWN] in seconds, AT >= 0 and DOWN > 0");
      return 2;
    }
    s->peer_restart = TRUE;
    s->peer_restart_at_us = (gint64) (at * G_USEC_PER_SEC);
    s->peer_down_us = (gint64) (down * G_USEC_PER_SEC);
  }
  s->oracle_sends = oracle_sends;
  s->oracle_lag_us = (gint64) oracle_lag_ms *1000;
  s->frame_bytes = frame_bytes;
  s->duration_us = (gint64) (duration * G_USEC_PER_SEC);
  s->seed = seed;
  s->trace_dir = trace;
  s->deadline_us = (gint64) deadline_ms *1000;
  s->config.deadline_us = s->deadline_us;
  s->drop_after_us = drop_after_ms > 0 ? (gint64) drop_after_ms *1000 :
      G_MAXINT64;

  if (frame_log && g_mkdir_with_parents (frame_log, 0755) != 0) {
    g_printerr ("donar-sim: --frame-log: cannot make %s: %s\n", frame_log,
        g_strerror (errno));
    return 1;
  }
  if (send_log && g_mkdir_with_parents (send_log, 0755) != 0) {
    g_printerr ("donar-sim: --send-log: cannot make %s: %s\n", send_log,
        g_strerror (errno));
    return 1;
  }
  run.frame_log = frame_log;
  run.send_log = send_log;
  s->log_sends = send_log != NULL;
  run.calls = calls;
  run.summaries = g_new0 (SimCallSummary, calls);
  run.progress = isatty (2) && (gdouble) calls *duration > 3600;
  g_mutex_init (&run.lock);
  if (jobs == 0)
    jobs = g_get_num_processors ();
  pool = g_thread_pool_new (run_one_call, &run, jobs, TRUE, NULL);
  for (gint c = 0; c < calls; c++)
    g_thread_pool_push (pool, GUINT_TO_POINTER (c + 1), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);
  if (run.progress)
    fprintf (stderr, "\n");
  if (run.error) {
    fprintf (stderr, "donar-sim: %s\n", run.error->message);
    g_error_free (run.error);
    status = 1;
    goto out;
  }

  info.policy =
      s->oracle ? "oracle" : donar_policy_to_string (s->config.policy);
  info.security = donar_security_to_string (s->security);
  info.oracle_sends = s->oracle ? oracle_sends : 0;
  info.oracle_lag_ms = s->oracle ? oracle_lag_ms : 0;
  info.calls = calls;
  info.duration_s = duration;
  info.seed = seed;
  info.cpu_s = cpu_seconds ();
  info.late_after_cut_us = s->cut_duration_us > 0 ?
      s->cut_duration_us + s->deadline_us : 0;
  if (histogram && !sim_write_histogram (histogram, run.summaries, calls,
          &error)) {
    fprintf (stderr, "donar-sim: %s\n", error->message);
    g_error_free (error);
    status = 1;
    goto out;
  }
  report = sim_report (&info, run.summaries, json);
  fputs (report->str, stdout);
  g_string_free (report, TRUE);

out:
  for (gint c = 0; c < calls; c++)
    sim_call_summary_clear (&run.summaries[c]);
  g_free (run.summaries);
  g_mutex_clear (&run.lock);
  return status;
}
