/* donarjitterbuffer: rtpjitterbuffer with a playout delay tuned while the
 * call runs.  docs/jitterbuffer.md describes the algorithm (lib/playout). */
/**
 * SECTION:element-donarjitterbuffer
 * @title: donarjitterbuffer
 *
 * The jitter buffer in front of the Opus decoder of a DONAR call.  It wraps
 * `rtpjitterbuffer` (with `do-lost`, so that the decoder's packet-loss
 * concealment fills the frames that did not come in time, and in `slave`
 * mode, which maps the sender's RTP clock onto the pipeline clock from the
 * arrival times and so follows the drift of the sender's sound card over a
 * long call) and sets its `latency` while the call runs, from the delays it
 * observes: the least playout delay that would have played
 * #GstDonarJitterBuffer:target-share of the frames of the last
 * #GstDonarJitterBuffer:window seconds on time, plus a margin, raised at
 * once and lowered slowly, within [#GstDonarJitterBuffer:min-latency,
 * #GstDonarJitterBuffer:max-latency] and never past the
 * #GstDonarJitterBuffer:deadline.
 *
 * With #GstDonarJitterBuffer:adaptive set to %FALSE it is a plain
 * `rtpjitterbuffer` with a static #GstDonarJitterBuffer:latency, as the
 * DONAR paper configured gstreamer.
 *
 * A change of latency posts a latency message on the bus: the application
 * should call gst_bin_recalculate_latency() on it, as gst-launch-1.0 does.
 *
 * Once a second it posts a `donar-quality` element message: the ITU-T
 * G.107 E-model's R over the frames of the last 5 s (those played, and
 * those lost or late, which the decoder conceals) and the mouth-to-ear
 * delay, its MOS and a rating, `good`, `fair` or `poor`
 * (docs/elements.md, "donar-quality").
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 udpsrc port=5004 caps="application/x-rtp,media=audio,clock-rate=48000,encoding-name=OPUS,payload=96" ! donarjitterbuffer ! rtpopusdepay ! opusdec plc=true ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonarjitterbuffer.h"
#include "gstdonarelements.h"
#include "gstdonarrtcpdemux.h"

#include <gst/rtp/gstrtpbuffer.h>
#include <string.h>

#include "donar-playout.h"
#include "donar-base-check.h"
#include "donar-quality.h"

GST_DEBUG_CATEGORY_STATIC (gst_donar_jitter_buffer_debug);
#define GST_CAT_DEFAULT gst_donar_jitter_buffer_debug

#define DEFAULT_ADAPTIVE TRUE
#define DEFAULT_LATENCY 200
#define DEFAULT_TARGET_SHARE DONAR_PLAYOUT_DEFAULT_SHARE
#define DEFAULT_WINDOW (DONAR_PLAYOUT_DEFAULT_WINDOW_US / G_USEC_PER_SEC)
#define DEFAULT_MARGIN (DONAR_PLAYOUT_DEFAULT_MARGIN_US / 1000)
#define DEFAULT_SHRINK_RATE (DONAR_PLAYOUT_DEFAULT_SHRINK_US_PER_S / 1000)
#define DEFAULT_MIN_LATENCY (DONAR_PLAYOUT_DEFAULT_MIN_US / 1000)
#define DEFAULT_MAX_LATENCY (DONAR_PLAYOUT_DEFAULT_MAX_US / 1000)
#define DEFAULT_DEADLINE (DONAR_PLAYOUT_DEFAULT_DEADLINE_US / 1000)
#define DEFAULT_BASE_DELAY -1

/* A jump of the relative delay this large is a new stream (the sender
 * restarted its RTP clock), not the network: start over. */
#define RESYNC_US (10 * G_USEC_PER_SEC)

/* The frames given up as lost that are remembered, so that one arriving
 * after all counts as late (the quality estimate): 64 frames, 2.6 s of
 * 40-ms frames, longer than a frame can be late and still be counted by
 * rtpjitterbuffer's lost timers bunching them. */
#define LOST_SEQNUMS 64
#define NO_SEQNUM G_MAXUINT32

enum
{
  PROP_0,
  PROP_ADAPTIVE,
  PROP_LATENCY,
  PROP_TARGET_SHARE,
  PROP_WINDOW,
  PROP_MARGIN,
  PROP_SHRINK_RATE,
  PROP_MIN_LATENCY,
  PROP_MAX_LATENCY,
  PROP_DEADLINE,
  PROP_BASE_DELAY,
  PROP_STATS,
};

struct _GstDonarJitterBuffer
{
  GstBin parent;

  GstElement *jitterbuffer;     /* the rtpjitterbuffer inside, or NULL */
  GstPad *sinkpad, *srcpad;

  /* Held while the latency is worked out and set on rtpjitterbuffer, so
   * that two threads do not set it out of order. */
  GMutex latency_lock;

  /* The rest under the object lock. */
  gboolean adaptive;
  guint latency;                /* ms, when not adaptive */
  DonarPlayoutConfig config;    /* as the properties set it */
  gint base_delay;              /* ms, -1 unknown */
  /* From donarsrc's donar-base-delay event, µs; -1: none came. */
  gint64 upstream_base_delay_us;
  /* What the observed delays say of it (lib/playout/donar-base-check.h):
   * used only once they agree, and not at all once they contradict it,
   * until donarsrc sends another value. */
  DonarBaseCheckVerdict upstream_verdict;
  DonarPlayout *playout;
  guint64 frames;
  guint64 static_late;          /* late frames when not adaptive */
  gboolean have_delay;
  gint64 last_delay_us;
  /* rtpjitterbuffer's timeline: its output running time - send time. */
  gboolean have_timeline;
  gint64 timeline_us;
  guint applied_latency;        /* what rtpjitterbuffer was last told */
  /* Since when the estimator has wanted less (arrival µs), 0: not. */
  gint64 lower_since_us;
  /* The last rise (arrival µs, 0: none), and the headroom it took (ms). */
  gint64 last_rise_us;
  guint headroom;

  /* Streaming state of the sink pad (its streaming thread only). */
  gint clock_rate;
  GstSegment in_segment;
  guint64 in_ext_ts;
  gboolean have_ssrc;
  guint32 ssrc;

  /* Streaming state of rtpjitterbuffer's src pad (its thread only). */
  GstSegment out_segment;
  guint64 out_ext_ts;
  gint out_clock_rate;
  gboolean have_out_seq;
  guint16 out_seq;
  guint32 out_rtptime;

  /* The live quality estimate (lib/playout/donar-quality.h), under the
   * object lock: the fates of the frames rtpjitterbuffer played or gave
   * up on, and the mouth-to-ear delay then. */
  DonarQuality *quality;
  /* A frame's length (µs), from consecutive packets out; 0 unknown. */
  gint64 frame_us;
  /* The seqnums of the latest frames given up as lost, a ring. */
  guint32 lost_seqnums[LOST_SEQNUMS];
  guint next_lost_seqnum;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("application/x-rtp, clock-rate = (int) [ 1, MAX ]"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("application/x-rtp"));

#define gst_donar_jitter_buffer_parent_class parent_class
G_DEFINE_TYPE (GstDonarJitterBuffer, gst_donar_jitter_buffer, GST_TYPE_BIN);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (donarjitterbuffer, "donarjitterbuffer",
    GST_RANK_NONE, GST_TYPE_DONAR_JITTER_BUFFER,
    GST_DEBUG_CATEGORY_INIT (gst_donar_jitter_buffer_debug,
        "donarjitterbuffer", 0, "DONAR adaptive jitter buffer"));

static void gst_donar_jitter_buffer_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_donar_jitter_buffer_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_donar_jitter_buffer_finalize (GObject * object);
static GstStateChangeReturn gst_donar_jitter_buffer_change_state (GstElement *
    element, GstStateChange transition);
static GstPadProbeReturn gst_donar_jitter_buffer_sink_probe (GstPad * pad,
    GstPadProbeInfo * info, gpointer user_data);
static GstPadProbeReturn gst_donar_jitter_buffer_src_probe (GstPad * pad,
    GstPadProbeInfo * info, gpointer user_data);
static gboolean gst_donar_jitter_buffer_sink_query (GstPad * pad,
    GstObject * parent, GstQuery * query);
static void update_base_delay (GstDonarJitterBuffer * self);

static void
gst_donar_jitter_buffer_class_init (GstDonarJitterBufferClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_donar_jitter_buffer_set_property;
  gobject_class->get_property = gst_donar_jitter_buffer_get_property;
  gobject_class->finalize = gst_donar_jitter_buffer_finalize;

  /**
   * GstDonarJitterBuffer:adaptive:
   *
   * Tune the latency while the call runs (%TRUE, the default), or keep the
   * static #GstDonarJitterBuffer:latency like a plain rtpjitterbuffer.
   */
  g_object_class_install_property (gobject_class, PROP_ADAPTIVE,
      g_param_spec_boolean ("adaptive", "Adaptive",
          "Tune the latency from the observed delays; FALSE keeps the "
          "static latency", DEFAULT_ADAPTIVE, flags));

  /**
   * GstDonarJitterBuffer:latency:
   *
   * The static latency in ms, used when #GstDonarJitterBuffer:adaptive is
   * %FALSE (default 200 ms, rtpjitterbuffer's).  The latency in force is
   * in #GstDonarJitterBuffer:stats.
   */
  g_object_class_install_property (gobject_class, PROP_LATENCY,
      g_param_spec_uint ("latency", "Static latency",
          "Latency (ms) when adaptive is FALSE; the latency in force is in "
          "stats", 0, G_MAXUINT, DEFAULT_LATENCY, flags));

  /**
   * GstDonarJitterBuffer:target-share:
   *
   * The share of the frames of the window that the chosen latency would
   * have played on time (default 0.99: seed 000's successful call plays
   * 99 % of its frames within the deadline).
   */
  g_object_class_install_property (gobject_class, PROP_TARGET_SHARE,
      g_param_spec_double ("target-share", "Target share",
          "Share of the recent frames the latency would have played on time",
          0.5, 1.0, DEFAULT_TARGET_SHARE, flags));

  /**
   * GstDonarJitterBuffer:window:
   *
   * The frames of the last this many seconds are those the target share is
   * of (default 10 s: 250 frames of 40 ms; the delay that plays 99 % of
   * them is the 3rd largest).
   */
  g_object_class_install_property (gobject_class, PROP_WINDOW,
      g_param_spec_uint ("window", "Window",
          "Seconds of recent frames the latency is chosen from", 1, 3600,
          DEFAULT_WINDOW, flags));

  /**
   * GstDonarJitterBuffer:margin:
   *
   * Added to the delay that plays the target share, in ms (default 10 ms,
   * a quarter of a frame).
   */
  g_object_class_install_property (gobject_class, PROP_MARGIN,
      g_param_spec_uint ("margin", "Margin",
          "Safety margin (ms) above the delay that plays the target share",
          0, 10000, DEFAULT_MARGIN, flags));

  /**
   * GstDonarJitterBuffer:shrink-rate:
   *
   * How fast the latency may come down, in ms per second (default 2 ms/s:
   * 0.2 % of playback time, and a 100-ms rise is undone in 50 s); it goes
   * up at once.  0: it never comes down.
   */
  g_object_class_install_property (gobject_class, PROP_SHRINK_RATE,
      g_param_spec_uint ("shrink-rate", "Shrink rate",
          "How fast the latency may come down (ms per s); it goes up at once",
          0, 1000, DEFAULT_SHRINK_RATE, flags));

  /**
   * GstDonarJitterBuffer:min-latency:
   *
   * The least playout delay above the fastest recent frames, in ms
   * (default 20 ms).
   */
  g_object_class_install_property (gobject_class, PROP_MIN_LATENCY,
      g_param_spec_uint ("min-latency", "Minimum latency",
          "Least playout delay (ms) above the fastest recent frames", 0,
          10000, DEFAULT_MIN_LATENCY, flags));

  /**
   * GstDonarJitterBuffer:max-latency:
   *
   * The largest playout delay above the fastest recent frames, in ms
   * (default 1000 ms: a frame later than 1 s counts as missing).
   */
  g_object_class_install_property (gobject_class, PROP_MAX_LATENCY,
      g_param_spec_uint ("max-latency", "Maximum latency",
          "Largest playout delay (ms) above the fastest recent frames", 0,
          10000, DEFAULT_MAX_LATENCY, flags));

  /**
   * GstDonarJitterBuffer:deadline:
   *
   * The one-way delay budget in ms (default 360 ms: 400 ms mouth to ear
   * minus a 40-ms frame).  With #GstDonarJitterBuffer:base-delay known, the
   * playout delay never goes past it; without, the latency never does (the
   * element cannot tell the network delay from the clock offset).  0: no
   * deadline.
   */
  g_object_class_install_property (gobject_class, PROP_DEADLINE,
      g_param_spec_uint ("deadline", "Deadline",
          "One-way delay budget (ms); 0: none", 0, 10000, DEFAULT_DEADLINE,
          flags));

  /**
   * GstDonarJitterBuffer:base-delay:
   *
   * The absolute one-way delay of the fastest recent frames in ms, if the
   * application knows it (half the round-trip time of the path, or 0 with
   * synchronized clocks); -1 (the default) if not: then donarsrc's
   * estimate (the `donar-base-delay` event) is used once the observed
   * delays agree with it, and never if they contradict it (the stats'
   * `base-delay-rejected`).  The property is the application's word: it
   * is not checked.
   */
  g_object_class_install_property (gobject_class, PROP_BASE_DELAY,
      g_param_spec_int ("base-delay", "Base delay",
          "One-way network delay (ms) of the fastest frames, -1 if unknown",
          -1, 100000, DEFAULT_BASE_DELAY, flags));

  /**
   * GstDonarJitterBuffer:stats:
   *
   * A #GstStructure `application/x-donar-jitterbuffer-stats`:
   *
   * * `latency` (#guint): the latency of rtpjitterbuffer in force, ms
   * * `target` (#gdouble): the playout delay above the fastest recent
   *   frames that the estimator aims at, ms
   * * `quantile` (#gdouble): the delay above them that plays the target
   *   share of the window, ms
   * * `timeline-offset` (#gdouble): how far rtpjitterbuffer's timeline is
   *   above the fastest recent frames, ms (the latency is the target minus
   *   it)
   * * `adaptive` (#gboolean), `limited` (#gboolean): the target is held
   *   down by max-latency or the deadline
   * * `frames` (#guint64): RTP packets in
   * * `late` (#guint64): of those, arrived after their playout time
   * * `late-share` (#gdouble): late / frames
   * * `lost` (#guint64): frames rtpjitterbuffer gave up on (lost events
   *   sent downstream, concealed by the decoder)
   * * `jitterbuffer-late` (#guint64): packets rtpjitterbuffer dropped as
   *   too late
   * * `pushed` (#guint64): packets rtpjitterbuffer pushed
   * * `window-frames` (#guint): frames in the window
   * * `base-delay` (#gdouble): the base delay in force, ms; -1: none
   * * `base-delay-from-upstream` (#gboolean): it is donarsrc's estimate
   * * `base-delay-upstream` (#gdouble): donarsrc's estimate, ms, whether
   *   in force or not; -1: none came
   * * `base-delay-rejected` (#gboolean): the observed delays contradicted
   *   donarsrc's estimate (it puts most recent frames past the deadline),
   *   and the element goes on without it
   * * `quality-r`, `quality-mos` (#gdouble), `quality-rating` (#gchararray),
   *   `quality-mouth-to-ear-ms`, `quality-loss-percent` (#gdouble),
   *   `quality-window-ms` (#guint): the latest `donar-quality` message's
   *   figures (0 and "" before the first)
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "latency, target, quantile, timeline-offset (ms); adaptive, "
          "limited; frames, late, late-share, lost, jitterbuffer-late, "
          "pushed, window-frames; base-delay, base-delay-from-upstream, "
          "base-delay-upstream, base-delay-rejected; quality-r, quality-mos, "
          "quality-rating, quality-mouth-to-ear-ms, quality-loss-percent, "
          "quality-window-ms", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "DONAR jitter buffer", "Filter/Network/RTP",
      "rtpjitterbuffer whose latency follows the observed delays: the least "
      "that plays a target share of the frames within the deadline",
      GST_DONAR_AUTHOR);

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_donar_jitter_buffer_change_state);
  /* No clock of its own to offer: see gst_donar_jitter_buffer_init (). */
  element_class->provide_clock = NULL;
}

/* The estimator's config from the properties; under the object lock. */
static void
sanitized_config (GstDonarJitterBuffer * self, DonarPlayoutConfig * config)
{
  *config = self->config;
  /* Properties are set one at a time: min may pass max for a moment. */
  config->max_us = MAX (config->max_us, config->min_us);
}

static void
reset_stream (GstDonarJitterBuffer * self)
{
  GST_OBJECT_LOCK (self);
  donar_playout_reset (self->playout);
  donar_quality_reset (self->quality);
  self->frame_us = 0;
  for (guint i = 0; i < LOST_SEQNUMS; i++)
    self->lost_seqnums[i] = NO_SEQNUM;
  self->next_lost_seqnum = 0;
  self->have_delay = FALSE;
  self->have_timeline = FALSE;
  self->lower_since_us = self->last_rise_us = 0;
  self->headroom = 0;
  GST_OBJECT_UNLOCK (self);
  self->in_ext_ts = GST_CLOCK_TIME_NONE;
  self->have_ssrc = FALSE;
}

static void
gst_donar_jitter_buffer_init (GstDonarJitterBuffer * self)
{
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (self);
  GstPad *target;
  DonarPlayoutConfig config;
  DonarQualityConfig quality_config;

  g_mutex_init (&self->latency_lock);
  self->adaptive = DEFAULT_ADAPTIVE;
  self->latency = DEFAULT_LATENCY;
  self->base_delay = DEFAULT_BASE_DELAY;
  self->upstream_base_delay_us = -1;
  self->upstream_verdict = DONAR_BASE_CHECK_PENDING;
  donar_playout_config_init (&self->config);
  sanitized_config (self, &config);
  self->playout = donar_playout_new (&config);
  donar_quality_config_init (&quality_config);
  self->quality = donar_quality_new (&quality_config);
  self->clock_rate = -1;
  self->out_clock_rate = -1;
  self->in_ext_ts = GST_CLOCK_TIME_NONE;
  self->out_ext_ts = GST_CLOCK_TIME_NONE;
  gst_segment_init (&self->in_segment, GST_FORMAT_UNDEFINED);
  gst_segment_init (&self->out_segment, GST_FORMAT_UNDEFINED);

  self->jitterbuffer = gst_element_factory_make ("rtpjitterbuffer",
      "jitterbuffer");
  if (self->jitterbuffer == NULL) {
    /* Reported when going to READY. */
    GST_ERROR_OBJECT (self, "no rtpjitterbuffer (gst-plugins-good)");
    return;
  }
  self->applied_latency = DEFAULT_LATENCY;
  /* Lost events: opusdec conceals the frames that did not come in time.
   * Slave mode: a live source stamps packets at arrival, and slave maps
   * the sender's RTP clock onto them (its skew estimate is a smoothed
   * minimum of the transit time), following the sender's clock drift over
   * a long call; "none" would stamp from RTP time alone, "synced" assumes
   * the clocks agree. */
  g_object_set (self->jitterbuffer, "do-lost", TRUE, "latency",
      self->applied_latency, NULL);
  gst_util_set_object_arg (G_OBJECT (self->jitterbuffer), "mode", "slave");
  gst_bin_add (GST_BIN (self), self->jitterbuffer);
  /* The bin took GST_ELEMENT_FLAG_PROVIDE_CLOCK from rtpjitterbuffer, which
   * offers the system clock, the pipeline's default anyway; gst-inspect-1.0
   * then said "element is supposed to provide a clock but returned NULL".
   * A filter in the middle has no clock of its own: the pipeline takes an
   * audio device's (the sink's, the capture's) or the system clock, and the
   * element, which works from running times, needs none in particular. */
  GST_OBJECT_FLAG_UNSET (self, GST_ELEMENT_FLAG_PROVIDE_CLOCK);

  target = gst_element_get_static_pad (self->jitterbuffer, "sink");
  self->sinkpad = gst_ghost_pad_new_from_template ("sink", target,
      gst_element_class_get_pad_template (klass, "sink"));
  gst_object_unref (target);
  gst_pad_set_query_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_donar_jitter_buffer_sink_query));
  gst_pad_add_probe (self->sinkpad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
      GST_PAD_PROBE_TYPE_EVENT_FLUSH, gst_donar_jitter_buffer_sink_probe,
      self, NULL);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  target = gst_element_get_static_pad (self->jitterbuffer, "src");
  gst_pad_add_probe (target, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
      GST_PAD_PROBE_TYPE_EVENT_FLUSH, gst_donar_jitter_buffer_src_probe,
      self, NULL);
  self->srcpad = gst_ghost_pad_new_from_template ("src", target,
      gst_element_class_get_pad_template (klass, "src"));
  gst_object_unref (target);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}

static void
gst_donar_jitter_buffer_finalize (GObject * object)
{
  GstDonarJitterBuffer *self = GST_DONAR_JITTER_BUFFER (object);

  donar_playout_free (self->playout);
  donar_quality_free (self->quality);
  g_mutex_clear (&self->latency_lock);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* The ghost sink pad would take whatever rtpjitterbuffer takes; the
 * estimator needs the clock-rate in the caps (the sink template). */
static gboolean
gst_donar_jitter_buffer_sink_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_ACCEPT_CAPS:{
      GstCaps *caps, *templ = gst_pad_get_pad_template_caps (pad);
      gboolean ok;

      gst_query_parse_accept_caps (query, &caps);
      ok = gst_caps_is_subset (caps, templ);
      gst_caps_unref (templ);
      if (!ok) {
        GST_DEBUG_OBJECT (pad, "refusing %" GST_PTR_FORMAT, caps);
        gst_query_set_accept_caps_result (query, FALSE);
        return TRUE;
      }
      break;
    }
    case GST_QUERY_CAPS:{
      GstCaps *caps, *templ;

      if (!gst_pad_query_default (pad, parent, query))
        return FALSE;
      gst_query_parse_caps_result (query, &caps);
      templ = gst_pad_get_pad_template_caps (pad);
      caps = gst_caps_intersect_full (templ, caps, GST_CAPS_INTERSECT_FIRST);
      gst_query_set_caps_result (query, caps);
      gst_caps_unref (caps);
      gst_caps_unref (templ);
      return TRUE;
    }
    default:
      break;
  }
  return gst_pad_query_default (pad, parent, query);
}

/* Each change of rtpjitterbuffer's latency posts a latency message, on
 * which every pipeline recalculates its latency and moves its sink's
 * playout.  At 1 ms a change the element posted 30 to 38 in a 12-s call
 * over donar-torsim: the estimator's climb over the first seconds (each
 * new slowest frame), and above all rtpjitterbuffer's re-basing of its
 * timeline after a late packet, which the latency followed down (to 0) and
 * back up, millisecond by millisecond, while the timeline settled again
 * over its 2-s window.  So the adaptive latency moves on a grid of
 * LATENCY_STEP_MS (the estimator's margin), up at once (every millisecond
 * short is late frames) and down only once it has wanted to for
 * LATENCY_LOWER_HOLD_US: a lower latency can wait, and a re-based timeline
 * comes back within that.  A rise within LATENCY_RISE_BURST_US of the last
 * one is part of a climb (the first seconds, a timeline settling): it goes
 * a step further than the one before, up to LATENCY_MAX_HEADROOM_MS above
 * what is wanted, so that a climb takes a few messages, not one a step;
 * the headroom comes down with the next lowering. */
#define LATENCY_STEP_MS 10
#define LATENCY_LOWER_HOLD_US (2 * G_USEC_PER_SEC)
#define LATENCY_RISE_BURST_US (G_USEC_PER_SEC)
#define LATENCY_MAX_HEADROOM_MS 40

/* Under the object lock: the latency to tell rtpjitterbuffer when the
 * estimator wants `want` ms, never below it; at now_us, the arrival time of
 * a frame, or -1 for a change that is not the stream's (a property, the
 * start): then at once, to the grid line. */
static guint
latency_on_grid (GstDonarJitterBuffer * self, guint want, gint64 now_us)
{
  guint line = (want + LATENCY_STEP_MS - 1) / LATENCY_STEP_MS * LATENCY_STEP_MS;

  if (now_us < 0) {
    self->lower_since_us = self->last_rise_us = 0;
    self->headroom = 0;
    return line;
  }
  if (want > self->applied_latency) {
    self->lower_since_us = 0;
    if (self->last_rise_us != 0 &&
        now_us - self->last_rise_us < LATENCY_RISE_BURST_US)
      self->headroom = MIN (self->headroom + LATENCY_STEP_MS,
          LATENCY_MAX_HEADROOM_MS);
    else
      self->headroom = 0;
    self->last_rise_us = now_us;
    return line + self->headroom;
  }
  if (line >= self->applied_latency) {
    self->lower_since_us = 0;
    return self->applied_latency;
  }
  if (self->lower_since_us == 0)
    self->lower_since_us = now_us;
  if (now_us - self->lower_since_us < LATENCY_LOWER_HOLD_US)
    return self->applied_latency;
  self->lower_since_us = 0;
  self->headroom = 0;
  return line;
}

/* Works out the latency rtpjitterbuffer should have and tells it if it
 * changed.  In adaptive mode: the playout offset of the estimator minus
 * rtpjitterbuffer's own timeline (or the target, before it has one), on
 * the grid. */
static void
update_latency (GstDonarJitterBuffer * self, gint64 now_us)
{
  guint latency;
  gboolean changed;

  if (self->jitterbuffer == NULL)
    return;

  g_mutex_lock (&self->latency_lock);
  GST_OBJECT_LOCK (self);
  if (self->adaptive) {
    gint64 offset, latency_us;
    DonarPlayoutStats st;

    donar_playout_get_stats (self->playout, &st);
    if (donar_playout_get_offset (self->playout, &offset) &&
        self->have_timeline)
      latency_us = offset - self->timeline_us;
    else
      latency_us = st.target_us;
    latency = latency_on_grid (self,
        (guint) ((MAX (latency_us, 0) + 999) / 1000), now_us);
  } else {
    latency = self->latency;
  }
  changed = latency != self->applied_latency;
  self->applied_latency = latency;
  GST_OBJECT_UNLOCK (self);

  if (changed) {
    GST_DEBUG_OBJECT (self, "latency %u ms", latency);
    g_object_set (self->jitterbuffer, "latency", latency, NULL);
  }
  g_mutex_unlock (&self->latency_lock);
}

/* The send time (µs) of an RTP timestamp, extended over wraparounds. */
static gint64
send_time_us (guint64 * ext_ts, guint32 rtptime, gint clock_rate)
{
  guint64 ext = gst_rtp_buffer_ext_timestamp (ext_ts, rtptime);

  return (gint64) gst_util_uint64_scale_int (ext, G_USEC_PER_SEC, clock_rate);
}

static gboolean
read_rtp (GstBuffer * buffer, guint32 * rtptime, guint32 * ssrc, guint16 * seq)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  if (!gst_rtp_buffer_map (buffer, GST_MAP_READ, &rtp))
    return FALSE;
  *rtptime = gst_rtp_buffer_get_timestamp (&rtp);
  *ssrc = gst_rtp_buffer_get_ssrc (&rtp);
  *seq = gst_rtp_buffer_get_seq (&rtp);
  gst_rtp_buffer_unmap (&rtp);
  return TRUE;
}

/* The arrival (running time, µs) of a buffer: its DTS, else its PTS (as
 * rtpjitterbuffer takes it), else the clock now. */
static gboolean
arrival_time_us (GstDonarJitterBuffer * self, GstBuffer * buffer,
    gint64 * arrival_us)
{
  GstClockTime time = GST_BUFFER_DTS_OR_PTS (buffer), running;

  if (GST_CLOCK_TIME_IS_VALID (time) &&
      self->in_segment.format == GST_FORMAT_TIME) {
    running = gst_segment_to_running_time (&self->in_segment,
        GST_FORMAT_TIME, time);
  } else {
    GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));

    if (clock == NULL)
      return FALSE;
    running = gst_clock_get_time (clock);
    gst_object_unref (clock);
    time = gst_element_get_base_time (GST_ELEMENT (self));
    running = running > time ? running - time : 0;
  }
  if (!GST_CLOCK_TIME_IS_VALID (running))
    return FALSE;
  *arrival_us = (gint64) (running / GST_USECOND);
  return TRUE;
}

/* The running time now on the element's clock, µs; FALSE without a clock
 * (not PLAYING).  Not under the object lock. */
static gboolean
running_now_us (GstDonarJitterBuffer * self, gint64 * now_us)
{
  GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));
  GstClockTime now, base;

  if (clock == NULL)
    return FALSE;
  now = gst_clock_get_time (clock);
  gst_object_unref (clock);
  base = gst_element_get_base_time (GST_ELEMENT (self));
  *now_us = now > base ? (gint64) ((now - base) / GST_USECOND) : 0;
  return TRUE;
}

static gint64 effective_base_delay_us (GstDonarJitterBuffer * self);

/* Under the object lock: the mouth-to-ear delay of a frame played now, µs.
 * The one-way delay of the fastest frames (the base delay in force, 0 if
 * unknown: then a lower bound), the playout delay above them
 * (rtpjitterbuffer's timeline above the base plus its latency; before the
 * timeline is known, what the latency was set from), and one frame: its
 * first sample waits that long in the sender before the frame is sent.
 * The decoder's and the sound card's buffers are not in it, as in
 * qscore.py's mouth_to_ear_ms. */
static gint64
mouth_to_ear_us (GstDonarJitterBuffer * self)
{
  DonarPlayoutStats st;
  gint64 playout;

  donar_playout_get_stats (self->playout, &st);
  if (self->have_timeline)
    playout = self->timeline_us - st.base_us +
        self->applied_latency * (gint64) 1000;
  else if (self->adaptive)
    playout = st.target_us;
  else
    playout = self->applied_latency * (gint64) 1000;
  return MAX (effective_base_delay_us (self), 0) + MAX (playout, 0) +
      self->frame_us;
}

/* Posts the report if one is due at now_us.  The report is made under the
 * object lock and posted after it: a bus sync handler runs in this thread
 * and may call back into the element (its stats). */
static void
update_quality (GstDonarJitterBuffer * self, gint64 now_us)
{
  DonarQualityReport r;
  gboolean due, base_known;

  GST_OBJECT_LOCK (self);
  due = donar_quality_handle_expiry (self->quality, now_us, &r);
  base_known = effective_base_delay_us (self) >= 0;
  GST_OBJECT_UNLOCK (self);
  if (!due)
    return;
  GST_DEBUG_OBJECT (self, "quality: R %.1f, MOS %.2f, %s; %.0f ms mouth to "
      "ear, %.1f %% lost or late", r.r, r.mos,
      donar_quality_rating_name (r.rating), r.mouth_to_ear_ms, r.loss_percent);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("donar-quality",
              "r", G_TYPE_DOUBLE, r.r,
              "mos", G_TYPE_DOUBLE, r.mos,
              "rating", G_TYPE_STRING, donar_quality_rating_name (r.rating),
              "mouth-to-ear-ms", G_TYPE_DOUBLE, r.mouth_to_ear_ms,
              "loss-percent", G_TYPE_DOUBLE, r.loss_percent,
              "window-ms", G_TYPE_UINT, (guint) (r.window_us / 1000),
              "played", G_TYPE_UINT, r.played,
              "lost", G_TYPE_UINT, r.lost,
              "late", G_TYPE_UINT, r.late,
              "base-delay-known", G_TYPE_BOOLEAN, base_known, NULL)));
}

/* Under the object lock: a packet in that rtpjitterbuffer gave up on came
 * after all, too late to be played. */
static void
check_lost_arrival (GstDonarJitterBuffer * self, guint16 seq)
{
  for (guint i = 0; i < LOST_SEQNUMS; i++) {
    if (self->lost_seqnums[i] == seq) {
      GST_LOG_OBJECT (self, "seqnum %u, given up on, came late", seq);
      self->lost_seqnums[i] = NO_SEQNUM;
      donar_quality_lost_was_late (self->quality);
      return;
    }
  }
}

static void
handle_buffer (GstDonarJitterBuffer * self, GstBuffer * buffer)
{
  guint32 rtptime, ssrc;
  guint16 seq;
  gint64 send_us, arrival_us, delay_us, now_us;
  gboolean late;

  if (self->clock_rate <= 0 || !read_rtp (buffer, &rtptime, &ssrc, &seq) ||
      !arrival_time_us (self, buffer, &arrival_us))
    return;

  if (self->have_ssrc && ssrc != self->ssrc) {
    GST_INFO_OBJECT (self, "new SSRC %08x: starting over", ssrc);
    reset_stream (self);
  }
  self->have_ssrc = TRUE;
  self->ssrc = ssrc;

  send_us = send_time_us (&self->in_ext_ts, rtptime, self->clock_rate);
  delay_us = arrival_us - send_us;

  GST_OBJECT_LOCK (self);
  if (self->have_delay && ABS (delay_us - self->last_delay_us) > RESYNC_US) {
    GST_INFO_OBJECT (self, "RTP time jumped: starting over");
    donar_playout_reset (self->playout);
    self->have_timeline = FALSE;
  }
  self->have_delay = TRUE;
  self->last_delay_us = delay_us;

  late = donar_playout_push (self->playout, send_us, arrival_us);
  self->frames++;
  check_lost_arrival (self, seq);
  if (!self->adaptive) {
    DonarPlayoutStats st;
    gint64 timeline;

    /* Late against the static playout: rtpjitterbuffer's timeline (or the
     * base) plus the latency. */
    donar_playout_get_stats (self->playout, &st);
    timeline = self->have_timeline ? self->timeline_us : st.base_us;
    late = delay_us > timeline + (gint64) self->latency * 1000;
    self->static_late += late;
  }
  GST_OBJECT_UNLOCK (self);

  if (late)
    GST_LOG_OBJECT (self, "late frame, RTP time %u, delay %" G_GINT64_FORMAT
        " us", rtptime, delay_us);
  else
    GST_TRACE_OBJECT (self, "frame, RTP time %u, delay %" G_GINT64_FORMAT
        " us", rtptime, delay_us);
  update_base_delay (self);
  update_latency (self, arrival_us);
  /* Also here, so that the reports go on while rtpjitterbuffer waits for a
   * gap to fill and pushes nothing. */
  if (running_now_us (self, &now_us))
    update_quality (self, now_us);
}

static gboolean
handle_buffer_in_list (GstBuffer ** buffer, guint idx, gpointer user_data)
{
  handle_buffer (GST_DONAR_JITTER_BUFFER (user_data), *buffer);
  return TRUE;
}

/* The property if set, else what donarsrc said once the observed delays
 * agreed with it, else unknown; under the object lock. */
static gint64
effective_base_delay_us (GstDonarJitterBuffer * self)
{
  if (self->base_delay >= 0)
    return self->base_delay * (gint64) 1000;
  if (self->upstream_base_delay_us >= 0 &&
      self->upstream_verdict == DONAR_BASE_CHECK_AGREES)
    return self->upstream_base_delay_us;
  return DONAR_PLAYOUT_UNKNOWN;
}

/* Judges donarsrc's base delay against the window (unless the property
 * overrides it, or it is rejected already), and hands the estimator the
 * base delay in force.  Under the object lock; TRUE if it has just been
 * rejected (the caller says so, outside the lock), *check telling why. */
static gboolean
check_upstream_base_delay (GstDonarJitterBuffer * self, DonarBaseCheck * check)
{
  gboolean rejected = FALSE;

  if (self->base_delay < 0 && self->upstream_base_delay_us >= 0 &&
      self->upstream_verdict != DONAR_BASE_CHECK_CONTRADICTED) {
    donar_base_check (self->playout, self->upstream_base_delay_us, check);
    /* Pending after agreeing: the window emptied (a new stream); the
     * value stays in force. */
    if (check->verdict != DONAR_BASE_CHECK_PENDING)
      self->upstream_verdict = check->verdict;
    rejected = check->verdict == DONAR_BASE_CHECK_CONTRADICTED;
  }
  donar_playout_set_base_delay (self->playout, effective_base_delay_us (self));
  return rejected;
}

/* Once per value rejected: in the debug log, and as an element message
 * for the application. */
static void
say_base_delay_rejected (GstDonarJitterBuffer * self, gint64 base_delay_us,
    const DonarBaseCheck * check, gint64 deadline_us)
{
  GST_WARNING_OBJECT (self, "base delay from upstream rejected: %"
      G_GINT64_FORMAT " ms puts %u of the last %u frames past the %"
      G_GINT64_FORMAT "-ms deadline; going on without it", base_delay_us /
      1000, check->past_deadline, check->frames, deadline_us / 1000);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("donar-base-delay-rejected",
              "base-delay", G_TYPE_DOUBLE, base_delay_us / 1000.0,
              "frames", G_TYPE_UINT, check->frames,
              "past-deadline", G_TYPE_UINT, check->past_deadline,
              "deadline", G_TYPE_UINT, (guint) (deadline_us / 1000), NULL)));
}

/* The base delay after a frame or a new value; under no lock. */
static void
update_base_delay (GstDonarJitterBuffer * self)
{
  DonarBaseCheck check;
  DonarPlayoutConfig config;
  gboolean rejected;
  gint64 base;

  GST_OBJECT_LOCK (self);
  rejected = check_upstream_base_delay (self, &check);
  base = self->upstream_base_delay_us;
  config = self->config;
  GST_OBJECT_UNLOCK (self);
  if (rejected)
    say_base_delay_rejected (self, base, &check, config.deadline_us);
}

/* donarsrc's estimate of the base delay: half the least round trip of its
 * links (docs/jitterbuffer.md, "The base delay"). */
static void
handle_base_delay_event (GstDonarJitterBuffer * self, GstEvent * event)
{
  const GstStructure *s = gst_event_get_structure (event);
  guint64 base;

  if (s == NULL || !gst_structure_has_name (s, "donar-base-delay") ||
      !gst_structure_get_uint64 (s, "base-delay", &base))
    return;
  GST_OBJECT_LOCK (self);
  /* A sticky event comes again with each new stream: only a new value is
   * judged anew. */
  if ((gint64) (base / GST_USECOND) != self->upstream_base_delay_us) {
    self->upstream_base_delay_us = (gint64) (base / GST_USECOND);
    self->upstream_verdict = DONAR_BASE_CHECK_PENDING;
  }
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "base delay from upstream: %" G_GUINT64_FORMAT
      " µs", base / GST_USECOND);
  update_base_delay (self);
}

static void
handle_sink_event (GstDonarJitterBuffer * self, GstEvent * event)
{
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CUSTOM_DOWNSTREAM_STICKY:
      handle_base_delay_event (self, event);
      break;
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      gint rate = -1;

      gst_event_parse_caps (event, &caps);
      if (!gst_structure_get_int (gst_caps_get_structure (caps, 0),
              "clock-rate", &rate))
        rate = -1;
      if (rate != self->clock_rate) {
        GST_DEBUG_OBJECT (self, "clock-rate %d", rate);
        self->clock_rate = rate;
        reset_stream (self);
      }
      break;
    }
    case GST_EVENT_SEGMENT:
      gst_event_copy_segment (event, &self->in_segment);
      break;
    case GST_EVENT_STREAM_START:
    case GST_EVENT_FLUSH_STOP:
      reset_stream (self);
      break;
    default:
      break;
  }
}

/* RTCP muxed into the RTP (RFC 5761: from a peer's rtpbin, when no
 * donarrtcpdemux took it out) goes no further.  GStreamer's RTP validation
 * refuses an SR or an RR (second byte 200, 201), but not feedback alone
 * (reduced-size RTCP: a NACK reads as RTP, payload type 77), whose SSRC
 * would make the playout estimator start over. */
static gboolean
buffer_is_rtcp (GstBuffer * buffer)
{
  guint8 head[2];

  return gst_buffer_extract (buffer, 0, head, 2) == 2 &&
      gst_donar_is_rtcp (head, 2);
}

static gboolean
drop_rtcp_in_list (GstBuffer ** buffer, guint idx, gpointer user_data)
{
  if (buffer_is_rtcp (*buffer))
    gst_clear_buffer (buffer);
  return TRUE;
}

static GstPadProbeReturn
gst_donar_jitter_buffer_sink_probe (GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  GstDonarJitterBuffer *self = GST_DONAR_JITTER_BUFFER (user_data);

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    if (buffer_is_rtcp (GST_PAD_PROBE_INFO_BUFFER (info))) {
      GST_LOG_OBJECT (self, "RTCP muxed in the RTP: dropped");
      return GST_PAD_PROBE_DROP;
    }
    handle_buffer (self, GST_PAD_PROBE_INFO_BUFFER (info));
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *list = GST_PAD_PROBE_INFO_BUFFER_LIST (info);

    list = gst_buffer_list_make_writable (list);
    GST_PAD_PROBE_INFO_DATA (info) = list;
    gst_buffer_list_foreach (list, drop_rtcp_in_list, self);
    gst_buffer_list_foreach (list, handle_buffer_in_list, self);
  } else if (info->type & GST_PAD_PROBE_TYPE_EVENT_BOTH)
    handle_sink_event (self, GST_PAD_PROBE_INFO_EVENT (info));
  return GST_PAD_PROBE_OK;
}

/* A frame played: its fate for the quality estimate. */
static void
played_frame (GstDonarJitterBuffer * self, gint64 frame_us)
{
  gint64 now_us;

  if (!running_now_us (self, &now_us))
    return;
  GST_OBJECT_LOCK (self);
  if (frame_us > 0)
    self->frame_us = frame_us;
  donar_quality_push (self->quality, now_us, DONAR_QUALITY_PLAYED,
      mouth_to_ear_us (self));
  GST_OBJECT_UNLOCK (self);
  update_quality (self, now_us);
}

/* rtpjitterbuffer's output: where its timeline is (PTS - send time), and a
 * frame played. */
static void
handle_output (GstDonarJitterBuffer * self, GstBuffer * buffer)
{
  guint32 rtptime, ssrc;
  guint16 seq;
  GstClockTime running;
  gint64 timeline_us, frame_us = 0;

  if (!read_rtp (buffer, &rtptime, &ssrc, &seq))
    return;
  /* Consecutive packets: the second's timestamp is one frame on. */
  if (self->out_clock_rate > 0 && self->have_out_seq &&
      seq == (guint16) (self->out_seq + 1) && rtptime > self->out_rtptime &&
      rtptime - self->out_rtptime <= (guint32) self->out_clock_rate)
    frame_us = gst_util_uint64_scale_int (rtptime - self->out_rtptime,
        G_USEC_PER_SEC, self->out_clock_rate);
  self->have_out_seq = TRUE;
  self->out_seq = seq;
  self->out_rtptime = rtptime;

  if (self->out_clock_rate > 0 && GST_BUFFER_PTS_IS_VALID (buffer) &&
      self->out_segment.format == GST_FORMAT_TIME) {
    running = gst_segment_to_running_time (&self->out_segment,
        GST_FORMAT_TIME, GST_BUFFER_PTS (buffer));
    if (GST_CLOCK_TIME_IS_VALID (running)) {
      timeline_us = (gint64) (running / GST_USECOND) -
          send_time_us (&self->out_ext_ts, rtptime, self->out_clock_rate);
      GST_OBJECT_LOCK (self);
      self->timeline_us = timeline_us;
      self->have_timeline = TRUE;
      GST_OBJECT_UNLOCK (self);
    }
  }
  played_frame (self, frame_us);
}

/* rtpjitterbuffer gave up on one frame or more (a GstRTPPacketLost event;
 * one event may stand for a run of them, its duration theirs): they are
 * concealed downstream. */
static void
handle_lost (GstDonarJitterBuffer * self, const GstStructure * s)
{
  guint seqnum = 0, n = 1;
  gboolean have_seqnum;
  guint64 duration = GST_CLOCK_TIME_NONE;
  gint64 now_us, m2e_us;

  have_seqnum = gst_structure_get_uint (s, "seqnum", &seqnum);
  gst_structure_get_uint64 (s, "duration", &duration);
  if (!running_now_us (self, &now_us))
    return;
  GST_OBJECT_LOCK (self);
  if (self->frame_us > 0 && GST_CLOCK_TIME_IS_VALID (duration))
    n = CLAMP (((gint64) (duration / GST_USECOND) + self->frame_us / 2) /
        self->frame_us, 1, DONAR_QUALITY_MAX_FRAMES);
  m2e_us = mouth_to_ear_us (self);
  GST_LOG_OBJECT (self, "%u frames lost from seqnum %u", n, seqnum);
  for (guint i = 0; i < n; i++) {
    donar_quality_push (self->quality, now_us, DONAR_QUALITY_LOST, m2e_us);
    if (have_seqnum) {
      self->lost_seqnums[self->next_lost_seqnum] = (guint16) (seqnum + i);
      self->next_lost_seqnum = (self->next_lost_seqnum + 1) % LOST_SEQNUMS;
    }
  }
  GST_OBJECT_UNLOCK (self);
  update_quality (self, now_us);
}

static gboolean
handle_output_in_list (GstBuffer ** buffer, guint idx, gpointer user_data)
{
  handle_output (GST_DONAR_JITTER_BUFFER (user_data), *buffer);
  return TRUE;
}

static GstPadProbeReturn
gst_donar_jitter_buffer_src_probe (GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  GstDonarJitterBuffer *self = GST_DONAR_JITTER_BUFFER (user_data);

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    handle_output (self, GST_PAD_PROBE_INFO_BUFFER (info));
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    gst_buffer_list_foreach (GST_PAD_PROBE_INFO_BUFFER_LIST (info),
        handle_output_in_list, self);
  } else if (info->type & GST_PAD_PROBE_TYPE_EVENT_BOTH) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);

    switch (GST_EVENT_TYPE (event)) {
      case GST_EVENT_CAPS:{
        GstCaps *caps;

        gst_event_parse_caps (event, &caps);
        if (!gst_structure_get_int (gst_caps_get_structure (caps, 0),
                "clock-rate", &self->out_clock_rate))
          self->out_clock_rate = -1;
        break;
      }
      case GST_EVENT_SEGMENT:
        gst_event_copy_segment (event, &self->out_segment);
        break;
      case GST_EVENT_CUSTOM_DOWNSTREAM:
        if (gst_event_has_name (event, "GstRTPPacketLost"))
          handle_lost (self, gst_event_get_structure (event));
        break;
      case GST_EVENT_STREAM_START:
      case GST_EVENT_FLUSH_STOP:
        self->out_ext_ts = GST_CLOCK_TIME_NONE;
        self->have_out_seq = FALSE;
        GST_OBJECT_LOCK (self);
        self->have_timeline = FALSE;
        GST_OBJECT_UNLOCK (self);
        break;
      default:
        break;
    }
  }
  return GST_PAD_PROBE_OK;
}

static GstStateChangeReturn
gst_donar_jitter_buffer_change_state (GstElement * element,
    GstStateChange transition)
{
  GstDonarJitterBuffer *self = GST_DONAR_JITTER_BUFFER (element);
  GstStateChangeReturn ret;

  switch (transition) {
    case GST_STATE_CHANGE_NULL_TO_READY:
      if (self->jitterbuffer == NULL) {
        GST_ELEMENT_ERROR (self, CORE, MISSING_PLUGIN,
            ("Missing element 'rtpjitterbuffer' (gst-plugins-good)"), (NULL));
        return GST_STATE_CHANGE_FAILURE;
      }
      break;
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      self->clock_rate = -1;
      self->out_clock_rate = -1;
      self->out_ext_ts = GST_CLOCK_TIME_NONE;
      self->have_out_seq = FALSE;
      gst_segment_init (&self->in_segment, GST_FORMAT_UNDEFINED);
      gst_segment_init (&self->out_segment, GST_FORMAT_UNDEFINED);
      reset_stream (self);
      GST_OBJECT_LOCK (self);
      self->frames = 0;
      self->static_late = 0;
      GST_OBJECT_UNLOCK (self);
      update_latency (self, -1);
      break;
    default:
      break;
  }

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  return ret;
}

static void
gst_donar_jitter_buffer_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstDonarJitterBuffer *self = GST_DONAR_JITTER_BUFFER (object);
  DonarPlayoutConfig config;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ADAPTIVE:
      self->adaptive = g_value_get_boolean (value);
      break;
    case PROP_LATENCY:
      self->latency = g_value_get_uint (value);
      break;
    case PROP_TARGET_SHARE:
      self->config.share = g_value_get_double (value);
      break;
    case PROP_WINDOW:
      self->config.window_us = g_value_get_uint (value) * G_USEC_PER_SEC;
      break;
    case PROP_MARGIN:
      self->config.margin_us = g_value_get_uint (value) * (gint64) 1000;
      break;
    case PROP_SHRINK_RATE:
      self->config.shrink_us_per_s = g_value_get_uint (value) * (gint64) 1000;
      break;
    case PROP_MIN_LATENCY:
      self->config.min_us = g_value_get_uint (value) * (gint64) 1000;
      break;
    case PROP_MAX_LATENCY:
      self->config.max_us = g_value_get_uint (value) * (gint64) 1000;
      break;
    case PROP_DEADLINE:
      self->config.deadline_us = g_value_get_uint (value) * (gint64) 1000;
      break;
    case PROP_BASE_DELAY:
      self->base_delay = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  sanitized_config (self, &config);
  donar_playout_set_config (self->playout, &config);
  GST_OBJECT_UNLOCK (self);

  /* Back to -1: donarsrc's value, judged if it was not yet.  A new
   * deadline is a new measure of the value in force: judged again. */
  if (prop_id == PROP_BASE_DELAY || prop_id == PROP_DEADLINE)
    update_base_delay (self);
  if (prop_id == PROP_ADAPTIVE || prop_id == PROP_LATENCY)
    update_latency (self, -1);
}

static GstStructure *
get_stats (GstDonarJitterBuffer * self)
{
  DonarPlayoutStats st;
  DonarQualityReport q;
  GstStructure *s, *jb = NULL;
  guint64 pushed = 0, lost = 0, jb_late = 0, late;
  gboolean adaptive, have_quality;
  guint latency;
  gint64 timeline;

  if (self->jitterbuffer)
    g_object_get (self->jitterbuffer, "stats", &jb, NULL);
  if (jb) {
    gst_structure_get_uint64 (jb, "num-pushed", &pushed);
    gst_structure_get_uint64 (jb, "num-lost", &lost);
    gst_structure_get_uint64 (jb, "num-late", &jb_late);
    gst_structure_free (jb);
  }

  GST_OBJECT_LOCK (self);
  donar_playout_get_stats (self->playout, &st);
  adaptive = self->adaptive;
  latency = self->applied_latency;
  late = adaptive ? st.late : self->static_late;
  timeline = self->have_timeline ? self->timeline_us - st.base_us : 0;
  s = gst_structure_new ("application/x-donar-jitterbuffer-stats",
      "latency", G_TYPE_UINT, latency,
      "target", G_TYPE_DOUBLE, st.target_us / 1000.0,
      "quantile", G_TYPE_DOUBLE, st.quantile_us / 1000.0,
      "timeline-offset", G_TYPE_DOUBLE, timeline / 1000.0,
      "adaptive", G_TYPE_BOOLEAN, adaptive,
      "limited", G_TYPE_BOOLEAN, st.limited,
      "frames", G_TYPE_UINT64, self->frames,
      "late", G_TYPE_UINT64, late,
      "late-share", G_TYPE_DOUBLE,
      self->frames ? (gdouble) late / self->frames : 0.0,
      "lost", G_TYPE_UINT64, lost,
      "jitterbuffer-late", G_TYPE_UINT64, jb_late,
      "pushed", G_TYPE_UINT64, pushed,
      "window-frames", G_TYPE_UINT, st.window_frames,
      "base-delay", G_TYPE_DOUBLE, effective_base_delay_us (self) < 0 ? -1.0 :
      effective_base_delay_us (self) / 1000.0,
      "base-delay-from-upstream", G_TYPE_BOOLEAN, self->base_delay < 0 &&
      effective_base_delay_us (self) >= 0,
      "base-delay-upstream", G_TYPE_DOUBLE,
      self->upstream_base_delay_us < 0 ? -1.0 :
      self->upstream_base_delay_us / 1000.0,
      "base-delay-rejected", G_TYPE_BOOLEAN,
      self->upstream_base_delay_us >= 0 &&
      self->upstream_verdict == DONAR_BASE_CHECK_CONTRADICTED, NULL);
  /* The latest donar-quality message's figures; 0 and "" before it. */
  have_quality = donar_quality_get_last (self->quality, &q);
  if (!have_quality)
    memset (&q, 0, sizeof q);
  gst_structure_set (s,
      "quality-r", G_TYPE_DOUBLE, q.r,
      "quality-mos", G_TYPE_DOUBLE, q.mos,
      "quality-rating", G_TYPE_STRING,
      have_quality ? donar_quality_rating_name (q.rating) : "",
      "quality-mouth-to-ear-ms", G_TYPE_DOUBLE, q.mouth_to_ear_ms,
      "quality-loss-percent", G_TYPE_DOUBLE, q.loss_percent,
      "quality-window-ms", G_TYPE_UINT, (guint) (q.window_us / 1000), NULL);
  GST_OBJECT_UNLOCK (self);
  return s;
}

static void
gst_donar_jitter_buffer_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstDonarJitterBuffer *self = GST_DONAR_JITTER_BUFFER (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, get_stats (self));
    return;
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ADAPTIVE:
      g_value_set_boolean (value, self->adaptive);
      break;
    case PROP_LATENCY:
      g_value_set_uint (value, self->latency);
      break;
    case PROP_TARGET_SHARE:
      g_value_set_double (value, self->config.share);
      break;
    case PROP_WINDOW:
      g_value_set_uint (value, self->config.window_us / G_USEC_PER_SEC);
      break;
    case PROP_MARGIN:
      g_value_set_uint (value, self->config.margin_us / 1000);
      break;
    case PROP_SHRINK_RATE:
      g_value_set_uint (value, self->config.shrink_us_per_s / 1000);
      break;
    case PROP_MIN_LATENCY:
      g_value_set_uint (value, self->config.min_us / 1000);
      break;
    case PROP_MAX_LATENCY:
      g_value_set_uint (value, self->config.max_us / 1000);
      break;
    case PROP_DEADLINE:
      g_value_set_uint (value, self->config.deadline_us / 1000);
      break;
    case PROP_BASE_DELAY:
      g_value_set_int (value, self->base_delay);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}
