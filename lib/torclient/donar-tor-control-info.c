/* GETINFO, SETCONF and SETEVENTS, and what DONAR reads through GETINFO:
 * the bootstrap phase, the circuits and the SOCKS listener. */
#include "donar-tor-control-private.h"
#include "donar-tor-unix.h"

#include <string.h>

gchar *
donar_tor_control_getinfo (DonarTorControl * self, const gchar * key,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  const gchar *keys[] = { key, NULL };
  g_autoptr (GString) command = g_string_new (NULL);
  g_autoptr (GHashTable) values = NULL;
  DonarTorctlError codec_error;
  DonarTorctlReply *reply;
  const gchar *value;

  codec_error = donar_torctl_command_getinfo (command, keys);
  if (codec_error != DONAR_TORCTL_OK) {
    donar_tor_control_set_codec_error (error, codec_error, "GETINFO");
    return NULL;
  }
  reply = donar_tor_control_request_ok (self, command, deadline, cancellable,
      error);
  if (reply == NULL)
    return NULL;
  codec_error = donar_torctl_parse_getinfo (reply, &values);
  donar_torctl_reply_free (reply);
  if (codec_error != DONAR_TORCTL_OK) {
    donar_tor_control_set_codec_error (error, codec_error, "GETINFO");
    return NULL;
  }
  value = g_hash_table_lookup (values, key);
  if (value == NULL) {
    g_set_error (error, DONAR_TOR_CONTROL_ERROR,
        DONAR_TOR_CONTROL_ERROR_PROTOCOL,
        "GETINFO %s: tor's reply does not hold the key", key);
    return NULL;
  }
  return g_strdup (value);
}

gboolean
donar_tor_control_setconf (DonarTorControl * self, const gchar * key,
    const gchar * value, gint64 deadline, GCancellable * cancellable,
    GError ** error)
{
  const DonarTorctlConfEntry entry = { key, value };

  return donar_tor_control_setconf_entries (self, &entry, 1, deadline,
      cancellable, error);
}

gboolean
donar_tor_control_setconf_entries (DonarTorControl * self,
    const DonarTorctlConfEntry * entries, guint n_entries, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  g_autoptr (GString) command = g_string_new (NULL);

  return donar_tor_control_run_command (self,
      donar_torctl_command_setconf (command, entries, n_entries), "SETCONF",
      command, deadline, cancellable, error);
}

gboolean
donar_tor_control_apply_events (DonarTorControl * self, gboolean watch_uploads,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GString) command = g_string_new (NULL);
  gboolean listed = FALSE;

  for (guint i = 0; i < self->user_events->len; i++) {
    const gchar *name = g_ptr_array_index (self->user_events, i);

    listed |= strcmp (name, "HS_DESC") == 0;
    g_ptr_array_add (names, (gpointer) name);
  }
  if (watch_uploads && !listed)
    g_ptr_array_add (names, (gpointer) "HS_DESC");
  g_ptr_array_add (names, NULL);
  if (!donar_tor_control_run_command (self,
          donar_torctl_command_setevents (command,
              (const gchar * const *) names->pdata), "SETEVENTS", command,
          deadline, cancellable, error))
    return FALSE;
  self->watching_uploads = watch_uploads;
  return TRUE;
}

gboolean
donar_tor_control_setevents (DonarTorControl * self,
    const gchar * const *events, gint64 deadline, GCancellable * cancellable,
    GError ** error)
{
  g_autoptr (GPtrArray) before = self->user_events;
  gboolean ok;

  self->user_events = g_ptr_array_new_with_free_func (g_free);
  for (const gchar * const *event = events; event != NULL && *event != NULL;
      event++)
    g_ptr_array_add (self->user_events, g_strdup (*event));
  ok = donar_tor_control_apply_events (self, self->watching_uploads, deadline,
      cancellable, error);
  if (!ok) {
    g_ptr_array_unref (self->user_events);
    self->user_events = g_steal_pointer (&before);
  }
  return ok;
}

gboolean
donar_tor_control_get_bootstrap (DonarTorControl * self,
    DonarTorctlBootstrap * bootstrap, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  g_autofree gchar *value = NULL;
  DonarTorctlError codec_error;

  memset (bootstrap, 0, sizeof *bootstrap);
  value = donar_tor_control_getinfo (self, "status/bootstrap-phase",
      deadline, cancellable, error);
  if (value == NULL)
    return FALSE;
  codec_error = donar_torctl_parse_bootstrap (value, bootstrap);
  if (codec_error != DONAR_TORCTL_OK) {
    donar_tor_control_set_codec_error (error, codec_error,
        "GETINFO status/bootstrap-phase");
    return FALSE;
  }
  return TRUE;
}

GPtrArray *
donar_tor_control_get_circuits (DonarTorControl * self, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  g_autofree gchar *value = NULL;
  DonarTorctlError codec_error;
  GPtrArray *circuits;

  value = donar_tor_control_getinfo (self, "circuit-status", deadline,
      cancellable, error);
  if (value == NULL)
    return NULL;
  codec_error = donar_torctl_parse_circuit_status (value, &circuits);
  if (codec_error != DONAR_TORCTL_OK) {
    donar_tor_control_set_codec_error (error, codec_error,
        "GETINFO circuit-status");
    return NULL;
  }
  return circuits;
}

/* The port of "host:port" when host is a loopback IP address ("[::1]" for
 * IPv6), else 0. */
static guint16
loopback_port (const gchar * listener)
{
  const gchar *colon = strrchr (listener, ':');
  g_autofree gchar *host = NULL;
  g_autoptr (GInetAddress) address = NULL;
  guint64 port;

  if (colon == NULL || !g_ascii_string_to_unsigned (colon + 1, 10, 1,
          G_MAXUINT16, &port, NULL))
    return 0;
  host = g_strndup (listener, colon - listener);
  if (host[0] == '[' && g_str_has_suffix (host, "]")) {
    memmove (host, host + 1, strlen (host));
    host[strlen (host) - 1] = '\0';
  }
  address = g_inet_address_new_from_string (host);
  if (address == NULL || !g_inet_address_get_is_loopback (address))
    return 0;
  return port;
}

gboolean
donar_tor_control_get_socks_listener (DonarTorControl * self,
    guint16 * port, gchar ** path, gint64 deadline,
    GCancellable * cancellable, GError ** error)
{
  g_autofree gchar *value = NULL;
  const gchar *p;

  *port = 0;
  *path = NULL;
  value = donar_tor_control_getinfo (self, "net/listeners/socks", deadline,
      cancellable, error);
  if (value == NULL)
    return FALSE;
  /* Space-separated listeners, each a QuotedString. */
  for (p = value; *p != '\0' && *port == 0;) {
    g_autofree gchar *listener = NULL;
    gsize consumed;

    if (*p == ' ') {
      p++;
      continue;
    }
    if (*p != '"' || donar_torctl_unquote (p, &consumed, &listener)
        != DONAR_TORCTL_OK) {
      donar_tor_control_set_codec_error (error, DONAR_TORCTL_ERROR_MALFORMED,
          "GETINFO net/listeners/socks");
      g_clear_pointer (path, g_free);
      return FALSE;
    }
    p += consumed;
    *port = loopback_port (listener);
    /* A SocksPort unix:/path, as tor reports it; one that a socket
     * address cannot take is skipped like a listener off loopback. */
    if (*path == NULL && g_str_has_prefix (listener, "unix:"))
      *path = donar_tor_unix_path_parse (listener, "tor's SocksPort", NULL);
  }
  /* A port when there is one: what a tor of both gave before. */
  if (*port != 0)
    g_clear_pointer (path, g_free);
  return TRUE;
}

gboolean
donar_tor_control_get_socks_port (DonarTorControl * self, guint16 * port,
    gint64 deadline, GCancellable * cancellable, GError ** error)
{
  g_autofree gchar *path = NULL;

  return donar_tor_control_get_socks_listener (self, port, &path, deadline,
      cancellable, error);
}
