/* donarsink: sends RTP packets over a DONAR call (docs/elements.md). */
/**
 * SECTION:element-donarsink
 * @title: donarsink
 *
 * Sends the RTP packets of a voice stream over a DONAR call: 12 Tor onion
 * links by default, scheduled as the DONAR paper describes.  With
 * #GstDonarSink:address set it dials that call address (the caller);
 * without, it publishes an onion service and posts the address to give
 * the caller in a `donar-call-address` element message (the callee).
 *
 * The call is set up in a thread of its own (a launched tor takes seconds
 * to bootstrap) while progress messages tell how it goes; buffers that
 * come before the call is ready are dropped and counted in
 * `dropped-not-ready`.  A `donar-ready` element message says when it is:
 * the callee once it can be called, the caller once its first link is up.
 * `donar-links` messages tell each change in the number of links up; a
 * buffer that comes while none is up is dropped and counted in
 * `dropped-no-link`, never in `buffers-sent`.
 *
 * A buffer larger than a DONAR frame (one Tor cell: 402 bytes with the
 * default policy) is dropped and counted in `buffers-too-large`, with an
 * element warning at the first and at most one every 5 s after: the call
 * goes on; #GstDonarSink:max-frame-size gives the limit.  Opus at 32 kbit/s
 * (`opusenc bitrate=32000`) fits.
 *
 * The sink also sends its caps to the peer in-band, so that a `donarsrc`
 * at the other end needs no caps string: a frame whose first byte is 0x00
 * (an RTP packet starts with 0x80 to 0xBF), then the caps as a string, at
 * the start, every 2 seconds, and when the caps change.
 *
 * A donarsink and a donarsrc with the same #GstDonarSink:call name share
 * one call: the two directions of a voice call.
 *
 * The element handles `donar://` URIs (#GstDonarSink:uri): the call address,
 * which makes a caller, or `donar://callee`, either with call properties
 * as parameters (`donar://callee?tor-control=9051&address-file=a.txt`).
 *
 * #GstBaseSink:sync is %TRUE by default, as in udpsink (a packet leaves at
 * its running time), but #GstBaseSink:async is %FALSE: in a duplex call
 * the sinks downstream of donarsrc cannot preroll until this sink sends.
 * The sink does not wait for the pipeline's latency: in a duplex pipeline
 * that is the receiving side's jitter buffer, which a frame sent to the
 * peer has no reason to wait for.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 audiotestsrc is-live=true ! opusenc ! rtpopuspay ! donarsink address="donar://..."
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonarsink.h"
#include "gstdonarcall.h"
#include "gstdonaruri.h"
#include "gstdonarelements.h"
#include "gstdonarrtcpdemux.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_donar_sink_debug);
#define GST_CAT_DEFAULT gst_donar_sink_debug

enum
{
  PROP_0,
  PROP_CALL_FIRST,
  /* After the call's properties, which take GST_DONAR_CALL_N_PROPS ids. */
  PROP_MAX_FRAME_SIZE = PROP_CALL_FIRST + GST_DONAR_CALL_N_PROPS,
};

struct _GstDonarSink
{
  GstBaseSink parent;

  GstDonarCallClient client;

  /* Under the object lock. */
  gchar *caps_string;
  /* Send the caps with the next buffer (atomic). */
  gint caps_dirty;
  /* The streaming thread's. */
  gint64 last_caps_us;
  gboolean caps_too_large;
  /* Buffers too large for a frame: dropped since the last warning, the
   * largest of them, and when that warning went (0: none yet). */
  guint64 too_large_unwarned;
  gsize too_large_largest;
  gint64 too_large_warned_us;
};

/* An encoder over the limit makes many such buffers a second: one warning
 * for each would flood the bus. */
#define TOO_LARGE_WARNING_INTERVAL_US (5 * G_USEC_PER_SEC)
/* What to change, whatever the codec. */
#define SMALLER_PACKETS "Send smaller RTP packets: a lower bitrate, or " \
  "fewer milliseconds of audio in each packet (the encoder's frame size or " \
  "the payloader's packet time)."

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    /* RTCP too, muxed with the RTP of the call (RFC 5761) by a funnel after
     * rtpbin: docs/elements.md, "RTCP". */
    GST_STATIC_CAPS ("application/x-rtp; application/x-rtcp"));

#define gst_donar_sink_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstDonarSink, gst_donar_sink, GST_TYPE_BASE_SINK,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER,
        gst_donar_call_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (donarsink, "donarsink",
    GST_RANK_NONE, GST_TYPE_DONAR_SINK,
    GST_DEBUG_CATEGORY_INIT (gst_donar_sink_debug, "donarsink", 0,
        "DONAR call sink"));

static void gst_donar_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_donar_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_donar_sink_finalize (GObject * object);
static GstStateChangeReturn gst_donar_sink_change_state (GstElement * element,
    GstStateChange transition);
static gboolean gst_donar_sink_set_caps (GstBaseSink * sink, GstCaps * caps);
static gboolean gst_donar_sink_event (GstBaseSink * sink, GstEvent * event);
static gboolean gst_donar_sink_send_event (GstElement * element,
    GstEvent * event);
static GstFlowReturn gst_donar_sink_render (GstBaseSink * sink,
    GstBuffer * buffer);

static void
gst_donar_sink_class_init (GstDonarSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *basesink_class = GST_BASE_SINK_CLASS (klass);

  gobject_class->set_property = gst_donar_sink_set_property;
  gobject_class->get_property = gst_donar_sink_get_property;
  gobject_class->finalize = gst_donar_sink_finalize;

  gst_donar_call_install_properties (gobject_class, PROP_CALL_FIRST);
  gst_donar_call_install_signals (G_TYPE_FROM_CLASS (klass));
  /**
   * GstDonarSink:max-frame-size:
   *
   * The largest buffer that goes as one DONAR frame, in bytes: one Tor
   * cell less the message's header, which depends on the call settings
   * (402 with the adaptive policy and the default settings, 426 with the
   * paper's policies).  Larger buffers are dropped and counted in
   * `buffers-too-large`.  The call's own once it is set up; before, what
   * the settings now give.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_FRAME_SIZE,
      g_param_spec_uint ("max-frame-size", "Maximum frame size",
          "The largest buffer sent (bytes): one Tor cell less DONAR's "
          "header, 402 with policy adaptive, 426 with the others (by "
          "default); larger ones are dropped", 0, G_MAXUINT, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class, "DONAR call sink",
      "Sink/Network/RTP",
      "Sends RTP packets over a DONAR call: Tor onion links with telephone "
      "quality", GST_DONAR_AUTHOR);

  element_class->change_state = GST_DEBUG_FUNCPTR (gst_donar_sink_change_state);
  element_class->send_event = GST_DEBUG_FUNCPTR (gst_donar_sink_send_event);
  basesink_class->set_caps = GST_DEBUG_FUNCPTR (gst_donar_sink_set_caps);
  basesink_class->render = GST_DEBUG_FUNCPTR (gst_donar_sink_render);
  basesink_class->event = GST_DEBUG_FUNCPTR (gst_donar_sink_event);

  gst_type_mark_as_plugin_api (GST_TYPE_DONAR_POLICY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_DONAR_SECURITY, 0);
}

static void
on_ready (GstDonarCallClient * client)
{
  GstDonarSink *self = GST_DONAR_SINK (client->element);

  g_atomic_int_set (&self->caps_dirty, 1);
}

static void
on_event (GstDonarCallClient * client, const DonarLinkEvent * event)
{
  GstDonarSink *self = GST_DONAR_SINK (client->element);

  /* Frames sent while no link is up are lost: the caps again as soon as
   * one is. */
  if (event->type == DONAR_LINK_EVENT_LINK_UP ||
      event->type == DONAR_LINK_EVENT_ALL_LINKS_UP)
    g_atomic_int_set (&self->caps_dirty, 1);
}

static void
gst_donar_sink_init (GstDonarSink * self)
{
  gst_donar_call_client_init (&self->client, GST_ELEMENT (self));
  self->client.on_ready = on_ready;
  self->client.on_event = on_event;
  self->client.buffers_counter = "buffers-sent";
  /* Every counter in the stats from the first read (docs/elements.md,
   * "Stats"). */
  gst_structure_set (self->client.counters,
      "caps-frames-sent", G_TYPE_UINT64, G_GUINT64_CONSTANT (0),
      "dropped-not-ready", G_TYPE_UINT64, G_GUINT64_CONSTANT (0),
      "dropped-no-link", G_TYPE_UINT64, G_GUINT64_CONSTANT (0),
      "dropped-not-rtp", G_TYPE_UINT64, G_GUINT64_CONSTANT (0),
      "buffers-too-large", G_TYPE_UINT64, G_GUINT64_CONSTANT (0),
      "rtcp-sent", G_TYPE_UINT64, G_GUINT64_CONSTANT (0),
      "dropped-unanswered", G_TYPE_UINT64, G_GUINT64_CONSTANT (0), NULL);
  /* The donarsrc of a duplex call cannot preroll before this sink sends
   * (its data comes from the peer, which answers what we send): like
   * udpsink in a two-way RTP pipeline, do not wait for preroll. */
  gst_base_sink_set_async_enabled (GST_BASE_SINK (self), FALSE);
}

static void
gst_donar_sink_finalize (GObject * object)
{
  GstDonarSink *self = GST_DONAR_SINK (object);

  gst_donar_call_client_clear (&self->client);
  g_free (self->caps_string);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_donar_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstDonarSink *self = GST_DONAR_SINK (object);

  if (prop_id < PROP_CALL_FIRST ||
      !gst_donar_call_client_set_property (&self->client,
          prop_id - PROP_CALL_FIRST, value, pspec))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

/* The call's limit, or the one its settings would give: the core's
 * header grows with the links and the policy's fields (docs/protocol.md,
 * "Overhead per message"). */
static guint
max_frame_size (GstDonarSink * self)
{
  DonarLinkEngine *engine = gst_donar_call_client_get_engine (&self->client);
  GstDonarCallSettings *s = &self->client.settings;
  DonarConfig config;

  if (engine)
    return donar_link_engine_get_max_frame (engine);
  donar_config_init (&config);
  GST_OBJECT_LOCK (self);
  config.n_links = s->links;
  config.n_1st = s->n1st;
  config.n_2nd = s->n2nd;
  config.policy = s->policy;
  config.redundancy = s->redundancy;
  GST_OBJECT_UNLOCK (self);
  return config.max_record - donar_config_record_overhead (&config, 1);
}

static void
gst_donar_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstDonarSink *self = GST_DONAR_SINK (object);

  if (prop_id == PROP_MAX_FRAME_SIZE)
    g_value_set_uint (value, max_frame_size (self));
  else if (prop_id < PROP_CALL_FIRST ||
      !gst_donar_call_client_get_property (&self->client,
          prop_id - PROP_CALL_FIRST, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static gboolean
gst_donar_sink_start_call (GstDonarSink * self)
{
  self->last_caps_us = 0;
  self->caps_too_large = FALSE;
  self->too_large_unwarned = 0;
  self->too_large_largest = 0;
  self->too_large_warned_us = 0;
  return gst_donar_call_client_start (&self->client);
}

/* The call starts at READY to PAUSED and stops at PAUSED to READY, as in
 * donarsrc, not in GstBaseSink's start () and stop () (NULL to READY and
 * back): the call properties are flagged changeable in READY
 * (GST_PARAM_MUTABLE_READY; GStreamer has no flag for NULL alone), so a
 * value set in READY must make the call.  A setup that failed posts its
 * error again at PAUSED to PLAYING: the first may not have been heard
 * (gst_donar_call_client_play ()). */
static GstStateChangeReturn
gst_donar_sink_change_state (GstElement * element, GstStateChange transition)
{
  GstDonarSink *self = GST_DONAR_SINK (element);
  GstStateChangeReturn ret;

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      if (!gst_donar_sink_start_call (self))
        return GST_STATE_CHANGE_FAILURE;
      break;
    case GST_STATE_CHANGE_PAUSED_TO_PLAYING:
      gst_donar_call_client_play (&self->client);
      break;
    default:
      break;
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  /* After the streaming thread has stopped; and a call started for a
   * READY to PAUSED that failed further on is not left behind. */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY ||
      (transition == GST_STATE_CHANGE_READY_TO_PAUSED &&
          ret == GST_STATE_CHANGE_FAILURE))
    gst_donar_call_client_stop (&self->client);
  return ret;
}

static gboolean
gst_donar_sink_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  GstDonarSink *self = GST_DONAR_SINK (sink);
  GstCaps *sent;
  GstStructure *s;
  gchar *string;
  gboolean changed;

  /* The caps frame is for the peer's depayloader: RTCP's caps, which a
   * funnel sets each time it switches to rtpbin's RTCP, are not sent. */
  if (gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "application/x-rtcp"))
    return TRUE;
  sent = gst_caps_copy (caps);
  s = gst_caps_get_structure (sent, 0);
  /* What the depayloader needs, not what changes with each stream: the
   * caps frame must fit one frame (one Tor cell). */
  gst_structure_remove_fields (s, "ssrc", "timestamp-offset",
      "seqnum-offset", NULL);
  string = gst_caps_to_string (sent);
  gst_caps_unref (sent);
  GST_OBJECT_LOCK (self);
  /* The funnel sets the RTP caps again after each RTCP packet. */
  changed = g_strcmp0 (string, self->caps_string) != 0;
  g_free (self->caps_string);
  self->caps_string = string;
  GST_OBJECT_UNLOCK (self);
  if (changed)
    g_atomic_int_set (&self->caps_dirty, 1);
  return TRUE;
}

static void
send_caps (GstDonarSink * self, DonarLinkEngine * engine)
{
  g_autofree gchar *caps = NULL;
  g_autofree guint8 *frame = NULL;
  GError *error = NULL;
  gsize length;

  GST_OBJECT_LOCK (self);
  caps = g_strdup (self->caps_string);
  GST_OBJECT_UNLOCK (self);
  if (caps == NULL)
    return;
  length = strlen (caps) + 1;
  if (length > donar_link_engine_get_max_frame (engine)) {
    if (!self->caps_too_large)
      GST_ELEMENT_WARNING (self, STREAM, FORMAT,
          ("The caps do not fit one DONAR frame: the receiver needs them "
              "in its caps property."), ("%" G_GSIZE_FORMAT " bytes: %s",
              length, caps));
    self->caps_too_large = TRUE;
    return;
  }
  frame = g_malloc (length);
  frame[0] = GST_DONAR_CAPS_FRAME_TAG;
  memcpy (frame + 1, caps, length - 1);
  if (!donar_link_engine_send_frame (engine, frame, length, &error)) {
    GST_WARNING_OBJECT (self, "caps not sent: %s", error->message);
    g_error_free (error);
    return;
  }
  GST_DEBUG_OBJECT (self, "caps sent: %s", caps);
  gst_donar_call_client_count (&self->client, "caps-frames-sent");
}

/* A frame is one Tor cell by design (docs/protocol.md, "Overhead per message"):
 * a larger buffer is dropped rather than split over two cells, and the call
 * goes on, as over a lossy network; the warning tells how to fix it, for
 * any codec (an Opus stream needs a lower bitrate, a PCMU one shorter
 * packets). */
static void
drop_too_large (GstDonarSink * self, gsize size, gsize max_frame, gint64 now)
{
  gst_donar_call_client_count (&self->client, "buffers-too-large");
  self->too_large_unwarned++;
  self->too_large_largest = MAX (self->too_large_largest, size);
  GST_LOG_OBJECT (self, "buffer of %" G_GSIZE_FORMAT " bytes dropped: at "
      "most %" G_GSIZE_FORMAT, size, max_frame);

  if (self->too_large_warned_us == 0) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("A buffer of %" G_GSIZE_FORMAT " bytes is larger than a DONAR "
            "frame (at most %" G_GSIZE_FORMAT " bytes, max-frame-size): "
            "dropped.  " SMALLER_PACKETS, size, max_frame),
        ("the first buffer too large; the next warning in "
            "%d s at the earliest",
            (gint) (TOO_LARGE_WARNING_INTERVAL_US / G_USEC_PER_SEC)));
  } else if (now - self->too_large_warned_us >= TOO_LARGE_WARNING_INTERVAL_US) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("%" G_GUINT64_FORMAT " more buffers larger than a DONAR frame (at "
            "most %" G_GSIZE_FORMAT " bytes, the largest %" G_GSIZE_FORMAT
            ") dropped.  " SMALLER_PACKETS, self->too_large_unwarned,
            max_frame,
            self->too_large_largest), ("in the last %.1f s",
            (now - self->too_large_warned_us) / 1e6));
  } else {
    return;
  }
  self->too_large_warned_us = now;
  self->too_large_unwarned = 0;
  self->too_large_largest = 0;
}

/* The end of what we send is the end of the call: hang up, so that the
 * peer ends too rather than wait for the peer timeout. */
/* The pipeline's latency is for sinks that render together, so that what
 * is played lines up; it is the largest of them all, and a duplex
 * pipeline's includes the receiving side's jitter buffer.  A frame that
 * waits for it here reaches the peer that much later, and so does the
 * voice.  With 0, sync still paces a source that is not live (a file)
 * at its running time, and a live source's frames, late by their
 * capture, leave at once. */
static gboolean
gst_donar_sink_send_event (GstElement * element, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_LATENCY) {
    GstClockTime latency;

    gst_event_parse_latency (event, &latency);
    GST_DEBUG_OBJECT (element, "pipeline latency %" GST_TIME_FORMAT
        ": not waited for", GST_TIME_ARGS (latency));
    gst_event_unref (event);
    event = gst_event_new_latency (0);
  }
  return GST_ELEMENT_CLASS (parent_class)->send_event (element, event);
}

static gboolean
gst_donar_sink_event (GstBaseSink * sink, GstEvent * event)
{
  GstDonarSink *self = GST_DONAR_SINK (sink);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
    gst_donar_call_client_hang_up (&self->client);
  return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
}

static GstFlowReturn
gst_donar_sink_render (GstBaseSink * sink, GstBuffer * buffer)
{
  GstDonarSink *self = GST_DONAR_SINK (sink);
  DonarLinkEngine *engine = gst_donar_call_client_get_engine (&self->client);
  GstFlowReturn ret = GST_FLOW_OK;
  GError *error = NULL;
  GstMapInfo map;
  gsize max_frame;
  gint64 now;

  /* Upstream then sends EOS: the pipeline ends with the call. */
  if (gst_donar_call_client_has_ended (&self->client))
    return GST_FLOW_EOS;
  if (engine == NULL || !gst_donar_call_client_is_ready (&self->client)) {
    GST_LOG_OBJECT (self, "call not ready: buffer dropped");
    gst_donar_call_client_count (&self->client, "dropped-not-ready");
    return GST_FLOW_OK;
  }
  if (!gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL),
        ("could not map the buffer"));
    return GST_FLOW_ERROR;
  }
  /* A callee's user has not taken the call: nothing goes to the caller
   * (the caps go once it is taken: caps_dirty stays). */
  if (!gst_donar_call_client_is_answered (&self->client)) {
    gst_donar_call_client_count (&self->client, "dropped-unanswered");
    goto done;
  }
  if (map.size == 0 || (map.data[0] & 0xc0) != 0x80) {
    /* Not RTP version 2: the peer would take a 0x00 for caps. */
    GST_WARNING_OBJECT (self, "not an RTP packet (%" G_GSIZE_FORMAT
        " bytes): dropped", map.size);
    gst_donar_call_client_count (&self->client, "dropped-not-rtp");
    goto done;
  }

  now = g_get_monotonic_time ();
  max_frame = donar_link_engine_get_max_frame (engine);
  if (map.size > max_frame) {
    drop_too_large (self, map.size, max_frame, now);
    goto done;
  }

  /* The engine takes a frame with no link up, and loses it (its
   * frames-unsent): buffers-sent would lie.  A link that closes after this
   * look and before the frame is written is the one loss left. */
  if (gst_donar_call_client_get_links_up (&self->client) == 0) {
    GST_LOG_OBJECT (self, "no link up: buffer dropped");
    gst_donar_call_client_count (&self->client, "dropped-no-link");
    goto done;
  }

  if (g_atomic_int_compare_and_exchange (&self->caps_dirty, 1, 0) ||
      now - self->last_caps_us >= GST_DONAR_CAPS_INTERVAL_US) {
    send_caps (self, engine);
    self->last_caps_us = now;
  }

  if (!donar_link_engine_send_frame (engine, map.data, map.size, &error)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, (NULL), ("%s", error->message));
    g_error_free (error);
    ret = GST_FLOW_ERROR;
    goto done;
  }
  gst_donar_call_client_count_buffer (&self->client);
  if (gst_donar_is_rtcp (map.data, map.size))
    gst_donar_call_client_count (&self->client, "rtcp-sent");

done:
  gst_buffer_unmap (buffer, &map);
  return ret;
}
