/* The tor-control setting (donar-call-tor-control.h): one parser for the
 * elements and donar-call, so both take the same forms and say the same
 * thing about a bad one. */
#include "donar-call-tor-control.h"
#include "donar-call-guards.h"
#include "donar-call-options.h"
#include "donar-tor-launcher.h"
#include "donar-tor-unix.h"

#include <string.h>

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

static gboolean
parse_tor_control (DonarCallOptions * options, const gchar * what,
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

static gboolean
parse_tor_socks_path (DonarCallOptions * options,
    const gchar * what, const gchar * text, gchar ** path, GError ** error)
{
  *path = NULL;
  if (text == NULL || text[0] == '\0')
    return TRUE;
  *path = parse_path (what, text, error);
  options->tor_socks_path = *path;
  return *path != NULL;
}

typedef gboolean (*ParseFunc) (DonarCallOptions * options,
    const gchar * what, const gchar * text, gchar ** path, GError ** error);

/* parse over the caller's options of its version. */
static gboolean
parse_versioned (ParseFunc parse, gint options_version,
    DonarCallOptions * options, const gchar * what, const gchar * text,
    gchar ** path, GError ** error)
{
  DonarCallOptions latest;
  gboolean ok;

  *path = NULL;
  if (!donar_call_options_read (options_version, options, &latest, error))
    return FALSE;
  ok = parse (&latest, what, text, path, error);
  donar_call_options_write (options_version, &latest, options);
  return ok;
}

gboolean
donar_call_parse_tor_control_versioned (gint options_version,
    DonarCallOptions * options, const gchar * what, const gchar * text,
    gchar ** path, GError ** error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  return parse_versioned (parse_tor_control, options_version, options, what,
      text, path, error);
}

gboolean
donar_call_parse_tor_socks_path_versioned (gint options_version,
    DonarCallOptions * options, const gchar * what, const gchar * text,
    gchar ** path, GError ** error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  return parse_versioned (parse_tor_socks_path, options_version, options,
      what, text, path, error);
}

gboolean
donar_call_check_guards (guint guards, GError ** error)
{
  if (guards <= DONAR_CALL_MAX_GUARDS)
    return TRUE;
  g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
      "guards: 0 (tor's own setting) to %d, not %u: %d, as many as a "
      "call's links, is where latency is best (seed 000, Fig. 11), and "
      "each guard more adds about as much again to the chance that one is "
      "hostile (docs/security.md)", DONAR_CALL_MAX_GUARDS, guards,
      DONAR_CALL_MAX_GUARDS);
  return FALSE;
}

/* A key's value in GETINFO config-text (the options set away from tor's
 * defaults, one "Key value" a line), or NULL when unset. */
static gchar *
config_value (const gchar * config, const gchar * key)
{
  g_auto (GStrv) lines = g_strsplit (config, "\n", -1);
  gsize length = strlen (key);

  for (gchar ** line = lines; *line != NULL; line++)
    if (g_ascii_strncasecmp (*line, key, length) == 0 && (*line)[length] == ' ')
      return g_strstrip (g_strdup (*line + length + 1));
  return NULL;
}

/* A count from config_value; 0 (tor's default) when unset or not one. */
static guint
config_count (const gchar * value)
{
  guint64 n = 0;

  if (value == NULL || !g_ascii_string_to_unsigned (value, 10, 0, G_MAXINT,
          &n, NULL))
    return 0;
  return (guint) n;
}

static void
warn_guards (DonarCallWarningFunc warn, gpointer user_data,
    const gchar * format, ...)
G_GNUC_PRINTF (3, 4);

     static void
         warn_guards (DonarCallWarningFunc warn, gpointer user_data,
    const gchar * format, ...)
{
  va_list args;
  g_autofree gchar *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (warn)
    warn (message, user_data);
}

/* A running tor is shared: its guards change only when the user asked
 * (guards_explicit), and for the call only; else a word if it has fewer
 * than the call would. */
void
donar_call_guards_apply (DonarTorControl * control,
    const DonarCallOptions * options, DonarCallGuardsUndo * undo,
    DonarCallWarningFunc warn, gpointer user_data, gint64 deadline,
    GCancellable * cancellable)
{
  guint wanted = options->num_entry_guards;
  g_autofree gchar *config = NULL;
  g_autofree gchar *entry = NULL;
  g_autofree gchar *primary = NULL;
  g_autofree gchar *wanted_text = NULL;
  DonarTorctlConfEntry entries[2];
  guint n = 0, current, primaries;
  GError *error = NULL;

  memset (undo, 0, sizeof *undo);
  if (wanted == 0)
    return;
  /* donar-torsim and a tor that refuses GETINFO say nothing: then only an
   * explicit request is tried. */
  config = donar_tor_control_getinfo (control, "config-text", deadline,
      cancellable, NULL);
  if (config == NULL && !options->guards_explicit)
    return;
  if (config != NULL) {
    entry = config_value (config, "NumEntryGuards");
    primary = config_value (config, "NumPrimaryGuards");
  }
  /* Unset, tor uses one guard (unless its consensus says otherwise). */
  current = MAX (config_count (entry), 1);
  if (config != NULL && current == wanted)
    return;
  if (!options->guards_explicit) {
    if (current < wanted)
      warn_guards (warn, user_data, "the running tor spreads its circuits "
          "over %u entry guard%s (NumEntryGuards %s), so every link of the "
          "call starts at %s; DONAR's default configuration has %u (seed "
          "000, docs/security.md).  Left alone, as the tor is not the "
          "call's own: set guards to %u to have the call set it for its "
          "length, or NumEntryGuards %u in that tor's torrc", current,
          current == 1 ? "" : "s", entry ? entry : "not set: tor's default",
          current == 1 ? "that one relay" : "one of them", wanted, wanted,
          wanted);
    return;
  }
  wanted_text = g_strdup_printf ("%u", wanted);
  entries[n].key = "NumEntryGuards";
  entries[n++].value = wanted_text;
  /* tor refuses NumEntryGuards above a NumPrimaryGuards that is set, and
   * uses no more guards than its primary list holds. */
  primaries = config_count (primary);
  if (primaries ? primaries < wanted : wanted >
      DONAR_TOR_DEFAULT_PRIMARY_GUARDS) {
    entries[n].key = "NumPrimaryGuards";
    entries[n++].value = wanted_text;
  }
  if (!donar_tor_control_setconf_entries (control, entries, n, deadline,
          cancellable, &error)) {
    warn_guards (warn, user_data, "the running tor did not take guards=%u "
        "(SETCONF NumEntryGuards=%u%s: %s); the call goes on with its own "
        "setting (NumEntryGuards %s)", wanted, wanted,
        n > 1 ? " NumPrimaryGuards" : "", error->message,
        entry ? entry : config ? "not set: one guard" : "unknown");
    g_error_free (error);
    return;
  }
  undo->n = n;
  undo->keys[0] = g_strdup ("NumEntryGuards");
  undo->values[0] = g_steal_pointer (&entry);
  if (n > 1) {
    undo->keys[1] = g_strdup ("NumPrimaryGuards");
    undo->values[1] = g_steal_pointer (&primary);
  }
}

void
donar_call_guards_undo (DonarTorControl * control,
    DonarCallGuardsUndo * undo, gint64 deadline)
{
  DonarTorctlConfEntry entries[2];

  for (guint i = 0; i < undo->n; i++) {
    entries[i].key = undo->keys[i];
    entries[i].value = undo->values[i];
  }
  /* Best effort: tor may be gone with its setting. */
  if (undo->n > 0 && control != NULL)
    donar_tor_control_setconf_entries (control, entries, undo->n, deadline,
        NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (undo->keys); i++) {
    g_clear_pointer (&undo->keys[i], g_free);
    g_clear_pointer (&undo->values[i], g_free);
  }
  undo->n = 0;
}
