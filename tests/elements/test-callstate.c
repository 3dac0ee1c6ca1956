/* The call's state, told truly (docs/elements.md, "Caller and callee"):
 * donar-ready on a caller once a link is up, donar-links at each change
 * in the number of links up, and buffers-sent counting only what the
 * links carry.  A callee alone, then a duplex call over donar-torsim
 * (links dialed through its SOCKS port, frames carried with its model's
 * delays), RTP packets pushed from the start on both ends.  A setup that
 * fails, and one stopped while it runs.  Under the leaks tracer. */
#include "elements-test.h"

#include <gst/gst.h>
#include <gio/gio.h>
#include <string.h>

#define RTP_CAPS "application/x-rtp,media=audio,clock-rate=48000," \
    "encoding-name=OPUS,payload=96"
#define LINKS 12
#define SETUP_TIMEOUT (20 * GST_SECOND)
/* One packet each way this often, as a 20-ms codec. */
#define PUSH_INTERVAL_US (20 * 1000)
/* Packets the callee pushes between its donar-ready and the caller's
 * start. */
#define UNCALLED 5

/* What one element of an end posted, in bus order (0: not yet). */
typedef struct
{
  guint ready_at;
  guint first_link_at;
  guint links_messages;
  guint last_links_up;
  guint max_links_up;
  /* The setup's progress: its percents, 0 at the start, never down, 100
   * at the end. */
  guint progress_messages;
  gint last_percent;
  gboolean progress_complete;
} Heard;

/* One end: appsrc ! donarsink, donarsrc ! fakesink, one call. */
typedef struct
{
  GstElement *pipeline;
  GstElement *in;
  guint16 seq;
  guint pushed;
  guint messages;               /* element messages so far */
  Heard sink, src;
  gchar *address;               /* callee: donar-call-address */
} End;

static guint64
stat_value (GstElement * pipeline, const gchar * name, const gchar * field)
{
  GstStructure *stats = elements_test_get_stats (pipeline, name);
  guint64 v = 0;

  gst_structure_get_uint64 (stats, field, &v);
  gst_structure_free (stats);
  return v;
}

static void
push_rtp (End * end)
{
  guint8 data[100];
  GstBuffer *buf;
  GstFlowReturn ret;

  memset (data, 0x55, sizeof data);
  data[0] = 0x80;
  data[1] = 96;
  data[2] = end->seq >> 8;
  data[3] = end->seq & 0xff;
  end->seq++;
  buf = gst_buffer_new_memdup (data, sizeof data);
  g_signal_emit_by_name (end->in, "push-buffer", buf, &ret);
  gst_buffer_unref (buf);
  g_assert_cmpint (ret, ==, GST_FLOW_OK);
  end->pushed++;
}

static void
hear_links (Heard * heard, const GstStructure * s, guint order)
{
  guint up = 0, links = 0;

  g_assert_true (gst_structure_get_uint (s, "links-up", &up));
  g_assert_true (gst_structure_get_uint (s, "links", &links));
  g_assert_cmpuint (links, ==, LINKS);
  g_assert_cmpuint (up, <=, LINKS);
  /* A change each time, or the message says nothing. */
  if (heard->links_messages > 0)
    g_assert_cmpuint (up, !=, heard->last_links_up);
  heard->links_messages++;
  heard->last_links_up = up;
  heard->max_links_up = MAX (heard->max_links_up, up);
  if (up > 0 && heard->first_link_at == 0)
    heard->first_link_at = order;
}

static void
hear_progress (Heard * heard, GstMessage * msg)
{
  GstProgressType type;
  gint percent = -1;

  gst_message_parse_progress (msg, &type, NULL, NULL);
  g_assert_true (gst_structure_get_int (gst_message_get_structure (msg),
          "percent", &percent));
  if (type == GST_PROGRESS_TYPE_START)
    g_assert_cmpint (percent, ==, 0);
  else
    g_assert_cmpint (percent, >=, heard->last_percent);
  if (type == GST_PROGRESS_TYPE_CONTINUE)
    g_assert_cmpint (percent, <, 100);
  if (type == GST_PROGRESS_TYPE_COMPLETE) {
    g_assert_cmpint (percent, ==, 100);
    heard->progress_complete = TRUE;
  }
  heard->last_percent = percent;
  heard->progress_messages++;
}

/* Takes the element messages on the bus, in order; an error fails. */
static void
drain_bus (End * end)
{
  GstBus *bus = gst_element_get_bus (end->pipeline);
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (bus,
              GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT |
              GST_MESSAGE_PROGRESS))) {
    const GstStructure *s = gst_message_get_structure (msg);
    const gchar *from = GST_OBJECT_NAME (GST_MESSAGE_SRC (msg));
    Heard *heard = g_str_equal (from, "sink") ? &end->sink :
        g_str_equal (from, "src") ? &end->src : NULL;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *error = NULL;
      gchar *debug = NULL;

      gst_message_parse_error (msg, &error, &debug);
      g_error ("%s: %s (%s)", from, error->message, debug);
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_PROGRESS) {
      if (heard)
        hear_progress (heard, msg);
      gst_message_unref (msg);
      continue;
    }
    end->messages++;
    if (heard && gst_structure_has_name (s, "donar-links"))
      hear_links (heard, s, end->messages);
    else if (heard && gst_structure_has_name (s, "donar-ready")) {
      g_assert_cmpuint (heard->ready_at, ==, 0);
      heard->ready_at = end->messages;
    } else if (gst_structure_has_name (s, "donar-call-address") &&
        end->address == NULL)
      end->address = g_strdup (gst_structure_get_string (s, "address"));
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
}

static void
start_end (End * end, const gchar * tor_control, const gchar * address)
{
  g_autofree gchar *addr = address ?
      g_strdup_printf (" address=\"%s\"", address) : g_strdup ("");
  g_autofree gchar *desc = g_strdup_printf ("appsrc name=in is-live=true "
      "format=time caps=\"" RTP_CAPS "\" ! donarsink name=sink sync=false "
      "call=c tor-control=%s%s  donarsrc name=src call=c tor-control=%s%s "
      "caps=\"" RTP_CAPS "\" ! fakesink sync=false", tor_control, addr,
      tor_control, addr);
  GError *error = NULL;

  memset (end, 0, sizeof *end);
  end->pipeline = gst_parse_launch (desc, &error);
  g_assert_no_error (error);
  end->in = gst_bin_get_by_name (GST_BIN (end->pipeline), "in");
  g_assert_cmpint (gst_element_set_state (end->pipeline, GST_STATE_PLAYING),
      !=, GST_STATE_CHANGE_FAILURE);
}

static void
stop_end (End * end)
{
  gst_element_set_state (end->pipeline, GST_STATE_NULL);
  gst_object_unref (end->in);
  gst_object_unref (end->pipeline);
  g_free (end->address);
}

/* Every buffer the sink took went one way: dropped before the call was
 * ready, dropped with no link up, or sent. */
static void
check_sink_counts (End * end)
{
  guint64 not_ready = stat_value (end->pipeline, "sink", "dropped-not-ready");
  guint64 no_link = stat_value (end->pipeline, "sink", "dropped-no-link");
  guint64 sent = stat_value (end->pipeline, "sink", "buffers-sent");

  g_assert_cmpuint (not_ready + no_link + sent, ==, end->pushed);
  /* The engine was never given a frame it could not send. */
  g_assert_cmpuint (stat_value (end->pipeline, "sink", "frames-unsent"), ==, 0);
}

/* What from's sink sent reached to's src, every frame of it. */
static gboolean
all_arrived (End * from, End * to)
{
  return stat_value (from->pipeline, "sink", "buffers-sent") ==
      stat_value (to->pipeline, "src", "buffers-received") &&
      stat_value (from->pipeline, "sink", "caps-frames-sent") ==
      stat_value (to->pipeline, "src", "caps-frames-received");
}

static void
check_arrived (End * from, End * to, const gchar * way)
{
  guint64 sent = stat_value (from->pipeline, "sink", "buffers-sent");
  guint64 received = stat_value (to->pipeline, "src", "buffers-received");

  g_print ("# %s: %u pushed, %" G_GUINT64_FORMAT " not ready, %"
      G_GUINT64_FORMAT " with no link, %" G_GUINT64_FORMAT " sent, %"
      G_GUINT64_FORMAT " received\n", way, from->pushed,
      stat_value (from->pipeline, "sink", "dropped-not-ready"),
      stat_value (from->pipeline, "sink", "dropped-no-link"), sent, received);
  g_assert_cmpuint (sent, >, 0);
  g_assert_cmpuint (received, ==, sent);
  g_assert_cmpuint (stat_value (to->pipeline, "src", "caps-frames-received"),
      ==, stat_value (from->pipeline, "sink", "caps-frames-sent"));
}

/* A callee nobody calls is ready (it can be called) but carries nothing:
 * its 10 buffers are dropped with no link, none is sent, and no link is
 * ever told up. */
static void
test_callee_alone (void)
{
  End end;
  gint64 deadline;

  start_end (&end, "direct", NULL);
  deadline = g_get_monotonic_time () + SETUP_TIMEOUT / GST_USECOND;
  while ((end.sink.ready_at == 0 || end.src.ready_at == 0) &&
      g_get_monotonic_time () < deadline) {
    drain_bus (&end);
    g_usleep (10 * 1000);
  }
  g_assert_cmpuint (end.sink.ready_at, >, 0);
  g_assert_cmpuint (end.src.ready_at, >, 0);
  g_assert_nonnull (end.address);

  for (guint i = 0; i < 10; i++)
    push_rtp (&end);
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (stat_value (end.pipeline, "sink", "dropped-no-link") < 10 &&
      g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  drain_bus (&end);
  g_assert_cmpuint (stat_value (end.pipeline, "sink", "dropped-no-link"), ==,
      10);
  g_assert_cmpuint (stat_value (end.pipeline, "sink", "buffers-sent"), ==, 0);
  g_assert_cmpuint (stat_value (end.pipeline, "sink", "caps-frames-sent"), ==,
      0);
  check_sink_counts (&end);
  g_assert_cmpuint (end.sink.max_links_up, ==, 0);
  g_assert_cmpuint (end.src.max_links_up, ==, 0);
  stop_end (&end);
}

static gboolean
all_links_told (End * end)
{
  return end->sink.max_links_up == LINKS && end->src.max_links_up == LINKS;
}

/* Both ends push from the start: the callee's sink before a caller comes,
 * the caller's while its links open.  Its elements say donar-ready
 * after a link is up; every element tells the links up to all 12; each
 * sink's buffers-sent is what the other end received, once the frames in
 * flight when the pushing stopped have come. */
static void
test_torsim_call (void)
{
  ElementsTestTorsim torsim;
  End callee, caller;
  gint64 deadline, end_of_call = 0;

  if (!elements_test_torsim_start (&torsim, "callstate"))
    return;
  start_end (&callee, torsim.control, NULL);
  deadline = g_get_monotonic_time () + SETUP_TIMEOUT / GST_USECOND;
  while (callee.address == NULL && g_get_monotonic_time () < deadline) {
    push_rtp (&callee);
    drain_bus (&callee);
    g_usleep (PUSH_INTERVAL_US);
  }
  g_assert_nonnull (callee.address);
  /* Sent by a callee nobody calls yet: none can be carried. */
  for (guint i = 0; i < UNCALLED; i++) {
    push_rtp (&callee);
    g_usleep (PUSH_INTERVAL_US);
  }
  start_end (&caller, torsim.control, callee.address);

  /* Until every link is told up, then 2 s more of the call. */
  deadline = g_get_monotonic_time () + 3 * SETUP_TIMEOUT / GST_USECOND;
  while (g_get_monotonic_time () < deadline &&
      (end_of_call == 0 || g_get_monotonic_time () < end_of_call)) {
    push_rtp (&callee);
    push_rtp (&caller);
    drain_bus (&callee);
    drain_bus (&caller);
    if (end_of_call == 0 && all_links_told (&callee) &&
        all_links_told (&caller))
      end_of_call = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
    g_usleep (PUSH_INTERVAL_US);
  }
  g_assert_true (all_links_told (&callee));
  g_assert_true (all_links_told (&caller));

  /* The frames in flight: a few hundred ms over the model's circuits. */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline &&
      (!all_arrived (&caller, &callee) || !all_arrived (&callee, &caller)))
    g_usleep (50 * 1000);
  drain_bus (&callee);
  drain_bus (&caller);

  /* The caller's elements: a link up first, then ready. */
  g_assert_cmpuint (caller.sink.first_link_at, >, 0);
  g_assert_cmpuint (caller.sink.ready_at, >, caller.sink.first_link_at);
  g_assert_cmpuint (caller.src.first_link_at, >, 0);
  g_assert_cmpuint (caller.src.ready_at, >, caller.src.first_link_at);
  /* The callee's: ready to be called before anyone called. */
  g_assert_cmpuint (callee.sink.ready_at, >, 0);
  g_assert_cmpuint (callee.sink.first_link_at, >, callee.sink.ready_at);
  g_assert_cmpuint (callee.src.ready_at, >, 0);
  g_assert_cmpuint (callee.src.first_link_at, >, callee.src.ready_at);

  /* Each element's setup went from 0 to 100 through the steps between
   * (connecting to the control port; the callee's onion and descriptor;
   * the caller's dialing). */
  g_assert_true (caller.sink.progress_complete);
  g_assert_true (caller.src.progress_complete);
  g_assert_true (callee.sink.progress_complete);
  g_assert_true (callee.src.progress_complete);
  g_assert_cmpuint (caller.sink.progress_messages, >=, 3);
  g_assert_cmpuint (callee.sink.progress_messages, >=, 4);

  check_arrived (&caller, &callee, "caller to callee");
  check_arrived (&callee, &caller, "callee to caller");
  check_sink_counts (&caller);
  check_sink_counts (&callee);
  /* How many of the caller's came before its first link depends on the
   * threads' race (its first circuits are ready at once); the callee's
   * include those pushed before the caller started. */
  g_assert_cmpuint (stat_value (callee.pipeline, "sink", "dropped-no-link"), >=,
      UNCALLED);

  stop_end (&caller);
  stop_end (&callee);
  elements_test_torsim_stop (&torsim);
}

/* The next ERROR or PROGRESS message on pipeline's bus; fails the test
 * without one within SETUP_TIMEOUT. */
static GstMessage *
next_error_or_progress (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, SETUP_TIMEOUT,
      GST_MESSAGE_ERROR | GST_MESSAGE_PROGRESS);

  gst_object_unref (bus);
  g_assert_nonnull (msg);
  return msg;
}

static GstProgressType
progress_type (GstMessage * msg)
{
  GstProgressType type;

  gst_message_parse_progress (msg, &type, NULL, NULL);
  return type;
}

/* PAUSED (the source is live), and the setup's progress starts. */
static void
pause_until_start (GstElement * pipeline)
{
  GstMessage *msg;

  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PAUSED), ==,
      GST_STATE_CHANGE_NO_PREROLL);
  msg = next_error_or_progress (pipeline);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_PROGRESS);
  g_assert_cmpint (progress_type (msg), ==, GST_PROGRESS_TYPE_START);
  gst_message_unref (msg);
}

/* An ERROR message from element, the setup's, with reason in its debug
 * text. */
static void
check_setup_error (GstMessage * msg, const gchar * element,
    const gchar * reason)
{
  GError *error = NULL;
  gchar *debug = NULL;

  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_ERROR);
  g_assert_cmpstr (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), ==, element);
  gst_message_parse_error (msg, &error, &debug);
  g_assert_error (error, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ_WRITE);
  g_assert_nonnull (strstr (debug, reason));
  g_clear_error (&error);
  g_free (debug);
}

/* A setup that fails in the setup thread (tor-control=9: nothing listens):
 * the error, then the progress's end; then PLAYING posts the error again,
 * and so does an element that joins the call, each state change going on
 * (gst-launch-1.0's exit status the same whichever error it hears).  An
 * application that missed the first error (gst-launch-1.0 may) hears it
 * there. */
static void
test_setup_failed (void)
{
  const gchar *reason = "cannot connect to tor's control port 127.0.0.1:9";
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch ("donarsrc name=src call=c "
      "tor-control=9 callee=true ! fakesink appsrc ! donarsink name=sink "
      "call=c tor-control=9 callee=true", &error);
  GstElement *sink;
  GstMessage *msg;

  g_assert_no_error (error);
  /* The sink joins the call once its setup has failed. */
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_locked_state (sink, TRUE);
  pause_until_start (pipeline);
  while ((msg = next_error_or_progress (pipeline)) &&
      GST_MESSAGE_TYPE (msg) == GST_MESSAGE_PROGRESS) {
    g_assert_cmpint (progress_type (msg), ==, GST_PROGRESS_TYPE_CONTINUE);
    gst_message_unref (msg);
  }
  check_setup_error (msg, "src", reason);
  gst_message_unref (msg);
  msg = next_error_or_progress (pipeline);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_PROGRESS);
  g_assert_cmpint (progress_type (msg), ==, GST_PROGRESS_TYPE_ERROR);
  gst_message_unref (msg);

  /* The error again, the state change going on (gst-launch-1.0's exit
   * status the same whichever error it hears). */
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  msg = next_error_or_progress (pipeline);
  check_setup_error (msg, "src", reason);
  gst_message_unref (msg);

  g_assert_cmpint (gst_element_set_state (sink, GST_STATE_PAUSED), !=,
      GST_STATE_CHANGE_FAILURE);
  msg = next_error_or_progress (pipeline);
  check_setup_error (msg, "sink", reason);
  gst_message_unref (msg);
  msg = next_error_or_progress (pipeline);
  g_assert_cmpint (progress_type (msg), ==, GST_PROGRESS_TYPE_ERROR);
  gst_message_unref (msg);

  gst_element_set_state (sink, GST_STATE_NULL);
  gst_object_unref (sink);
  elements_test_stop (pipeline);
}

/* An element stopped while the setup runs ends its progress: CANCELED.  A
 * control port that takes the connection and never answers keeps the setup
 * running until then. */
static void
test_setup_stopped (void)
{
  guint16 port;
  GSocketListener *listener = elements_test_silent_port (&port);
  GError *error = NULL;
  GstElement *pipeline;
  GstMessage *msg;
  gchar *description;

  description = g_strdup_printf ("donarsrc tor-control=%u callee=true ! "
      "fakesink", port);
  pipeline = gst_parse_launch (description, &error);
  g_assert_no_error (error);
  pause_until_start (pipeline);

  /* READY, not NULL: NULL flushes the bus. */
  gst_element_set_state (pipeline, GST_STATE_READY);
  while ((msg = next_error_or_progress (pipeline)) &&
      GST_MESSAGE_TYPE (msg) == GST_MESSAGE_PROGRESS &&
      progress_type (msg) == GST_PROGRESS_TYPE_CONTINUE)
    gst_message_unref (msg);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_PROGRESS);
  g_assert_cmpint (progress_type (msg), ==, GST_PROGRESS_TYPE_CANCELED);
  gst_message_unref (msg);

  elements_test_stop (pipeline);
  g_free (description);
  g_socket_listener_close (listener);
  g_object_unref (listener);
}

int
main (int argc, char **argv)
{
  gboolean leaks = elements_test_init (&argc, &argv);

  g_test_add_func ("/callstate/callee-alone", test_callee_alone);
  g_test_add_func ("/callstate/torsim-call", test_torsim_call);
  g_test_add_func ("/callstate/setup-failed", test_setup_failed);
  g_test_add_func ("/callstate/setup-stopped", test_setup_stopped);
  return elements_test_finish (g_test_run (), leaks);
}
