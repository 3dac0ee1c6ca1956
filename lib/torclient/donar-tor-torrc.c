/* Which tor to run and the torrc it reads: the security configurations of
 * seed 000 section 5 become torrc lines here (docs/security.md). */
#include "donar-tor-launcher-private.h"

#include <string.h>

/* Debian installs tor in /usr/sbin, outside a normal user's PATH. */
static const gchar *const tor_locations[] = {
  "/usr/sbin/tor",
  "/usr/bin/tor",
};

static const gchar *const security_names[] = {
  [DONAR_TOR_SECURITY_DEFAULT] = "default",
  [DONAR_TOR_SECURITY_TWO_HOP] = "2hop",
  [DONAR_TOR_SECURITY_ONE_WAY] = "1way",
};

const gchar *
donar_tor_security_to_string (DonarTorSecurity security)
{
  if ((guint) security >= G_N_ELEMENTS (security_names))
    return "unknown";
  return security_names[security];
}

gboolean
donar_tor_security_from_string (const gchar * text, DonarTorSecurity * security)
{
  g_return_val_if_fail (security != NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (security_names); i++)
    if (g_strcmp0 (text, security_names[i]) == 0) {
      *security = i;
      return TRUE;
    }
  return FALSE;
}

gchar *
donar_tor_find_binary (const gchar * requested, GError ** error)
{
  gchar *found = NULL;

  if (requested != NULL) {
    if (strchr (requested, '/') != NULL) {
      if (g_file_test (requested, G_FILE_TEST_IS_REGULAR)
          && g_file_test (requested, G_FILE_TEST_IS_EXECUTABLE))
        found = g_strdup (requested);
    } else {
      found = g_find_program_in_path (requested);
    }
    if (found == NULL)
      g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
          DONAR_TOR_LAUNCHER_ERROR_NOT_FOUND,
          "tor not found at %s: install Debian's tor package "
          "(apt-get install tor) or give the path of a tor binary", requested);
    return found;
  }
  found = g_find_program_in_path ("tor");
  for (guint i = 0; found == NULL && i < G_N_ELEMENTS (tor_locations); i++)
    if (g_file_test (tor_locations[i], G_FILE_TEST_IS_EXECUTABLE))
      found = g_strdup (tor_locations[i]);
  if (found == NULL)
    g_set_error_literal (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_NOT_FOUND,
        "tor not found: install Debian's tor package (apt-get install tor)");
  return found;
}

/* tor reads a torrc value up to the end of the line, with quotes and
 * escapes of its own: keep paths to characters that need neither. */
static gboolean
is_plain_path (const gchar * path)
{
  for (const gchar * p = path; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && strchr ("/._+-", *p) == NULL)
      return FALSE;
  return TRUE;
}

static gboolean
is_one_line (const gchar * line)
{
  return strpbrk (line, "\r\n") == NULL;
}

gchar *
donar_tor_torrc_build (const DonarTorLauncherOptions * options,
    const gchar * data_dir, GPid owner, GError ** error)
{
  gboolean one_way = options->security == DONAR_TOR_SECURITY_ONE_WAY;
  GString *torrc;

  if (!is_plain_path (data_dir)) {
    g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
        DONAR_TOR_LAUNCHER_ERROR_FAILED,
        "the data directory %s holds characters a torrc cannot carry: set "
        "TMPDIR to a plain path", data_dir);
    return NULL;
  }
  for (const gchar * const *line = options->extra_torrc_lines;
      line != NULL && *line != NULL; line++)
    if (!is_one_line (*line)) {
      g_set_error (error, DONAR_TOR_LAUNCHER_ERROR,
          DONAR_TOR_LAUNCHER_ERROR_BAD_OPTION,
          "an extra torrc line holds a line break");
      return NULL;
    }

  torrc = g_string_new ("# Written by DONAR's tor launcher (lib/torclient); "
      "removed when tor stops.\n");
  g_string_append_printf (torrc, "DataDirectory %s\n", data_dir);
  g_string_append (torrc, "RunAsDaemon 0\n");
  /* The kernel picks the ports; tor tells them through a file and
   * GETINFO. */
  g_string_append (torrc, "ControlPort auto\n");
  g_string_append_printf (torrc, "ControlPortWriteToFile %s/control-port\n",
      data_dir);
  g_string_append (torrc, "CookieAuthentication 1\n");
  g_string_append_printf (torrc,
      "CookieAuthFile %s/control_auth_cookie\n", data_dir);
  /* A single-onion tor refuses any SocksPort. */
  if (options->no_socks || one_way)
    g_string_append (torrc, "SocksPort 0\n");
  else
    g_string_append (torrc, "SocksPort auto ExtendedErrors IsolateSOCKSAuth\n");
  /* tor exits when we die, even by SIGKILL. */
  g_string_append_printf (torrc, "__OwningControllerProcess %" G_PID_FORMAT
      "\n", owner);
  g_string_append_printf (torrc, "Log notice file %s/notice.log\n", data_dir);
  if (one_way) {
    g_string_append (torrc, "HiddenServiceSingleHopMode 1\n");
    g_string_append (torrc, "HiddenServiceNonAnonymousMode 1\n");
  }
  /* tor 0.4.9 spreads circuits evenly over the first NumEntryGuards of
   * its primary guards, a list of NumPrimaryGuards (3 unless set): more
   * guards than that need a longer list, or tor uses only 3. */
  if (options->num_entry_guards > 0)
    g_string_append_printf (torrc, "NumEntryGuards %u\n",
        options->num_entry_guards);
  if (options->num_entry_guards > DONAR_TOR_DEFAULT_PRIMARY_GUARDS)
    g_string_append_printf (torrc, "NumPrimaryGuards %u\n",
        options->num_entry_guards);
  for (const gchar * const *line = options->extra_torrc_lines;
      line != NULL && *line != NULL; line++)
    g_string_append_printf (torrc, "%s\n", *line);
  return g_string_free (torrc, FALSE);
}
