/* A call end to end (donar-call.h). */
#include "donar-call.h"
#include "donar-call-guards.h"
#include "donar-call-lasting.h"
#include "donar-call-options.h"
#include "donar-call-paths.h"
#include "donar-call-tor-control.h"
#include "donar-client-auth.h"
#include "donar-secret.h"
#include "donar-tor-launcher.h"
#include "donar-tor-unix.h"
#include "donar-versioned.h"

#include <string.h>
#include <sys/random.h>

GQuark
donar_call_error_quark (void)
{
  return g_quark_from_static_string ("donar-call-error-quark");
}

struct _DonarCall
{
  DonarLinkEngine *engine;
  DonarTorLauncher *launcher;
  /* Kept open for the whole call: the onion dies with it. */
  DonarTorControl *control;
  gchar *service_id;
  gboolean single_onion;        /* configured, not ADD_ONION */
  /* A running tor's guards, as they were before the call set them. */
  DonarCallGuardsUndo guards_undo;
  /* Caller: the onion whose client key we gave tor, removed at the end. */
  gchar *client_auth_service_id;
  gchar *address;
  DonarRole role;
  /* Watches the control connection for the whole call: nothing else
   * reads it between setup and donar_call_free (). */
  GThread *watcher;
  DonarCallTorLostFunc on_tor_lost;
  DonarLinkEventFunc on_event;
  gpointer user_data;
  /* The watcher tells the engine each link's relays: a caller's from its
   * streams' circuits, a callee's from its onion's rendezvous circuits. */
  gboolean watch_paths;
  GMutex lock;
  /* Under lock: the watcher's wait on tor, which a link that opens
   * (paths_due) or the end of the call (stopping) cancels. */
  GCancellable *wake;
  gboolean paths_due;
  gboolean stopping;
};

DONAR_VERSIONED_DEFINE (options_versions, DonarCallOptions,
    sizeof (DonarCallOptions));

static void
options_init (DonarCallOptions * options, DonarRole role)
{
  memset (options, 0, sizeof *options);
  options->role = role;
  options->transport = DONAR_CALL_TRANSPORT_TOR;
  options->security = DONAR_TOR_SECURITY_DEFAULT;
  options->num_entry_guards = DONAR_CALL_DEFAULT_GUARDS;
  options->virtual_port = DONAR_CALL_DEFAULT_VIRTUAL_PORT;
  options->setup_timeout_ms = DONAR_CALL_DEFAULT_SETUP_TIMEOUT_MS;
  donar_link_engine_settings_init (&options->engine, role);
  options->engine.no_link_warning_us = DONAR_CALL_NO_LINK_WARNING_US;
}

static void
options_clear (DonarCallOptions * options)
{
  donar_link_engine_settings_clear (&options->engine);
}

void
donar_call_options_init_versioned (gint options_version,
    DonarCallOptions * options, DonarRole role)
{
  DonarCallOptions latest;

  g_return_if_fail (options != NULL);
  g_return_if_fail (role <= DONAR_ROLE_CALLEE);
  /* Nothing allocated for a version we cannot write. */
  if (donar_versioned_size (&options_versions, options_version) == 0)
    return;
  options_init (&latest, role);
  donar_call_options_write (options_version, &latest, options);
}

gboolean
donar_call_options_read (gint options_version,
    const DonarCallOptions * options, DonarCallOptions * latest,
    GError ** error)
{
  if (!donar_versioned_known (&options_versions, options_version,
          DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS, error))
    return FALSE;
  options_init (latest, DONAR_ROLE_CALLER);
  /* Every string is in version 1, so the caller's replace these. */
  donar_link_engine_settings_clear (&latest->engine);
  return donar_versioned_copy (&options_versions, options_version, options,
      latest);
}

void
donar_call_options_write (gint options_version,
    const DonarCallOptions * latest, DonarCallOptions * options)
{
  donar_versioned_copy (&options_versions, options_version, latest, options);
}

void
donar_call_options_clear_versioned (gint options_version,
    DonarCallOptions * options)
{
  DonarCallOptions latest;

  g_return_if_fail (options != NULL);
  if (!donar_call_options_read (options_version, options, &latest, NULL))
    return;
  options_clear (&latest);
  donar_call_options_write (options_version, &latest, options);
}

static void
report (DonarCallProgressFunc progress, gpointer user_data,
    const gchar * step, gint percent)
{
  if (progress)
    progress (step, percent, user_data);
}

typedef struct
{
  DonarCallProgressFunc progress;
  gpointer user_data;
} Relay;

static void
on_bootstrap (guint percent, const gchar * summary, gpointer user_data)
{
  Relay *relay = user_data;

  report (relay->progress, relay->user_data, summary, (gint) percent);
}

/* The control connection: to the given port, or to a tor of our own. */
static gboolean
open_tor (DonarCall * call, const DonarCallOptions * options,
    DonarCallProgressFunc progress, gpointer user_data,
    GCancellable * cancellable, GError ** error)
{
  gint64 deadline = donar_tor_control_deadline (options->setup_timeout_ms);

  if (options->tor_control_port || options->tor_control_path) {
    DonarTorControlAuthOptions auth = { 0, options->tor_cookie_file,
      options->tor_password
    };

    report (progress, user_data, "connecting to tor's control port", -1);
    if (options->tor_control_path)
      call->control = donar_tor_control_connect_unix
          (options->tor_control_path, deadline, cancellable, error);
    else
      call->control = donar_tor_control_connect (NULL,
          options->tor_control_port, deadline, cancellable, error);
    if (call->control == NULL ||
        !donar_tor_control_authenticate (call->control, &auth, deadline,
            cancellable, error))
      return FALSE;
    donar_call_guards_apply (call->control, options, &call->guards_undo,
        options->on_warning, user_data, deadline, cancellable);
    if (call->guards_undo.n > 0)
      report (progress, user_data, "tor's entry guards set for the call", -1);
  } else {
    DonarTorLauncherOptions launch;
    Relay relay = { progress, user_data };

    donar_tor_launcher_options_init (&launch);
    launch.tor_binary = options->tor_binary;
    launch.security = options->security;
    launch.no_socks = options->role == DONAR_ROLE_CALLEE;
    launch.num_entry_guards = options->num_entry_guards;
    launch.bootstrap_timeout_ms = options->setup_timeout_ms;
    launch.extra_torrc_lines = options->extra_torrc_lines;
    launch.progress = on_bootstrap;
    launch.progress_data = &relay;
    report (progress, user_data, "starting tor", 0);
    call->launcher = donar_tor_launcher_start (&launch, cancellable, error);
    if (call->launcher == NULL)
      return FALSE;
    call->control = donar_tor_launcher_open_control (call->launcher,
        deadline, cancellable, error);
    if (call->control == NULL)
      return FALSE;
  }
  return TRUE;
}

/* The call secret: 32 bytes from the kernel's CSPRNG. */
static gboolean
draw_secret (DonarLinkEngineSettings * settings, GError ** error)
{
  if (getrandom (settings->secret, DONAR_CALL_SECRET_LENGTH, 0) !=
      DONAR_CALL_SECRET_LENGTH) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_RANDOM,
        "no random bytes for the call secret");
    return FALSE;
  }
  settings->secret_length = DONAR_CALL_SECRET_LENGTH;
  return TRUE;
}

/* The keys tor lets in: the address's own, then the contacts'.  Free
 * with g_free: the strings are client_public's and lasting's. */
static const gchar **
allowed_clients (const gchar * client_public, DonarCallLasting * lasting)
{
  GPtrArray *keys = g_ptr_array_new ();

  if (client_public != NULL)
    g_ptr_array_add (keys, (gpointer) client_public);
  for (gchar ** key = lasting->contacts; key != NULL && *key != NULL; key++)
    g_ptr_array_add (keys, *key);
  g_ptr_array_add (keys, NULL);
  return (const gchar **) g_ptr_array_free (keys, FALSE);
}

static gboolean
start_callee (DonarCall * call, const DonarCallOptions * options,
    DonarLinkEngineSettings * settings, DonarCallLasting * lasting,
    DonarCallProgressFunc progress, gpointer user_data,
    GCancellable * cancellable, GError ** error)
{
  DonarCallAddress address = { 0 };
  DonarTorOnionOptions onion_options = { 0 };
  DonarTorctlOnion onion = { 0 };
  DonarClientAuthKey client_key = { 0 };
  g_autofree gchar *client_public = NULL;
  g_autofree const gchar **client_keys = NULL;
  gint64 deadline;
  gboolean ok;

  if (options->client_auth && options->transport == DONAR_CALL_TRANSPORT_DIRECT) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "client authorization is a property of onions: a direct call has "
        "none");
    return FALSE;
  }
  if (options->client_auth) {
    if (!donar_call_lasting_client_key (lasting, &client_key, error))
      return FALSE;
    client_public = donar_client_auth_to_base32 (client_key.public_key);
    address.client_auth_key = donar_client_auth_to_base32 (client_key.secret);
    donar_client_auth_key_clear (&client_key);
  }
  memcpy (address.secret, settings->secret, sizeof address.secret);
  if (!donar_link_engine_start (call->engine, error)) {
    donar_call_address_clear (&address);
    return FALSE;
  }

  if (options->transport == DONAR_CALL_TRANSPORT_DIRECT) {
    address.host = g_strdup ("127.0.0.1");
    address.port = donar_link_engine_get_listen_port (call->engine);
  } else {
    onion_options.virtual_port = options->virtual_port;
    onion_options.target_port =
        donar_link_engine_get_listen_port (call->engine);
    report (progress, user_data, "publishing the onion service", -1);
    deadline = donar_tor_control_deadline (options->setup_timeout_ms);
    if (call->launcher && options->security == DONAR_TOR_SECURITY_ONE_WAY) {
      /* tor shortens the service side only for the onions of its
       * configuration, not for ADD_ONION ones (docs/security.md). */
      call->service_id = donar_tor_launcher_add_single_onion (call->launcher,
          call->control, onion_options.virtual_port,
          onion_options.target_port, client_public, deadline, cancellable,
          error);
      call->single_onion = TRUE;
      ok = call->service_id != NULL;
    } else {
      onion_options.non_anonymous =
          options->security == DONAR_TOR_SECURITY_ONE_WAY;
      client_keys = allowed_clients (client_public, lasting);
      if (client_keys[0] != NULL)
        onion_options.client_auth_v3 = client_keys;
      donar_call_lasting_onion_options (lasting, &onion_options);
      ok = donar_tor_control_add_onion (call->control, &onion_options,
          &onion, deadline, cancellable, error);
      /* tor refuses a key whose onion it already serves. */
      if (!ok && onion_options.private_key != NULL)
        g_prefix_error (error, "the onion of key file %s not published "
            "(is another callee using it?): ", options->key_file);
      if (ok)
        call->service_id = g_strdup (onion.service_id);
      /* The file is written before the wait for the upload: a key file
       * that cannot be written fails the call before anyone dials. */
      if (ok)
        ok = donar_call_lasting_published (lasting, &onion, error);
      donar_torctl_onion_clear (&onion);
    }
    if (ok) {
      report (progress, user_data, "waiting for the descriptor upload", -1);
      ok = donar_tor_control_wait_for_descriptor_uploaded (call->control,
          call->service_id, deadline, cancellable, error);
    }
    if (!ok) {
      donar_call_address_clear (&address);
      return FALSE;
    }
    address.host = g_strdup_printf ("%s.onion", call->service_id);
    address.port = options->virtual_port;
  }
  call->address = donar_call_address_to_string (&address);
  donar_call_address_clear (&address);
  return TRUE;
}

/* The caller's tor fetches an authorized onion's descriptor only with the
 * secret key the address carries. */
static gboolean
give_tor_client_key (DonarCall * call, const DonarCallOptions * options,
    const DonarCallAddress * address, GCancellable * cancellable,
    GError ** error)
{
  guint8 secret[DONAR_CLIENT_AUTH_KEY_BYTES];
  g_autofree gchar *service_id = g_strndup (address->host,
      strlen (address->host) - strlen (".onion"));
  gboolean ok;

  if (!donar_client_auth_from_base32 (address->client_auth_key, secret)) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "the client authorization key of the address is not an x25519 key "
        "in base32");
    return FALSE;
  }
  ok = donar_tor_control_onion_client_auth_add (call->control, service_id,
      secret, donar_tor_control_deadline (options->setup_timeout_ms),
      cancellable, error);
  explicit_bzero (secret, sizeof secret);
  if (ok)
    call->client_auth_service_id = g_steal_pointer (&service_id);
  else
    g_prefix_error (error, "tor did not take the client authorization key: ");
  return ok;
}

/* The caller's address, parsed and fit for the transport; on an error
 * nothing is left to clear. */
static gboolean
parse_caller_address (const DonarCallOptions * options,
    DonarCallAddress * address, GError ** error)
{
  gboolean direct;

  if (!donar_call_address_parse (options->address, address, error))
    return FALSE;
  direct = g_strcmp0 (address->host, "127.0.0.1") == 0;
  if (direct != (options->transport == DONAR_CALL_TRANSPORT_DIRECT)) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        direct ? "a 127.0.0.1 address is for direct calls, without Tor" :
        "an onion address needs Tor: a direct call cannot reach it");
    donar_call_address_clear (address);
    return FALSE;
  }
  if (address->client_auth_key && direct) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "a 127.0.0.1 address cannot carry a client authorization key");
    donar_call_address_clear (address);
    return FALSE;
  }
  return TRUE;
}

/* The caller's address from options, parsed into *address. */
static gboolean
caller_address (const DonarCallOptions * options, DonarCallAddress * address,
    GError ** error)
{
  if (options->address == NULL) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "a caller needs the callee's call address");
    return FALSE;
  }
  return parse_caller_address (options, address, error);
}

/* A Unix socket path that a socket address takes, or an error. */
static gboolean
check_socket_path (const gchar * what, const gchar * path, GError ** error)
{
  if (path == NULL || (path[0] == '/'
          && strlen (path) <= DONAR_TOR_UNIX_PATH_MAX))
    return TRUE;
  g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
      "%s: \"%s\" is not an absolute path of at most %d bytes", what, path,
      DONAR_TOR_UNIX_PATH_MAX);
  return FALSE;
}

/* The guards in range; where tor is: a port or a socket, not both. */
static gboolean
check_tor_options (const DonarCallOptions * options, GError ** error)
{
  const gchar *both = NULL;

  if (!donar_call_check_guards (options->num_entry_guards, error))
    return FALSE;
  if (options->tor_control_port && options->tor_control_path)
    both = "tor's control port and control socket";
  else if (options->tor_socks_port && options->tor_socks_path)
    both = "tor's SocksPort as a port and as a Unix socket";
  if (both) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "%s are both given: choose one", both);
    return FALSE;
  }
  return check_socket_path ("tor's control socket", options->tor_control_path,
      error) && check_socket_path ("tor's SocksPort",
      options->tor_socks_path, error);
}

static gboolean
options_check (const DonarCallOptions * options, GError ** error)
{
  DonarCallAddress address = { 0 };
  gboolean ok;

  if (!check_tor_options (options, error))
    return FALSE;
  if (options->role != DONAR_ROLE_CALLER)
    return donar_call_lasting_check (options, error);
  ok = caller_address (options, &address, error);
  donar_call_address_clear (&address);
  return ok;
}

gboolean
donar_call_options_check_versioned (gint options_version,
    const DonarCallOptions * options, GError ** error)
{
  DonarCallOptions latest;
  gboolean ok;

  g_return_val_if_fail (options != NULL, FALSE);
  ok = donar_call_options_read (options_version, options, &latest, error) &&
      options_check (&latest, error);
  explicit_bzero (latest.engine.secret, sizeof latest.engine.secret);
  return ok;
}

/* Tor's SocksPort for the caller's links: the one given, our own tor's,
 * or the one the control port names, a port or a Unix socket.  A socket
 * is tried at once, so that a wrong path or a missing group is said now
 * rather than by every link. */
static gboolean
find_socks (DonarCall * call, const DonarCallOptions * options,
    DonarLinkEngineSettings * settings, GCancellable * cancellable,
    GError ** error)
{
  gint64 deadline = donar_tor_control_deadline (options->setup_timeout_ms);
  g_autoptr (GSocket) probe = NULL;

  settings->socks_port = options->tor_socks_port;
  g_free (settings->socks_path);
  settings->socks_path = g_strdup (options->tor_socks_path);
  if (settings->socks_port == 0 && settings->socks_path == NULL
      && call->launcher)
    settings->socks_port = donar_tor_launcher_get_socks_port (call->launcher);
  if (settings->socks_port == 0 && settings->socks_path == NULL
      && !donar_tor_control_get_socks_listener (call->control,
          &settings->socks_port, &settings->socks_path, deadline, cancellable,
          error))
    return FALSE;
  if (settings->socks_port == 0 && settings->socks_path == NULL) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "tor has no SocksPort to dial the callee through");
    return FALSE;
  }
  if (settings->socks_path == NULL)
    return TRUE;
  probe = donar_tor_unix_connect (settings->socks_path, "tor's SocksPort",
      deadline, cancellable, error);
  return probe != NULL;
}

/* address: from parse_caller_address. */
static gboolean
prepare_caller (DonarCall * call, const DonarCallOptions * options,
    const DonarCallAddress * address, DonarLinkEngineSettings * settings,
    DonarCallProgressFunc progress, gpointer user_data,
    GCancellable * cancellable, GError ** error)
{
  gboolean direct = g_strcmp0 (address->host, "127.0.0.1") == 0;

  if (address->client_auth_key && !give_tor_client_key (call, options,
          address, cancellable, error))
    return FALSE;
  memcpy (settings->secret, address->secret, sizeof address->secret);
  settings->secret_length = sizeof address->secret;
  g_free (settings->peer_host);
  settings->peer_host = g_strdup (address->host);
  settings->peer_port = address->port;
  settings->socks_port = 0;
  call->address = g_strdup (options->address);

  if (!direct && !find_socks (call, options, settings, cancellable, error))
    return FALSE;
  report (progress, user_data, "dialing the callee", -1);
  return TRUE;
}

/* Interrupts the watcher's wait on tor: to end, or to look up the paths
 * of links that opened.  Any thread. */
static void
wake_watcher (DonarCall * call, gboolean paths_due, gboolean stopping)
{
  g_mutex_lock (&call->lock);
  call->paths_due |= paths_due;
  call->stopping |= stopping;
  if (call->wake)
    g_cancellable_cancel (call->wake);
  g_mutex_unlock (&call->lock);
}

/* What the watcher does next: NULL once the call ends; else a cancellable
 * of its own for its next wait, and *paths_due. */
static GCancellable *
next_wait (DonarCall * call, gboolean * paths_due)
{
  GCancellable *wait = NULL;

  g_mutex_lock (&call->lock);
  *paths_due = call->paths_due;
  call->paths_due = FALSE;
  g_clear_object (&call->wake);
  if (!call->stopping) {
    call->wake = g_cancellable_new ();
    wait = g_object_ref (call->wake);
  }
  g_mutex_unlock (&call->lock);
  return wait;
}

static void
on_engine_event (const DonarLinkEvent * event, gpointer user_data)
{
  DonarCall *call = user_data;

  if (call->on_event)
    call->on_event (event, call->user_data);
  if (event->type == DONAR_LINK_EVENT_LINK_UP &&
      g_atomic_int_get (&call->watch_paths))
    wake_watcher (call, TRUE, FALSE);
}

/* The watcher thread: reads the control connection (events go to the
 * paths, if watched) and looks up the paths of the links that opened,
 * until the connection closes or donar_call_free () stops it. */
static gpointer
watch_tor (gpointer data)
{
  DonarCall *call = data;
  GError *error = NULL;
  GError *lost;

  for (;;) {
    gboolean paths_due;
    g_autoptr (GCancellable) wait = next_wait (call, &paths_due);

    if (wait == NULL)
      return NULL;
    /* A lookup that fails leaves those links without a path; a broken
     * connection says so at the next wait. */
    if (paths_due)
      donar_call_paths_lookup (call->control, call->engine,
          call->service_id, donar_tor_control_deadline (5000), wait, NULL);
    else if (!donar_tor_control_process_events (call->control, G_MAXINT64,
            wait, &error)) {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        break;
      g_clear_error (&error);
    }
  }
  if (call->role == DONAR_ROLE_CALLEE)
    lost = g_error_new (DONAR_CALL_ERROR, DONAR_CALL_ERROR_TOR_LOST,
        "tor's control connection closed (%s): tor removed the onion "
        "service with it, so the caller can no longer reach this callee; "
        "the links open now go on", error->message);
  else
    lost = g_error_new (DONAR_CALL_ERROR, DONAR_CALL_ERROR_TOR_LOST,
        "tor's control connection closed (%s): the links go on while "
        "tor's SocksPort lives", error->message);
  g_error_free (error);
  if (call->on_tor_lost)
    call->on_tor_lost (lost, call->user_data);
  g_error_free (lost);
  return NULL;
}

/* The engine counts from its own start: what the setup took is taken off
 * options' delay, down to a least one for the dials. */
static gint64
no_link_warning (const DonarLinkEngineSettings * settings, gint64 began)
{
  gint64 left = settings->no_link_warning_us - (g_get_monotonic_time () -
      began);

  if (settings->no_link_warning_us == 0)
    return 0;
  return MAX (left, MIN (DONAR_CALL_NO_LINK_WARNING_MIN_US,
          settings->no_link_warning_us));
}

static DonarCall *
call_start (const DonarCallOptions * options,
    DonarCallProgressFunc progress, DonarLinkEventFunc on_event,
    gpointer user_data, GCancellable * cancellable, GError ** error)
{
  DonarCall *call = g_new0 (DonarCall, 1);
  DonarLinkEngineSettings settings = options->engine;
  DonarCallAddress address = { 0 };
  DonarCallLasting lasting = { 0 };
  gboolean ok = TRUE;
  gint64 began = g_get_monotonic_time ();

  g_mutex_init (&call->lock);
  call->role = options->role;
  call->on_tor_lost = options->on_tor_lost;
  call->on_event = on_event;
  call->user_data = user_data;

  /* Our own copies: the strings of options->engine stay the caller's. */
  settings.role = options->role;
  settings.peer_host = g_strdup (options->engine.peer_host);
  settings.socks_host = g_strdup ("127.0.0.1");

  ok = check_tor_options (options, error);
  if (ok && options->role == DONAR_ROLE_CALLER) {
    /* A bad address is said at once, not after tor's bootstrap. */
    ok = caller_address (options, &address, error);
  } else {
    /* A key file or contacts that cannot be used are said before tor is
     * launched too. */
    ok = draw_secret (&settings, error)
        && donar_call_lasting_init (&lasting, options, settings.secret, error);
  }
  if (ok && options->transport == DONAR_CALL_TRANSPORT_TOR)
    ok = open_tor (call, options, progress, user_data, cancellable, error);
  if (ok && options->role == DONAR_ROLE_CALLER)
    ok = prepare_caller (call, options, &address, &settings, progress,
        user_data, cancellable, error);
  donar_call_address_clear (&address);
  if (ok)
    settings.no_link_warning_us = no_link_warning (&settings, began);
  if (ok) {
    call->engine = donar_link_engine_new (&settings, on_engine_event, call,
        error);
    ok = call->engine != NULL;
  }
  /* Before the first dial, so that no circuit of a link slips by.  Without
   * them the call goes on: ADAPTIVE only loses its paths. */
  if (ok && options->role == DONAR_ROLE_CALLER && call->control)
    call->watch_paths = donar_call_paths_watch (call->control, call->engine,
        NULL, donar_tor_control_deadline (options->setup_timeout_ms),
        cancellable, NULL);
  if (ok && options->role == DONAR_ROLE_CALLEE)
    ok = start_callee (call, options, &settings, &lasting, progress,
        user_data, cancellable, error);
  else if (ok)
    ok = donar_link_engine_start (call->engine, error);
  /* Once the onion is out (the setup read tor's events till then); the
   * engine runs already, so a link may have opened before: the watcher
   * looks the circuits up first thing. */
  if (ok && options->role == DONAR_ROLE_CALLEE && call->service_id &&
      donar_call_paths_watch (call->control, call->engine, call->service_id,
          donar_tor_control_deadline (options->setup_timeout_ms),
          cancellable, NULL)) {
    g_atomic_int_set (&call->watch_paths, TRUE);
    wake_watcher (call, TRUE, FALSE);
  }
  donar_link_engine_settings_clear (&settings);
  donar_call_lasting_clear (&lasting);
  if (!ok) {
    donar_call_free (call);
    return NULL;
  }
  if (call->control)
    call->watcher = g_thread_new ("donar-call-tor", watch_tor, call);
  return call;
}

DonarCall *
donar_call_start_versioned (gint options_version,
    const DonarCallOptions * options, DonarCallProgressFunc progress,
    DonarLinkEventFunc on_event, gpointer user_data,
    GCancellable * cancellable, GError ** error)
{
  DonarCallOptions latest;
  DonarCall *call = NULL;

  g_return_val_if_fail (options != NULL, NULL);
  if (donar_call_options_read (options_version, options, &latest, error))
    call = call_start (&latest, progress, on_event, user_data, cancellable,
        error);
  explicit_bzero (latest.engine.secret, sizeof latest.engine.secret);
  return call;
}

const gchar *
donar_call_get_address (DonarCall * call)
{
  g_return_val_if_fail (call != NULL, NULL);
  return call->address;
}

gboolean
donar_call_write_address_file (const gchar * path, const gchar * address,
    GError ** error)
{
  gchar *text;
  gboolean ok;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (address != NULL, FALSE);
  text = g_strconcat (address, "\n", NULL);
  /* The address lets anyone call: not for other users' eyes.  Written
   * whole then renamed, so a reader never sees half of it. */
  ok = g_file_set_contents_full (path, text, -1,
      G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
  donar_secret_free (text);
  return ok;
}

DonarLinkEngine *
donar_call_get_engine (DonarCall * call)
{
  g_return_val_if_fail (call != NULL, NULL);
  return call->engine;
}

void
donar_call_free (DonarCall * call)
{
  if (call == NULL)
    return;
  if (call->watcher) {
    wake_watcher (call, FALSE, TRUE);
    g_thread_join (call->watcher);
  }
  /* The requests below may read CIRC events: none may reach the engine
   * once it is gone. */
  if (call->control)
    donar_tor_control_set_event_handler (call->control, NULL, NULL, NULL);
  /* Its thread raises no event any more: the watcher's cancellable is
   * ours to free. */
  donar_link_engine_free (call->engine);
  g_clear_object (&call->wake);
  if (call->control && call->service_id && call->single_onion)
    donar_tor_launcher_remove_single_onion (call->launcher, call->control,
        call->service_id, donar_tor_control_deadline (5000), NULL, NULL);
  else if (call->control && call->service_id)
    donar_tor_control_del_onion (call->control, call->service_id,
        donar_tor_control_deadline (5000), NULL, NULL);
  if (call->control && call->client_auth_service_id)
    donar_tor_control_onion_client_auth_remove (call->control,
        call->client_auth_service_id, donar_tor_control_deadline (5000), NULL,
        NULL);
  donar_call_guards_undo (call->control, &call->guards_undo,
      donar_tor_control_deadline (5000));
  donar_tor_control_free (call->control);
  donar_tor_launcher_free (call->launcher);
  g_free (call->service_id);
  g_free (call->client_auth_service_id);
  g_mutex_clear (&call->lock);
  donar_secret_free (call->address);
  g_free (call);
}
