/* The tor-control setting, as the elements' property and donar-call's
 * option take it from a person: which tor a call uses, how to reach it,
 * and how many guards it may ask for. */
#ifndef DONAR_CALL_TOR_CONTROL_H
#define DONAR_CALL_TOR_CONTROL_H

#include "donar-api.h"
#include "donar-call.h"

G_BEGIN_DECLS

/* Any thread; a NULL options or path is a g_critical, and FALSE
 * (docs/api.md, "Contracts").
 *
 * text: "" or NULL (launch a tor of our own), "direct" (no Tor: the callee on
 * 127.0.0.1), a port number (a running tor's ControlPort on 127.0.0.1),
 * or a running tor's ControlSocket: an absolute path, or "unix:/path" as
 * a torrc writes it (Debian's tor service: /run/tor/control).  Sets
 * options' transport, tor_control_port, or tor_control_path to *path
 * (newly allocated: the caller keeps it for as long as options).  A bad
 * text is DONAR_CALL_ERROR_OPTIONS, with what (the setting's name) and
 * the forms it takes. */
DONAR_API
gboolean donar_call_parse_tor_control_versioned (gint options_version,
    DonarCallOptions * options, const gchar * what, const gchar * text,
    gchar ** path, GError ** error);
#define donar_call_parse_tor_control(options, what, text, path, error) \
  donar_call_parse_tor_control_versioned (DONAR_CALL_OPTIONS_VERSION, \
      (options), (what), (text), (path), (error))

/* text: "" or NULL (none) or tor's SocksPort on a Unix socket, "/path" or
 * "unix:/path" (Debian's: /run/tor/socks).  *path: NULL or newly
 * allocated; set options->tor_socks_path to it.  A bad text is
 * DONAR_CALL_ERROR_OPTIONS, as above. */
DONAR_API
gboolean donar_call_parse_tor_socks_path_versioned (gint options_version,
    DonarCallOptions * options, const gchar * what, const gchar * text,
    gchar ** path, GError ** error);
#define donar_call_parse_tor_socks_path(options, what, text, path, error) \
  donar_call_parse_tor_socks_path_versioned (DONAR_CALL_OPTIONS_VERSION, \
      (options), (what), (text), (path), (error))

/* guards (the elements' property, donar-call's --guards) within 0 to
 * DONAR_CALL_MAX_GUARDS, or DONAR_CALL_ERROR_OPTIONS saying why. */
DONAR_API
gboolean donar_call_check_guards (guint guards, GError ** error);

G_END_DECLS

#endif /* DONAR_CALL_TOR_CONTROL_H */
