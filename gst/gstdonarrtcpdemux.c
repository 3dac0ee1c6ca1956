/* donarrtcpdemux: RTP and RTCP of one call, muxed (RFC 5761), apart
 * (docs/elements.md, "RTCP"). */
/**
 * SECTION:element-donarrtcpdemux
 * @title: donarrtcpdemux
 *
 * Splits a stream of RTP with RTCP muxed into it (RFC 5761), as `donarsrc`
 * gives it when the peer's `rtpbin` sends both over one `donarsink`: RTCP
 * (the second byte 192 to 223) goes out of `rtcp_src` as
 * `application/x-rtcp`, the rest out of `rtp_src` with the caps that came
 * in.  GStreamer 1.22 has no element for this: `rtpbin` takes RTCP on a pad
 * of its own.  An unlinked `rtcp_src` drops the RTCP.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 rtpbin name=r latency=0  donarsrc call=c ... ! donarrtcpdemux name=d  d.rtp_src ! donarjitterbuffer ! r.recv_rtp_sink_0  d.rtcp_src ! r.recv_rtcp_sink_0  r. ! rtpopusdepay ! opusdec ! autoaudiosink ...
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonarrtcpdemux.h"
#include "gstdonarelements.h"

#include <gst/base/gstflowcombiner.h>

GST_DEBUG_CATEGORY_STATIC (gst_donar_rtcp_demux_debug);
#define GST_CAT_DEFAULT gst_donar_rtcp_demux_debug

struct _GstDonarRtcpDemux
{
  GstElement parent;

  GstPad *sinkpad, *rtp_src, *rtcp_src;
  /* The streaming thread's. */
  GstFlowCombiner *flows;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("application/x-rtp"));

static GstStaticPadTemplate rtp_src_template =
GST_STATIC_PAD_TEMPLATE ("rtp_src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("application/x-rtp"));

static GstStaticPadTemplate rtcp_src_template =
GST_STATIC_PAD_TEMPLATE ("rtcp_src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("application/x-rtcp"));

#define gst_donar_rtcp_demux_parent_class parent_class
G_DEFINE_TYPE (GstDonarRtcpDemux, gst_donar_rtcp_demux, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (donarrtcpdemux, "donarrtcpdemux",
    GST_RANK_NONE, GST_TYPE_DONAR_RTCP_DEMUX,
    GST_DEBUG_CATEGORY_INIT (gst_donar_rtcp_demux_debug, "donarrtcpdemux", 0,
        "DONAR RTP/RTCP demuxer"));

gboolean
gst_donar_is_rtcp (const guint8 * data, gsize size)
{
  return size >= 2 && (data[0] & 0xc0) == 0x80 && data[1] >= 192
      && data[1] <= 223;
}

static GstFlowReturn
gst_donar_rtcp_demux_chain (GstPad * pad, GstObject * parent,
    GstBuffer * buffer)
{
  GstDonarRtcpDemux *self = GST_DONAR_RTCP_DEMUX (parent);
  GstMapInfo map;
  gboolean rtcp;
  GstPad *out;
  GstFlowReturn ret;

  if (!gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    gst_buffer_unref (buffer);
    GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL),
        ("could not map the buffer"));
    return GST_FLOW_ERROR;
  }
  rtcp = gst_donar_is_rtcp (map.data, map.size);
  gst_buffer_unmap (buffer, &map);

  out = rtcp ? self->rtcp_src : self->rtp_src;
  ret = gst_pad_push (out, buffer);
  /* NOT_LINKED only when neither pad is linked: RTCP nobody reads must not
   * stop the voice. */
  return gst_flow_combiner_update_pad_flow (self->flows, out, ret);
}

static gboolean
gst_donar_rtcp_demux_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstDonarRtcpDemux *self = GST_DONAR_RTCP_DEMUX (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_STREAM_START:{
      gchar *id = gst_pad_create_stream_id (self->rtcp_src,
          GST_ELEMENT (self), "rtcp");
      GstEvent *start = gst_event_new_stream_start (id);
      guint group;

      if (gst_event_parse_group_id (event, &group))
        gst_event_set_group_id (start, group);
      g_free (id);
      gst_flow_combiner_reset (self->flows);
      gst_pad_push_event (self->rtcp_src, start);
      /* The RTCP's caps are always these: set them with the stream. */
      gst_pad_push_event (self->rtcp_src,
          gst_event_new_caps (gst_static_pad_template_get_caps
              (&rtcp_src_template)));
      return gst_pad_push_event (self->rtp_src, event);
    }
    case GST_EVENT_CAPS:
      return gst_pad_push_event (self->rtp_src, event);
    case GST_EVENT_FLUSH_STOP:
      gst_flow_combiner_reset (self->flows);
      return gst_pad_event_default (pad, parent, event);
    default:
      /* Segment, EOS, flushes, donarsrc's base delay: to both. */
      return gst_pad_event_default (pad, parent, event);
  }
}

static void
gst_donar_rtcp_demux_finalize (GObject * object)
{
  GstDonarRtcpDemux *self = GST_DONAR_RTCP_DEMUX (object);

  gst_flow_combiner_free (self->flows);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_donar_rtcp_demux_class_init (GstDonarRtcpDemuxClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->finalize = gst_donar_rtcp_demux_finalize;
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &rtp_src_template);
  gst_element_class_add_static_pad_template (element_class, &rtcp_src_template);
  gst_element_class_set_static_metadata (element_class,
      "DONAR RTP/RTCP demuxer", "Demuxer/Network/RTP",
      "Splits RTP and RTCP muxed in one stream (RFC 5761), as donarsrc "
      "receives them from an rtpbin", GST_DONAR_AUTHOR);
}

static void
gst_donar_rtcp_demux_init (GstDonarRtcpDemux * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_donar_rtcp_demux_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_donar_rtcp_demux_sink_event));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->rtp_src = gst_pad_new_from_static_template (&rtp_src_template,
      "rtp_src");
  gst_pad_use_fixed_caps (self->rtp_src);
  gst_element_add_pad (GST_ELEMENT (self), self->rtp_src);
  self->rtcp_src = gst_pad_new_from_static_template (&rtcp_src_template,
      "rtcp_src");
  gst_pad_use_fixed_caps (self->rtcp_src);
  gst_element_add_pad (GST_ELEMENT (self), self->rtcp_src);

  self->flows = gst_flow_combiner_new ();
  gst_flow_combiner_add_pad (self->flows, self->rtp_src);
  gst_flow_combiner_add_pad (self->flows, self->rtcp_src);
}
