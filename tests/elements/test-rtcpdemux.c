/* donarrtcpdemux: RTCP muxed with the RTP of a call (RFC 5761), as donarsrc
 * gives it when the peer's rtpbin sends both over its donarsink, goes out
 * of rtcp_src (application/x-rtcp), and an unlinked rtcp_src does not stop
 * the voice (test-donarjitterbuffer: RTCP that reaches donarjitterbuffer).
 * Run under GST_TRACERS=leaks, as every element test. */
#include "elements-test.h"

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gst/rtp/gstrtcpbuffer.h>

#define CAPS "application/x-rtp, media=(string)audio, clock-rate=(int)48000, " \
    "encoding-name=(string)OPUS, payload=(int)96"
#define FRAME (40 * GST_MSECOND)

/* What the demuxer looks at: the first two bytes. */
static GstBuffer *
rtp_packet (GstClockTime arrival)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (20, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  g_assert_true (gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp));
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_unmap (&rtp);
  GST_BUFFER_DTS (buf) = arrival;
  return buf;
}

/* A sender report, as rtpbin sends every few seconds. */
static GstBuffer *
rtcp_packet (GstClockTime arrival)
{
  GstBuffer *buf = gst_rtcp_buffer_new (200);
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket packet;

  g_assert_true (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  g_assert_true (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_SR, &packet));
  gst_rtcp_packet_sr_set_sender_info (&packet, 0x12345678,
      G_GUINT64_CONSTANT (0x1234567800000000), 5000, 10, 200);
  gst_rtcp_buffer_unmap (&rtcp);
  GST_BUFFER_DTS (buf) = arrival;
  return buf;
}

static gboolean
is_rtcp (GstBuffer * buf)
{
  return gst_rtcp_buffer_validate (buf);
}

static void
test_split (void)
{
  GstHarness *rtp = gst_harness_new_with_padnames ("donarrtcpdemux", "sink",
      "rtp_src");
  GstHarness *rtcp = gst_harness_new_with_element (rtp->element, NULL,
      "rtcp_src");
  GstCaps *caps, *expected;
  GstBuffer *buf;

  gst_harness_set_src_caps_str (rtp, CAPS);
  g_assert_cmpint (gst_harness_push (rtp, rtp_packet (0)), ==, GST_FLOW_OK);
  g_assert_cmpint (gst_harness_push (rtp, rtcp_packet (FRAME)), ==,
      GST_FLOW_OK);
  g_assert_cmpint (gst_harness_push (rtp, rtp_packet (FRAME)), ==, GST_FLOW_OK);

  g_assert_cmpuint (gst_harness_buffers_in_queue (rtp), ==, 2);
  g_assert_cmpuint (gst_harness_buffers_in_queue (rtcp), ==, 1);
  for (guint i = 0; i < 2; i++) {
    buf = gst_harness_pull (rtp);
    g_assert_false (is_rtcp (buf));
    gst_buffer_unref (buf);
  }
  buf = gst_harness_pull (rtcp);
  g_assert_true (is_rtcp (buf));
  /* The arrival stamp goes with it: rtpbin's round trip uses it. */
  g_assert_cmpuint (GST_BUFFER_DTS (buf), ==, FRAME);
  gst_buffer_unref (buf);

  /* The caps of each: the RTP's as they came, RTCP's for rtpbin's
   * recv_rtcp_sink. */
  caps = gst_pad_get_current_caps (rtp->sinkpad);
  expected = gst_caps_from_string (CAPS);
  g_assert_true (gst_caps_is_equal (caps, expected));
  gst_caps_unref (expected);
  gst_caps_unref (caps);
  caps = gst_pad_get_current_caps (rtcp->sinkpad);
  g_assert_nonnull (caps);
  g_assert_true (gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "application/x-rtcp"));
  gst_caps_unref (caps);

  gst_harness_teardown (rtcp);
  gst_harness_teardown (rtp);
}

/* Nobody reads the RTCP (donarsrc ! donarrtcpdemux ! donarjitterbuffer):
 * the voice goes on. */
static void
test_rtcp_unlinked (void)
{
  GstHarness *h = gst_harness_new_with_padnames ("donarrtcpdemux", "sink",
      "rtp_src");

  gst_harness_set_src_caps_str (h, CAPS);
  g_assert_cmpint (gst_harness_push (h, rtcp_packet (0)), ==, GST_FLOW_OK);
  g_assert_cmpint (gst_harness_push (h, rtp_packet (0)), ==, GST_FLOW_OK);
  g_assert_cmpint (gst_harness_push (h, rtcp_packet (FRAME)), ==, GST_FLOW_OK);
  g_assert_cmpuint (gst_harness_buffers_in_queue (h), ==, 1);
  gst_harness_teardown (h);
}

int
main (int argc, char **argv)
{
  gboolean check_leaks = elements_test_init (&argc, &argv);
  int ret;

  g_test_add_func ("/rtcpdemux/split", test_split);
  g_test_add_func ("/rtcpdemux/rtcp-unlinked", test_rtcp_unlinked);
  ret = g_test_run ();
  return elements_test_finish (ret, check_leaks);
}
