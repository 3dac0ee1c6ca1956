/* The private network of tests/tor-network as the torclient tests see
 * it, and the helpers they share. */
#include "torclient-test-net.h"

#include <stdio.h>
#include <string.h>

TorclientTestNet torclient_net;

static guint16
env_port (const gchar * name)
{
  const gchar *text = g_getenv (name);
  guint64 port;

  if (text == NULL || !g_ascii_string_to_unsigned (text, 10, 1, 65535, &port,
          NULL))
    g_error ("%s is not set: run this through run-torclient.sh", name);
  return port;
}

/* So that run-torclient.sh can stop, by PID, a tor we failed to stop. */
static void
note_launched (DonarTorLauncher * launcher)
{
  g_autofree gchar *line = g_strdup_printf ("%d %s\n",
      (int) donar_tor_launcher_get_pid (launcher),
      donar_tor_launcher_get_data_dir (launcher));
  FILE *file = fopen (torclient_net.pids_file, "a");

  g_assert_nonnull (file);
  fputs (line, file);
  fclose (file);
}

DonarTorControl *
torclient_connect_network_client (void)
{
  g_autoptr (GError) error = NULL;
  DonarTorControl *control;

  control = donar_tor_control_connect ("127.0.0.1", torclient_net.control_port,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);
  g_assert_no_error (error);
  return control;
}

DonarTorControl *
torclient_open_network_client (void)
{
  const DonarTorControlAuthOptions auth = {.cookie_file =
        torclient_net.cookie };
  g_autoptr (GError) error = NULL;
  DonarTorControl *control = torclient_connect_network_client ();

  g_assert_true (donar_tor_control_authenticate (control, &auth,
          donar_tor_control_deadline (TIMEOUT_MS), NULL, &error));
  g_assert_no_error (error);
  return control;
}

gchar *
torclient_getinfo (DonarTorControl * control, const gchar * key)
{
  g_autoptr (GError) error = NULL;
  gchar *value = donar_tor_control_getinfo (control, key,
      donar_tor_control_deadline (TIMEOUT_MS), NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (value);
  return value;
}

/* The launched tors and data directories still there: the launcher puts
 * them under TMPDIR, which run-torclient.sh makes ours alone. */
guint
torclient_launched_left (void)
{
  g_autofree gchar *prefix = g_build_filename (g_get_tmp_dir (), "donar-tor-",
      NULL);
  const gchar *name;
  guint left = 0;
  GDir *dir;

  dir = g_dir_open (g_get_tmp_dir (), 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    left += g_str_has_prefix (name, "donar-tor-");
  g_dir_close (dir);
  dir = g_dir_open ("/proc", 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL) {
    g_autofree gchar *path = g_build_filename ("/proc", name, "cmdline",
        NULL);
    g_autofree gchar *cmdline = NULL;
    gsize length;

    if (!g_ascii_isdigit (name[0])
        || !g_file_get_contents (path, &cmdline, &length, NULL))
      continue;
    for (gsize i = 0; i < length; i++)
      if (cmdline[i] == '\0')
        cmdline[i] = ' ';
    left += strstr (cmdline, prefix) != NULL;
  }
  g_dir_close (dir);
  return left;
}

gdouble
torclient_seconds_since (gint64 start)
{
  return (g_get_monotonic_time () - start) / (gdouble) G_USEC_PER_SEC;
}

DonarTorLauncher *
torclient_launch_joined (DonarTorSecurity security, guint num_entry_guards,
    DonarTorProgressFunc progress, gpointer progress_data)
{
  g_autofree gchar *include = g_strdup_printf ("%%include %s",
      torclient_net.torrc_include);
  const gchar *extra[] = { include, NULL };
  DonarTorLauncherOptions options;
  g_autoptr (GError) error = NULL;
  DonarTorLauncher *launcher;
  gint64 start = g_get_monotonic_time ();

  donar_tor_launcher_options_init (&options);
  options.security = security;
  options.num_entry_guards = num_entry_guards;
  options.bootstrap_timeout_ms = BOOTSTRAP_TIMEOUT_MS;
  options.extra_torrc_lines = extra;
  options.progress = progress;
  options.progress_data = progress_data;
  launcher = donar_tor_launcher_start (&options, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (launcher);
  note_launched (launcher);
  g_test_message ("%s tor launched and bootstrapped in %.1f s",
      donar_tor_security_to_string (security), torclient_seconds_since (start));
  return launcher;
}

void
torclient_net_init (void)
{
  torclient_net.control_port = env_port ("TOR_CONTROL_PORT");
  torclient_net.socks_port = env_port ("TOR_SOCKS_PORT");
  torclient_net.socks_extended_port = env_port ("TOR_SOCKS_EXTENDED_PORT");
  torclient_net.cookie = g_getenv ("TOR_COOKIE");
  torclient_net.torrc_include = g_getenv ("TOR_TORRC_INCLUDE");
  torclient_net.pids_file = g_getenv ("TORCLIENT_PIDS_FILE");
  if (torclient_net.cookie == NULL || torclient_net.torrc_include == NULL
      || torclient_net.pids_file == NULL)
    g_error ("TOR_COOKIE, TOR_TORRC_INCLUDE or TORCLIENT_PIDS_FILE not set: "
        "run this through run-torclient.sh");
}
