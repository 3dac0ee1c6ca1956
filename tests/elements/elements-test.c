/* The common main () of the element tests (elements-test.h). */
#include "elements-test.h"

#include "test-spawn.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static gboolean
leaks_tracer_active (void)
{
  GList *tracers = gst_tracing_get_active_tracers ();
  gboolean found = FALSE;

  for (GList * l = tracers; l; l = l->next)
    if (g_str_equal (G_OBJECT_TYPE_NAME (l->data), "GstLeaksTracer"))
      found = TRUE;
  g_list_free_full (tracers, gst_object_unref);
  return found;
}

gboolean
elements_test_init (int *argc, char ***argv)
{
  const char *tracers = g_getenv ("GST_TRACERS");
  gboolean check_leaks = tracers && strstr (tracers, "leaks") != NULL;

  /* Stack traces make the leaks tracer slow; it needs none to tell. */
  g_unsetenv ("GST_LEAKS_TRACER_STACK_TRACE");
  g_test_init (argc, argv, NULL);
  gst_init (argc, argv);
  if (check_leaks && !leaks_tracer_active ()) {
    g_printerr ("GST_TRACERS asks for the leaks tracer but it is not "
        "active (coretracers plugin missing?)\n");
    exit (1);
  }
  return check_leaks;
}

int
elements_test_finish (int ret, gboolean check_leaks)
{
  /* The leaks tracer reports at gst_deinit (): a g_warning, fatal here. */
  gst_deinit ();
  if (check_leaks)
    g_print ("# leaks tracer: nothing left alive\n");
  return ret;
}

GstMessage *
elements_test_wait_message (GstElement * pipeline, const gchar * name,
    GstClockTime timeout)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gint64 deadline = g_get_monotonic_time () + timeout / GST_USECOND;
  GstMessage *found = NULL;

  while (found == NULL && g_get_monotonic_time () < deadline) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 50 * GST_MSECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT);

    if (msg == NULL)
      continue;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *error = NULL;
      gchar *debug = NULL;

      gst_message_parse_error (msg, &error, &debug);
      g_error ("%s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
          error->message, debug);
    }
    if (gst_message_has_name (msg, name))
      found = msg;
    else
      gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return found;
}

GstStructure *
elements_test_get_stats (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstStructure *stats = NULL;

  g_assert_nonnull (e);
  g_object_get (e, "stats", &stats, NULL);
  gst_object_unref (e);
  g_assert_nonnull (stats);
  return stats;
}

gchar *
elements_test_wait_address (GstElement * pipeline, GstClockTime timeout)
{
  GstMessage *msg = elements_test_wait_message (pipeline,
      "donar-call-address", timeout);
  gchar *address;

  g_assert_nonnull (msg);
  address = g_strdup (gst_structure_get_string (gst_message_get_structure
          (msg), "address"));
  gst_message_unref (msg);
  g_assert_nonnull (address);
  return address;
}

GstElement *
elements_test_play (const gchar * description)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);

  g_assert_no_error (error);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  return pipeline;
}

void
elements_test_stop (GstElement * pipeline)
{
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GSocketListener *
elements_test_silent_port (guint16 * port)
{
  GSocketListener *listener = g_socket_listener_new ();
  GInetAddress *loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *any = g_inet_socket_address_new (loopback, 0);
  GSocketAddress *bound = NULL;
  GError *error = NULL;

  g_socket_listener_add_address (listener, any, G_SOCKET_TYPE_STREAM,
      G_SOCKET_PROTOCOL_TCP, NULL, &bound, &error);
  g_assert_no_error (error);
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_object_unref (bound);
  g_object_unref (any);
  g_object_unref (loopback);
  return listener;
}

gboolean
elements_test_torsim_start (ElementsTestTorsim * torsim, const gchar * name)
{
  const gchar *binary = g_getenv ("DONAR_TORSIM");
  g_autofree gchar *template = g_strdup_printf ("%s-XXXXXX", name);
  g_autofree gchar *port_file = NULL;
  g_autofree gchar *contents = NULL;
  const gchar *argv[] = { NULL, "--port-file", NULL, "--publish-ms", "500",
    NULL
  };
  GError *error = NULL;
  gchar **lines;
  gint64 deadline;

  memset (torsim, 0, sizeof *torsim);
  if (binary == NULL) {
    g_test_skip ("DONAR_TORSIM not set");
    return FALSE;
  }
  torsim->dir = g_dir_make_tmp (template, &error);
  g_assert_no_error (error);
  port_file = g_build_filename (torsim->dir, "ports", NULL);
  argv[0] = binary;
  argv[2] = port_file;
  torsim->process = test_spawn (G_SUBPROCESS_FLAGS_STDOUT_SILENCE, argv,
      &error);
  g_assert_no_error (error);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (!g_file_get_contents (port_file, &contents, NULL, NULL) &&
      g_get_monotonic_time () < deadline)
    g_usleep (20 * 1000);
  g_assert_nonnull (contents);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], "CONTROL_PORT="))
      torsim->control = g_strdup (lines[i] + strlen ("CONTROL_PORT="));
  g_strfreev (lines);
  g_assert_nonnull (torsim->control);
  g_print ("# donar-torsim pid %s, control port %s\n",
      g_subprocess_get_identifier (torsim->process), torsim->control);
  return TRUE;
}

void
elements_test_torsim_stop (ElementsTestTorsim * torsim)
{
  g_autofree gchar *port_file = g_build_filename (torsim->dir, "ports",
      NULL);

  g_subprocess_send_signal (torsim->process, SIGTERM);
  g_subprocess_wait (torsim->process, NULL, NULL);
  g_object_unref (torsim->process);
  g_unlink (port_file);
  g_rmdir (torsim->dir);
  g_free (torsim->dir);
  g_free (torsim->control);
  memset (torsim, 0, sizeof *torsim);
}
