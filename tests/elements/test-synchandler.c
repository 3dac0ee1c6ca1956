/* A softphone that answers from a sync bus handler, in C so that it runs in
 * the sanitizer build too (tests/elements/check-sync-handler.py is the same
 * in Python, 300 calls; issue 34).  The callee's handler, on every donar-*
 * element message of its donarsrc or donarsink, reads both elements'
 * stats, sets a call property (a warning: it keeps its value during a
 * call), and on donar-incoming-call emits "accept": each takes the call
 * object's lock, on the thread posting the message.  Calls over
 * tor-control=direct, each answered and carrying frames both ways; one
 * that hangs fails the test by its timeout. */
#include "elements-test.h"

#define CALLS 100
#define CALL_TIMEOUT_US (15 * G_USEC_PER_SEC)

typedef struct
{
  GstElement *src, *sink;
  gchar *address;               /* under lock */
  gboolean accepted;            /* under lock */
  guint handled;                /* under lock */
  GMutex lock;
} Answerer;

static void
read_stats (GstElement * element)
{
  GstStructure *stats = NULL;

  g_object_get (element, "stats", &stats, NULL);
  g_assert_nonnull (stats);
  gst_structure_free (stats);
}

static GstBusSyncReply
on_message (GstBus * bus, GstMessage * message, gpointer user_data)
{
  Answerer *a = user_data;
  const GstStructure *s = gst_message_get_structure (message);
  const gchar *name;
  gboolean answered = TRUE;

  if (GST_MESSAGE_TYPE (message) != GST_MESSAGE_ELEMENT || s == NULL ||
      !g_str_has_prefix (gst_structure_get_name (s), "donar-") ||
      (GST_MESSAGE_SRC (message) != GST_OBJECT (a->src) &&
          GST_MESSAGE_SRC (message) != GST_OBJECT (a->sink)))
    return GST_BUS_PASS;
  name = gst_structure_get_name (s);
  read_stats (a->src);
  read_stats (a->sink);
  g_object_set (a->sink, "peer-timeout", 30, NULL);
  g_mutex_lock (&a->lock);
  a->handled++;
  if (g_str_equal (name, "donar-call-address") && a->address == NULL)
    a->address = g_strdup (gst_structure_get_string (s, "address"));
  g_mutex_unlock (&a->lock);
  if (g_str_equal (name, "donar-incoming-call") &&
      gst_structure_get_boolean (s, "answered", &answered) && !answered) {
    gboolean taken = FALSE;

    g_signal_emit_by_name (a->src, "accept", &taken);
    g_mutex_lock (&a->lock);
    a->accepted |= taken;
    g_mutex_unlock (&a->lock);
  }
  return GST_BUS_PASS;
}

static GstElement *
end (const gchar * dial)
{
  gchar *description = g_strdup_printf ("audiotestsrc is-live=true ! "
      "opusenc bitrate=32000 frame-size=40 ! rtpopuspay ! donarsink "
      "name=sink call=c tor-control=direct %s donarsrc name=src call=c "
      "tor-control=direct %s ! fakesink name=out sync=false", dial, dial);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);

  g_assert_no_error (error);
  g_free (description);
  return pipeline;
}

static guint64
received (GstElement * pipeline)
{
  GstStructure *stats = elements_test_get_stats (pipeline, "src");
  guint64 n = 0;

  g_assert_true (gst_structure_get_uint64 (stats, "buffers-received", &n));
  gst_structure_free (stats);
  return n;
}

/* Waits, polling, until done (a, or pipelines) says so; FALSE past the
 * deadline. */
static gboolean
wait_until (gboolean (*done) (Answerer *, GstElement *, GstElement *),
    Answerer * a, GstElement * callee, GstElement * caller, gint64 deadline)
{
  while (!done (a, callee, caller)) {
    if (g_get_monotonic_time () > deadline)
      return FALSE;
    g_usleep (10 * 1000);
  }
  return TRUE;
}

static gboolean
has_address (Answerer * a, GstElement * callee, GstElement * caller)
{
  gboolean has;

  g_mutex_lock (&a->lock);
  has = a->address != NULL;
  g_mutex_unlock (&a->lock);
  return has;
}

static gboolean
flows_both_ways (Answerer * a, GstElement * callee, GstElement * caller)
{
  gboolean accepted;

  g_mutex_lock (&a->lock);
  accepted = a->accepted;
  g_mutex_unlock (&a->lock);
  return accepted && received (callee) > 0 && received (caller) > 0;
}

static void
test_answer_from_sync_handler (void)
{
  guint handled = 0;

  for (guint i = 0; i < CALLS; i++) {
    Answerer a = { 0 };
    GstElement *callee = end ("callee=true auto-answer=false"), *caller;
    GstBus *bus = gst_element_get_bus (callee);
    gint64 deadline = g_get_monotonic_time () + CALL_TIMEOUT_US;
    gchar *dial;

    g_mutex_init (&a.lock);
    a.src = gst_bin_get_by_name (GST_BIN (callee), "src");
    a.sink = gst_bin_get_by_name (GST_BIN (callee), "sink");
    gst_bus_set_sync_handler (bus, on_message, &a, NULL);
    g_assert_cmpint (gst_element_set_state (callee, GST_STATE_PLAYING), !=,
        GST_STATE_CHANGE_FAILURE);
    g_assert_true (wait_until (has_address, &a, callee, NULL, deadline));
    dial = g_strdup_printf ("address=\"%s\"", a.address);
    caller = end (dial);
    g_free (dial);
    g_assert_cmpint (gst_element_set_state (caller, GST_STATE_PLAYING), !=,
        GST_STATE_CHANGE_FAILURE);
    g_assert_true (wait_until (flows_both_ways, &a, callee, caller, deadline));
    elements_test_stop (caller);
    gst_element_set_state (callee, GST_STATE_NULL);
    gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
    gst_object_unref (bus);
    handled += a.handled;
    gst_object_unref (a.src);
    gst_object_unref (a.sink);
    gst_object_unref (callee);
    g_free (a.address);
    g_mutex_clear (&a.lock);
  }
  g_test_message ("%u calls answered from the sync handler, %u messages "
      "handled there", CALLS, handled);
}

int
main (int argc, char **argv)
{
  gboolean leaks = elements_test_init (&argc, &argv);

  g_test_add_func ("/synchandler/answer", test_answer_from_sync_handler);
  return elements_test_finish (g_test_run (), leaks);
}
