/* What every element test's main () does around g_test_run (): GStreamer up,
 * and, when GST_TRACERS asks for the leaks tracer, a check that it really
 * runs (it reports at gst_deinit (), a g_warning, fatal in a test). */
#ifndef ELEMENTS_TEST_H
#define ELEMENTS_TEST_H

#include <gio/gio.h>
#include <gst/gst.h>

G_BEGIN_DECLS

/* g_test_init () and gst_init (); exits 1 if the leaks tracer was asked for
 * and is not active.  Returns whether it was asked for. */
gboolean elements_test_init (int *argc, char ***argv);
/* gst_deinit (), where the leaks tracer reports; returns ret. */
int elements_test_finish (int ret, gboolean check_leaks);
/* The element message `name` on pipeline's bus within timeout (the caller
 * unrefs it), or NULL; an error message on the way fails the test. */
GstMessage *elements_test_wait_message (GstElement * pipeline,
    const gchar * name, GstClockTime timeout);
/* The address of the callee's donar-call-address message on pipeline's bus
 * within timeout (the caller frees it); the test fails without one. */
gchar *elements_test_wait_address (GstElement * pipeline,
    GstClockTime timeout);

/* The pipeline of description, set PLAYING; the test fails if it cannot
 * be parsed or the state change fails at once. */
GstElement *elements_test_play (const gchar * description);
/* Set to NULL and unreffed. */
void elements_test_stop (GstElement * pipeline);

/* The stats property of the element called name in pipeline (the caller
 * frees it); fails the test if it has none. */
GstStructure *elements_test_get_stats (GstElement * pipeline,
    const gchar * name);

/* A TCP port on 127.0.0.1 that takes connections and never answers (a
 * control port that hangs): the listener, to close and unref at the end,
 * and its port. */
GSocketListener *elements_test_silent_port (guint16 * port);

/* A donar-torsim of $DONAR_TORSIM on free ports (--publish-ms 500): its
 * process, and its control port in *control; NULL (the test skipped) when
 * DONAR_TORSIM is not set. */
typedef struct
{
  GSubprocess *process;
  gchar *dir;
  gchar *control;
} ElementsTestTorsim;

gboolean elements_test_torsim_start (ElementsTestTorsim * torsim,
    const gchar * name);
/* SIGTERM, wait, and its files removed. */
void elements_test_torsim_stop (ElementsTestTorsim * torsim);

G_END_DECLS

#endif /* ELEMENTS_TEST_H */
