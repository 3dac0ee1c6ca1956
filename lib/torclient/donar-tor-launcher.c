/* The launcher: spawns tor in a data directory of its own, waits for its
 * control port and its bootstrap, and stops it by the PID it spawned. */
#include "donar-tor-launcher-private.h"
#include "donar-tor-control-private.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

GQuark
donar_tor_launcher_error_quark (void)
{
  return g_quark_from_static_string ("donar-tor-launcher-error-quark");
}

/* tor sometimes hangs on SIGTERM after logging a clean exit. */
#define STOP_GRACE_MS 3000
/* How long a dying tor may take to be reaped after its control connection
 * closed, before we call it a mere connection failure. */
#define EXIT_NOTICE_MS 1000
#define POLL_INTERVAL_US (20 * 1000)
#define LOG_LINES 8

void
donar_tor_launcher_options_init (DonarTorLauncherOptions * options)
{
  memset (options, 0, sizeof *options);
}

static gboolean
process_running (DonarTorLauncher * self)
{
  return self->process != NULL
      && g_subprocess_get_identifier (self->process) != NULL;
}

/* GSubprocess reaps the child in GLib's worker thread; its identifier is
 * gone from then on. */
static gboolean
wait_exit (GSubprocess * process, guint timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (g_subprocess_get_identifier (process) != NULL) {
    if (g_get_monotonic_time () >= deadline)
      return FALSE;
    g_usleep (POLL_INTERVAL_US);
  }
  return TRUE;
}

void
donar_tor_launcher_stop (DonarTorLauncher * self)
{
  if (self->process != NULL) {
    if (g_subprocess_get_identifier (self->process) != NULL) {
      /* GSubprocess signals only its own child, and never once reaped. */
      g_subprocess_send_signal (self->process, SIGTERM);
      if (!wait_exit (self->process, STOP_GRACE_MS))
        g_subprocess_force_exit (self->process);
    }
    g_subprocess_wait (self->process, NULL, NULL);
    g_clear_object (&self->process);
    self->pid = 0;
  }
  if (self->data_dir != NULL) {
    donar_tor_remove_tree (self->data_dir);
    g_clear_pointer (&self->data_dir, g_free);
  }
}

void
donar_tor_launcher_free (DonarTorLauncher * self)
{
  if (self == NULL)
    return;
  donar_tor_launcher_stop (self);
  g_free (self->cookie_file);
  g_free (self->stdout_log);
  g_free (self->notice_log);
  g_ptr_array_unref (self->single_onions);
  g_free (self);
}

/* tor exited before it was ready: say how, with its last log lines.  Its
 * stdout holds what it said before it read its Log option (a bad torrc);
 * notice.log the rest. */
static void
set_exited_error (DonarTorLauncher * self, GError ** error)
{
  g_autofree gchar *how = NULL;
  g_autofree gchar *problems = NULL;
  g_autofree gchar *notices = NULL;

  g_subprocess_wait (self->process, NULL, NULL);
  if (g_subprocess_get_if_exited (self->process))
    how = g_strdup_printf ("exited with status %d",
        g_subprocess_get_exit_status (self->process));
  else if (g_subprocess_get_if_signaled (self->process))
    how = g_strdup_printf ("was killed by signal %d",
        g_subprocess_get_term_sig (self->process));
  else
    how = g_strdup ("exited");
  problems = donar_tor_log_tail (self->stdout_log, LOG_LINES, TRUE);
  notices = donar_tor_log_tail (self->notice_log, LOG_LINES, FALSE);
  if (problems == NULL && notices == NULL)
    problems = donar_tor_log_tail (self->stdout_log, LOG_LINES, FALSE);
  g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
      DONAR_TOR_LAUNCHER_ERROR_EXITED,
      "tor %s before it was ready; its last log lines:%s%s", how,
      problems != NULL ? problems : "", notices != NULL ? notices : "");
}

static gboolean
make_data_dir (DonarTorLauncher * self, GError ** error)
{
  GError *local = NULL;

  /* Mode 0700, which tor also demands of a DataDirectory. */
  self->data_dir = g_dir_make_tmp ("donar-tor-XXXXXX", &local);
  if (self->data_dir == NULL) {
    g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_FAILED,
        "cannot make a data directory for tor: %s", local->message);
    g_error_free (local);
    return FALSE;
  }
  self->cookie_file = g_build_filename (self->data_dir, "control_auth_cookie",
      NULL);
  self->stdout_log = g_build_filename (self->data_dir, "stdout.log", NULL);
  self->notice_log = g_build_filename (self->data_dir, "notice.log", NULL);
  return TRUE;
}

static gboolean
spawn (DonarTorLauncher * self, const gchar * binary,
    const DonarTorLauncherOptions * options, GError ** error)
{
  g_autofree gchar *torrc = NULL;
  g_autofree gchar *torrc_path = NULL;
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  const gchar *identifier;
  GError *local = NULL;

  torrc = donar_tor_torrc_build (options, self->data_dir, getpid (), error);
  if (torrc == NULL)
    return FALSE;
  torrc_path = g_build_filename (self->data_dir, "torrc", NULL);
  if (!g_file_set_contents_full (torrc_path, torrc, -1,
          G_FILE_SET_CONTENTS_NONE, 0600, &local)) {
    g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_FAILED, "cannot write tor's torrc: %s",
        local->message);
    g_error_free (local);
    return FALSE;
  }
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_subprocess_launcher_set_stdout_file_path (launcher, self->stdout_log);
  self->process = g_subprocess_launcher_spawn (launcher, &local, binary,
      "-f", torrc_path, "--defaults-torrc", "/dev/null", NULL);
  if (self->process == NULL) {
    g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_FAILED, "cannot start %s: %s", binary,
        local->message);
    g_error_free (local);
    return FALSE;
  }
  /* No identifier if tor has already exited and been reaped (a bad torrc
   * on a slow machine): the next step reports it. */
  identifier = g_subprocess_get_identifier (self->process);
  self->pid = identifier != NULL ? g_ascii_strtoll (identifier, NULL, 10) : 0;
  return TRUE;
}

static gboolean
wait_control_port (DonarTorLauncher * self, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  g_autofree gchar *path = g_build_filename (self->data_dir, "control-port",
      NULL);

  for (;;) {
    self->control_port = donar_tor_read_control_port_file (path);
    if (self->control_port != 0)
      return TRUE;
    if (!process_running (self)) {
      set_exited_error (self, error);
      return FALSE;
    }
    if (g_cancellable_set_error_if_cancelled (cancellable, error))
      return FALSE;
    if (g_get_monotonic_time () >= deadline) {
      g_set_error_literal (error, DONAR_TOR_LAUNCHER_ERROR,
          DONAR_TOR_LAUNCHER_ERROR_TIMEOUT,
          "tor did not open its control port in time");
      return FALSE;
    }
    g_usleep (POLL_INTERVAL_US);
  }
}

/* What the bootstrap wait has told the caller so far. */
typedef struct
{
  guint percent;
  gchar *summary;
  gchar *problem;
} Progress;

static void
report (const DonarTorLauncherOptions * options, Progress * progress,
    const DonarTorctlBootstrap * bootstrap)
{
  if (bootstrap->warning != NULL) {
    g_free (progress->problem);
    progress->problem = g_strdup_printf ("%s (%s)", bootstrap->warning,
        bootstrap->reason != NULL ? bootstrap->reason : "no reason");
  }
  if (bootstrap->progress == progress->percent
      && g_strcmp0 (bootstrap->summary, progress->summary) == 0)
    return;
  progress->percent = bootstrap->progress;
  g_free (progress->summary);
  progress->summary = g_strdup (bootstrap->summary);
  if (options->progress != NULL)
    options->progress (bootstrap->progress,
        bootstrap->summary != NULL ? bootstrap->summary : "",
        options->progress_data);
}

/* STATUS_CLIENT events from before the first GETINFO, so no step is
 * missed, until 100 %. */
static gboolean
wait_bootstrap (DonarTorControl * control,
    const DonarTorLauncherOptions * options, guint timeout_ms,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  static const gchar *const events[] = { "STATUS_CLIENT", NULL };
  Progress progress = { G_MAXUINT, NULL, NULL };
  DonarTorctlBootstrap bootstrap;
  GError *local = NULL;
  gboolean ok;

  if (donar_tor_control_setevents (control, events, deadline, cancellable,
          &local)
      && donar_tor_control_get_bootstrap (control, &bootstrap, deadline,
          cancellable, &local)) {
    report (options, &progress, &bootstrap);
    donar_torctl_bootstrap_clear (&bootstrap);
  }
  while (local == NULL && progress.percent < 100) {
    DonarTorctlReply *event = donar_tor_control_next_event (control,
        deadline, cancellable, &local);

    if (event == NULL)
      break;
    if (donar_torctl_reply_is_event (event, "STATUS_CLIENT")
        && donar_torctl_parse_bootstrap_event (event, &bootstrap)
        == DONAR_TORCTL_OK) {
      report (options, &progress, &bootstrap);
      donar_torctl_bootstrap_clear (&bootstrap);
    }
    donar_torctl_reply_free (event);
  }
  ok = local == NULL;
  if (g_error_matches (local, DONAR_TOR_CONTROL_ERROR,
          DONAR_TOR_CONTROL_ERROR_TIMEOUT)) {
    g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_TIMEOUT,
        "tor did not bootstrap in %.1f s: it reached %u %% (%s)%s%s",
        timeout_ms / 1000.0, progress.percent == G_MAXUINT ? 0 :
        progress.percent, progress.summary != NULL ? progress.summary :
        "no report", progress.problem != NULL ? "; last problem: " : "",
        progress.problem != NULL ? progress.problem : "");
    g_error_free (local);
  } else if (local != NULL) {
    g_propagate_error (error, local);
  }
  g_free (progress.summary);
  g_free (progress.problem);
  return ok;
}

DonarTorControl *
donar_tor_launcher_open_control (DonarTorLauncher * self, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  const DonarTorControlAuthOptions auth = {
    .methods = DONAR_TORCTL_AUTH_SAFECOOKIE,
    .cookie_file = self->cookie_file,
  };
  DonarTorControl *control;

  if (self->process == NULL) {
    g_set_error_literal (error, DONAR_TOR_CONTROL_ERROR,
        DONAR_TOR_CONTROL_ERROR_CONNECT, "the launched tor was stopped");
    return NULL;
  }
  control = donar_tor_control_connect ("127.0.0.1", self->control_port,
      deadline, cancellable, error);
  if (control != NULL && !donar_tor_control_authenticate (control, &auth,
          deadline, cancellable, error))
    g_clear_pointer (&control, donar_tor_control_free);
  return control;
}

/* Connects, waits for the bootstrap and learns the SocksPort. */
static gboolean
wait_ready (DonarTorLauncher * self, const DonarTorLauncherOptions * options,
    guint timeout_ms, gint64 deadline, GCancellable * cancellable,
    GError ** error)
{
  gboolean socks = !options->no_socks
      && options->security != DONAR_TOR_SECURITY_ONE_WAY;
  g_autoptr (DonarTorControl) control = NULL;
  GError *local = NULL;

  control = donar_tor_launcher_open_control (self, deadline, cancellable,
      &local);
  /* A slow start runs out of time before tor even answers: still the
   * bootstrap timeout the caller asked for. */
  if (g_error_matches (local, DONAR_TOR_CONTROL_ERROR,
          DONAR_TOR_CONTROL_ERROR_TIMEOUT)) {
    g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_TIMEOUT,
        "tor did not bootstrap in %.1f s: its control port did not answer "
        "in time (%s)", timeout_ms / 1000.0, local->message);
    g_error_free (local);
    return FALSE;
  }
  if (control == NULL) {
    g_propagate_error (error, local);
    return FALSE;
  }
  if (!wait_bootstrap (control, options, timeout_ms, deadline,
          cancellable, error))
    return FALSE;
  if (!socks)
    return TRUE;
  if (!donar_tor_control_get_socks_port (control, &self->socks_port,
          deadline, cancellable, error))
    return FALSE;
  if (self->socks_port == 0) {
    g_set_error_literal (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_FAILED,
        "tor opened no SocksPort on a loopback address");
    return FALSE;
  }
  return TRUE;
}

/* A control connection that broke is most often tor dying: then its log
 * says more than the connection error. */
static void
explain_failure (DonarTorLauncher * self, GError * local, GError ** error)
{
  gboolean connection_lost = g_error_matches (local, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_CLOSED)
      || g_error_matches (local, DONAR_TOR_CONTROL_ERROR,
      DONAR_TOR_CONTROL_ERROR_CONNECT);

  if (self->process != NULL && local->domain != DONAR_TOR_LAUNCHER_ERROR
      && (!process_running (self) || (connection_lost
              && wait_exit (self->process, EXIT_NOTICE_MS)))) {
    set_exited_error (self, error);
    g_error_free (local);
  } else {
    g_propagate_error (error, local);
  }
}

DonarTorLauncher *
donar_tor_launcher_start (const DonarTorLauncherOptions * options,
    GCancellable * cancellable, GError ** error)
{
  DonarTorLauncherOptions defaults;
  g_autofree gchar *binary = NULL;
  DonarTorLauncher *self;
  GError *local = NULL;
  guint timeout_ms;
  gint64 deadline;

  if (options == NULL) {
    donar_tor_launcher_options_init (&defaults);
    options = &defaults;
  }
  if (options->security == DONAR_TOR_SECURITY_TWO_HOP) {
    g_set_error_literal (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_UNSUPPORTED,
        "2hop security needs a patched tor: stock tor always builds 3 "
        "relays on the client side of an onion circuit and offers no option "
        "to shorten it (the paper's 2-hop used a modified tor); use default "
        "or 1way (docs/security.md)");
    return NULL;
  }
  if (options->security != DONAR_TOR_SECURITY_DEFAULT
      && options->security != DONAR_TOR_SECURITY_ONE_WAY) {
    g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_BAD_OPTION, "unknown security setting %d",
        options->security);
    return NULL;
  }
  binary = donar_tor_find_binary (options->tor_binary, error);
  if (binary == NULL)
    return NULL;
  timeout_ms = options->bootstrap_timeout_ms != 0 ?
      options->bootstrap_timeout_ms : DONAR_TOR_LAUNCHER_DEFAULT_TIMEOUT_MS;
  deadline = donar_tor_control_deadline (timeout_ms);

  self = g_new0 (DonarTorLauncher, 1);
  self->security = options->security;
  self->single_onions =
      g_ptr_array_new_with_free_func (donar_tor_single_onion_free);
  if (make_data_dir (self, &local) && spawn (self, binary, options, &local)
      && wait_control_port (self, deadline, cancellable, &local)
      && wait_ready (self, options, timeout_ms, deadline, cancellable, &local))
    return self;
  explain_failure (self, local, error);
  donar_tor_launcher_free (self);
  return NULL;
}

guint16
donar_tor_launcher_get_control_port (DonarTorLauncher * self)
{
  return self->control_port;
}

guint16
donar_tor_launcher_get_socks_port (DonarTorLauncher * self)
{
  return self->socks_port;
}

const gchar *
donar_tor_launcher_get_cookie_file (DonarTorLauncher * self)
{
  return self->cookie_file;
}

const gchar *
donar_tor_launcher_get_data_dir (DonarTorLauncher * self)
{
  return self->data_dir;
}

GPid
donar_tor_launcher_get_pid (DonarTorLauncher * self)
{
  return self->pid;
}
