/* donarsrc: receives RTP packets from a DONAR call (docs/elements.md). */
/**
 * SECTION:element-donarsrc
 * @title: donarsrc
 *
 * Receives the RTP packets of a voice stream from a DONAR call, a live
 * source that stamps each buffer with the running time of its arrival.
 * With #GstDonarSrc:address set it dials that call address (the caller);
 * without, it publishes an onion service and posts the address to give
 * the caller in a `donar-call-address` element message (the callee).
 *
 * The caps come in-band from the `donarsink` at the other end (a frame
 * whose first byte is 0x00, then the caps as a string), so that
 * `donarsrc ! rtpopusdepay` needs no caps string.  Until they come,
 * #GstDonarSrc:caps is used if set, and RTP packets are dropped (and
 * counted) if not.  Other frames that are not RTP are dropped and counted.
 *
 * A donarsink and a donarsrc with the same #GstDonarSrc:call name share
 * one call: the two directions of a voice call.
 *
 * The element handles `donar://` URIs (#GstDonarSrc:uri): the call address,
 * which makes a caller, or `donar://callee`, either with call properties
 * as parameters (`donar://callee?tor-control=9051&address-file=a.txt`).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 donarsrc callee=true call=c ! rtpopusdepay ! opusdec ! autoaudiosink  audiotestsrc is-live=true ! opusenc ! rtpopuspay ! donarsink call=c
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonarsrc.h"
#include "gstdonarcall.h"
#include "gstdonaruri.h"
#include "gstdonarelements.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_donar_src_debug);
#define GST_CAT_DEFAULT gst_donar_src_debug

/* How often create () looks at the links' round-trip times. */
#define BASE_DELAY_CHECK_US (G_USEC_PER_SEC)

enum
{
  PROP_0,
  PROP_CAPS,
  PROP_CALL_FIRST,
};

struct _GstDonarSrc
{
  GstPushSrc parent;

  GstDonarCallClient client;

  /* Under the object lock. */
  GstCaps *caps;                /* the property */
  GstCaps *inband_caps;         /* the last the peer sent */
  gboolean flushing;

  /* The streaming thread's. */
  GstCaps *current_caps;        /* what was set on the pad */
  gboolean pushed;              /* a buffer went out: the segment too */
  gint64 base_delay_checked;    /* µs, monotonic */
  gint64 base_delay_sent;       /* µs, -1: none sent */
  /* The last clock seen, and whether it counts CLOCK_MONOTONIC: asking a
   * clock its type (a property) costs more than the rest of a buffer. */
  GstClock *clock;
  gboolean clock_monotonic;
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("application/x-rtp"));

#define gst_donar_src_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstDonarSrc, gst_donar_src, GST_TYPE_PUSH_SRC,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER,
        gst_donar_call_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (donarsrc, "donarsrc",
    GST_RANK_NONE, GST_TYPE_DONAR_SRC,
    GST_DEBUG_CATEGORY_INIT (gst_donar_src_debug, "donarsrc", 0,
        "DONAR call source"));

static void gst_donar_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_donar_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_donar_src_finalize (GObject * object);
static GstStateChangeReturn gst_donar_src_change_state (GstElement * element,
    GstStateChange transition);
static gboolean gst_donar_src_start (GstBaseSrc * src);
static gboolean gst_donar_src_stop (GstBaseSrc * src);
static gboolean gst_donar_src_unlock (GstBaseSrc * src);
static gboolean gst_donar_src_unlock_stop (GstBaseSrc * src);
static gboolean gst_donar_src_negotiate (GstBaseSrc * src);
static GstFlowReturn gst_donar_src_create (GstPushSrc * src,
    GstBuffer ** buffer);

static void
gst_donar_src_class_init (GstDonarSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *basesrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *pushsrc_class = GST_PUSH_SRC_CLASS (klass);

  gobject_class->set_property = gst_donar_src_set_property;
  gobject_class->get_property = gst_donar_src_get_property;
  gobject_class->finalize = gst_donar_src_finalize;

  /**
   * GstDonarSrc:caps:
   *
   * The caps of the stream until the peer's donarsink sends its own
   * in-band; those then replace them.
   */
  g_object_class_install_property (gobject_class, PROP_CAPS,
      g_param_spec_boxed ("caps", "Caps",
          "The caps of the stream until the peer sends them in-band "
          "(NULL: drop packets until then)", GST_TYPE_CAPS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  gst_donar_call_install_properties (gobject_class, PROP_CALL_FIRST);
  gst_donar_call_install_signals (G_TYPE_FROM_CLASS (klass));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "DONAR call source",
      "Source/Network/RTP",
      "Receives RTP packets from a DONAR call: Tor onion links with "
      "telephone quality", GST_DONAR_AUTHOR);

  element_class->change_state = GST_DEBUG_FUNCPTR (gst_donar_src_change_state);
  basesrc_class->start = GST_DEBUG_FUNCPTR (gst_donar_src_start);
  basesrc_class->stop = GST_DEBUG_FUNCPTR (gst_donar_src_stop);
  basesrc_class->unlock = GST_DEBUG_FUNCPTR (gst_donar_src_unlock);
  basesrc_class->unlock_stop = GST_DEBUG_FUNCPTR (gst_donar_src_unlock_stop);
  basesrc_class->negotiate = GST_DEBUG_FUNCPTR (gst_donar_src_negotiate);
  pushsrc_class->create = GST_DEBUG_FUNCPTR (gst_donar_src_create);

  gst_type_mark_as_plugin_api (GST_TYPE_DONAR_POLICY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_DONAR_SECURITY, 0);
}

static void
gst_donar_src_init (GstDonarSrc * self)
{
  gst_donar_call_client_init (&self->client, GST_ELEMENT (self));
  self->client.buffers_counter = "buffers-received";
  /* Every counter in the stats from the first read (docs/elements.md,
   * "Stats"). */
  gst_structure_set (self->client.counters,
      "caps-frames-received", G_TYPE_UINT64, G_GUINT64_CONSTANT (0),
      "dropped-no-caps", G_TYPE_UINT64, G_GUINT64_CONSTANT (0),
      "dropped-not-rtp", G_TYPE_UINT64, G_GUINT64_CONSTANT (0),
      "dropped-bad-caps", G_TYPE_UINT64, G_GUINT64_CONSTANT (0),
      "dropped-unanswered", G_TYPE_UINT64, G_GUINT64_CONSTANT (0), NULL);
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_do_timestamp (GST_BASE_SRC (self), FALSE);
}

static void
gst_donar_src_finalize (GObject * object)
{
  GstDonarSrc *self = GST_DONAR_SRC (object);

  gst_donar_call_client_clear (&self->client);
  gst_clear_caps (&self->caps);
  gst_clear_caps (&self->inband_caps);
  gst_clear_caps (&self->current_caps);
  gst_clear_object (&self->clock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_donar_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstDonarSrc *self = GST_DONAR_SRC (object);

  if (prop_id == PROP_CAPS) {
    const GstCaps *caps = gst_value_get_caps (value);

    GST_OBJECT_LOCK (self);
    gst_clear_caps (&self->caps);
    if (caps)
      self->caps = gst_caps_copy (caps);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id < PROP_CALL_FIRST ||
      !gst_donar_call_client_set_property (&self->client,
          prop_id - PROP_CALL_FIRST, value, pspec)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_donar_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstDonarSrc *self = GST_DONAR_SRC (object);

  if (prop_id == PROP_CAPS) {
    GST_OBJECT_LOCK (self);
    gst_value_set_caps (value, self->caps);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id < PROP_CALL_FIRST ||
      !gst_donar_call_client_get_property (&self->client,
          prop_id - PROP_CALL_FIRST, value)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

/* A setup that failed posts its error again at PAUSED to PLAYING: the
 * first may not have been heard (gst_donar_call_client_play ()). */
static GstStateChangeReturn
gst_donar_src_change_state (GstElement * element, GstStateChange transition)
{
  GstDonarSrc *self = GST_DONAR_SRC (element);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING)
    gst_donar_call_client_play (&self->client);
  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

static gboolean
gst_donar_src_start (GstBaseSrc * src)
{
  GstDonarSrc *self = GST_DONAR_SRC (src);

  GST_OBJECT_LOCK (self);
  gst_clear_caps (&self->inband_caps);
  GST_OBJECT_UNLOCK (self);
  gst_clear_caps (&self->current_caps);
  self->pushed = FALSE;
  self->base_delay_checked = 0;
  self->base_delay_sent = -1;
  return gst_donar_call_client_start (&self->client);
}

static gboolean
gst_donar_src_stop (GstBaseSrc * src)
{
  GstDonarSrc *self = GST_DONAR_SRC (src);

  gst_donar_call_client_stop (&self->client);
  return TRUE;
}

static gboolean
gst_donar_src_unlock (GstBaseSrc * src)
{
  GstDonarSrc *self = GST_DONAR_SRC (src);
  DonarLinkEngine *engine;

  GST_OBJECT_LOCK (self);
  self->flushing = TRUE;
  GST_OBJECT_UNLOCK (self);
  engine = gst_donar_call_client_get_engine (&self->client);
  if (engine)
    donar_link_engine_set_flushing (engine, TRUE);
  return TRUE;
}

static gboolean
gst_donar_src_unlock_stop (GstBaseSrc * src)
{
  GstDonarSrc *self = GST_DONAR_SRC (src);
  DonarLinkEngine *engine;

  GST_OBJECT_LOCK (self);
  self->flushing = FALSE;
  GST_OBJECT_UNLOCK (self);
  engine = gst_donar_call_client_get_engine (&self->client);
  if (engine)
    donar_link_engine_set_flushing (engine, FALSE);
  return TRUE;
}

/* The caps we know (in-band, or the property), or NULL. */
static GstCaps *
known_caps (GstDonarSrc * self)
{
  GstCaps *caps = NULL;

  GST_OBJECT_LOCK (self);
  if (self->inband_caps)
    caps = gst_caps_ref (self->inband_caps);
  else if (self->caps)
    caps = gst_caps_ref (self->caps);
  GST_OBJECT_UNLOCK (self);
  return caps;
}

static gboolean
use_caps (GstDonarSrc * self, GstCaps * caps)
{
  /* The same caps object as last time (the usual case): no comparison. */
  if (self->current_caps == caps)
    return TRUE;
  /* The same caps again in another object (each caps frame makes one):
   * kept, so that the next buffers compare pointers only. */
  if (self->current_caps && gst_caps_is_equal (self->current_caps, caps)) {
    gst_caps_replace (&self->current_caps, caps);
    return TRUE;
  }
  GST_INFO_OBJECT (self, "caps %" GST_PTR_FORMAT, caps);
  if (!gst_base_src_set_caps (GST_BASE_SRC (self), caps))
    return FALSE;
  gst_caps_replace (&self->current_caps, caps);
  return TRUE;
}

/* Until the caps are known, nothing: basesrc would pick caps of its own. */
static gboolean
gst_donar_src_negotiate (GstBaseSrc * src)
{
  GstDonarSrc *self = GST_DONAR_SRC (src);
  GstCaps *caps = known_caps (self);
  gboolean ok = TRUE;

  if (caps) {
    gst_clear_caps (&self->current_caps);
    ok = use_caps (self, caps);
    gst_caps_unref (caps);
  }
  return ok;
}

static void
take_caps_frame (GstDonarSrc * self, const DonarLinkFrame * frame)
{
  g_autofree gchar *text = g_strndup ((const gchar *) frame->data + 1,
      frame->length - 1);
  GstCaps *caps = gst_caps_from_string (text);

  if (caps == NULL || !gst_caps_is_fixed (caps)) {
    GST_WARNING_OBJECT (self, "bad caps frame: %s", text);
    gst_donar_call_client_count (&self->client, "dropped-bad-caps");
    gst_clear_caps (&caps);
    return;
  }
  gst_donar_call_client_count (&self->client, "caps-frames-received");
  GST_OBJECT_LOCK (self);
  gst_caps_take (&self->inband_caps, caps);
  GST_OBJECT_UNLOCK (self);
}

/* The running time of a frame's arrival (g_get_monotonic_time ()). */
static GstClockTime
arrival_running_time (GstDonarSrc * self, gint64 arrival_us)
{
  GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));
  GstClockTime base_time = gst_element_get_base_time (GST_ELEMENT (self));
  GstClockTime t;

  if (clock == NULL)
    return GST_CLOCK_TIME_NONE;
  if (clock != self->clock) {
    gint clock_type = -1;

    if (GST_IS_SYSTEM_CLOCK (clock))
      g_object_get (clock, "clock-type", &clock_type, NULL);
    gst_object_replace ((GstObject **) & self->clock, GST_OBJECT (clock));
    self->clock_monotonic = clock_type == GST_CLOCK_TYPE_MONOTONIC;
  }
  if (self->clock_monotonic) {
    /* Both CLOCK_MONOTONIC. */
    t = (GstClockTime) arrival_us *GST_USECOND;
  } else {
    GstClockTime now = gst_clock_get_time (clock);
    GstClockTime age = (GstClockTime) MAX (0,
        g_get_monotonic_time () - arrival_us) * GST_USECOND;

    t = now > age ? now - age : 0;
  }
  gst_object_unref (clock);
  return t > base_time ? t - base_time : 0;
}

/* Once a second: half the least round trip of the open links, as a sticky
 * downstream event `donar-base-delay` (docs/jitterbuffer.md), when it
 * changed by a millisecond or more.  After the first buffer, so that it
 * follows the caps and the segment. */
static void
check_base_delay (GstDonarSrc * self, DonarLinkEngine * engine)
{
  gint64 now = g_get_monotonic_time ();
  gint64 rtt, base;
  GstEvent *event;

  if (!self->pushed || now - self->base_delay_checked < BASE_DELAY_CHECK_US)
    return;
  self->base_delay_checked = now;
  rtt = donar_link_engine_get_min_rtt (engine);
  if (rtt < 0)
    return;
  base = rtt / 2;
  if (self->base_delay_sent >= 0 && ABS (base - self->base_delay_sent) < 1000)
    return;
  self->base_delay_sent = base;
  GST_INFO_OBJECT (self, "base delay %" G_GINT64_FORMAT " µs (least round "
      "trip %" G_GINT64_FORMAT " µs)", base, rtt);
  event = gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM_STICKY,
      gst_structure_new ("donar-base-delay",
          "base-delay", G_TYPE_UINT64, (guint64) base * GST_USECOND,
          "round-trip", G_TYPE_UINT64, (guint64) rtt * GST_USECOND, NULL));
  gst_pad_push_event (GST_BASE_SRC_PAD (self), event);
}

static GstFlowReturn
gst_donar_src_create (GstPushSrc * src, GstBuffer ** buffer)
{
  GstDonarSrc *self = GST_DONAR_SRC (src);

  for (;;) {
    DonarLinkEngine *engine;
    DonarLinkFrame *frame;
    GstCaps *caps;
    GstBuffer *buf;
    gboolean flushing;

    GST_OBJECT_LOCK (self);
    flushing = self->flushing;
    GST_OBJECT_UNLOCK (self);
    if (flushing)
      return GST_FLOW_FLUSHING;

    engine = gst_donar_call_client_get_engine (&self->client);
    if (engine == NULL) {
      g_usleep (10 * 1000);
      continue;
    }
    check_base_delay (self, engine);
    /* Without a deadline: unlock () (flushing) and the call's end release
     * it at once, and a deadline would cost a timer at every buffer. */
    frame = donar_link_engine_pop_frame (engine, -1);
    /* Every frame that came is out: the call is over, either side. */
    if (frame == NULL && gst_donar_call_client_has_ended (&self->client)) {
      GST_INFO_OBJECT (self, "the call ended: EOS");
      return GST_FLOW_EOS;
    }
    if (frame == NULL)
      continue;

    if (frame->length >= 1 && frame->data[0] == GST_DONAR_CAPS_FRAME_TAG) {
      take_caps_frame (self, frame);
      g_free (frame);
      continue;
    }
    /* A callee's user has not taken the call: nothing of it is heard. */
    if (!gst_donar_call_client_is_answered (&self->client)) {
      gst_donar_call_client_count (&self->client, "dropped-unanswered");
      g_free (frame);
      continue;
    }
    if (frame->length == 0 || (frame->data[0] & 0xc0) != 0x80) {
      GST_LOG_OBJECT (self, "not RTP, dropped");
      gst_donar_call_client_count (&self->client, "dropped-not-rtp");
      g_free (frame);
      continue;
    }
    caps = known_caps (self);
    if (caps == NULL) {
      GST_LOG_OBJECT (self, "no caps yet, dropped");
      gst_donar_call_client_count (&self->client, "dropped-no-caps");
      g_free (frame);
      continue;
    }
    if (!use_caps (self, caps)) {
      gst_caps_unref (caps);
      g_free (frame);
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
          ("downstream refused the caps of the stream"));
      return GST_FLOW_NOT_NEGOTIATED;
    }
    gst_caps_unref (caps);

    /* The buffer takes the engine's frame: no copy of the data. */
    buf = gst_buffer_new_wrapped_full (0, frame,
        G_STRUCT_OFFSET (DonarLinkFrame, data) + frame->length,
        G_STRUCT_OFFSET (DonarLinkFrame, data), frame->length, frame, g_free);
    GST_BUFFER_PTS (buf) = arrival_running_time (self, frame->arrival_us);
    GST_BUFFER_DTS (buf) = GST_BUFFER_PTS (buf);
    gst_donar_call_client_count_buffer (&self->client);
    self->pushed = TRUE;
    *buffer = buf;
    return GST_FLOW_OK;
  }
}
