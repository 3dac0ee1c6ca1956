/* Launches a private tor when the user configured no control port, the way
 * OnionShare does: its own temporary DataDirectory, an automatic control
 * port with cookie authentication, an automatic SocksPort, and
 * __OwningControllerProcess so that tor exits when we die.  Blocking, for a
 * setup thread; one thread at a time may use a launcher. */
#ifndef DONAR_TOR_LAUNCHER_H
#define DONAR_TOR_LAUNCHER_H

#include "donar-tor-control.h"
#include "donar-tor-security.h"

G_BEGIN_DECLS

#define DONAR_TOR_LAUNCHER_ERROR (donar_tor_launcher_error_quark ())
GQuark donar_tor_launcher_error_quark (void);

/* Failures of the control connection come as DONAR_TOR_CONTROL_ERROR,
 * cancellation as G_IO_ERROR_CANCELLED. */
typedef enum
{
  /* No tor binary: "tor not found: install Debian's tor package". */
  DONAR_TOR_LAUNCHER_ERROR_NOT_FOUND,
  /* A configuration stock tor cannot give (2hop). */
  DONAR_TOR_LAUNCHER_ERROR_UNSUPPORTED,
  /* An option or torrc line the launcher refuses. */
  DONAR_TOR_LAUNCHER_ERROR_BAD_OPTION,
  /* No data directory, torrc or process. */
  DONAR_TOR_LAUNCHER_ERROR_FAILED,
  /* tor exited before it was ready; the message ends with its last log
   * lines. */
  DONAR_TOR_LAUNCHER_ERROR_EXITED,
  /* tor did not bootstrap in time; the message says how far it got. */
  DONAR_TOR_LAUNCHER_ERROR_TIMEOUT,
} DonarTorLauncherError;

/* Called while tor bootstraps, at each change, in the launching thread. */
typedef void (*DonarTorProgressFunc) (guint percent, const gchar * summary,
    gpointer user_data);

/* tor's primary guard list when NumPrimaryGuards is not set (and the
 * consensus does not say): circuits use the first NumEntryGuards of it. */
#define DONAR_TOR_DEFAULT_PRIMARY_GUARDS 3

typedef struct
{
  /* A path, or a name looked up in PATH; NULL: "tor" in PATH, then
   * /usr/sbin/tor (not in a normal user's PATH). */
  const gchar *tor_binary;
  DonarTorSecurity security;
  /* No SocksPort: a callee that only serves.  ONE_WAY implies it. */
  gboolean no_socks;
  /* NumEntryGuards: how many guards tor spreads its circuits over
   * (NumPrimaryGuards too, when more than tor's 3); 0 leaves tor's
   * default (one guard). */
  guint num_entry_guards;
  /* Start to 100 % bootstrap; 0 for DONAR_TOR_LAUNCHER_DEFAULT_TIMEOUT_MS. */
  guint bootstrap_timeout_ms;
  /* NULL-terminated torrc lines added after ours, e.g. "%include FILE" to
   * join a private network; one line each. */
  const gchar *const *extra_torrc_lines;
  DonarTorProgressFunc progress;
  gpointer progress_data;
} DonarTorLauncherOptions;

#define DONAR_TOR_LAUNCHER_DEFAULT_TIMEOUT_MS (120 * 1000)

void donar_tor_launcher_options_init (DonarTorLauncherOptions * options);

typedef struct _DonarTorLauncher DonarTorLauncher;

/* Starts tor and returns once it has bootstrapped to 100 %.  On failure
 * nothing is left running or on disk. */
DonarTorLauncher *donar_tor_launcher_start (const DonarTorLauncherOptions *
    options, GCancellable * cancellable, GError ** error);

/* SIGTERM, up to 3 s, then SIGKILL (tor sometimes hangs after logging a
 * clean exit); reaps it and removes the data directory.  Only the process
 * it spawned is signalled.  Twice is harmless. */
void donar_tor_launcher_stop (DonarTorLauncher * launcher);

/* Stops, then frees.  NULL is accepted. */
void donar_tor_launcher_free (DonarTorLauncher * launcher);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DonarTorLauncher, donar_tor_launcher_free);

/* A new connection to the control port, authenticated by SAFECOOKIE with
 * the launcher's cookie file. */
DonarTorControl *donar_tor_launcher_open_control (DonarTorLauncher *
    launcher, gint64 deadline, GCancellable * cancellable, GError ** error);

/* Single onion services, for a 1way launcher.  tor 0.4.9 shortens the
 * service side (one-hop introduction and rendezvous circuits) only for the
 * onion services of its configuration: an ADD_ONION service, even with
 * NonAnonymous, keeps 3 relays and the rendezvous point on its side.  So
 * this configures the service: SETCONF HiddenServiceDir (a directory in the
 * launcher's data directory, whose key is removed with it) and
 * HiddenServicePort virtual_port -> 127.0.0.1:target_port.  control is a
 * connection to this launcher's tor; it watches the descriptor upload, so
 * donar_tor_control_wait_for_descriptor_uploaded on it misses nothing.
 * The service lives until it is removed or the launcher stops, whatever
 * becomes of the connection.  client_auth_public_key (52 base32
 * characters, or NULL) admits only the caller who holds its secret key.
 * Returns the service ID. */
gchar *donar_tor_launcher_add_single_onion (DonarTorLauncher * launcher,
    DonarTorControl * control, guint16 virtual_port, guint16 target_port,
    const gchar * client_auth_public_key, gint64 deadline,
    GCancellable * cancellable, GError ** error);

gboolean donar_tor_launcher_remove_single_onion (DonarTorLauncher *
    launcher, DonarTorControl * control, const gchar * service_id,
    gint64 deadline, GCancellable * cancellable, GError ** error);

guint16 donar_tor_launcher_get_control_port (DonarTorLauncher * launcher);
/* 0 without a SocksPort. */
guint16 donar_tor_launcher_get_socks_port (DonarTorLauncher * launcher);
const gchar *donar_tor_launcher_get_cookie_file (DonarTorLauncher * launcher);
const gchar *donar_tor_launcher_get_data_dir (DonarTorLauncher * launcher);
/* 0 once stopped. */
GPid donar_tor_launcher_get_pid (DonarTorLauncher * launcher);

G_END_DECLS

#endif /* DONAR_TOR_LAUNCHER_H */
