/* donar-torsim: an emulated Tor client in real time, for pipelines and
 * tests (docs/torsim.md).  Prints SOCKS_PORT=, CONTROL_PORT= and READY
 * once it listens; SIGTERM or SIGINT stop it with status 0. */
#include "torsim.h"

#include <signal.h>
#include <stdio.h>

static void
on_signal (evutil_socket_t fd, short what, void *arg)
{
  torsim_quit (arg, 0);
}

static gboolean
announce (Torsim * t, const char *port_file, GError ** error)
{
  g_autofree gchar *text = g_strdup_printf ("SOCKS_PORT=%u\nCONTROL_PORT=%u\n"
      "READY\n", t->socks_port, t->control_port);

  fputs (text, stdout);
  fflush (stdout);
  /* Atomic (a temporary file renamed): a reader sees all or nothing. */
  if (port_file != NULL && !g_file_set_contents (port_file, text, -1, error)) {
    g_prefix_error (error, "--port-file: ");
    return FALSE;
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  TorsimOptions options;
  GError *error = NULL;
  struct event *sigterm, *sigint;
  Torsim *t;

  if (!torsim_options_parse (&options, &argc, &argv, &error)) {
    fprintf (stderr, "donar-torsim: %s\n", error->message);
    g_error_free (error);
    torsim_options_clear (&options);
    return 2;
  }
  /* A peer that closes while we write is not a reason to die. */
  signal (SIGPIPE, SIG_IGN);

  t = torsim_new (&options, &error);
  if (t == NULL) {
    int status = error->domain == G_OPTION_ERROR ? 2 : 1;

    fprintf (stderr, "donar-torsim: %s\n", error->message);
    g_error_free (error);
    torsim_options_clear (&options);
    return status;
  }
  sigterm = evsignal_new (t->base, SIGTERM, on_signal, t);
  sigint = evsignal_new (t->base, SIGINT, on_signal, t);
  evsignal_add (sigterm, NULL);
  evsignal_add (sigint, NULL);

  if (!announce (t, options.port_file, &error)) {
    fprintf (stderr, "donar-torsim: %s\n", error->message);
    g_error_free (error);
    event_free (sigterm);
    event_free (sigint);
    torsim_free (t);
    torsim_options_clear (&options);
    return 1;
  }
  torsim_log (t, "%u links, security %s, seed %" G_GUINT64_FORMAT,
      t->n_links, donar_security_to_string (options.params.security),
      options.seed);

  event_base_dispatch (t->base);

  event_free (sigterm);
  event_free (sigint);
  torsim_free (t);
  torsim_options_clear (&options);
  return 0;
}
