/* tor's Unix sockets: a ControlSocket, or a SocksPort unix:/path, as
 * Debian's tor service offers them (/run/tor/control and /run/tor/socks,
 * for the group debian-tor).  The path as a user writes it, and a
 * connection whose failure says what to do about it. */
#ifndef DONAR_TOR_UNIX_H
#define DONAR_TOR_UNIX_H

#include <gio/gio.h>

G_BEGIN_DECLS

/* A sockaddr_un holds 108 bytes of path, its NUL included. */
#define DONAR_TOR_UNIX_PATH_MAX 107

/* Whether text names a Unix socket rather than a port: it starts with
 * "/" or with tor's own "unix:" (as in "ControlPort unix:/path"). */
gboolean donar_tor_unix_is_path (const gchar * text);

/* The path that text names, "unix:" taken off, newly allocated; NULL with
 * DONAR_TOR_CONTROL_ERROR_CONNECT when it is not absolute or too long for
 * a socket address.  what names the setting in the message. */
gchar *donar_tor_unix_path_parse (const gchar * text, const gchar * what,
    GError ** error);

/* A connected, non-blocking stream socket to path.  Else
 * DONAR_TOR_CONTROL_ERROR_CONNECT (or G_IO_ERROR_CANCELLED, or TIMEOUT),
 * whose message starts with what ("tor's control socket") and says what
 * to do: the path does not exist, is not a socket, nobody listens on it,
 * or which group to join to be let in. */
GSocket *donar_tor_unix_connect (const gchar * path, const gchar * what,
    gint64 deadline, GCancellable * cancellable, GError ** error);

/* For a permission denied on path (the socket, the cookie file): "add
 * yourself to group G (sudo adduser $USER G), then log in again", G the
 * group of path or of the first directory above it that we may look into;
 * newly allocated. */
gchar *donar_tor_unix_group_hint (const gchar * path);

G_END_DECLS

#endif /* DONAR_TOR_UNIX_H */
