/* donar-shaper: forwards connections on 127.0.0.1 from a listen port to a
 * target port, one pair per relay, and delays the bytes both ways by the
 * relay's delay at the time they arrive (docs/tornet.md, "The shaper").
 *
 *   donar-shaper --relay 9001,9101,24 --relay 9002,9102,31 \
 *       --spike 0,10000,2000,400 --log shaper.log
 *   donar-shaper --model 7 --relay 9001,9101 --relay 9002,9102
 *
 * Once every port listens it prints one line on stdout:
 *   ready origin_us=<monotonic µs of time 0> ports=<listen port,...>
 * and runs until SIGTERM or SIGINT (exit status 0).  With --spike-file,
 * SIGUSR1 starts the spikes that file lists now (a test's stall at a
 * moment it chooses, once its call is up), one stdout line each. */
#include "shaper.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>

#define DEFAULT_MAX_PENDING (1 << 20)
/* A peer that never reads does not hold a closed connection forever. */
#define LINGER_SECONDS 10

static gchar **relay_args;
static gchar **spike_args;
static gchar *log_path;
static gchar *model_seed;
static gchar **set_args;
static gint max_pending_kib = DEFAULT_MAX_PENDING / 1024;
static gint describe;
static gchar *spike_file;
static gdouble describe_spikes_s;
static gdouble scale = 1.0;

static const GOptionEntry entries[] = {
  {"relay", 'r', 0, G_OPTION_ARG_STRING_ARRAY, &relay_args,
      "A relay: listen on 127.0.0.1:LISTEN_PORT (0: any), forward to "
        "127.0.0.1:TARGET_PORT, BASE_MS one-way delay (repeatable; relays "
        "are numbered from 0)", "LISTEN_PORT,TARGET_PORT,BASE_MS"},
  {"spike", 's', 0, G_OPTION_ARG_STRING_ARRAY, &spike_args,
        "Add EXTRA_MS to relay RELAY's delay from START_MS for DURATION_MS, "
        "ms from the start (repeatable)",
      "RELAY,START_MS,DURATION_MS,EXTRA_MS"},
  {"model", 'm', 0, G_OPTION_ARG_STRING, &model_seed,
      "Draw every relay's base delay (unless given), calm and flaky periods "
        "and spikes from lib/netmodel's relay parameters: relay i is model "
        "relay i of SEED", "SEED"},
  {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &set_args,
        "With --model, change a parameter of docs/netmodel.md (repeatable)",
      "NAME=VALUE"},
  {"spike-file", 0, 0, G_OPTION_ARG_FILENAME, &spike_file,
        "On SIGUSR1, start the spikes FILE lists now: one a line, "
        "RELAY,DURATION_MS,EXTRA_MS, or RELAY,DURATION_MS,hold (nothing "
        "through RELAY until DURATION_MS is over, then all at once)", "FILE"},
  {"scale", 0, 0, G_OPTION_ARG_DOUBLE, &scale,
      "Multiply every relay's base delay and every spike's extra (the "
        "model's and --spike's) by F (default 1)", "F"},
  {"log", 'l', 0, G_OPTION_ARG_FILENAME, &log_path,
      "Write one line per chunk received and written to FILE", "FILE"},
  {"max-pending-kib", 0, 0, G_OPTION_ARG_INT, &max_pending_kib,
      "Stop reading a direction while this much of it waits (default "
        "1024)", "KIB"},
  {"describe", 0, 0, G_OPTION_ARG_INT, &describe,
      "With --model: print the first N model relays (base delay, "
        "capacity), one line each, and exit without listening", "N"},
  {"describe-spikes", 0, 0, G_OPTION_ARG_DOUBLE, &describe_spikes_s,
      "With --describe: also each relay's spikes in its first SECONDS, "
        "as the shaper applies them (10 ms steps)", "SECONDS"},
  G_OPTION_ENTRY_NULL
};

static gboolean
add_spike (Shaper * s, const char *text, GError ** error)
{
  const char *comma = strchr (text, ',');
  guint64 index;
  gchar *head;
  gboolean ok;

  if (comma == NULL) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "a spike is RELAY,START_MS,DURATION_MS,EXTRA_MS: '%s'", text);
    return FALSE;
  }
  head = g_strndup (text, comma - text);
  ok = g_ascii_string_to_unsigned (head, 10, 0, s->relays->len - 1, &index,
      NULL);
  g_free (head);
  if (!ok) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "spike '%s': no such relay", text);
    return FALSE;
  }
  return donar_shaper_schedule_parse_spike (((ShaperRelay *)
          g_ptr_array_index (s->relays, index))->schedule, comma + 1, error);
}

/* --model and --set: the relays' parameters, or NULL without a model. */
static gboolean
model_params (DonarNetModelParams * params, guint64 * seed, gboolean * used,
    GError ** error)
{
  *used = model_seed != NULL;
  if (!*used) {
    if (set_args == NULL)
      return TRUE;
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
        "--set needs --model");
    return FALSE;
  }
  if (!g_ascii_string_to_unsigned (model_seed, 10, 0, G_MAXUINT64, seed, error))
    return FALSE;
  /* A relay's parameters are the same in every configuration. */
  donar_net_model_params_init (params, DONAR_SECURITY_DEFAULT);
  for (guint i = 0; set_args != NULL && set_args[i] != NULL; i++) {
    if (!donar_net_model_params_assign (params, set_args[i], error)) {
      g_prefix_error (error, "--set: ");
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean
check_scale (GError ** error)
{
  if (scale >= 0.0 && scale <= 100.0)
    return TRUE;
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
      "--scale must be between 0 and 100");
  return FALSE;
}

/* --describe-spikes: when the shaper's delay of a relay rose above its
 * base, so that a congested stretch of a run can be told from the model's
 * spikes.  Sampled as the shaper reads the schedule: in time order. */
#define SPIKE_STEP_US 10000

static void
print_spikes (DonarNetRelay * r, gint index, gdouble f)
{
  gint64 end_us = (gint64) (describe_spikes_s * G_USEC_PER_SEC);
  gint64 start = -1, top = 0;

  for (gint64 t = 0; t <= end_us; t += SPIKE_STEP_US) {
    gint64 extra = t < end_us ? donar_net_relay_spike_delay (r, t) : 0;

    if (extra > 0 && start < 0)
      start = t;
    top = MAX (top, extra);
    if (extra == 0 && start >= 0) {
      printf ("spike relay=%d start_ms=%" G_GINT64_FORMAT " duration_ms=%"
          G_GINT64_FORMAT " max_extra_ms=%" G_GINT64_FORMAT "\n", index,
          start / 1000, (t - start) / 1000,
          (gint64) llround (f * (gdouble) top) / 1000);
      start = -1;
      top = 0;
    }
  }
}

/* --describe: what a tor network needs before its relays start (their
 * BandwidthRate), the same draws as the relays the shaper will run. */
static gboolean
print_description (GError ** error)
{
  DonarNetModelParams params;
  gboolean with_model;
  guint64 seed = 0;

  if (!model_params (&params, &seed, &with_model, error)
      || !check_scale (error))
    return FALSE;
  if (!with_model) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
        "--describe needs --model");
    return FALSE;
  }
  for (gint i = 0; i < describe; i++) {
    DonarNetRelay *r = donar_net_relay_new (&params, seed, i, 0);
    /* The base the shaper applies: scaled as its schedule scales it. */
    DonarShaperSchedule *schedule = donar_shaper_schedule_new
        (donar_net_relay_base_delay (r));

    donar_shaper_schedule_set_scale (schedule, scale);
    printf ("relay relay=%d base_us=%" G_GINT64_FORMAT
        " bandwidth_kib=%.1f\n", i, donar_shaper_schedule_base (schedule),
        donar_net_relay_bandwidth (r) / 1024.0);
    donar_shaper_schedule_free (schedule);
    print_spikes (r, i, scale);
    donar_net_relay_free (r);
  }
  return TRUE;
}

static gboolean
setup (Shaper * s, GError ** error)
{
  DonarNetModelParams params;
  gboolean with_model;
  guint64 seed = 0;

  if (relay_args == NULL) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
        "at least one --relay is needed");
    return FALSE;
  }
  if (!model_params (&params, &seed, &with_model, error)
      || !check_scale (error))
    return FALSE;
  for (guint i = 0; relay_args[i] != NULL; i++) {
    ShaperRelay *r = shaper_relay_parse (s, relay_args[i], i,
        with_model ? &params : NULL, seed, error);

    if (r == NULL)
      return FALSE;
    donar_shaper_schedule_set_scale (r->schedule, scale);
    g_ptr_array_add (s->relays, r);
  }
  for (guint i = 0; spike_args != NULL && spike_args[i] != NULL; i++)
    if (!add_spike (s, spike_args[i], error))
      return FALSE;
  if (max_pending_kib <= 0) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--max-pending-kib must be positive");
    return FALSE;
  }
  s->max_pending = (gsize) max_pending_kib *1024;
  if (log_path != NULL) {
    s->log = fopen (log_path, "w");
    if (s->log == NULL) {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
          "%s: %s", log_path, g_strerror (errno));
      return FALSE;
    }
  }
  for (guint i = 0; i < s->relays->len; i++) {
    ShaperRelay *r = g_ptr_array_index (s->relays, i);

    if (!shaper_relay_listen (r, error))
      return FALSE;
    shaper_log (s, "relay relay=%u listen=%u target=%u base_us=%"
        G_GINT64_FORMAT " spikes=%u model=%s scale=%g", i, r->listen_port,
        r->target_port, donar_shaper_schedule_base (r->schedule),
        donar_shaper_schedule_n_spikes (r->schedule),
        with_model ? model_seed : "none", scale);
  }
  return TRUE;
}

/* One line of --spike-file, started at now_us: "RELAY,DURATION_MS,
 * EXTRA_MS" or "RELAY,DURATION_MS,hold". */
static gboolean
start_spike_now (Shaper * s, const char *line, gint64 now_us, GError ** error)
{
  gchar **f = g_strsplit (line, ",", -1);
  guint64 index = 0;
  gdouble duration_ms = -1, extra_ms = 0;
  gboolean hold = FALSE, ok = g_strv_length (f) == 3;
  gchar *end;

  if (ok)
    ok = g_ascii_string_to_unsigned (g_strstrip (f[0]), 10, 0,
        s->relays->len - 1, &index, NULL);
  if (ok) {
    duration_ms = g_ascii_strtod (g_strstrip (f[1]), &end);
    ok = end != f[1] && *end == '\0' && duration_ms >= 0 && duration_ms < 1e9;
  }
  if (ok) {
    hold = strcmp (g_strstrip (f[2]), "hold") == 0;
    if (!hold) {
      extra_ms = g_ascii_strtod (f[2], &end);
      ok = end != f[2] && *end == '\0' && extra_ms >= 0 && extra_ms < 1e9;
    }
  }
  g_strfreev (f);
  if (!ok) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--spike-file: a line is RELAY,DURATION_MS,EXTRA_MS or "
        "RELAY,DURATION_MS,hold: '%s'", line);
    return FALSE;
  }
  {
    ShaperRelay *r = g_ptr_array_index (s->relays, index);
    gint64 duration_us = (gint64) (duration_ms * 1000.0);

    if (hold)
      donar_shaper_schedule_add_hold (r->schedule, now_us, duration_us);
    else
      donar_shaper_schedule_add_spike (r->schedule, now_us, duration_us,
          (gint64) (extra_ms * 1000.0));
    /* On stdout for a test (start_us + origin_us is CLOCK_MONOTONIC), and
     * in the log. */
    printf ("spike relay=%u start_us=%" G_GINT64_FORMAT " duration_us=%"
        G_GINT64_FORMAT " extra=%s\n", (guint) index, now_us, duration_us,
        hold ? "hold" : g_strstrip (strrchr (line, ',') + 1));
    shaper_log (s, "spike relay=%u start_us=%" G_GINT64_FORMAT
        " end_us=%" G_GINT64_FORMAT " hold=%d extra_us=%" G_GINT64_FORMAT,
        (guint) index, now_us, now_us + duration_us, hold,
        (gint64) (extra_ms * 1000.0));
  }
  return TRUE;
}

/* SIGUSR1: every spike of --spike-file starts now, at one time.  A bad
 * file is reported and skipped: the network runs on. */
static void
on_spike_signal (evutil_socket_t signal_number, short what, void *arg)
{
  Shaper *s = arg;
  gint64 now_us = shaper_now (s);
  gchar *text = NULL, **lines;
  GError *error = NULL;

  if (!g_file_get_contents (spike_file, &text, NULL, &error)) {
    g_printerr ("donar-shaper: %s\n", error->message);
    g_clear_error (&error);
    return;
  }
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++) {
    gchar *line = g_strstrip (lines[i]);

    if (*line == '\0' || *line == '#')
      continue;
    if (!start_spike_now (s, line, now_us, &error)) {
      g_printerr ("donar-shaper: %s\n", error->message);
      g_clear_error (&error);
    }
  }
  fflush (stdout);
  if (s->log != NULL)
    fflush (s->log);
  g_strfreev (lines);
  g_free (text);
}

static void
on_signal (evutil_socket_t signal_number, short what, void *arg)
{
  event_base_loopexit (arg, NULL);
}

static void
print_ready (Shaper * s)
{
  GString *line = g_string_new (NULL);

  g_string_append_printf (line, "ready origin_us=%" G_GINT64_FORMAT
      " ports=", s->origin_us);
  for (guint i = 0; i < s->relays->len; i++)
    g_string_append_printf (line, "%s%u", i ? "," : "",
        ((ShaperRelay *) g_ptr_array_index (s->relays, i))->listen_port);
  printf ("%s\n", line->str);
  fflush (stdout);
  g_string_free (line, TRUE);
}

int
main (int argc, char **argv)
{
  GOptionContext *context =
      g_option_context_new ("- delay TCP connections on 127.0.0.1");
  struct event_config *config = event_config_new ();
  Shaper s = { 0 };
  GError *error = NULL;
  struct event *sigterm, *sigint, *sigusr1 = NULL;
  int status = EXIT_SUCCESS;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error)) {
    g_printerr ("donar-shaper: %s\n", error->message);
    return 2;
  }
  g_option_context_free (context);
  if (describe > 0) {
    if (!print_description (&error)) {
      g_printerr ("donar-shaper: %s\n", error->message);
      g_clear_error (&error);
      status = 2;
    }
    g_strfreev (set_args);
    g_free (model_seed);
    return status;
  }

  /* Timers to the µs (timerfd), not to the ms of epoll_wait. */
  event_config_set_flag (config, EVENT_BASE_FLAG_PRECISE_TIMER);
  s.base = event_base_new_with_config (config);
  event_config_free (config);
  s.relays = g_ptr_array_new_with_free_func ((GDestroyNotify)
      shaper_relay_free);
  s.lingering = donar_linger_new (LINGER_SECONDS);
  s.origin_us = g_get_monotonic_time ();
  signal (SIGPIPE, SIG_IGN);

  if (!setup (&s, &error)) {
    g_printerr ("donar-shaper: %s\n", error->message);
    g_clear_error (&error);
    status = 2;
  } else {
    sigterm = evsignal_new (s.base, SIGTERM, on_signal, s.base);
    sigint = evsignal_new (s.base, SIGINT, on_signal, s.base);
    evsignal_add (sigterm, NULL);
    evsignal_add (sigint, NULL);
    if (spike_file != NULL) {
      sigusr1 = evsignal_new (s.base, SIGUSR1, on_spike_signal, &s);
      evsignal_add (sigusr1, NULL);
    }
    print_ready (&s);
    event_base_dispatch (s.base);
    event_free (sigterm);
    event_free (sigint);
    if (sigusr1 != NULL)
      event_free (sigusr1);
  }

  shaper_conns_close_all (&s);
  donar_linger_free (s.lingering);
  g_ptr_array_unref (s.relays);
  if (s.log != NULL)
    fclose (s.log);
  event_base_free (s.base);
  g_strfreev (relay_args);
  g_strfreev (spike_args);
  g_strfreev (set_args);
  g_free (model_seed);
  g_free (log_path);
  g_free (spike_file);
  return status;
}
