/* donarjitterbuffer: caps, a delay step that raises the latency of the
 * rtpjitterbuffer inside, lost events for missing packets, the latency
 * following rtpjitterbuffer's timeline, stats, properties, RTCP dropped,
 * and a real Opus pipeline.  Run under GST_TRACERS=leaks: gst_deinit () at
 * the end makes the leaks tracer warn about anything left, and warnings are
 * fatal. */
#include "elements-test.h"

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/check/gsttestclock.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include <string.h>

#define CAPS "application/x-rtp, media=(string)audio, clock-rate=(int)48000, " \
    "encoding-name=(string)OPUS, payload=(int)96"
/* One 40-ms Opus frame per packet. */
#define FRAME_TS 1920
#define FRAME (40 * GST_MSECOND)

static GstBuffer *
rtp_packet (guint16 seq, GstClockTime arrival)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (20, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  g_assert_true (gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp));
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, 1000 + seq * FRAME_TS);
  gst_rtp_buffer_set_ssrc (&rtp, 0x12345678);
  gst_rtp_buffer_unmap (&rtp);
  /* A live source stamps the arrival. */
  GST_BUFFER_DTS (buf) = arrival;
  return buf;
}

static GstHarness *
new_harness (void)
{
  GstHarness *h = gst_harness_new ("donarjitterbuffer");

  gst_harness_use_testclock (h);
  gst_harness_set_src_caps_str (h, CAPS);
  return h;
}

static guint
inner_latency (GstHarness * h)
{
  GstElement *jb = gst_bin_get_by_name (GST_BIN (h->element), "jitterbuffer");
  guint latency;

  g_assert_nonnull (jb);
  g_object_get (jb, "latency", &latency, NULL);
  gst_object_unref (jb);
  return latency;
}

static GstStructure *
get_stats (GstHarness * h)
{
  GstStructure *s = NULL;

  g_object_get (h->element, "stats", &s, NULL);
  g_assert_nonnull (s);
  return s;
}

static guint64
stat_u64 (const GstStructure * s, const char *field)
{
  guint64 v = 0;

  g_assert_true (gst_structure_get_uint64 (s, field, &v));
  return v;
}

static gdouble
stat_double (const GstStructure * s, const char *field)
{
  gdouble v = 0;

  g_assert_true (gst_structure_get_double (s, field, &v));
  return v;
}

/* Releases the clock waits of rtpjitterbuffer that are due by now; how
 * many. */
static guint
release_due_waits (GstHarness * h)
{
  GstTestClock *clock = gst_harness_get_testclock (h);
  GstClockID id;
  guint released = 0;

  while ((id = gst_test_clock_process_next_clock_id (clock))) {
    gst_clock_id_unref (id);
    released++;
  }
  gst_object_unref (clock);
  return released;
}

static void
test_caps (void)
{
  GstHarness *h = new_harness ();
  GstBuffer *out;
  GstCaps *caps;
  GstStructure *s;
  gint rate = 0;

  /* Opus RTP caps with a clock-rate go through, unchanged. */
  g_assert_cmpint (gst_harness_push (h, rtp_packet (0, 100 * GST_MSECOND)),
      ==, GST_FLOW_OK);
  gst_harness_set_time (h, 100 * GST_MSECOND);
  g_assert_true (gst_harness_crank_single_clock_wait (h));
  out = gst_harness_pull (h);
  g_assert_nonnull (out);
  gst_buffer_unref (out);
  caps = gst_pad_get_current_caps (h->sinkpad);
  g_assert_nonnull (caps);
  s = gst_caps_get_structure (caps, 0);
  g_assert_cmpstr (gst_structure_get_name (s), ==, "application/x-rtp");
  g_assert_true (gst_structure_get_int (s, "clock-rate", &rate));
  g_assert_cmpint (rate, ==, 48000);
  g_assert_cmpstr (gst_structure_get_string (s, "encoding-name"), ==, "OPUS");
  gst_caps_unref (caps);
  gst_harness_teardown (h);

  /* Without a clock-rate the delays cannot be measured: refused. */
  h = gst_harness_new ("donarjitterbuffer");
  gst_harness_use_testclock (h);
  gst_harness_set_src_caps_str (h, "application/x-rtp, media=(string)audio, "
      "encoding-name=(string)OPUS, payload=(int)96");
  g_assert_cmpint (gst_harness_push (h, rtp_packet (0, 0)), ==,
      GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);

  /* Not RTP at all: refused. */
  h = gst_harness_new ("donarjitterbuffer");
  gst_harness_set_src_caps_str (h, "audio/x-opus");
  g_assert_cmpint (gst_harness_push (h, gst_buffer_new ()), ==,
      GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);
}

static void
test_delay_step_raises_latency (void)
{
  GstHarness *h = new_harness ();
  GstStructure *s;
  guint before, after;

  /* 300 packets 100 ms (+ 0 or 1 ms) on the way: the latency is the
   * minimum, 20 ms (1 ms of jitter + 10 ms of margin is less). */
  for (guint i = 0; i < 300; i++)
    g_assert_cmpint (gst_harness_push (h, rtp_packet (i, i * FRAME +
                (100 + i % 2) * GST_MSECOND)), ==, GST_FLOW_OK);
  before = inner_latency (h);
  g_assert_cmpuint (before, ==, 20);

  /* Then 150 ms more.  The 10-s window holds n = 247 packets (the step
   * delays arrivals, so 2.5 fewer fit), k = ceil (0.99 n) = 245: the 99th
   * percentile is a slow one from the 3rd slow packet on.  It is 250 ms,
   * 150 above the base (100 ms), + 10 ms of margin: 160 ms at once. */
  for (guint i = 300; i < 302; i++)
    gst_harness_push (h, rtp_packet (i, i * FRAME + 250 * GST_MSECOND));
  g_assert_cmpuint (inner_latency (h), ==, 20);
  gst_harness_push (h, rtp_packet (302, 302 * FRAME + 250 * GST_MSECOND));
  g_assert_cmpuint (inner_latency (h), ==, 160);
  for (guint i = 303; i < 350; i++)
    gst_harness_push (h, rtp_packet (i, i * FRAME + 250 * GST_MSECOND));
  after = inner_latency (h);
  g_assert_cmpuint (after, ==, 160);

  s = get_stats (h);
  g_assert_cmpuint (stat_u64 (s, "frames"), ==, 350);
  /* Late: the 3 slow packets before the latency grew, and 3 more due
   * before the 3rd arrived (at send + 120 ms < 3rd's send + 250 ms: sent
   * up to 130 ms after it, 303..305). */
  g_assert_cmpuint (stat_u64 (s, "late"), ==, 6);
  g_assert_cmpfloat_with_epsilon (stat_double (s, "target"), 160.0, 1e-9);
  gst_structure_free (s);
  gst_harness_teardown (h);
}

static gboolean
is_lost_event (GstEvent * event, guint * seqnum)
{
  const GstStructure *s;

  if (GST_EVENT_TYPE (event) != GST_EVENT_CUSTOM_DOWNSTREAM)
    return FALSE;
  s = gst_event_get_structure (event);
  return gst_structure_has_name (s, "GstRTPPacketLost") &&
      gst_structure_get_uint (s, "seqnum", seqnum);
}

static void
test_lost_packets_become_lost_events (void)
{
  GstHarness *h = new_harness ();
  GstStructure *s;
  GstEvent *event;
  guint seqnum = 0, lost_events = 0, buffers = 0;

  /* Packets 0..19, 5 and 12 never come. */
  for (guint i = 0; i < 20; i++) {
    GstClockTime arrival = i * FRAME + 100 * GST_MSECOND;

    gst_harness_set_time (h, arrival);
    release_due_waits (h);
    if (i != 5 && i != 12)
      g_assert_cmpint (gst_harness_push (h, rtp_packet (i, arrival)), ==,
          GST_FLOW_OK);
  }
  /* Let every timer of rtpjitterbuffer run out. */
  while (gst_harness_wait_for_clock_id_waits (h, 1, 1))
    gst_harness_crank_single_clock_wait (h);

  while ((event = gst_harness_try_pull_event (h))) {
    if (is_lost_event (event, &seqnum)) {
      g_assert_true (seqnum == 5 || seqnum == 12);
      lost_events++;
    }
    gst_event_unref (event);
  }
  g_assert_cmpuint (lost_events, ==, 2);
  while (gst_harness_buffers_in_queue (h) > 0) {
    gst_buffer_unref (gst_harness_pull (h));
    buffers++;
  }
  g_assert_cmpuint (buffers, ==, 18);

  s = get_stats (h);
  g_assert_cmpuint (stat_u64 (s, "frames"), ==, 18);
  g_assert_cmpuint (stat_u64 (s, "lost"), ==, 2);
  g_assert_cmpuint (stat_u64 (s, "pushed"), ==, 18);
  g_assert_cmpuint (stat_u64 (s, "late"), ==, 0);
  gst_structure_free (s);
  gst_harness_teardown (h);
}

/* Drains the events that came out, noting the lost events for 5 and 12. */
static void
drain_lost_events (GstHarness * h, gboolean * have5, gboolean * have12)
{
  GstEvent *event;
  guint lost;

  while ((event = gst_harness_try_pull_event (h))) {
    if (is_lost_event (event, &lost)) {
      *have5 = *have5 || lost == 5;
      *have12 = *have12 || lost == 12;
    }
    gst_event_unref (event);
  }
}

static const gchar *
band (gdouble r)
{
  return r >= 80 ? "good" : r >= 60 ? "fair" : "poor";
}

/* The frames' fates become donar-quality messages, one a second: packets
 * at 100 ms for 4 s, 12 never comes and 5 comes once rtpjitterbuffer has
 * given up on it: one lost and one late.  The base delay is given
 * (100 ms): mouth to ear is that, the 40-ms frame and the latency (20 ms,
 * then 130 ms for the frames after the late one, which took 220 ms). */
static void
test_quality_messages (void)
{
  GstHarness *h = new_harness ();
  GstBus *bus = gst_bus_new ();
  GstMessage *msg, *last_msg = NULL;
  GstStructure *s;
  const GstStructure *last;
  guint messages = 0, played = 0, lost = 0, late = 0, window = 0, released;
  gdouble r = -1, mos = 0, m2e = 0, loss = -1;
  gboolean known = FALSE, have12 = FALSE, have5 = FALSE;
  GstClockTime arrival;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "base-delay", 100, NULL);
  for (guint i = 0; i < 100; i++) {
    arrival = i * FRAME + 100 * GST_MSECOND;
    gst_harness_set_time (h, arrival);
    released = release_due_waits (h);
    /* rtpjitterbuffer pushes from a thread of its own: let it.  The
     * reports keep the beat of the first frame out, so that one must go
     * out when its deadline is released, however slow the machine. */
    g_usleep (2000);
    for (guint k = 0; k < 5000 && released > 0 &&
        gst_harness_buffers_received (h) == 0; k++)
      g_usleep (1000);
    drain_lost_events (h, &have5, &have12);
    if (i == 8) {
      /* Once the lost event for 5 has passed the element. */
      for (guint k = 0; k < 5000 && !have5; k++) {
        g_usleep (1000);
        drain_lost_events (h, &have5, &have12);
      }
      g_assert_true (have5);
      g_assert_cmpint (gst_harness_push (h, rtp_packet (5, arrival)), ==,
          GST_FLOW_OK);
    }
    if (i != 5 && i != 12)
      g_assert_cmpint (gst_harness_push (h, rtp_packet (i, arrival)), ==,
          GST_FLOW_OK);
    /* The wait for the first frame's deadline, before the clock passes it. */
    if (i == 0)
      g_assert_true (gst_harness_wait_for_clock_id_waits (h, 1, 5));
  }
  for (guint k = 0; k < 5000 && !have12; k++) {
    g_usleep (1000);
    drain_lost_events (h, &have5, &have12);
  }
  g_assert_true (have12);
  /* One more packet after the report due at about 4.1 s: the last one. */
  arrival = 4200 * GST_MSECOND;
  gst_harness_set_time (h, arrival);
  g_assert_cmpint (gst_harness_push (h, rtp_packet (102, arrival)), ==,
      GST_FLOW_OK);

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    if (gst_structure_has_name (gst_message_get_structure (msg),
            "donar-quality")) {
      messages++;
      gst_clear_message (&last_msg);
      last_msg = gst_message_ref (msg);
    }
    gst_message_unref (msg);
  }
  /* A second after the first frame out (about 120 ms), then every second:
   * at about 1.1, 2.1, 3.1 and 4.1 s. */
  g_assert_cmpuint (messages, ==, 4);
  last = gst_message_get_structure (last_msg);
  g_assert_true (gst_structure_get_double (last, "r", &r));
  g_assert_true (gst_structure_get_double (last, "mos", &mos));
  g_assert_true (gst_structure_get_double (last, "mouth-to-ear-ms", &m2e));
  g_assert_true (gst_structure_get_double (last, "loss-percent", &loss));
  g_assert_true (gst_structure_get_uint (last, "window-ms", &window));
  g_assert_true (gst_structure_get_uint (last, "played", &played));
  g_assert_true (gst_structure_get_uint (last, "lost", &lost));
  g_assert_true (gst_structure_get_uint (last, "late", &late));
  g_assert_true (gst_structure_get_boolean (last, "base-delay-known", &known));
  g_assert_true (known);
  /* The window (5 s) holds the whole call; rtpjitterbuffer may not have
   * pushed its last frames yet. */
  g_assert_cmpuint (lost, ==, 1);
  g_assert_cmpuint (late, ==, 1);
  g_assert_cmpuint (played, >=, 20);
  g_assert_cmpuint (played, <=, 98);
  g_assert_cmpfloat_with_epsilon (loss, 200.0 / (played + 2), 1e-9);
  g_assert_cmpuint (window, >=, 3900);
  g_assert_cmpuint (window, <=, 4100);
  g_assert_cmpfloat (m2e, >=, 160.0);
  g_assert_cmpfloat (m2e, <=, 100 + 40 + 130 + 10);
  /* G.107 at 160 to 280 ms, 2 frames of 22 to 100 (Ie,eff 4 to 8). */
  g_assert_cmpfloat (r, >, 50.0);
  g_assert_cmpfloat (r, <, 89.0);
  g_assert_cmpstr (gst_structure_get_string (last, "rating"), ==, band (r));
  g_assert_cmpfloat (mos, >, 2.5);
  g_assert_cmpfloat (mos, <, 4.4);

  /* The same in the stats. */
  s = get_stats (h);
  g_assert_cmpfloat (stat_double (s, "quality-r"), ==, r);
  g_assert_cmpfloat (stat_double (s, "quality-mos"), ==, mos);
  g_assert_cmpstr (gst_structure_get_string (s, "quality-rating"), ==,
      band (r));
  g_assert_cmpfloat (stat_double (s, "quality-mouth-to-ear-ms"), ==, m2e);
  g_assert_cmpfloat (stat_double (s, "quality-loss-percent"), ==, loss);
  g_assert_true (gst_structure_get_uint (s, "quality-window-ms", &played));
  g_assert_cmpuint (played, ==, window);
  gst_structure_free (s);
  gst_message_unref (last_msg);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

static void
test_latency_follows_timeline (void)
{
  GstHarness *h = new_harness ();
  GstStructure *s;
  guint latency, pushed_out = 0;
  gdouble target, offset;

  /* 250 packets with 0..29 ms of jitter over 100 ms, the clock running:
   * rtpjitterbuffer pushes them, and its timeline (a smoothed minimum of
   * the transit over 2 s) sits a little above the estimator's base (the
   * minimum over all): the latency is the target minus that offset. */
  for (guint i = 0; i < 250; i++) {
    GstClockTime arrival = i * FRAME + (100 + (i * 7) % 30) * GST_MSECOND;

    gst_harness_set_time (h, arrival);
    release_due_waits (h);
    g_assert_cmpint (gst_harness_push (h, rtp_packet (i, arrival)), ==,
        GST_FLOW_OK);
  }
  while (gst_harness_wait_for_clock_id_waits (h, 1, 1))
    gst_harness_crank_single_clock_wait (h);
  while (gst_harness_buffers_in_queue (h) > 0) {
    gst_buffer_unref (gst_harness_pull (h));
    pushed_out++;
  }
  g_assert_cmpuint (pushed_out, >, 200);

  /* One more packet to apply the last timeline. */
  gst_harness_set_time (h, 250 * FRAME + 110 * GST_MSECOND);
  gst_harness_push (h, rtp_packet (250, 250 * FRAME + 110 * GST_MSECOND));

  s = get_stats (h);
  g_assert_true (gst_structure_get_uint (s, "latency", &latency));
  target = stat_double (s, "target");
  offset = stat_double (s, "timeline-offset");
  /* The 99th percentile of 0..29 ms (evenly) is 29 ms, + 10. */
  g_assert_cmpfloat (target, >=, 29.0 + 10.0);
  g_assert_cmpfloat (target, <=, 29.0 + 10.0 + 1.0);
  g_assert_cmpfloat (offset, >=, 0.0);
  g_assert_cmpfloat (offset, <, 30.0);
  /* On the grid of 10 ms, never below what the estimator wants. */
  g_assert_cmpuint (latency % 10, ==, 0);
  g_assert_cmpfloat (latency, >=, target - offset - 1.0);
  g_assert_cmpfloat (latency, <, target - offset + 10.0 + 1.0);
  g_assert_cmpuint (inner_latency (h), ==, latency);
  gst_structure_free (s);
  gst_harness_teardown (h);
}

static void
test_stats_and_properties (void)
{
  GstHarness *h = new_harness ();
  GstStructure *s;
  gboolean adaptive = FALSE, limited = TRUE;
  guint latency = 0, window_frames = 0, u;
  gint i;
  gdouble d;

  /* Defaults, as documented. */
  g_object_get (h->element, "adaptive", &adaptive, "latency", &u, NULL);
  g_assert_true (adaptive);
  g_assert_cmpuint (u, ==, 200);
  g_object_get (h->element, "target-share", &d, NULL);
  g_assert_cmpfloat (d, ==, 0.99);
  g_object_get (h->element, "window", &u, NULL);
  g_assert_cmpuint (u, ==, 10);
  g_object_get (h->element, "margin", &u, NULL);
  g_assert_cmpuint (u, ==, 10);
  g_object_get (h->element, "shrink-rate", &u, NULL);
  g_assert_cmpuint (u, ==, 2);
  g_object_get (h->element, "min-latency", &u, NULL);
  g_assert_cmpuint (u, ==, 20);
  g_object_get (h->element, "max-latency", &u, NULL);
  g_assert_cmpuint (u, ==, 1000);
  g_object_get (h->element, "deadline", &u, NULL);
  g_assert_cmpuint (u, ==, 360);
  g_object_get (h->element, "base-delay", &i, NULL);
  g_assert_cmpint (i, ==, -1);

  for (guint k = 0; k < 100; k++)
    gst_harness_push (h, rtp_packet (k, k * FRAME + (100 + k % 10) *
            GST_MSECOND));
  s = get_stats (h);
  g_assert_cmpstr (gst_structure_get_name (s), ==,
      "application/x-donar-jitterbuffer-stats");
  g_assert_true (gst_structure_get_uint (s, "latency", &latency));
  g_assert_true (gst_structure_get_boolean (s, "adaptive", &adaptive));
  g_assert_true (gst_structure_get_boolean (s, "limited", &limited));
  g_assert_true (gst_structure_get_uint (s, "window-frames", &window_frames));
  g_assert_true (adaptive);
  g_assert_false (limited);
  g_assert_cmpuint (stat_u64 (s, "frames"), ==, 100);
  g_assert_cmpuint (window_frames, ==, 100);
  g_assert_cmpuint (stat_u64 (s, "late"), <=, 100);
  g_assert_cmpfloat (stat_double (s, "late-share"), >=, 0.0);
  g_assert_cmpfloat (stat_double (s, "late-share"), <=, 1.0);
  /* 0..9 ms of jitter: 9 + 10 < 20, the minimum. */
  g_assert_cmpfloat (stat_double (s, "target"), ==, 20.0);
  g_assert_cmpfloat (stat_double (s, "quantile"), ==, 9.0);
  g_assert_cmpuint (latency, ==, 20);
  g_assert_true (gst_structure_has_field_typed (s, "lost", G_TYPE_UINT64));
  g_assert_true (gst_structure_has_field_typed (s, "jitterbuffer-late",
          G_TYPE_UINT64));
  g_assert_true (gst_structure_has_field_typed (s, "pushed", G_TYPE_UINT64));
  g_assert_true (gst_structure_has_field_typed (s, "timeline-offset",
          G_TYPE_DOUBLE));
  gst_structure_free (s);

  /* A larger minimum, at once. */
  g_object_set (h->element, "min-latency", 50, NULL);
  gst_harness_push (h, rtp_packet (100, 100 * FRAME + 100 * GST_MSECOND));
  g_assert_cmpuint (inner_latency (h), ==, 50);

  /* The deadline with a known base delay: 360 - 330 = 30 ms < 50 ms min:
   * min wins (no frame can make the deadline anyway). */
  g_object_set (h->element, "base-delay", 330, NULL);
  gst_harness_push (h, rtp_packet (101, 101 * FRAME + 100 * GST_MSECOND));
  g_assert_cmpuint (inner_latency (h), ==, 50);

  /* Static, like the paper: rtpjitterbuffer gets the latency as set. */
  g_object_set (h->element, "adaptive", FALSE, "latency", 123, NULL);
  g_assert_cmpuint (inner_latency (h), ==, 123);
  gst_harness_push (h, rtp_packet (102, 102 * FRAME + 100 * GST_MSECOND));
  g_assert_cmpuint (inner_latency (h), ==, 123);
  s = get_stats (h);
  g_assert_true (gst_structure_get_uint (s, "latency", &latency));
  g_assert_true (gst_structure_get_boolean (s, "adaptive", &adaptive));
  g_assert_cmpuint (latency, ==, 123);
  g_assert_false (adaptive);
  gst_structure_free (s);

  /* And back. */
  g_object_set (h->element, "adaptive", TRUE, NULL);
  g_assert_cmpuint (inner_latency (h), ==, 50);
  gst_harness_teardown (h);
}

static gboolean
bus_done (GstBus * bus, GstMessage * message, gpointer user_data)
{
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
    GError *error = NULL;

    gst_message_parse_error (message, &error, NULL);
    g_printerr ("error: %s\n", error->message);
    g_error_free (error);
    *(gboolean *) user_data = FALSE;
    return TRUE;
  }
  return GST_MESSAGE_TYPE (message) == GST_MESSAGE_EOS;
}

static void
test_opus_pipeline (void)
{
  GError *error = NULL;
  GstElement *pipeline, *jb;
  GstBus *bus;
  GstMessage *message;
  GstStructure *s;
  gboolean ok = TRUE;
  GstClockTime deadline;

  /* 1 s of live audio through Opus RTP, the jitter buffer and the decoder
   * with its concealment on. */
  pipeline = gst_parse_launch ("audiotestsrc is-live=true num-buffers=25 "
      "samplesperbuffer=1920 ! audio/x-raw,rate=48000,channels=1 ! "
      "opusenc frame-size=40 ! rtpopuspay ! "
      "donarjitterbuffer name=jb ! rtpopusdepay ! opusdec plc=true ! "
      "fakesink sync=true", &error);
  g_assert_no_error (error);
  jb = gst_bin_get_by_name (GST_BIN (pipeline), "jb");
  /* No clock offered (the flag is what gst-inspect-1.0 reads: it said "is
   * supposed to provide a clock but returned NULL"): the pipeline's is the
   * system clock, its default. */
  g_assert_false (GST_OBJECT_FLAG_IS_SET (jb, GST_ELEMENT_FLAG_PROVIDE_CLOCK));
  g_assert_null (gst_element_provide_clock (jb));
  bus = gst_element_get_bus (pipeline);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);

  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  for (;;) {
    gboolean done;

    message = gst_bus_timed_pop (bus, 100 * GST_MSECOND);
    if (message == NULL) {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      continue;
    }
    if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_LATENCY)
      gst_bin_recalculate_latency (GST_BIN (pipeline));
    done = bus_done (bus, message, &ok);
    gst_message_unref (message);
    if (done)
      break;
  }
  g_assert_true (ok);

  g_object_get (jb, "stats", &s, NULL);
  /* 25 buffers of audio; opusenc may add one to drain its look-ahead. */
  g_assert_cmpuint (stat_u64 (s, "frames"), >=, 25);
  g_assert_cmpuint (stat_u64 (s, "frames"), <=, 26);
  g_assert_cmpuint (stat_u64 (s, "pushed"), ==, stat_u64 (s, "frames"));
  g_assert_cmpuint (stat_u64 (s, "lost"), ==, 0);
  g_assert_cmpuint (stat_u64 (s, "late"), ==, 0);
  gst_structure_free (s);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (jb);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

/* A generic NACK alone (reduced-size RTCP, RFC 5506, which rtpbin sends
 * with rtcp-reduced-size and retransmission): unlike an SR or an RR
 * (200, 201), which GStreamer's RTP validation refuses, it reads as a valid
 * RTP packet (payload type 77, one CSRC). */
static GstBuffer *
rtcp_nack (GstClockTime arrival)
{
  GstBuffer *buf = gst_rtcp_buffer_new (200);
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket packet;
  guint8 *fci;

  g_assert_true (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  g_assert_true (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_RTPFB,
          &packet));
  gst_rtcp_packet_fb_set_type (&packet, GST_RTCP_RTPFB_TYPE_NACK);
  gst_rtcp_packet_fb_set_sender_ssrc (&packet, 0xabcdef01);
  gst_rtcp_packet_fb_set_media_ssrc (&packet, 0x12345678);
  g_assert_true (gst_rtcp_packet_fb_set_fci_length (&packet, 1));
  fci = gst_rtcp_packet_fb_get_fci (&packet);
  GST_WRITE_UINT32_BE (fci, 3 << 16);
  gst_rtcp_buffer_unmap (&rtcp);
  GST_BUFFER_DTS (buf) = arrival;
  return buf;
}

/* The peer's RTCP straight into donarjitterbuffer (no demuxer): dropped,
 * never counted as a frame nor pushed to the depayloader. */
/* The peer's RTCP straight into donarjitterbuffer (its rtpbin muxes it into
 * the call; no donarrtcpdemux here): dropped, never counted as a frame nor
 * pushed to the depayloader. */
static void
test_drops_rtcp (void)
{
  GstHarness *h = new_harness ();
  GstStructure *s;
  guint buffers = 0, window = 0;

  for (guint i = 0; i < 10; i++) {
    GstClockTime arrival = i * FRAME + 100 * GST_MSECOND;

    gst_harness_set_time (h, arrival);
    release_due_waits (h);
    g_assert_cmpint (gst_harness_push (h, rtp_packet (i, arrival)), ==,
        GST_FLOW_OK);
    if (i % 3 == 1)
      g_assert_cmpint (gst_harness_push (h, rtcp_nack (arrival)), ==,
          GST_FLOW_OK);
  }
  /* Let every timer of rtpjitterbuffer run out. */
  while (gst_harness_wait_for_clock_id_waits (h, 1, 1))
    gst_harness_crank_single_clock_wait (h);

  while (gst_harness_buffers_in_queue (h) > 0) {
    GstBuffer *buf = gst_harness_pull (h);

    g_assert_false (gst_rtcp_buffer_validate (buf));
    gst_buffer_unref (buf);
    buffers++;
  }
  g_assert_cmpuint (buffers, ==, 10);
  s = get_stats (h);
  g_assert_cmpuint (stat_u64 (s, "frames"), ==, 10);
  g_assert_cmpuint (stat_u64 (s, "pushed"), ==, 10);
  g_assert_cmpuint (stat_u64 (s, "lost"), ==, 0);
  /* Read as RTP, the NACK has another SSRC: the playout estimator would
   * start over at each, and again at the next RTP, its window emptied. */
  g_assert_true (gst_structure_get_uint (s, "window-frames", &window));
  g_assert_cmpuint (window, ==, 10);
  gst_structure_free (s);
  gst_harness_teardown (h);
}

int
main (int argc, char **argv)
{
  gboolean check_leaks = elements_test_init (&argc, &argv);
  int ret;

  g_test_add_func ("/donarjitterbuffer/caps", test_caps);
  g_test_add_func ("/donarjitterbuffer/delay-step-raises-latency",
      test_delay_step_raises_latency);
  g_test_add_func ("/donarjitterbuffer/lost-packets-become-lost-events",
      test_lost_packets_become_lost_events);
  g_test_add_func ("/donarjitterbuffer/quality-messages",
      test_quality_messages);
  g_test_add_func ("/donarjitterbuffer/latency-follows-timeline",
      test_latency_follows_timeline);
  g_test_add_func ("/donarjitterbuffer/stats-and-properties",
      test_stats_and_properties);
  g_test_add_func ("/donarjitterbuffer/opus-pipeline", test_opus_pipeline);
  g_test_add_func ("/donarjitterbuffer/drops-rtcp", test_drops_rtcp);
  ret = g_test_run ();
  return elements_test_finish (ret, check_leaks);
}
