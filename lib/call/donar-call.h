/* A call end to end: Tor set up (a control port given, or a tor of our
 * own), the onion service published (callee) or dialed (caller), and the
 * link engine running over it.  What donarsink, donarsrc and donar-call
 * share, so that none of them repeats the steps.
 *
 * donar_call_start () blocks for as long as Tor takes (bootstrap, the
 * descriptor upload): call it from a setup thread, never a streaming
 * thread.  It can be cancelled.  The options functions may be called
 * from any thread, and so may the call's once it has started, but free,
 * which no other call may overlap.  A NULL call, options or out-pointer
 * is a g_critical, and the call does nothing (docs/api.md,
 * "Contracts"). */
#ifndef DONAR_CALL_H
#define DONAR_CALL_H

#include "donar-api.h"
#include "donar-call-address.h"
#include "donar-link-engine.h"
#include "donar-tor-security.h"

#include <gio/gio.h>

G_BEGIN_DECLS

#define DONAR_CALL_ERROR (donar_call_error_quark ())
DONAR_API
GQuark donar_call_error_quark (void);

typedef enum
{
  DONAR_CALL_ERROR_OPTIONS,
  DONAR_CALL_ERROR_RANDOM,
  /* tor's control connection closed during the call (see
   * DonarCallTorLostFunc). */
  DONAR_CALL_ERROR_TOR_LOST,
  /* The callee's key file: unreadable, open to other users, corrupt, or
   * not writable (donar-call-keyfile.h). */
  DONAR_CALL_ERROR_KEY_FILE,
  /* The callee's contacts directory (donar-call-contacts.h). */
  DONAR_CALL_ERROR_CONTACTS,
} DonarCallError;

/* Called once, on a thread of the call's own, when tor's control
 * connection closes during the call: tor exited, or something closed the
 * connection.  tor removes a callee's onion service with it, so the
 * callee can no longer be reached: the links open now go on, but none
 * that breaks can be dialed again.  A caller's links go on while tor's
 * SocksPort lives.  error (DONAR_CALL_ERROR_TOR_LOST) says which.  It must
 * not block nor free the call, nor call the engine's functions that wait
 * (DonarLinkEventFunc). */
typedef void (*DonarCallTorLostFunc) (const GError * error, gpointer user_data);

/* Called in donar_call_start ()'s thread for what the user should know
 * but that does not stop the call (a running tor's guards). */
typedef void (*DonarCallWarningFunc) (const gchar * message,
    gpointer user_data);

/* The guards of seed 000's Default configuration (section 5, footnote 7):
 * two per client, where tor 0.4.9 has one. */
#define DONAR_CALL_DEFAULT_GUARDS 2
/* The most guards a call may ask for: as many as a call's links (12),
 * where latency is best (seed 000, Fig. 11), while each guard more adds
 * about as much again to the chance that one is hostile
 * (docs/security.md). */
#define DONAR_CALL_MAX_GUARDS 12
/* donar_call_options_init ()'s, which the elements and donar-call show as
 * theirs: a step of the setup (tor's bootstrap, the control connection,
 * the descriptor upload) that takes longer fails the call; and the
 * callee's port on its onion. */
#define DONAR_CALL_DEFAULT_SETUP_TIMEOUT_MS (120 * 1000)
#define DONAR_CALL_DEFAULT_VIRTUAL_PORT 5004

/* A caller with no link up this long after donar_call_start () began
 * hears why (DONAR_LINK_EVENT_NO_LINK_YET), well before peer_timeout_us:
 * options->engine.no_link_warning_us, counted from the start of the setup
 * rather than the engine's (the elements' promise: a word within 10 s). */
#define DONAR_CALL_NO_LINK_WARNING_US (8 * G_TIME_SPAN_SECOND)
/* But the dials get this long at least, after a setup that took most of
 * it (a tor we launch bootstrapping). */
#define DONAR_CALL_NO_LINK_WARNING_MIN_US (3 * G_TIME_SPAN_SECOND)

typedef enum
{
  /* Tor's own SocksPort and ControlPort (or a tor we launch). */
  DONAR_CALL_TRANSPORT_TOR,
  /* No Tor: the callee on 127.0.0.1, for tests and the ceiling. */
  DONAR_CALL_TRANSPORT_DIRECT,
} DonarCallTransport;

typedef struct
{
  DonarRole role;
  DonarCallTransport transport;
  /* Caller: the address the callee shared. */
  const gchar *address;
  /* A running tor's control port on 127.0.0.1; 0: launch our own. */
  guint16 tor_control_port;
  /* Or its ControlSocket, a Unix socket path (Debian's tor service:
   * /run/tor/control, for the group debian-tor); NULL: none. */
  const gchar *tor_control_path;
  const gchar *tor_cookie_file; /* NULL: the one tor names */
  const gchar *tor_password;
  /* Caller: tor's SocksPort; 0: ask the control port, or our own tor. */
  guint16 tor_socks_port;
  /* Caller: or its SocksPort on a Unix socket (SocksPort unix:/path);
   * NULL: none.  Asked, tor gives it when it has no SocksPort on
   * 127.0.0.1. */
  const gchar *tor_socks_path;
  /* The entry guards the call's tor spreads its circuits over,
   * 0 to DONAR_CALL_MAX_GUARDS (DONAR_CALL_DEFAULT_GUARDS):
   * NumEntryGuards, and NumPrimaryGuards beyond tor's 3.  A tor we launch
   * gets it in its torrc; 0 keeps tor's own setting (one guard).  A
   * running tor serves others too: see guards_explicit. */
  guint num_entry_guards;
  /* For a running tor (tor_control_port or tor_control_path).  TRUE (the
   * user asked for num_entry_guards): SETCONF it for the call and put
   * tor's earlier values back at its end; if tor refuses, a warning and
   * the call goes on.  FALSE: tor's setting is left alone, with a warning
   * when it has fewer guards than num_entry_guards. */
  gboolean guards_explicit;
  /* For a tor we launch. */
  DonarTorSecurity security;
  const gchar *const *extra_torrc_lines;
  const gchar *tor_binary;
  /* Callee: the port callers dial on the onion. */
  guint16 virtual_port;
  /* Callee: onion client authorization.  A fresh x25519 key pair: tor
   * gets the public key, the call address the secret key, so that only
   * whoever holds the address can even reach the onion's introduction
   * points (docs/security.md).  A caller needs nothing: the address says. */
  gboolean client_auth;
  /* Callee, or NULL: a lasting address.  The onion's key, the call secret
   * (and the client-auth key) are kept in this file, created on first use
   * (mode 0600), so that every call has the same address
   * (donar-call-keyfile.h).  Not for a direct call, nor a launched 1way
   * tor (its single onion's key is tor's own). */
  const gchar *key_file;
  /* Callee, or NULL: a directory of contacts' x25519 public keys
   * (NAME.auth, tor's authorized_clients form, donar-call-contacts.h),
   * all given to tor, so that only they reach the onion; each dials with
   * its own secret key in the address (&auth=).  Same limits as
   * key_file. */
  const gchar *client_auth_dir;
  /* Bootstrap, connection and upload, each. */
  guint setup_timeout_ms;
  /* The engine's settings but for the role, the peer and the secret,
   * which the call fills in. */
  DonarLinkEngineSettings engine;
  /* Or NULL; given donar_call_start ()'s user_data. */
  DonarCallTorLostFunc on_tor_lost;
  /* Or NULL; given donar_call_start ()'s user_data. */
  DonarCallWarningFunc on_warning;
} DonarCallOptions;

/* The version of DonarCallOptions (donar.h, DONAR_CONFIG_VERSION).  It
 * holds the engine's settings by value, so it takes a new version
 * whenever they grow. */
#define DONAR_CALL_OPTIONS_VERSION 1

DONAR_API
void donar_call_options_init_versioned (gint options_version,
    DonarCallOptions * options, DonarRole role);
#define donar_call_options_init(options, role) \
  donar_call_options_init_versioned (DONAR_CALL_OPTIONS_VERSION, \
      (options), (role))
DONAR_API
void donar_call_options_clear_versioned (gint options_version,
    DonarCallOptions * options);
#define donar_call_options_clear(options) \
  donar_call_options_clear_versioned (DONAR_CALL_OPTIONS_VERSION, (options))
/* What donar_call_start () would refuse before any I/O with tor (guards
 * out of range, a caller without an address, or with one that is
 * malformed or unfit for the transport; a callee's key file or contacts
 * directory that cannot be used), said at once: an element fails its
 * state change with it rather than from its setup thread.  FALSE and
 * *error, in DONAR_CALL_ERROR (_OPTIONS, _KEY_FILE, _CONTACTS) or, for a
 * malformed address, DONAR_CALL_ADDRESS_ERROR. */
DONAR_API
gboolean donar_call_options_check_versioned (gint options_version,
    const DonarCallOptions * options, GError ** error);
#define donar_call_options_check(options, error) \
  donar_call_options_check_versioned (DONAR_CALL_OPTIONS_VERSION, \
      (options), (error))

/* Setup progress: what is happening, and tor's bootstrap percent (or
 * -1). */
typedef void (*DonarCallProgressFunc) (const gchar * step, gint percent,
    gpointer user_data);

typedef struct _DonarCall DonarCall;

/* NULL and *error: DONAR_CALL_ERROR_OPTIONS for what options_check ()
 * refuses or an unknown version, G_IO_ERROR_CANCELLED once cancelled, or
 * the error of the step that failed (tor, its control port, the key
 * file, the engine).  progress runs within the call; on_event on the
 * engine's thread, as DonarLinkEventFunc says. */
DONAR_API
DonarCall *donar_call_start_versioned (gint options_version,
    const DonarCallOptions * options, DonarCallProgressFunc progress,
    DonarLinkEventFunc on_event, gpointer user_data,
    GCancellable * cancellable, GError ** error);
#define donar_call_start(options, progress, on_event, user_data, \
    cancellable, error) \
  donar_call_start_versioned (DONAR_CALL_OPTIONS_VERSION, (options), \
      (progress), (on_event), (user_data), (cancellable), (error))
/* Callee: the address to give the caller (a secret: whoever has it can
 * call).  Caller: the address dialed. */
DONAR_API
const gchar *donar_call_get_address (DonarCall * call);
/* Writes the address and a newline to path, for the caller's side to read
 * (donar-call --address-file, the elements' address-file): mode 0600, and
 * atomically (a file in path's directory, then renamed over path).  FALSE
 * and a G_FILE_ERROR if it cannot. */
DONAR_API
gboolean donar_call_write_address_file (const gchar * path,
    const gchar * address, GError ** error);
DONAR_API
DonarLinkEngine *donar_call_get_engine (DonarCall * call);
/* Stops the engine, removes the onion, stops a tor we launched; NULL is
 * fine.  Not from a callback of the call or its engine. */
DONAR_API
void donar_call_free (DonarCall * call);

G_END_DECLS

#endif /* DONAR_CALL_H */
