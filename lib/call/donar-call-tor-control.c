/* The tor-control setting (donar-call-tor-control.h): one parser for the
 * elements and donar-call, so both take the same forms and say the same
 * thing about a bad one. */
#include "donar-call-tor-control.h"
#include "donar-tor-unix.h"

/* A Unix socket's path from text, or an options error naming what. */
static gchar *
parse_path (const gchar * what, const gchar * text, GError ** error)
{
  GError *local = NULL;
  gchar *path = donar_tor_unix_path_parse (text, what, &local);

  if (path == NULL) {
    g_set_error_literal (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        local->message);
    g_error_free (local);
  }
  return path;
}

gboolean
donar_call_parse_tor_control (DonarCallOptions * options, const gchar * what,
    const gchar * text, gchar ** path, GError ** error)
{
  guint64 port;

  *path = NULL;
  if (text == NULL || text[0] == '\0')
    return TRUE;
  if (g_strcmp0 (text, "direct") == 0) {
    options->transport = DONAR_CALL_TRANSPORT_DIRECT;
    return TRUE;
  }
  if (donar_tor_unix_is_path (text)) {
    *path = parse_path (what, text, error);
    options->tor_control_path = *path;
    return *path != NULL;
  }
  if (!g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT16, &port, NULL)) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "%s: a port number, a Unix socket (/run/tor/control or "
        "unix:/run/tor/control), \"direct\" or empty, not \"%s\"", what, text);
    return FALSE;
  }
  options->tor_control_port = (guint16) port;
  return TRUE;
}

gboolean
donar_call_parse_tor_socks_path (DonarCallOptions * options,
    const gchar * what, const gchar * text, gchar ** path, GError ** error)
{
  *path = NULL;
  if (text == NULL || text[0] == '\0')
    return TRUE;
  *path = parse_path (what, text, error);
  options->tor_socks_path = *path;
  return *path != NULL;
}
