/* The base delay from donarsrc to donarjitterbuffer (docs/jitterbuffer.md,
 * "The base delay"): the link engine measures each link's round trip as it
 * opens (the HELLOs), donarsrc sends half the least one downstream in a
 * sticky `donar-base-delay` event, donarjitterbuffer uses it unless its
 * base-delay property is set.  The element alone with GstHarness (the
 * event, the property's precedence, the deadline it then bounds), and in
 * calls: direct (loopback, about 0 ms) and over donar-torsim (its Tor
 * model's delays).  Under the leaks tracer. */
#include "elements-test.h"

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#define RTP_CAPS "application/x-rtp, media=audio, clock-rate=48000, " \
  "encoding-name=OPUS, payload=96"

static GstEvent *
base_delay_event (const gchar * name, guint64 ms)
{
  return gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM_STICKY,
      gst_structure_new (name, "base-delay", G_TYPE_UINT64, ms * GST_MSECOND,
          "round-trip", G_TYPE_UINT64, 2 * ms * GST_MSECOND, NULL));
}

static void
get_base_delay (GstElement * jb, gdouble * base_ms, gboolean * upstream,
    gdouble * target_ms)
{
  GstStructure *stats = NULL;

  g_object_get (jb, "stats", &stats, NULL);
  g_assert_nonnull (stats);
  g_assert_true (gst_structure_get_double (stats, "base-delay", base_ms));
  g_assert_true (gst_structure_get_boolean (stats,
          "base-delay-from-upstream", upstream));
  if (target_ms)
    g_assert_true (gst_structure_get_double (stats, "target", target_ms));
  gst_structure_free (stats);
}

/* 40-ms frames first..first+n-1, every period-th one (i % period ==
 * period - 1) slow_ms late, the others on time.  The estimator takes no
 * arrival before the last one: a frame that follows a slow one by less
 * than slow_ms is as late as it less 40 ms. */
static void
push_frames (GstHarness * h, guint first, guint n, guint period, guint slow_ms)
{
  for (guint i = first; i < first + n; i++) {
    GstBuffer *b = gst_buffer_new_allocate (NULL, 20, NULL);
    GstMapInfo map;
    guint32 ts = i * 1920;

    gst_buffer_map (b, &map, GST_MAP_WRITE);
    memset (map.data, 0, map.size);
    map.data[0] = 0x80;
    map.data[1] = 96;
    map.data[2] = (i >> 8) & 0xff;
    map.data[3] = i & 0xff;
    map.data[4] = ts >> 24;
    map.data[5] = ts >> 16;
    map.data[6] = ts >> 8;
    map.data[7] = ts;
    map.data[11] = 1;
    gst_buffer_unmap (b, &map);
    GST_BUFFER_DTS (b) = GST_BUFFER_PTS (b) =
        (i * 40 + (i % period == period - 1 ? slow_ms : 0)) * GST_MSECOND;
    gst_harness_push (h, b);
  }
}

/* The odd ones 80 ms late, and so the even ones after them 40 ms. */
static void
push_jittery_frames (GstHarness * h, guint first, guint n)
{
  push_frames (h, first, n, 2, 80);
}

static GstHarness *
new_harness (void)
{
  GstHarness *h = gst_harness_new ("donarjitterbuffer");

  gst_harness_use_testclock (h);
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  /* rtpjitterbuffer holds the frames; nothing is pulled here. */
  gst_harness_set_drop_buffers (h, TRUE);
  return h;
}

static void
push_segment (GstHarness * h)
{
  GstSegment segment;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&segment));
}

static void
test_event_and_property (void)
{
  GstHarness *h = new_harness ();
  gdouble base;
  gboolean upstream;

  get_base_delay (h->element, &base, &upstream, NULL);
  g_assert_cmpfloat (base, ==, -1.0);
  g_assert_false (upstream);

  /* donarsrc's event: taken once 25 frames agree with it (42 + 80 ms of
   * jitter is within the 360-ms deadline). */
  push_segment (h);
  g_assert_true (gst_harness_push_event (h, base_delay_event
          ("donar-base-delay", 42)));
  get_base_delay (h->element, &base, &upstream, NULL);
  g_assert_cmpfloat (base, ==, -1.0);
  g_assert_false (upstream);
  push_jittery_frames (h, 0, 24);
  get_base_delay (h->element, &base, &upstream, NULL);
  g_assert_cmpfloat (base, ==, -1.0);
  push_jittery_frames (h, 24, 1);
  get_base_delay (h->element, &base, &upstream, NULL);
  g_assert_cmpfloat (base, ==, 42.0);
  g_assert_true (upstream);

  /* Another custom sticky event: ignored. */
  g_assert_true (gst_harness_push_event (h, base_delay_event ("other", 7)));
  get_base_delay (h->element, &base, &upstream, NULL);
  g_assert_cmpfloat (base, ==, 42.0);

  /* The property wins while set; -1 gives the upstream value back. */
  g_object_set (h->element, "base-delay", 10, NULL);
  get_base_delay (h->element, &base, &upstream, NULL);
  g_assert_cmpfloat (base, ==, 10.0);
  g_assert_false (upstream);
  g_assert_true (gst_harness_push_event (h, base_delay_event
          ("donar-base-delay", 30)));
  get_base_delay (h->element, &base, &upstream, NULL);
  g_assert_cmpfloat (base, ==, 10.0);
  g_object_set (h->element, "base-delay", -1, NULL);
  get_base_delay (h->element, &base, &upstream, NULL);
  g_assert_cmpfloat (base, ==, 30.0);
  g_assert_true (upstream);
  gst_harness_teardown (h);
}

static guint
count_rejections (GstBus * bus, GstStructure ** last)
{
  GstMessage *msg;
  guint n = 0;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);

    if (gst_structure_has_name (s, "donar-base-delay-rejected")) {
      n++;
      if (last) {
        g_clear_pointer (last, gst_structure_free);
        *last = gst_structure_copy (s);
      }
    }
    gst_message_unref (msg);
  }
  return n;
}

static gboolean
rejected (GstElement * jb, gdouble * upstream_ms)
{
  GstStructure *stats = NULL;
  gboolean r;

  g_object_get (jb, "stats", &stats, NULL);
  g_assert_true (gst_structure_get_boolean (stats, "base-delay-rejected", &r));
  g_assert_true (gst_structure_get_double (stats, "base-delay-upstream",
          upstream_ms));
  gst_structure_free (stats);
  return r;
}

/* A base delay the frames contradict (docs/jitterbuffer.md, "Checking the
 * base delay"): 1245 ms, a repeated call's over donar-torsim, puts every
 * frame past the 360-ms deadline (1245 + 0 > 360): rejected at once (30
 * frames in the window), said once, and the target follows the jitter (80
 * ms + 10 of margin) instead of min-latency.  A new value, 100 ms,
 * agrees (100 + 80 <= 360).  300 ms agrees while half the frames are past
 * (300 + 80 > 360 for the 20 odd ones of 40; 300 + 40 is not, for the even
 * ones), and is rejected once most are. */
static void
test_event_rejected (void)
{
  GstHarness *h = new_harness ();
  GstBus *bus = gst_bus_new ();
  GstStructure *msg = NULL;
  gdouble base, target, upstream_ms, d;
  gboolean upstream;
  guint u;

  gst_element_set_bus (h->element, bus);
  push_segment (h);
  push_jittery_frames (h, 0, 30);
  g_assert_true (gst_harness_push_event (h, base_delay_event
          ("donar-base-delay", 1245)));
  get_base_delay (h->element, &base, &upstream, &target);
  g_assert_cmpfloat (base, ==, -1.0);
  g_assert_false (upstream);
  g_assert_true (rejected (h->element, &upstream_ms));
  g_assert_cmpfloat (upstream_ms, ==, 1245.0);
  g_assert_cmpuint (count_rejections (bus, &msg), ==, 1);
  g_assert_true (gst_structure_get_double (msg, "base-delay", &d));
  g_assert_cmpfloat (d, ==, 1245.0);
  g_assert_true (gst_structure_get_uint (msg, "frames", &u));
  g_assert_cmpuint (u, ==, 30);
  g_assert_true (gst_structure_get_uint (msg, "past-deadline", &u));
  g_assert_cmpuint (u, ==, 30);
  g_assert_true (gst_structure_get_uint (msg, "deadline", &u));
  g_assert_cmpuint (u, ==, 360);
  gst_structure_free (msg);

  /* More frames, and the same value again (a sticky event re-sent): no
   * second word of it. */
  push_jittery_frames (h, 30, 10);
  g_assert_true (gst_harness_push_event (h, base_delay_event
          ("donar-base-delay", 1245)));
  get_base_delay (h->element, &base, &upstream, &target);
  g_assert_cmpfloat (base, ==, -1.0);
  g_assert_cmpfloat (target, ==, 90.0);
  g_assert_cmpuint (count_rejections (bus, NULL), ==, 0);

  /* A new value the frames agree with. */
  g_assert_true (gst_harness_push_event (h, base_delay_event
          ("donar-base-delay", 100)));
  get_base_delay (h->element, &base, &upstream, NULL);
  g_assert_cmpfloat (base, ==, 100.0);
  g_assert_true (upstream);
  g_assert_false (rejected (h->element, &upstream_ms));

  /* 300 ms: 20 of the 40 frames past the deadline, half: kept.  One more
   * frame 80 ms late makes 21 of 41: rejected. */
  g_assert_true (gst_harness_push_event (h, base_delay_event
          ("donar-base-delay", 300)));
  get_base_delay (h->element, &base, &upstream, NULL);
  g_assert_cmpfloat (base, ==, 300.0);
  push_frames (h, 40, 1, 1, 80);
  get_base_delay (h->element, &base, &upstream, NULL);
  g_assert_cmpfloat (base, ==, -1.0);
  g_assert_true (rejected (h->element, &upstream_ms));
  g_assert_cmpfloat (upstream_ms, ==, 300.0);
  g_assert_cmpuint (count_rejections (bus, NULL), ==, 1);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

/* The deadline with the base delay known from upstream: 100 ms of budget,
 * 90 of them the network's, leaves 10 ms, below min-latency (20): the
 * target is held at 20 ms although the jitter (every 5th frame 80 ms late)
 * asks for 90.  The base delay puts those frames and the ones after them
 * (40 ms late) past the deadline: 9 of the first 25 and 23 of 60, not
 * most, so it is kept.  Without the event the deadline bounds the target
 * alone (100 ms). */
static void
test_event_bounds_target (void)
{
  gdouble target[2];

  for (guint known = 0; known < 2; known++) {
    GstHarness *h = new_harness ();
    GstSegment segment;
    gdouble base;
    gboolean upstream;

    g_object_set (h->element, "deadline", 100, "min-latency", 20, NULL);
    if (known)
      g_assert_true (gst_harness_push_event (h, base_delay_event
              ("donar-base-delay", 90)));
    gst_segment_init (&segment, GST_FORMAT_TIME);
    gst_harness_push_event (h, gst_event_new_segment (&segment));
    push_frames (h, 0, 60, 5, 80);
    get_base_delay (h->element, &base, &upstream, &target[known]);
    g_print ("# base delay %s: target %.1f ms\n", known ? "90 ms" :
        "unknown", target[known]);
    gst_harness_teardown (h);
  }
  g_assert_cmpfloat (target[0], >=, 80.0);
  g_assert_cmpfloat (target[1], <=, 20.5);
}

/* Per end: when each RTP sequence number went into its donarsink, and
 * came out of its donarsrc (monotonic µs); one process, one clock. */
typedef struct
{
  GMutex lock;
  GHashTable *sent;             /* seq -> µs */
  GHashTable *received;
} Times;

static guint
rtp_seq (GstBuffer * buffer)
{
  guint8 h[4] = { 0 };

  gst_buffer_extract (buffer, 0, h, 4);
  return h[2] << 8 | h[3];
}

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Times *t = g_object_get_data (G_OBJECT (pad), "times");
  guint seq = rtp_seq (GST_PAD_PROBE_INFO_BUFFER (info));
  gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&t->lock);
  if (!g_hash_table_contains (user_data, GUINT_TO_POINTER (seq)))
    g_hash_table_insert (user_data, GUINT_TO_POINTER (seq),
        g_memdup2 (&now, sizeof now));
  g_mutex_unlock (&t->lock);
  return GST_PAD_PROBE_OK;
}

static void
watch (GstElement * pipeline, const gchar * name, const gchar * pad_name,
    Times * t, GHashTable * table)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *pad = gst_element_get_static_pad (e, pad_name);

  g_object_set_data (G_OBJECT (pad), "times", t);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, table, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

/* The least one-way delay (ms) of the frames from one end to the other. */
static gdouble
min_one_way (Times * from, Times * to)
{
  GHashTableIter iter;
  gpointer key, value;
  gint64 best = G_MAXINT64;

  g_mutex_lock (&to->lock);
  g_mutex_lock (&from->lock);
  g_hash_table_iter_init (&iter, to->received);
  while (g_hash_table_iter_next (&iter, &key, &value)) {
    gint64 *sent = g_hash_table_lookup (from->sent, key);

    if (sent)
      best = MIN (best, *(gint64 *) value - *sent);
  }
  g_mutex_unlock (&from->lock);
  g_mutex_unlock (&to->lock);
  return best == G_MAXINT64 ? -1.0 : best / 1000.0;
}

/* One end of a duplex call, a jitter buffer after its donarsrc. */
static GstElement *
make_end (const gchar * call, const gchar * tor_control, const gchar * address)
{
  g_autofree gchar *addr = address ?
      g_strdup_printf (" address=\"%s\"", address) : g_strdup ("");
  g_autofree gchar *desc = g_strdup_printf ("audiotestsrc is-live=true ! "
      "opusenc bitrate=32000 frame-size=40 ! rtpopuspay ! donarsink name=sink "
      "call=%s tor-control=%s%s  donarsrc name=src call=%s tor-control=%s%s "
      "! donarjitterbuffer name=jb ! rtpopusdepay ! fakesink sync=false",
      call, tor_control, addr, call, tor_control, addr);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);

  g_assert_no_error (error);
  return pipeline;
}

static void
check_no_error (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    GError *error = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &error, &debug);
    g_error ("%s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
        error->message, debug);
  }
  gst_object_unref (bus);
}

/* Each end's base delay (ms) once donarjitterbuffer has it from upstream. */
static void
run_call (const gchar * tor_control, gdouble base[2], gdouble one_way[2])
{
  GstElement *ends[2];
  Times times[2];
  gchar *address;
  gint64 deadline;
  gboolean upstream[2] = { FALSE, FALSE };

  for (guint i = 0; i < 2; i++) {
    g_mutex_init (&times[i].lock);
    times[i].sent = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    times[i].received = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  }
  ends[0] = make_end ("callee", tor_control, NULL);
  watch (ends[0], "sink", "sink", &times[0], times[0].sent);
  watch (ends[0], "src", "src", &times[0], times[0].received);
  g_assert_cmpint (gst_element_set_state (ends[0], GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  address = elements_test_wait_address (ends[0], 20 * GST_SECOND);
  ends[1] = make_end ("caller", tor_control, address);
  watch (ends[1], "sink", "sink", &times[1], times[1].sent);
  watch (ends[1], "src", "src", &times[1], times[1].received);
  g_free (address);
  g_assert_cmpint (gst_element_set_state (ends[1], GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);

  /* donarsrc looks once a second once frames flow. */
  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  base[0] = base[1] = -1;
  while (g_get_monotonic_time () < deadline && (!upstream[0] || !upstream[1])) {
    for (guint i = 0; i < 2; i++) {
      GstElement *jb = gst_bin_get_by_name (GST_BIN (ends[i]), "jb");

      get_base_delay (jb, &base[i], &upstream[i], NULL);
      gst_object_unref (jb);
      check_no_error (ends[i]);
    }
    g_usleep (100 * 1000);
  }
  /* Two seconds more of frames for the one-way delays, and the base as
   * donarsrc has it then: the first comes from the round trips of the
   * call's first second, before the first frames have gone round every
   * link (docs/protocol.md, *Before the first round trip*), and is
   * compared with the least one-way delay of the whole call. */
  g_usleep (2 * G_USEC_PER_SEC);
  for (guint i = 0; i < 2; i++) {
    GstElement *jb = gst_bin_get_by_name (GST_BIN (ends[i]), "jb");

    get_base_delay (jb, &base[i], &upstream[i], NULL);
    gst_object_unref (jb);
  }
  for (guint i = 0; i < 2; i++)
    gst_element_set_state (ends[i], GST_STATE_NULL);
  one_way[0] = min_one_way (&times[1], &times[0]);
  one_way[1] = min_one_way (&times[0], &times[1]);
  g_print ("# %s: base delay %.2f ms at the callee (least one-way delay "
      "%.2f ms), %.2f ms at the caller (%.2f ms)\n", tor_control, base[0],
      one_way[0], base[1], one_way[1]);
  for (guint i = 0; i < 2; i++) {
    g_assert_true (upstream[i]);
    gst_object_unref (ends[i]);
    g_hash_table_unref (times[i].sent);
    g_hash_table_unref (times[i].received);
    g_mutex_clear (&times[i].lock);
  }
}

static void
test_direct_call (void)
{
  gdouble base[2], one_way[2];

  run_call ("direct", base, one_way);
  /* Both ends send, so the estimate is the acknowledgements': half of
   * loopback's round trip (a fraction of a ms) and of the wait for the
   * peer's next message, up to a 40-ms frame (docs/jitterbuffer.md), so up
   * to 20 ms, with 10 ms of room for a slow (sanitizer) build. */
  for (guint i = 0; i < 2; i++) {
    g_assert_cmpfloat (base[i], >=, 0.0);
    g_assert_cmpfloat (base[i], <, 20.0 + 10.0);
    g_assert_cmpfloat (one_way[i], >=, 0.0);
  }
}

static void
test_torsim_call (void)
{
  ElementsTestTorsim torsim;
  gdouble base[2], one_way[2];

  if (!elements_test_torsim_start (&torsim, "basedelay"))
    return;
  run_call (torsim.control, base, one_way);
  elements_test_torsim_stop (&torsim);
  /* The model's one-way delays are a hundred ms and more.  Both ends
   * send, so the estimate is half the acknowledgements' least round trip:
   * near the fastest frame's one-way delay, up to half a 40-ms frame above
   * it (the wait for the peer's next message, docs/jitterbuffer.md).  The
   * two directions of a link need not be alike: half a round trip is
   * their mean, so it is bounded by the slower one, not by the delay of
   * the direction an end receives. */
  for (guint i = 0; i < 2; i++) {
    g_assert_cmpfloat (base[i], >, 5.0);
    g_assert_cmpfloat (base[i], <=, 1.25 * MAX (one_way[0], one_way[1]) + 5.0);
  }
}

int
main (int argc, char **argv)
{
  gboolean leaks = elements_test_init (&argc, &argv);

  g_test_add_func ("/basedelay/event-and-property", test_event_and_property);
  g_test_add_func ("/basedelay/event-bounds-target", test_event_bounds_target);
  g_test_add_func ("/basedelay/event-rejected", test_event_rejected);
  g_test_add_func ("/basedelay/direct-call", test_direct_call);
  g_test_add_func ("/basedelay/torsim-call", test_torsim_call);
  return elements_test_finish (g_test_run (), leaks);
}
