/* Bootstrap-phase and circuit-status parsers. */
#include "donar-torctl-status.h"
#include "donar-torctl-arguments.h"

#include <string.h>

/* CircuitID = 1*16 IDChar (control-spec 2.4). */
#define MAX_CIRCUIT_ID 16

/* The text after the event name of an event's first line, or NULL. */
static const gchar *
event_text (const DonarTorctlReply * reply, const gchar * name)
{
  if (!donar_torctl_reply_is_event (reply, name))
    return NULL;
  return reply->lines[0].text + strlen (name);
}

static gboolean
parse_percent (const gchar * text, guint * value)
{
  guint number = 0;

  if (text == NULL || *text == '\0' || strlen (text) > 3)
    return FALSE;
  for (const gchar * p = text; *p != '\0'; p++) {
    if (!g_ascii_isdigit (*p))
      return FALSE;
    number = number * 10 + (*p - '0');
  }
  if (number > 100)
    return FALSE;
  *value = number;
  return TRUE;
}

DonarTorctlError
donar_torctl_parse_bootstrap (const gchar * text,
    DonarTorctlBootstrap * bootstrap)
{
  DonarTorctlArguments *arguments;
  DonarTorctlError error;
  const gchar *severity, *action, *tag;

  memset (bootstrap, 0, sizeof *bootstrap);
  error = donar_torctl_arguments_parse (text, 2, &arguments);
  if (error != DONAR_TORCTL_OK)
    return error;
  severity = donar_torctl_arguments_word (arguments, 0);
  action = donar_torctl_arguments_word (arguments, 1);
  tag = donar_torctl_arguments_lookup (arguments, "TAG");
  if (severity == NULL || action == NULL || strcmp (action, "BOOTSTRAP") != 0)
    error = DONAR_TORCTL_ERROR_MALFORMED;
  else if (tag == NULL
      || donar_torctl_arguments_lookup (arguments, "PROGRESS") == NULL)
    error = DONAR_TORCTL_ERROR_MISSING_FIELD;
  else if (!parse_percent (donar_torctl_arguments_lookup (arguments,
              "PROGRESS"), &bootstrap->progress))
    error = DONAR_TORCTL_ERROR_MALFORMED;
  if (error == DONAR_TORCTL_OK) {
    bootstrap->severity = g_strdup (severity);
    bootstrap->tag = g_strdup (tag);
    bootstrap->summary =
        g_strdup (donar_torctl_arguments_lookup (arguments, "SUMMARY"));
    bootstrap->warning =
        g_strdup (donar_torctl_arguments_lookup (arguments, "WARNING"));
    bootstrap->reason =
        g_strdup (donar_torctl_arguments_lookup (arguments, "REASON"));
  }
  donar_torctl_arguments_free (arguments);
  return error;
}

DonarTorctlError
donar_torctl_parse_bootstrap_event (const DonarTorctlReply * reply,
    DonarTorctlBootstrap * bootstrap)
{
  const gchar *text = event_text (reply, "STATUS_CLIENT");

  memset (bootstrap, 0, sizeof *bootstrap);
  if (text == NULL)
    return DONAR_TORCTL_ERROR_MALFORMED;
  return donar_torctl_parse_bootstrap (text, bootstrap);
}

void
donar_torctl_bootstrap_clear (DonarTorctlBootstrap * bootstrap)
{
  g_free (bootstrap->severity);
  g_free (bootstrap->tag);
  g_free (bootstrap->summary);
  g_free (bootstrap->warning);
  g_free (bootstrap->reason);
  memset (bootstrap, 0, sizeof *bootstrap);
}

static DonarTorctlCircuitState
circuit_state (const gchar * name)
{
  static const struct
  {
    const gchar *name;
    DonarTorctlCircuitState state;
  } states[] = {
    {"LAUNCHED", DONAR_TORCTL_CIRCUIT_LAUNCHED},
    {"BUILT", DONAR_TORCTL_CIRCUIT_BUILT},
    {"GUARD_WAIT", DONAR_TORCTL_CIRCUIT_GUARD_WAIT},
    {"EXTENDED", DONAR_TORCTL_CIRCUIT_EXTENDED},
    {"FAILED", DONAR_TORCTL_CIRCUIT_FAILED},
    {"CLOSED", DONAR_TORCTL_CIRCUIT_CLOSED},
  };

  for (guint i = 0; i < G_N_ELEMENTS (states); i++)
    if (strcmp (states[i].name, name) == 0)
      return states[i].state;
  return DONAR_TORCTL_CIRCUIT_UNKNOWN;
}

static gboolean
is_circuit_id (const gchar * id)
{
  gsize length = strlen (id);

  if (length == 0 || length > MAX_CIRCUIT_ID)
    return FALSE;
  for (gsize i = 0; i < length; i++)
    if (!g_ascii_isalnum (id[i]))
      return FALSE;
  return TRUE;
}

/* The path is the third word when present: a LongName list starts with '$'
 * (and may hold '=' in tor before 0.3.1), an old nickname list has no '=';
 * anything else there is the first keyword=value argument. */
static gboolean
has_path (const gchar * text)
{
  const gchar *p = text;
  const gchar *end;

  for (guint word = 0; word < 2; word++) {
    while (*p == ' ')
      p++;
    while (*p != '\0' && *p != ' ')
      p++;
  }
  while (*p == ' ')
    p++;
  if (*p == '\0')
    return FALSE;
  end = strchr (p, ' ');
  if (end == NULL)
    end = p + strlen (p);
  return *p == '$' || memchr (p, '=', end - p) == NULL;
}

/* A comma-separated list with no empty element, or NULL. */
static gchar **
split_list (const gchar * list)
{
  gchar **items;

  if (list == NULL || *list == '\0')
    return g_new0 (gchar *, 1);
  items = g_strsplit (list, ",", -1);
  for (guint i = 0; items[i] != NULL; i++) {
    if (items[i][0] == '\0') {
      g_strfreev (items);
      return NULL;
    }
  }
  return items;
}

static DonarTorctlError
fill_circuit (const DonarTorctlArguments * arguments, gboolean with_path,
    DonarTorctlCircuit * circuit)
{
  const gchar *id = donar_torctl_arguments_word (arguments, 0);
  const gchar *state = donar_torctl_arguments_word (arguments, 1);

  if (id == NULL || state == NULL)
    return DONAR_TORCTL_ERROR_MISSING_FIELD;
  if (!is_circuit_id (id))
    return DONAR_TORCTL_ERROR_MALFORMED;
  circuit->id = g_strdup (id);
  circuit->state = circuit_state (state);
  circuit->path = split_list (with_path
      ? donar_torctl_arguments_word (arguments, 2) : NULL);
  circuit->build_flags =
      split_list (donar_torctl_arguments_lookup (arguments, "BUILD_FLAGS"));
  if (circuit->path == NULL || circuit->build_flags == NULL)
    return DONAR_TORCTL_ERROR_MALFORMED;
  circuit->purpose =
      g_strdup (donar_torctl_arguments_lookup (arguments, "PURPOSE"));
  circuit->rend_query =
      g_strdup (donar_torctl_arguments_lookup (arguments, "REND_QUERY"));
  circuit->socks_username =
      g_strdup (donar_torctl_arguments_lookup (arguments, "SOCKS_USERNAME"));
  circuit->socks_password =
      g_strdup (donar_torctl_arguments_lookup (arguments, "SOCKS_PASSWORD"));
  return DONAR_TORCTL_OK;
}

DonarTorctlError
donar_torctl_parse_circuit (const gchar * text, DonarTorctlCircuit * circuit)
{
  DonarTorctlArguments *arguments;
  DonarTorctlError error;
  gboolean with_path;

  memset (circuit, 0, sizeof *circuit);
  with_path = has_path (text);
  error = donar_torctl_arguments_parse (text, with_path ? 3 : 2, &arguments);
  if (error != DONAR_TORCTL_OK)
    return error;
  error = fill_circuit (arguments, with_path, circuit);
  donar_torctl_arguments_free (arguments);
  if (error != DONAR_TORCTL_OK)
    donar_torctl_circuit_clear (circuit);
  return error;
}

DonarTorctlError
donar_torctl_parse_circuit_event (const DonarTorctlReply * reply,
    DonarTorctlCircuit * circuit)
{
  const gchar *text = event_text (reply, "CIRC");

  memset (circuit, 0, sizeof *circuit);
  if (text == NULL)
    return DONAR_TORCTL_ERROR_MALFORMED;
  return donar_torctl_parse_circuit (text, circuit);
}

void
donar_torctl_circuit_clear (DonarTorctlCircuit * circuit)
{
  g_free (circuit->id);
  g_strfreev (circuit->path);
  g_strfreev (circuit->build_flags);
  g_free (circuit->purpose);
  g_free (circuit->rend_query);
  g_free (circuit->socks_username);
  g_free (circuit->socks_password);
  memset (circuit, 0, sizeof *circuit);
}

static void
circuit_free (gpointer circuit)
{
  donar_torctl_circuit_clear (circuit);
  g_free (circuit);
}

DonarTorctlError
donar_torctl_parse_circuit_status (const gchar * value, GPtrArray ** circuits)
{
  GPtrArray *array = g_ptr_array_new_with_free_func (circuit_free);
  const gchar *line = value;

  *circuits = NULL;
  while (*line != '\0') {
    const gchar *end = strchr (line, '\n');
    gsize length = end != NULL ? (gsize) (end - line) : strlen (line);

    if (length > 0) {
      DonarTorctlCircuit *circuit = g_new0 (DonarTorctlCircuit, 1);
      gchar *text = g_strndup (line, length);
      DonarTorctlError error = donar_torctl_parse_circuit (text, circuit);

      g_free (text);
      if (error != DONAR_TORCTL_OK) {
        g_free (circuit);
        g_ptr_array_unref (array);
        return error;
      }
      g_ptr_array_add (array, circuit);
    }
    line += length;
    if (*line == '\n')
      line++;
  }
  *circuits = array;
  return DONAR_TORCTL_OK;
}
