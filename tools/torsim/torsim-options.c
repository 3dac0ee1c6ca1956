/* The command line of donar-torsim: every bad value is refused with a
 * message that names its option. */
#include "torsim.h"

#include <string.h>

#define DEFAULT_PUBLISH_MS 1500
#define MAX_PUBLISH_MS 600000
#define DEFAULT_MAX_PENDING (1024 * 1024)
#define MIN_MAX_PENDING 4096
#define MAX_MAX_PENDING (64 * 1024 * 1024)
/* tor's bounds of ConstrainedSockSize. */
#define MIN_SOCK_SIZE 2048
#define MAX_SOCK_SIZE 262144

static gboolean
parse_unsigned (const char *option, const char *text, guint64 min,
    guint64 max, guint64 * out, GError ** error)
{
  GError *local = NULL;

  if (!g_ascii_string_to_unsigned (text, 10, min, max, out, &local)) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "%s: '%s' is not a number from %" G_GUINT64_FORMAT " to %"
        G_GUINT64_FORMAT, option, text, min, max);
    g_clear_error (&local);
    return FALSE;
  }
  return TRUE;
}

static gboolean
parse_port (const char *option, const char *text, guint16 * port,
    GError ** error)
{
  guint64 value = 0;

  if (text == NULL)
    return TRUE;
  if (!parse_unsigned (option, text, 0, 65535, &value, error))
    return FALSE;
  *port = (guint16) value;
  return TRUE;
}

gboolean
torsim_options_parse (TorsimOptions * options, int *argc, char ***argv,
    GError ** error)
{
  g_autofree gchar *socks_port = NULL, *control_port = NULL;
  g_autofree gchar *security = NULL, *seed = NULL, *links = NULL;
  g_autofree gchar *publish_ms = NULL, *max_pending = NULL;
  g_autofree gchar *sock_size = NULL;
  g_auto (GStrv) sets = NULL, socks_flags = NULL;
  DonarSecurity sec = DONAR_SECURITY_DEFAULT;
  guint64 value;
  GOptionEntry entries[] = {
    {"socks-port", 0, 0, G_OPTION_ARG_STRING, &socks_port,
        "SOCKS5 port on 127.0.0.1 (0: a free one, the default)", "N"},
    {"control-port", 0, 0, G_OPTION_ARG_STRING, &control_port,
        "Control port on 127.0.0.1 (0: a free one, the default)", "N"},
    {"port-file", 0, 0, G_OPTION_ARG_FILENAME, &options->port_file,
          "Write SOCKS_PORT=, CONTROL_PORT= and READY there (atomically)",
        "FILE"},
    {"security", 0, 0, G_OPTION_ARG_STRING, &security,
        "Link model configuration: default, 2hop or 1way", "NAME"},
    {"seed", 0, 0, G_OPTION_ARG_STRING, &seed,
        "Seed of the link model (default 1)", "N"},
    {"links", 0, 0, G_OPTION_ARG_STRING, &links,
        "Model links, i.e. circuits at once (12 to 32, default 12)", "N"},
    {"trace", 0, 0, G_OPTION_ARG_FILENAME, &options->trace_dir,
        "Replay DIR/link<i>.csv on link i (docs/netmodel.md)", "DIR"},
    {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
        "Set a model parameter (repeatable)", "NAME=VALUE"},
    {"publish-ms", 0, 0, G_OPTION_ARG_STRING, &publish_ms,
        "Delay before an onion is reachable (default 1500)", "MS"},
    {"cookie-file", 0, 0, G_OPTION_ARG_FILENAME, &options->cookie_file,
        "Offer COOKIE and SAFECOOKIE with a new cookie in FILE", "FILE"},
    {"max-pending", 0, 0, G_OPTION_ARG_STRING, &max_pending,
        "Bytes in flight per stream and direction before reading stops "
          "(default 1048576)", "BYTES"},
    {"constrained-sock-size", 0, 0, G_OPTION_ARG_STRING, &sock_size,
        "As tor's ConstrainedSockets 1 with ConstrainedSockSize BYTES: "
          "the kernel buffers of every stream's sockets (2048 to 262144; "
          "default: the kernel's)", "BYTES"},
    {"socks-flag", 0, 0, G_OPTION_ARG_STRING_ARRAY, &socks_flags,
        "An isolation flag of tor's SocksPort, repeatable: IsolateDestPort, "
          "IsolateDestAddr, IsolateClientAddr, IsolateSOCKSAuth, "
          "IsolateClientProtocol, or No<flag> (default: IsolateClientAddr "
          "IsolateSOCKSAuth, as tor)", "FLAG"},
    {"verbose", 'v', 0, G_OPTION_ARG_NONE, &options->verbose,
        "Log connections, circuits and failures on stderr", NULL},
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context =
      g_option_context_new ("- an emulated Tor client over the link model");

  memset (options, 0, sizeof *options);
  options->seed = 1;
  options->n_links = TORSIM_MIN_LINKS;
  options->publish_ms = DEFAULT_PUBLISH_MS;
  options->max_pending = DEFAULT_MAX_PENDING;
  options->isolation = TORSIM_ISOLATE_DEFAULT;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, argc, argv, error))
    return FALSE;
  if (*argc > 1) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
        "unexpected argument '%s'", (*argv)[1]);
    return FALSE;
  }

  if (!parse_port ("--socks-port", socks_port, &options->socks_port, error)
      || !parse_port ("--control-port", control_port,
          &options->control_port, error))
    return FALSE;
  if (security != NULL && !donar_security_from_string (security, &sec)) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--security: '%s' is not default, 2hop or 1way", security);
    return FALSE;
  }
  donar_net_model_params_init (&options->params, sec);
  if (seed != NULL) {
    if (!parse_unsigned ("--seed", seed, 0, G_MAXUINT64, &value, error))
      return FALSE;
    options->seed = value;
  }
  if (links != NULL) {
    if (!parse_unsigned ("--links", links, TORSIM_MIN_LINKS,
            TORSIM_MAX_LINKS, &value, error))
      return FALSE;
    options->n_links = (guint) value;
  }
  if (publish_ms != NULL) {
    if (!parse_unsigned ("--publish-ms", publish_ms, 0, MAX_PUBLISH_MS,
            &value, error))
      return FALSE;
    options->publish_ms = (guint) value;
  }
  if (max_pending != NULL) {
    if (!parse_unsigned ("--max-pending", max_pending, MIN_MAX_PENDING,
            MAX_MAX_PENDING, &value, error))
      return FALSE;
    options->max_pending = (gsize) value;
  }
  if (sock_size != NULL) {
    if (!parse_unsigned ("--constrained-sock-size", sock_size,
            MIN_SOCK_SIZE, MAX_SOCK_SIZE, &value, error))
      return FALSE;
    options->constrained_sock_size = (guint) value;
  }
  for (guint i = 0; socks_flags != NULL && socks_flags[i] != NULL; i++)
    if (!torsim_isolation_apply (&options->isolation, socks_flags[i])) {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "--socks-flag: '%s' is not an isolation flag (IsolateDestPort, "
          "IsolateDestAddr, IsolateClientAddr, IsolateSOCKSAuth, "
          "IsolateClientProtocol, or one of them after No)", socks_flags[i]);
      return FALSE;
    }
  for (guint i = 0; sets != NULL && sets[i] != NULL; i++) {
    if (!donar_net_model_params_assign (&options->params, sets[i], error)) {
      g_prefix_error (error, "--set: ");
      return FALSE;
    }
  }
  if (options->trace_dir != NULL
      && !g_file_test (options->trace_dir, G_FILE_TEST_IS_DIR)) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--trace: '%s' is not a directory", options->trace_dir);
    return FALSE;
  }
  return TRUE;
}

void
torsim_options_clear (TorsimOptions * options)
{
  g_clear_pointer (&options->port_file, g_free);
  g_clear_pointer (&options->trace_dir, g_free);
  g_clear_pointer (&options->cookie_file, g_free);
}
