/* A connection to a tor control port (control-spec.txt), over GIO: the I/O
 * layer over the sans-I/O codecs of lib/tor.
 *
 * Every call blocks until it is done, its deadline passes or its
 * GCancellable fires; it is meant for a setup thread, never a streaming
 * thread.  A deadline is a time of g_get_monotonic_time () (microseconds);
 * donar_tor_control_deadline () makes one from a timeout.
 *
 * Asynchronous events (650 replies) that arrive while a call waits are
 * handed to the event handler, in the calling thread, and are never taken
 * for the reply.  A call given up on by its deadline or cancellable leaves
 * the connection usable: its reply, when it comes, is dropped.
 *
 * Nothing reads the socket between calls: events wait there until the
 * next call, or donar_tor_control_process_events.
 *
 * One thread at a time may use a DonarTorControl.  Freeing it closes the
 * connection, and tor then removes every onion service it added without
 * the detach option. */
#ifndef DONAR_TOR_CONTROL_H
#define DONAR_TOR_CONTROL_H

#include <gio/gio.h>

#include "donar-torctl.h"

G_BEGIN_DECLS

#define DONAR_TOR_CONTROL_ERROR (donar_tor_control_error_quark ())
GQuark donar_tor_control_error_quark (void);

/* Cancellation is G_IO_ERROR_CANCELLED, as everywhere in GIO. */
typedef enum
{
  /* No connection to the control port (refused, bad address). */
  DONAR_TOR_CONTROL_ERROR_CONNECT,
  /* No authentication method fits, the cookie cannot be read, or tor
   * refused our credentials; the message says which. */
  DONAR_TOR_CONTROL_ERROR_AUTH,
  /* tor's bytes broke the reply grammar (the connection is then closed),
   * or a reply was off its command's grammar. */
  DONAR_TOR_CONTROL_ERROR_PROTOCOL,
  /* tor answered with an error status (4xx, 5xx); the message carries
   * the reply, e.g. "552 Unrecognized key \"bogus\"". */
  DONAR_TOR_CONTROL_ERROR_REFUSED,
  /* The deadline passed. */
  DONAR_TOR_CONTROL_ERROR_TIMEOUT,
  /* tor closed the connection (it exited, or refused authentication). */
  DONAR_TOR_CONTROL_ERROR_CLOSED,
  /* An argument the command builders refuse (see docs/tor-control.md). */
  DONAR_TOR_CONTROL_ERROR_BAD_ARGUMENT,
} DonarTorControlError;

typedef struct _DonarTorControl DonarTorControl;

/* Called for each event the caller subscribed to with
 * donar_tor_control_setevents, in the thread of the call that read it.  It
 * must not use the connection. */
typedef void (*DonarTorControlEventFunc) (DonarTorControl * control,
    const DonarTorctlReply * event, gpointer user_data);

/* g_get_monotonic_time () + timeout_ms. */
gint64 donar_tor_control_deadline (guint timeout_ms);

/* host: an IP address (no name is resolved), NULL for 127.0.0.1. */
DonarTorControl *donar_tor_control_connect (const gchar * host, guint16 port,
    gint64 deadline, GCancellable * cancellable, GError ** error);

/* path: tor's ControlSocket, e.g. Debian's /run/tor/control.  A failure
 * says what to do (donar-tor-unix.h): start tor, fix the path, or join
 * the socket's group. */
DonarTorControl *donar_tor_control_connect_unix (const gchar * path,
    gint64 deadline, GCancellable * cancellable, GError ** error);

/* Closes the connection.  NULL is accepted. */
void donar_tor_control_free (DonarTorControl * control);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DonarTorControl, donar_tor_control_free);

void donar_tor_control_set_event_handler (DonarTorControl * control,
    DonarTorControlEventFunc func, gpointer user_data,
    GDestroyNotify destroy);

/* ---- Authentication ---- */

typedef struct
{
  /* The methods we may use; 0 for all of them.  In order of preference:
   * NULL, SAFECOOKIE, COOKIE, HASHEDPASSWORD. */
  DonarTorctlAuthMethods methods;
  /* The cookie file to read; NULL for the one PROTOCOLINFO names.  COOKIE
   * sends the file's bytes to whoever listens on the port, so it is used
   * only with a file given here; SAFECOOKIE never reveals the cookie and
   * first checks that the server knows it. */
  const gchar *cookie_file;
  /* For HASHEDPASSWORD, or NULL. */
  const gchar *password;
} DonarTorControlAuthOptions;

/* PROTOCOLINFO, then the best method that both tor and options allow.
 * options may be NULL (all methods, tor's cookie file, no password). */
gboolean donar_tor_control_authenticate (DonarTorControl * control,
    const DonarTorControlAuthOptions * options, gint64 deadline,
    GCancellable * cancellable, GError ** error);

/* The method that authenticated, 0 before. */
DonarTorctlAuthMethods donar_tor_control_get_auth_method (DonarTorControl *
    control);

/* The tor version PROTOCOLINFO gave, or NULL. */
const gchar *donar_tor_control_get_tor_version (DonarTorControl * control);

/* ---- Commands ---- */

/* Sends a command built by a lib/tor builder (one line with its CRLF) and
 * returns tor's reply, whatever its status; events on the way go to the
 * handler. */
DonarTorctlReply *donar_tor_control_request (DonarTorControl * control,
    const GString * command, gint64 deadline, GCancellable * cancellable,
    GError ** error);

/* GETINFO key: the value, unparsed (a data block comes whole). */
gchar *donar_tor_control_getinfo (DonarTorControl * control,
    const gchar * key, gint64 deadline, GCancellable * cancellable,
    GError ** error);

/* SETCONF key=value; value NULL resets the option to its default. */
gboolean donar_tor_control_setconf (DonarTorControl * control,
    const gchar * key, const gchar * value, gint64 deadline,
    GCancellable * cancellable, GError ** error);

/* SETCONF key=value ... in one command: tor applies all or none, and
 * checks them together (NumEntryGuards may not exceed NumPrimaryGuards:
 * both must change at once). */
gboolean donar_tor_control_setconf_entries (DonarTorControl * control,
    const DonarTorctlConfEntry * entries, guint n_entries, gint64 deadline,
    GCancellable * cancellable, GError ** error);

/* SETEVENTS: the events to hand to the handler (NULL or empty: none).
 * Replaces the earlier list.  The connection may subscribe to more events
 * for its own needs (HS_DESC while an upload is awaited); those do not
 * reach the handler unless listed here. */
gboolean donar_tor_control_setevents (DonarTorControl * control,
    const gchar * const *events, gint64 deadline, GCancellable * cancellable,
    GError ** error);

/* Reads events and hands them to the handler until the deadline, which is
 * no error: for a thread that only listens. */
gboolean donar_tor_control_process_events (DonarTorControl * control,
    gint64 deadline, GCancellable * cancellable, GError ** error);

/* GETINFO status/bootstrap-phase, parsed; clear it with
 * donar_torctl_bootstrap_clear. */
gboolean donar_tor_control_get_bootstrap (DonarTorControl * control,
    DonarTorctlBootstrap * bootstrap, gint64 deadline,
    GCancellable * cancellable, GError ** error);

/* GETINFO circuit-status, parsed: a GPtrArray of DonarTorctlCircuit that
 * frees them. */
GPtrArray *donar_tor_control_get_circuits (DonarTorControl * control,
    gint64 deadline, GCancellable * cancellable, GError ** error);

/* GETINFO net/listeners/socks: the port of tor's first SocksPort on a
 * loopback address, in *port; 0 when tor has none. */
gboolean donar_tor_control_get_socks_port (DonarTorControl * control,
    guint16 * port, gint64 deadline, GCancellable * cancellable,
    GError ** error);

/* The same, or, when tor has no SocksPort on loopback, its first
 * SocksPort on a Unix socket ("unix:/run/tor/socks" in
 * net/listeners/socks): its path, newly allocated, in *path (*port 0).
 * Both 0 and NULL when tor has neither. */
gboolean donar_tor_control_get_socks_listener (DonarTorControl * control,
    guint16 * port, gchar ** path, gint64 deadline,
    GCancellable * cancellable, GError ** error);

/* ---- Onion services ---- */

typedef struct
{
  guint16 virtual_port;         /* the port callers dial on <id>.onion */
  guint16 target_port;          /* where tor forwards it, on 127.0.0.1 */
  /* NULL-terminated x25519 public keys (52 base32 characters) of the
   * callers allowed in, or NULL: everyone who knows the address. */
  const gchar *const *client_auth_v3;
  /* Required by a tor in HiddenServiceNonAnonymousMode, refused by any
   * other.  tor 0.4.9 still gives an ADD_ONION service full-length
   * circuits (3 relays and the rendezvous point on its side): for a
   * shorter service side, see donar_tor_launcher_add_single_onion. */
  gboolean non_anonymous;
  /* Let the service outlive this connection; off by default, so that the
   * onion dies with the call. */
  gboolean detach;
  /* Return the new private key (a secret, wiped by
   * donar_torctl_onion_clear); else tor discards it. */
  gboolean keep_private_key;
  /* NULL: a new key (NEW:ED25519-V3).  Else the base64 blob that an
   * earlier reply's PrivateKey gave (without "ED25519-V3:"), so that the
   * service keeps its address: a lasting address (donar-call-keyfile.h).
   * The command that carries it is wiped once sent. */
  const gchar *private_key;
} DonarTorOnionOptions;

/* ADD_ONION NEW:ED25519-V3, or ED25519-V3:<private_key>: the service ID
 * (56 characters, no ".onion") and, if asked, the new private key in
 * *onion; clear it with
 * donar_torctl_onion_clear.  The connection watches HS_DESC events from
 * before the command, so no upload is missed. */
gboolean donar_tor_control_add_onion (DonarTorControl * control,
    const DonarTorOnionOptions * options, DonarTorctlOnion * onion,
    gint64 deadline, GCancellable * cancellable, GError ** error);

gboolean donar_tor_control_del_onion (DonarTorControl * control,
    const gchar * service_id, gint64 deadline, GCancellable * cancellable,
    GError ** error);

/* The caller's side of client authorization: the x25519 secret key (32
 * bytes) that lets this tor fetch <service_id>.onion's descriptor, held
 * in tor's memory until removed or tor exits.  The request is erased from
 * memory once written. */
gboolean donar_tor_control_onion_client_auth_add (DonarTorControl * control,
    const gchar * service_id, const guint8 * x25519_secret_key,
    gint64 deadline, GCancellable * cancellable, GError ** error);

gboolean donar_tor_control_onion_client_auth_remove (DonarTorControl *
    control, const gchar * service_id, gint64 deadline,
    GCancellable * cancellable, GError ** error);

/* Waits for "650 HS_DESC UPLOADED <service_id>": before it, callers fail
 * with SOCKS error 0xF0.  FAILED uploads are not fatal (another HSDir may
 * take it); at the deadline, TIMEOUT says the last failure reason. */
gboolean donar_tor_control_wait_for_descriptor_uploaded (DonarTorControl *
    control, const gchar * service_id, gint64 deadline,
    GCancellable * cancellable, GError ** error);

G_END_DECLS

#endif /* DONAR_TOR_CONTROL_H */
