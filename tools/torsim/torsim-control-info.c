/* GETINFO, SETEVENTS, SETCONF and SIGNAL (control-spec 3.1, 3.4, 3.7,
 * 3.9) as far as DONAR needs them, and torsim's own fault hooks for tests:
 * DONAR-FAIL-LINK, DONAR-CUT, DONAR-STALL, DONAR-STATS,
 * DONAR-CLOSE-CONTROLS and DONAR-FREEZE (not tor's). */
#include "torsim.h"

#include <string.h>

#include "donar-torctl-arguments.h"

#define MAX_CUT_MS 600000

static gchar **
split_words (const char *args)
{
  gchar **all = g_strsplit (args, " ", -1);
  GPtrArray *words = g_ptr_array_new ();

  for (guint i = 0; all[i] != NULL; i++) {
    if (all[i][0] != '\0')
      g_ptr_array_add (words, all[i]);
    else
      g_free (all[i]);
  }
  g_free (all);
  g_ptr_array_add (words, NULL);
  return (gchar **) g_ptr_array_free (words, FALSE);
}

static gchar *
onion_list (Torsim * t, TorsimControl * c, gboolean detached)
{
  GString *out = g_string_new (NULL);
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, t->onions);
  while (g_hash_table_iter_next (&iter, NULL, &value)) {
    TorsimControl *owner = torsim_onion_owner (value);

    if (detached ? owner != NULL : owner != c)
      continue;
    if (out->len > 0)
      g_string_append_c (out, '\n');
    g_string_append (out, torsim_onion_id (value));
  }
  return g_string_free (out, FALSE);
}

/* The value of a key, or NULL with the error line in *error. */
static gchar *
info_value (TorsimControl * c, const char *key, gchar ** error)
{
  Torsim *t = torsim_control_torsim (c);
  gchar *value = NULL;

  if (strcmp (key, "version") == 0)
    value = g_strdup (TORSIM_VERSION);
  else if (strcmp (key, "status/bootstrap-phase") == 0)
    value = g_strdup ("NOTICE BOOTSTRAP PROGRESS=100 TAG=done "
        "SUMMARY=\"Done\"");
  else if (strcmp (key, "status/circuit-established") == 0
      || strcmp (key, "status/enough-dir-info") == 0)
    value = g_strdup ("1");
  else if (strcmp (key, "net/listeners/socks") == 0)
    value = g_strdup_printf ("\"127.0.0.1:%u\"", t->socks_port);
  else if (strcmp (key, "net/listeners/control") == 0)
    value = g_strdup_printf ("\"127.0.0.1:%u\"", t->control_port);
  else if (strcmp (key, "circuit-status") == 0) {
    GString *out = g_string_new (NULL);

    torsim_links_circuit_status (t, out);
    value = g_string_free (out, FALSE);
  } else if (strcmp (key, "onions/current") == 0
      || strcmp (key, "onions/detached") == 0) {
    value = onion_list (t, c, strcmp (key, "onions/detached") == 0);
    if (value[0] == '\0') {
      g_clear_pointer (&value, g_free);
      *error = g_strdup ("551 No onion services of the specified type.");
    }
  } else {
    GString *line = g_string_new ("552 Unrecognized key ");

    torsim_append_quoted (line, key);
    *error = g_string_free (line, FALSE);
  }
  return value;
}

/* A value with a line break goes as a data block, dot-stuffed. */
static void
append_value (GString * reply, const char *key, const char *value)
{
  g_auto (GStrv) lines = NULL;

  if (strchr (value, '\n') == NULL) {
    g_string_append_printf (reply, "250-%s=%s\r\n", key, value);
    return;
  }
  g_string_append_printf (reply, "250+%s=\r\n", key);
  lines = g_strsplit (value, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    g_string_append_printf (reply, "%s%s\r\n", lines[i][0] == '.' ? "." : "",
        lines[i]);
  g_string_append (reply, ".\r\n");
}

void
torsim_command_getinfo (TorsimControl * c, const char *args)
{
  g_auto (GStrv) keys = split_words (args);
  g_autoptr (GString) reply = g_string_new (NULL);

  for (guint i = 0; keys[i] != NULL; i++) {
    g_autofree gchar *error = NULL;
    g_autofree gchar *value = info_value (c, keys[i], &error);

    if (value == NULL) {
      torsim_control_write (c, error);
      return;
    }
    append_value (reply, keys[i], value);
  }
  g_string_append (reply, "250 OK\r\n");
  torsim_control_write_raw (c, reply->str);
}

void
torsim_command_setevents (TorsimControl * c, const char *args)
{
  /* Tor's event names; only CIRC and HS_DESC ever fire here. */
  static const char *const known[] = { "CIRC", "CIRC_MINOR", "STREAM",
    "ORCONN", "BW", "DEBUG", "INFO", "NOTICE", "WARN", "ERR", "NEWDESC",
    "ADDRMAP", "DESCCHANGED", "NS", "STATUS_GENERAL", "STATUS_CLIENT",
    "STATUS_SERVER", "GUARD", "STREAM_BW", "CLIENTS_SEEN", "NEWCONSENSUS",
    "BUILDTIMEOUT_SET", "SIGNAL", "CONF_CHANGED", "CONN_BW", "CELL_STATS",
    "CIRC_BW", "TRANSPORT_LAUNCHED", "HS_DESC", "HS_DESC_CONTENT",
    "NETWORK_LIVENESS", "PT_LOG", "PT_STATUS", "EXTENDED", NULL
  };
  g_auto (GStrv) words = split_words (args);
  TorsimEvents events = 0;

  for (guint i = 0; words[i] != NULL; i++) {
    gboolean found = FALSE;

    for (guint k = 0; known[k] != NULL; k++)
      found |= g_ascii_strcasecmp (words[i], known[k]) == 0;
    if (!found) {
      g_autoptr (GString) line = g_string_new ("552 Unrecognized event ");

      torsim_append_quoted (line, words[i]);
      torsim_control_write (c, line->str);
      return;
    }
    if (g_ascii_strcasecmp (words[i], "CIRC") == 0)
      events |= TORSIM_EVENT_CIRC;
    if (g_ascii_strcasecmp (words[i], "HS_DESC") == 0)
      events |= TORSIM_EVENT_HS_DESC;
  }
  torsim_control_set_events (c, events);
  torsim_control_write (c, "250 OK");
}

void
torsim_command_setconf (TorsimControl * c, const char *args)
{
  /* Options that change nothing the model decides. */
  static const char *const harmless[] = { "NumEntryGuards",
    "NumPrimaryGuards", "NumDirectoryGuards", "UseEntryGuards",
    "MaxCircuitDirtiness", "NewCircuitPeriod", "CircuitBuildTimeout",
    "LearnCircuitBuildTimeout", "ConnectionPadding",
    "ReducedConnectionPadding", "CircuitPadding", "ReducedCircuitPadding",
    "SafeLogging", "LongLivedPorts", NULL
  };
  DonarTorctlArguments *a = NULL;

  if (donar_torctl_arguments_parse (args, 0, &a) != DONAR_TORCTL_OK) {
    torsim_control_write (c, "513 syntax error in configuration values");
    return;
  }
  for (guint i = 0; i < a->n_arguments; i++) {
    const char *key = a->arguments[i].key != NULL ? a->arguments[i].key :
        a->arguments[i].value;
    gboolean found = FALSE;

    for (guint k = 0; harmless[k] != NULL; k++)
      found |= g_ascii_strcasecmp (key, harmless[k]) == 0;
    if (!found) {
      g_autofree gchar *line = g_strdup_printf ("552 Unrecognized option: "
          "Unknown option '%.64s'.  Failing.", key);

      donar_torctl_arguments_free (a);
      torsim_control_write (c, line);
      return;
    }
  }
  donar_torctl_arguments_free (a);
  torsim_control_write (c, "250 OK");
}

void
torsim_command_signal (TorsimControl * c, const char *args)
{
  static const char *const known[] = { "RELOAD", "HUP", "DUMP", "USR1",
    "DEBUG", "USR2", "NEWNYM", "CLEARDNSCACHE", "HEARTBEAT", "ACTIVE",
    "DORMANT", NULL
  };
  static const char *const stop[] = { "SHUTDOWN", "INT", "HALT", "TERM",
    NULL
  };
  Torsim *t = torsim_control_torsim (c);

  for (guint k = 0; stop[k] != NULL; k++)
    if (g_ascii_strcasecmp (args, stop[k]) == 0) {
      torsim_control_write (c, "250 OK");
      /* Time for the reply to go out. */
      torsim_quit (t, 50);
      return;
    }
  for (guint k = 0; known[k] != NULL; k++)
    if (g_ascii_strcasecmp (args, known[k]) == 0) {
      torsim_control_write (c, "250 OK");
      return;
    }
  {
    g_autoptr (GString) line = g_string_new ("552 Unrecognized signal code ");

    torsim_append_quoted (line, args);
    torsim_control_write (c, line->str);
  }
}

void
torsim_command_fail_link (TorsimControl * c, const char *args)
{
  Torsim *t = torsim_control_torsim (c);
  guint64 index;

  if (!g_ascii_string_to_unsigned (args, 10, 0, t->n_links - 1, &index, NULL)) {
    g_autofree gchar *line = g_strdup_printf ("552 No such link (0 to %u)",
        t->n_links - 1);

    torsim_control_write (c, line);
    return;
  }
  torsim_link_fail_now (t, (guint) index);
  torsim_control_write (c, "250 OK");
}

void
torsim_command_cut (TorsimControl * c, const char *args)
{
  guint64 ms;

  if (!g_ascii_string_to_unsigned (args, 10, 0, MAX_CUT_MS, &ms, NULL)) {
    torsim_control_write (c, "552 Invalid duration (0 to 600000 ms)");
    return;
  }
  torsim_links_cut (torsim_control_torsim (c), (guint) ms);
  torsim_control_write (c, "250 OK");
}

void
torsim_command_stats (TorsimControl * c, const char *args)
{
  Torsim *t = torsim_control_torsim (c);
  g_autoptr (GString) lines = g_string_new (NULL);
  g_autoptr (GString) reply = g_string_new (NULL);
  g_auto (GStrv) split = NULL;
  gint64 now = torsim_now ();
  gsize buffered = 0;

  for (GList * l = t->streams; l != NULL; l = l->next)
    buffered += torsim_stream_buffered (l->data);
  g_string_append_printf (lines, "DONAR-STATS LINKS=%u SECURITY=%s SEED=%"
      G_GUINT64_FORMAT " STREAMS=%u ONIONS=%u BUFFERED=%" G_GSIZE_FORMAT
      " CUT_MS=%" G_GINT64_FORMAT " STALLED=%u UPTIME_MS=%" G_GINT64_FORMAT
      "\n",
      t->n_links, donar_security_to_string (t->options->params.security),
      t->options->seed, g_list_length (t->streams),
      g_hash_table_size (t->onions), buffered,
      MAX (t->cut_until_us - now, 0) / 1000, torsim_streams_stalled (t),
      (now - t->origin_us) / 1000);
  torsim_links_stats (t, lines);
  split = g_strsplit (lines->str, "\n", -1);
  for (guint i = 0; split[i] != NULL && split[i][0] != '\0'; i++)
    g_string_append_printf (reply, "250-%s\r\n", split[i]);
  g_string_append (reply, "250 OK\r\n");
  torsim_control_write_raw (c, reply->str);
}

/* Every other control connection closes, as if its controller's socket
 * broke: their onions without Detach go with them. */
void
torsim_command_close_controls (TorsimControl * c, const char *args)
{
  Torsim *t = torsim_control_torsim (c);
  g_autoptr (GList) others = NULL;

  for (GList * l = t->controls; l != NULL; l = l->next)
    if (l->data != c)
      others = g_list_prepend (others, l->data);
  for (GList * l = others; l != NULL; l = l->next)
    torsim_control_close (l->data);
  torsim_control_write (c, "250 OK");
}

/* The circuits of the open streams stop forwarding, as when a relay on
 * them hangs: nothing is read from either end again, so each end's writes
 * back up until it gives the stream up.  New streams are served. */
void
torsim_command_freeze (TorsimControl * c, const char *args)
{
  guint64 max_streams = G_MAXUINT;
  gchar *reply;

  if (*args != '\0' && !g_ascii_string_to_unsigned (args, 10, 1, G_MAXUINT,
          &max_streams, NULL)) {
    torsim_control_write (c, "552 Invalid number of streams (1 or more)");
    return;
  }
  reply = g_strdup_printf ("250 FROZEN=%u",
      torsim_streams_freeze (torsim_control_torsim (c), (guint) max_streams));
  torsim_control_write (c, reply);
  g_free (reply);
}

/* The circuits of the open streams stall for a while, as when a hop on
 * them is congested (issue 26): nothing is delivered, and tor goes on
 * reading what the ends write until its stream window is full; at the
 * release the backlog goes on, in order, at once or at DRAIN= cells a
 * second (the hop's share of a loaded guard). */
void
torsim_command_stall (TorsimControl * c, const char *args)
{
  g_auto (GStrv) words = g_strsplit (args, " ", -1);
  guint64 ms = 0, max_streams = G_MAXUINT, drain = 0;
  gboolean ok = words[0] != NULL
      && g_ascii_string_to_unsigned (words[0], 10, 0, MAX_CUT_MS, &ms, NULL);
  guint i = 1;
  gchar *reply;

  if (ok && words[i] != NULL && !g_str_has_prefix (words[i], "DRAIN="))
    ok = g_ascii_string_to_unsigned (words[i++], 10, 1, G_MAXUINT,
        &max_streams, NULL);
  if (ok && words[i] != NULL)
    ok = g_str_has_prefix (words[i], "DRAIN=")
        && g_ascii_string_to_unsigned (words[i++] + 6, 10, 1, 1000000,
        &drain, NULL);
  if (!ok || words[i] != NULL) {
    torsim_control_write (c, "552 Invalid arguments (MS from 0 to 600000, "
        "then streams, 1 or more, then DRAIN=cells/s, 1 to 1000000)");
    return;
  }
  reply = g_strdup_printf ("250 STALLED=%u",
      torsim_streams_stall (torsim_control_torsim (c), (guint) ms,
          (guint) max_streams, (guint) drain));
  torsim_control_write (c, reply);
  g_free (reply);
}
