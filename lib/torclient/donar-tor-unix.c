/* tor's Unix sockets (donar-tor-unix.h): the path, the connection, and
 * errors that say what to do, since the usual failure with Debian's tor
 * service is a user outside its group. */
#include "donar-tor-unix.h"
#include "donar-tor-control-private.h"

#include <errno.h>
#include <grp.h>
#include <string.h>
#include <sys/stat.h>

#define UNIX_PREFIX "unix:"

gboolean
donar_tor_unix_is_path (const gchar * text)
{
  return text != NULL && (text[0] == '/' || g_str_has_prefix (text,
          UNIX_PREFIX));
}

gchar *
donar_tor_unix_path_parse (const gchar * text, const gchar * what,
    GError ** error)
{
  const gchar *path = text;

  if (g_str_has_prefix (path, UNIX_PREFIX))
    path += strlen (UNIX_PREFIX);
  /* Relative to what?  The elements and donar-call run anywhere. */
  if (path[0] != '/') {
    g_set_error (error, DONAR_TOR_CONTROL_ERROR,
        DONAR_TOR_CONTROL_ERROR_CONNECT,
        "%s: a Unix socket must be an absolute path (/run/tor/control or "
        "unix:/run/tor/control), not \"%s\"", what, text);
    return NULL;
  }
  if (strlen (path) > DONAR_TOR_UNIX_PATH_MAX) {
    g_set_error (error, DONAR_TOR_CONTROL_ERROR,
        DONAR_TOR_CONTROL_ERROR_CONNECT,
        "%s: the path %s is longer than a Unix socket address takes (%d "
        "bytes)", what, path, DONAR_TOR_UNIX_PATH_MAX);
    return NULL;
  }
  return g_strdup (path);
}

/* The group of path, or of the directory above it that stops us: the
 * lowest one we can stat.  FALSE if none can be. */
static gboolean
blocking_group (const gchar * path, gid_t * gid)
{
  g_autofree gchar *here = g_strdup (path);
  struct stat status;

  for (;;) {
    gchar *parent;

    if (stat (here, &status) == 0) {
      *gid = status.st_gid;
      return TRUE;
    }
    if (errno != EACCES || strcmp (here, "/") == 0)
      return FALSE;
    parent = g_path_get_dirname (here);
    g_free (here);
    here = parent;
  }
}

gchar *
donar_tor_unix_group_hint (const gchar * path)
{
  /* getgrgid_r: two elements may fail at once, each on its setup thread. */
  struct group group, *entry = NULL;
  gchar buffer[4096];
  gid_t gid;

  if (!blocking_group (path, &gid))
    return g_strdup ("ask whoever runs tor to let you in");
  if (gid == 0)
    return g_strdup ("it is root's only: let tor give its socket and cookie "
        "to a group of yours (ControlSocketsGroupWritable 1, "
        "CookieAuthFileGroupReadable 1)");
  if (getgrgid_r (gid, &group, buffer, sizeof buffer, &entry) != 0)
    entry = NULL;
  if (entry == NULL)
    return g_strdup_printf ("add yourself to its group %u, then log in again",
        (guint) gid);
  return g_strdup_printf ("add yourself to group %s (sudo adduser $USER %s), "
      "then log in again", entry->gr_name, entry->gr_name);
}

/* The reason a connection to path failed, for a person: local is GIO's
 * error. */
static gchar *
explain (const gchar * path, const GError * local)
{
  struct stat status;

  /* First, since connect () to a file we may not write is EACCES: joining
   * a group would not help there. */
  if (stat (path, &status) == 0 && !S_ISSOCK (status.st_mode))
    return g_strdup ("not a socket: give the path of tor's socket");
  if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED)) {
    g_autofree gchar *hint = donar_tor_unix_group_hint (path);

    return g_strdup_printf ("permission denied: %s", hint);
  }
  if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return g_strdup ("no such file: is tor running, with this path in its "
        "torrc (ControlSocket, or SocksPort unix:...)?  Debian's tor "
        "service: systemctl start tor");
  if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED))
    return g_strdup ("nobody listens on it: tor is not running (the socket "
        "is left from a tor that stopped)");
  return g_strdup (local->message);
}

GSocket *
donar_tor_unix_connect (const gchar * path, const gchar * what,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  g_autoptr (GSocketAddress) address = g_unix_socket_address_new (path);
  g_autoptr (GSocket) socket = NULL;
  g_autofree gchar *reason = NULL;
  GError *local = NULL;

  socket = donar_tor_control_socket_connect (address, deadline, cancellable,
      &local);
  if (local == NULL)
    return g_steal_pointer (&socket);
  if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
    g_propagate_error (error, local);
    return NULL;
  }
  reason = local->domain == DONAR_TOR_CONTROL_ERROR ?
      g_strdup (local->message) : explain (path, local);
  g_set_error (error, DONAR_TOR_CONTROL_ERROR,
      local->domain == DONAR_TOR_CONTROL_ERROR ?
      local->code : DONAR_TOR_CONTROL_ERROR_CONNECT,
      "cannot connect to %s %s: %s", what, path, reason);
  g_error_free (local);
  return NULL;
}
