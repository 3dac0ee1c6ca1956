/* The tor-control setting, as the elements' property and donar-call's
 * option take it from a person: which tor a call uses, and how to reach
 * it; and what a call does to the guards of a running tor it was given. */
#ifndef DONAR_CALL_TOR_CONTROL_H
#define DONAR_CALL_TOR_CONTROL_H

#include "donar-call.h"

G_BEGIN_DECLS
/* text: "" (launch a tor of our own), "direct" (no Tor: the callee on
 * 127.0.0.1), a port number (a running tor's ControlPort on 127.0.0.1),
 * or a running tor's ControlSocket: an absolute path, or "unix:/path" as
 * a torrc writes it (Debian's tor service: /run/tor/control).  Sets
 * options' transport, tor_control_port, or tor_control_path to *path
 * (newly allocated: the caller keeps it for as long as options).  A bad
 * text is DONAR_CALL_ERROR_OPTIONS, with what (the setting's name) and
 * the forms it takes. */
    gboolean donar_call_parse_tor_control (DonarCallOptions * options,
    const gchar * what, const gchar * text, gchar ** path, GError ** error);

/* text: "" (none) or tor's SocksPort on a Unix socket, "/path" or
 * "unix:/path" (Debian's: /run/tor/socks).  *path: NULL or newly
 * allocated; set options->tor_socks_path to it. */
gboolean donar_call_parse_tor_socks_path (DonarCallOptions * options,
    const gchar * what, const gchar * text, gchar ** path, GError ** error);

/* guards (the elements' property, donar-call's --guards) within 0 to
 * DONAR_CALL_MAX_GUARDS, or DONAR_CALL_ERROR_OPTIONS saying why. */
gboolean donar_call_check_guards (guint guards, GError ** error);

/* What donar_call_guards_apply changed on a running tor, to undo. */
typedef struct
{
  guint n;                      /* 0: nothing */
  gchar *keys[2];
  gchar *values[2];             /* NULL: tor's default */
} DonarCallGuardsUndo;

/* A running tor's guards against options' num_entry_guards and
 * guards_explicit (donar-call.h): left alone with a warning if fewer, or
 * set by SETCONF (both NumEntryGuards and NumPrimaryGuards when needed),
 * what it replaced kept in *undo.  Never fails the call: what goes wrong
 * goes to warn. */
void donar_call_guards_apply (DonarTorControl * control,
    const DonarCallOptions * options, DonarCallGuardsUndo * undo,
    DonarCallWarningFunc warn, gpointer user_data, gint64 deadline,
    GCancellable * cancellable);

/* Puts back what *undo holds (at the end of the call), then clears it. */
void donar_call_guards_undo (DonarTorControl * control,
    DonarCallGuardsUndo * undo, gint64 deadline);

G_END_DECLS

#endif /* DONAR_CALL_TOR_CONTROL_H */
