/* donar-demo: a DONAR call on one machine, both ends in one process, and
 * its quality of experience (pipelines/demo.sh runs it, docs/elements.md).
 *
 * Two pipelines on ONE clock (the system clock, CLOCK_MONOTONIC):
 *   callee: donarsrc ! donarjitterbuffer ! rtpopusdepay ! opusdec !
 *           audioconvert ! audioresample ! audiomixer ! wavenc ! filesink
 *           (or autoaudiosink)
 *   caller: audiotestsrc (or a WAV file) ! opusenc ! rtpopuspay ! donarsink
 * The callee starts first; once it posts its address the caller is
 * brought to PAUSED: donarsink starts its call there, and no audio flows
 * until the call is ready (donar-ready), when the caller goes to PLAYING.
 * So a speech file is sent from its first frame.  With --direct, plain
 * UDP on 127.0.0.1 instead (udpsink, udpsrc): no Tor, the ceiling.
 *
 * Why two pipelines and not one: a live source added to a running
 * pipeline stamps its buffers from 0 while the running time is already
 * seconds in, so it would push a burst of late buffers; and one pipeline
 * has one latency, the largest of its sinks', so donarsink (sync=true)
 * would hold every packet for the callee's jitter buffer latency as well.
 * Each pipeline has its own base time; on a shared clock,
 * running time + base time is a clock time both ends agree on, so the
 * one-way delay of a frame is exact: arrival stamped by donarsrc minus
 * capture (the PTS out of rtpopuspay), both as clock times. */
#include "frame-log-writer.h"

#include <donar.h>
#include <gst/gst.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <stdlib.h>
#include <string.h>

/* After the last frame is sent, how long frames may still arrive. */
#define GRACE_STEPS 10          /* of 100 ms: 1 s */
#define SETUP_TIMEOUT (120 * GST_SECOND)
#define EOS_TIMEOUT (3 * GST_SECOND)

/* The fate of one frame of the call, in the order sent. */
typedef struct
{
  GstClockTime sent;            /* capture, as a clock time */
  GstClockTime arrival;         /* first copy's arrival; NONE: not (yet) */
} Frame;

typedef struct
{
  GMutex lock;
  GstElement *caller, *callee;
  gboolean sending;             /* frames pass rtpopuspay's src pad */
  /* The caller's EOS has passed rtpopuspay: donarsink hangs up on it,
   * before the EOS message, which waits for the clock. */
  gboolean hanging_up;
  /* Index in `frames` by RTP seqnum, -1 if none: a 16-bit seqnum wraps
   * after 43 min of 40-ms frames, and the latest frame sent wins. */
  gint32 index_of[65536];
  GArray *frames;               /* Frame */
  GstSegment pay_segment;
  guint64 frames_sent, frames_received, frames_played;
  GArray *latency_ms;           /* gdouble, one per frame received */
} Demo;

static GstClockTime
clock_time (GstElement * pipeline, const GstSegment * segment, GstClockTime pts)
{
  return gst_segment_to_running_time (segment, GST_FORMAT_TIME, pts) +
      gst_element_get_base_time (pipeline);
}

/* rtpopuspay's src pad: counts the frames sent and records their capture
 * time; drops them before the call is ready and after the end, so that
 * frames_sent counts only the frames the call could carry. */
static GstPadProbeReturn
on_payloaded (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Demo *demo = user_data;
  GstPadProbeReturn ret = GST_PAD_PROBE_OK;
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  GstBuffer *buf;

  if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);

    g_mutex_lock (&demo->lock);
    if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT)
      gst_event_copy_segment (event, &demo->pay_segment);
    else if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
      demo->hanging_up = TRUE;
    g_mutex_unlock (&demo->lock);
    return GST_PAD_PROBE_OK;
  }
  buf = GST_PAD_PROBE_INFO_BUFFER (info);
  if (!gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp))
    return GST_PAD_PROBE_OK;
  g_mutex_lock (&demo->lock);
  if (demo->sending) {
    Frame frame;

    frame.sent = clock_time (demo->caller, &demo->pay_segment,
        GST_BUFFER_PTS (buf));
    frame.arrival = GST_CLOCK_TIME_NONE;
    demo->index_of[gst_rtp_buffer_get_seq (&rtp)] = demo->frames->len;
    g_array_append_val (demo->frames, frame);
    demo->frames_sent++;
  } else {
    ret = GST_PAD_PROBE_DROP;
  }
  g_mutex_unlock (&demo->lock);
  gst_rtp_buffer_unmap (&rtp);
  return ret;
}

/* donarsrc's src pad: the PTS is the running time of the arrival; its
 * segment starts at 0, so running time = PTS.  Duplicates and frames not
 * counted as sent are not counted. */
static GstPadProbeReturn
on_received (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Demo *demo = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  GstClockTime arrival;
  Frame *frame;
  guint16 seq;
  gint32 index;

  if (!gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp))
    return GST_PAD_PROBE_OK;    /* not RTP: donarsrc counts those */
  seq = gst_rtp_buffer_get_seq (&rtp);
  gst_rtp_buffer_unmap (&rtp);
  arrival = GST_BUFFER_PTS (buf) + gst_element_get_base_time (demo->callee);
  g_mutex_lock (&demo->lock);
  index = demo->index_of[seq];
  frame = index >= 0 ? &g_array_index (demo->frames, Frame, index) : NULL;
  if (frame && !GST_CLOCK_TIME_IS_VALID (frame->arrival)) {
    gdouble ms = GST_CLOCK_DIFF (frame->sent, arrival) / 1e6;

    g_array_append_val (demo->latency_ms, ms);
    demo->frames_received++;
    frame->arrival = arrival;
  }
  g_mutex_unlock (&demo->lock);
  return GST_PAD_PROBE_OK;
}

/* Out of rtpopusdepay: the frames the decoder gets.  opusdec's output
 * would also count its concealment (PLC) buffers, which are not played
 * speech. */
static GstPadProbeReturn
on_depayloaded (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Demo *demo = user_data;

  g_mutex_lock (&demo->lock);
  demo->frames_played++;
  g_mutex_unlock (&demo->lock);
  return GST_PAD_PROBE_OK;
}

static void
add_probe (GstElement * pipeline, const gchar * name, const gchar * pad_name,
    GstPadProbeType type, GstPadProbeCallback callback, Demo * demo)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *pad = gst_element_get_static_pad (e, pad_name);

  gst_pad_add_probe (pad, type, callback, demo, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

/* The callee's donar-quality messages (docs/elements.md): the live
 * estimate, to set beside the call's PESQ (tools/quality/live_vs_pesq.py). */
static struct
{
  guint n;
  gdouble r_sum, mos_sum, r_last, mos_last;
} live_quality;

static void
take_quality (GstMessage * msg)
{
  const GstStructure *s = gst_message_get_structure (msg);
  gdouble r, mos;

  if (!gst_structure_get_double (s, "r", &r) ||
      !gst_structure_get_double (s, "mos", &mos))
    return;
  live_quality.n++;
  live_quality.r_sum += r;
  live_quality.mos_sum += mos;
  live_quality.r_last = r;
  live_quality.mos_last = mos;
}

/* Handles the bus of a pipeline until the deadline or a message named
 * `wanted` (returned, the caller unrefs it); errors end the program. */
static GstMessage *
pump (GstElement * pipeline, const gchar * wanted, GstClockTime timeout)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gint64 deadline = g_get_monotonic_time () + timeout / GST_USECOND;
  GstMessage *found = NULL;

  while (found == NULL) {
    gint64 left = deadline - g_get_monotonic_time ();
    GstMessage *msg;

    if (left <= 0)
      break;
    msg = gst_bus_timed_pop (bus, left * GST_USECOND);
    if (msg == NULL)
      break;
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ERROR:{
        GError *error = NULL;
        gchar *debug = NULL;

        gst_message_parse_error (msg, &error, &debug);
        g_printerr ("donar-demo: %s: %s (%s)\n",
            GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), error->message, debug);
        exit (1);
      }
      case GST_MESSAGE_LATENCY:
        /* donarjitterbuffer changes its latency while the call runs. */
        gst_bin_recalculate_latency (GST_BIN (pipeline));
        break;
      case GST_MESSAGE_PROGRESS:{
        GstProgressType type;
        gchar *code = NULL, *text = NULL;

        gst_message_parse_progress (msg, &type, &code, &text);
        g_printerr ("# %s: %s\n", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
            text);
        g_free (code);
        g_free (text);
        break;
      }
      case GST_MESSAGE_ELEMENT:
        if (gst_message_has_name (msg, "donar-quality"))
          take_quality (msg);
        break;
      default:
        break;
    }
    if (wanted && (gst_message_has_name (msg, wanted) ||
            (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS &&
                g_str_equal (wanted, "eos"))))
      found = msg;
    else
      gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return found;
}

static GstElement *
launch (const gchar * desc)
{
  GError *error = NULL;
  /* FATAL_ERRORS: a missing element (the plugin not found, say) is an
   * error, not a pipeline with a hole in it. */
  GstElement *pipeline = gst_parse_launch_full (desc, NULL,
      GST_PARSE_FLAG_FATAL_ERRORS, &error);

  if (pipeline == NULL || error != NULL) {
    g_printerr ("donar-demo: %s (is GST_PLUGIN_PATH the build's gst/?)\n"
        "  %s\n", error ? error->message : "no pipeline", desc);
    exit (1);
  }
  return pipeline;
}

static GstStructure *
get_stats (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstStructure *stats = NULL;

  g_object_get (e, "stats", &stats, NULL);
  gst_object_unref (e);
  return stats;
}

static gint
compare_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return (x > y) - (x < y);
}

static gdouble
percentile (GArray * sorted, gdouble p)
{
  if (sorted->len == 0)
    return 0;
  return g_array_index (sorted, gdouble, (guint) (p * (sorted->len - 1)));
}

/* The fate of every frame of the call, in donar-sim's --frame-log format
 * (rows seq,sent_ms,arrival_ms; arrival empty when lost), so that the
 * offline scoring can replay the very frames of this call.  seq counts
 * from 0 and times are from the first frame's capture. */
static gboolean
write_frame_log (Demo * demo, const gchar * path, GError ** error)
{
  FrameLogWriter *writer = frame_log_writer_new (path);
  GstClockTime origin = GST_CLOCK_TIME_NONE;

  if (demo->frames->len > 0)
    origin = g_array_index (demo->frames, Frame, 0).sent;
  for (guint i = 0; i < demo->frames->len; i++) {
    Frame *f = &g_array_index (demo->frames, Frame, i);
    gdouble sent_ms = GST_CLOCK_DIFF (origin, f->sent) / 1e6;

    if (GST_CLOCK_TIME_IS_VALID (f->arrival))
      frame_log_writer_add (writer, i, sent_ms,
          GST_CLOCK_DIFF (origin, f->arrival) / 1e6);
    else
      frame_log_writer_add_lost (writer, i, sent_ms);
  }
  return frame_log_writer_finish (writer, error);
}

/* 100 ms of both buses; TRUE if the caller's EOS came (a file ended). */
static gboolean
pump_both (Demo * demo)
{
  GstMessage *eos = pump (demo->caller, "eos", 50 * GST_MSECOND);

  pump (demo->callee, NULL, 50 * GST_MSECOND);
  if (eos)
    gst_message_unref (eos);
  return eos != NULL;
}

/* The RTP caps of the stream, for udpsrc in direct mode (donarsrc has
 * them in-band from donarsink). */
#define DIRECT_CAPS "application/x-rtp,media=audio,clock-rate=48000," \
  "encoding-name=OPUS,payload=96"

/* The command line. */
typedef struct
{
  gchar *tor_control, *input, *output, *policy, *security, *frame_log;
  gboolean speakers, json, direct;
  gint seconds;
} Settings;

/* The call's figures beyond Demo's counters: read while it runs and at
 * its end. */
typedef struct
{
  guint links_up, jb_latency;
  /* The callee's base delay in force, ms; -1 unknown. */
  gdouble jb_base_delay;
  guint64 late;
  gdouble target_sum;
  guint target_n;
  gboolean ended;               /* the input ended */
} Figures;

/* The command line into *s; FALSE, after saying why, if it is not one. */
static gboolean
parse_settings (Settings * s, int *argc, char ***argv)
{
  GOptionEntry entries[] = {
    {"tor-control", 0, 0, G_OPTION_ARG_STRING, &s->tor_control,
        "ControlPort of a running tor or donar-torsim; empty: the elements "
          "launch their own tor", "PORT"},
    {"direct", 0, 0, G_OPTION_ARG_NONE, &s->direct,
        "Plain RTP over UDP on 127.0.0.1 instead of DONAR (no Tor: the "
          "ceiling)", NULL},
    {"input", 0, 0, G_OPTION_ARG_FILENAME, &s->input,
          "WAV file to send from the moment the call is ready; the call ends "
          "with it if it is shorter than --seconds (default: a 440 Hz tone)",
        "FILE"},
    {"output", 0, 0, G_OPTION_ARG_FILENAME, &s->output,
        "WAV file the callee writes", "FILE"},
    {"speakers", 0, 0, G_OPTION_ARG_NONE, &s->speakers,
        "Play at the callee with autoaudiosink", NULL},
    {"seconds", 0, 0, G_OPTION_ARG_INT, &s->seconds,
        "Seconds of call once the caller is ready (20)", "N"},
    {"policy", 0, 0, G_OPTION_ARG_STRING, &s->policy,
          "simple, torfone, alternate, double-send or adaptive (default)",
        "NAME"},
    {"security", 0, 0, G_OPTION_ARG_STRING, &s->security,
        "default, 2hop or 1way (for a tor the elements launch)", "NAME"},
    {"frame-log", 0, 0, G_OPTION_ARG_FILENAME, &s->frame_log,
        "Write each frame's fate to FILE (seq,sent_ms,arrival_ms, as "
          "donar-sim --frame-log)", "FILE"},
    {"json", 0, 0, G_OPTION_ARG_NONE, &s->json, "Print the summary as JSON",
        NULL},
    G_OPTION_ENTRY_NULL
  };
  GOptionContext *context = g_option_context_new ("- a DONAR call on one "
      "machine and its QoE");
  GError *error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, gst_init_get_option_group ());
  if (!g_option_context_parse (context, argc, argv, &error)) {
    g_printerr ("donar-demo: %s\n", error->message);
    return FALSE;
  }
  g_option_context_free (context);
  if (s->seconds < 1 || (s->output == NULL && !s->speakers)) {
    g_printerr ("donar-demo: needs --output FILE or --speakers, and "
        "--seconds >= 1\n");
    return FALSE;
  }
  if (s->policy == NULL)
    s->policy = g_strdup (donar_policy_to_string (DONAR_DEFAULT_POLICY));
  if (s->security == NULL)
    s->security = g_strdup ("default");
  return TRUE;
}

static void
settings_clear (Settings * s)
{
  g_free (s->tor_control);
  g_free (s->input);
  g_free (s->output);
  g_free (s->frame_log);
  g_free (s->policy);
  g_free (s->security);
}

static Demo *
demo_new (void)
{
  Demo *demo = g_new0 (Demo, 1);

  g_mutex_init (&demo->lock);
  for (guint i = 0; i < G_N_ELEMENTS (demo->index_of); i++)
    demo->index_of[i] = -1;
  demo->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  gst_segment_init (&demo->pay_segment, GST_FORMAT_TIME);
  demo->latency_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  return demo;
}

static void
demo_free (Demo * demo)
{
  gst_object_unref (demo->caller);
  gst_object_unref (demo->callee);
  g_array_free (demo->latency_ms, TRUE);
  g_array_free (demo->frames, TRUE);
  g_mutex_clear (&demo->lock);
  g_free (demo);
}

/* The callee's pipeline, on clock, PLAYING. */
static void
start_callee (Demo * demo, const Settings * s, const gchar * call_props,
    GstClock * clock)
{
  gchar *source, *desc;
  GstElement *e;

  if (s->direct)
    source = g_strdup ("udpsrc name=rx address=127.0.0.1 port=0 "
        "caps=\"" DIRECT_CAPS "\"");
  else
    source = g_strdup_printf ("donarsrc name=rx callee=true call=callee %s",
        call_props);
  /* The recording is what a sound card would play: audiomixer, live
   * (donarsrc is), puts out a continuous stream on the clock at the
   * pipeline's latency, silence where no audio came in time, and drops
   * the audio that comes after its time (frames rtpjitterbuffer pushes
   * late, after a stall, without declaring them lost).  filesink alone
   * would write every buffer whenever it came, a stall included. */
  desc = g_strdup_printf ("%s ! donarjitterbuffer name=jb ! "
      "rtpopusdepay name=depay ! opusdec plc=true ! audioconvert ! "
      "audioresample ! %s", source, s->speakers ? "autoaudiosink" :
      "audiomixer name=play start-time-selection=first ! wavenc ! "
      "filesink name=out");
  g_free (source);
  demo->callee = launch (desc);
  g_free (desc);
  if (!s->speakers) {
    e = gst_bin_get_by_name (GST_BIN (demo->callee), "out");
    g_object_set (e, "location", s->output, NULL);
    gst_object_unref (e);
  }
  add_probe (demo->callee, "rx", "src", GST_PAD_PROBE_TYPE_BUFFER,
      on_received, demo);
  add_probe (demo->callee, "depay", "src", GST_PAD_PROBE_TYPE_BUFFER,
      on_depayloaded, demo);
  gst_pipeline_use_clock (GST_PIPELINE (demo->callee), clock);
  gst_element_set_state (demo->callee, GST_STATE_PLAYING);
}

/* Where the caller sends: udpsrc's port, or the address donarsrc's call
 * published; NULL, after saying why, if there is none. */
static gchar *
callee_address (Demo * demo, const Settings * s)
{
  GstMessage *msg;
  gchar *address;

  if (s->direct) {
    GstElement *e;
    gint port = 0;

    /* udpsrc port=0 binds a free port in NULL to READY and reports it. */
    e = gst_bin_get_by_name (GST_BIN (demo->callee), "rx");
    g_object_get (e, "port", &port, NULL);
    gst_object_unref (e);
    if (port <= 0) {
      g_printerr ("donar-demo: udpsrc did not bind a port\n");
      return NULL;
    }
    g_printerr ("# direct: RTP over UDP to 127.0.0.1:%d, no Tor\n", port);
    return g_strdup_printf ("host=127.0.0.1 port=%d", port);
  }
  msg = pump (demo->callee, "donar-call-address", SETUP_TIMEOUT);
  if (msg == NULL) {
    g_printerr ("donar-demo: the callee did not publish its address\n");
    return NULL;
  }
  address = g_strdup (gst_structure_get_string (gst_message_get_structure
          (msg), "address"));
  gst_message_unref (msg);
  g_printerr ("# callee published its address\n");
  return address;
}

/* The caller's pipeline, on clock, to address; with DONAR, PAUSED until
 * its call is ready.  FALSE, after saying why, if it never is. */
static gboolean
start_caller (Demo * demo, const Settings * s, const gchar * call_props,
    const gchar * address, GstClock * clock)
{
  gchar *source, *desc;
  GstElement *e;
  GstMessage *msg;

  /* A file source would run as fast as it reads: identity sync=true
   * paces it at the pace of capture (and, in PAUSED, holds the first
   * buffer until PLAYING). */
  if (s->direct)
    source = g_strdup_printf ("udpsink name=tx %s", address);
  else
    source = g_strdup_printf ("donarsink name=tx call=caller %s", call_props);
  desc = g_strdup_printf ("%s ! audioconvert ! audioresample ! "
      "opusenc audio-type=voice bitrate=32000 frame-size=40 "
      "inband-fec=false ! rtpopuspay name=pay pt=96 timestamp-offset=0 ! %s",
      s->input ? "filesrc name=in ! wavparse ! identity sync=true" :
      "audiotestsrc is-live=true wave=sine freq=440 volume=0.3", source);
  g_free (source);
  demo->caller = launch (desc);
  g_free (desc);
  if (s->input) {
    e = gst_bin_get_by_name (GST_BIN (demo->caller), "in");
    g_object_set (e, "location", s->input, NULL);
    gst_object_unref (e);
  }
  if (!s->direct) {
    e = gst_bin_get_by_name (GST_BIN (demo->caller), "tx");
    g_object_set (e, "address", address, NULL);
    gst_object_unref (e);
  }
  add_probe (demo->caller, "pay", "src", GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_payloaded, demo);
  gst_pipeline_use_clock (GST_PIPELINE (demo->caller), clock);
  if (!s->direct) {
    /* donarsink starts its call on the way to PAUSED, where no audio
     * flows yet (a live source waits for PLAYING, identity sync=true
     * holds the file's first buffer): the call connects first, then the
     * audio starts from its beginning. */
    gst_element_set_state (demo->caller, GST_STATE_PAUSED);
    msg = pump (demo->caller, "donar-ready", SETUP_TIMEOUT);
    if (msg == NULL) {
      g_printerr ("donar-demo: the caller did not reach the callee\n");
      return FALSE;
    }
    gst_message_unref (msg);
  }
  g_printerr ("# caller ready: %d s of call\n", s->seconds);
  return TRUE;
}

static void
set_sending (Demo * demo, gboolean sending)
{
  g_mutex_lock (&demo->lock);
  demo->sending = sending;
  g_mutex_unlock (&demo->lock);
}

/* donarsink's links up, unless the caller is hanging up: an input that
 * ends hangs up (EOS at donarsink), and its links are closed before its
 * EOS message comes and well before the figures are read (quality.sh's
 * --input read 0). */
static void
read_links_up (Demo * demo, guint * links_up)
{
  GstStructure *sink_stats;
  gboolean hanging_up;

  g_mutex_lock (&demo->lock);
  hanging_up = demo->hanging_up;
  g_mutex_unlock (&demo->lock);
  if (hanging_up)
    return;
  sink_stats = get_stats (demo->caller, "tx");
  gst_structure_get_uint (sink_stats, "links-up", links_up);
  gst_structure_free (sink_stats);
}

/* --seconds of call, or until a file input ends, then a grace for the
 * frames on their way; the links up and the playout target meanwhile. */
static void
run_call (Demo * demo, const Settings * s, Figures * f)
{
  GstStructure *jb_stats;
  gdouble target;
  gint steps;

  set_sending (demo, TRUE);
  gst_element_set_state (demo->caller, GST_STATE_PLAYING);
  /* A file of exactly --seconds is sent whole: its end (EOS) is waited
   * for up to half a second past --seconds. */
  steps = s->seconds * 10 + (s->input ? 5 : 0);
  for (gint i = 0; i < steps && !f->ended; i++) {
    if (!s->direct)
      read_links_up (demo, &f->links_up);
    f->ended = pump_both (demo);
    jb_stats = get_stats (demo->callee, "jb");
    if (gst_structure_get_double (jb_stats, "target", &target) && target > 0) {
      f->target_sum += target;
      f->target_n++;
    }
    gst_structure_free (jb_stats);
  }
  if (f->ended)
    g_printerr ("# the input ended\n");
  set_sending (demo, FALSE);
  for (guint i = 0; i < GRACE_STEPS; i++)
    pump_both (demo);
}

/* The figures, while both ends are still up. */
static void
read_end_figures (Demo * demo, const Settings * s, Figures * f)
{
  GstStructure *jb_stats;

  if (!s->direct && !f->ended)
    read_links_up (demo, &f->links_up);
  jb_stats = get_stats (demo->callee, "jb");
  gst_structure_get_uint (jb_stats, "latency", &f->jb_latency);
  gst_structure_get_uint64 (jb_stats, "late", &f->late);
  gst_structure_get_double (jb_stats, "base-delay", &f->jb_base_delay);
  gst_structure_free (jb_stats);
}

/* EOS through the callee so that wavenc writes the sizes in its header;
 * then the caller, whose links closing would only warn. */
static void
stop_pipelines (Demo * demo)
{
  GstMessage *msg;

  gst_element_send_event (demo->callee, gst_event_new_eos ());
  msg = pump (demo->callee, "eos", EOS_TIMEOUT);
  if (msg)
    gst_message_unref (msg);
  else
    g_printerr ("# no EOS from the callee in time\n");
  gst_element_set_state (demo->caller, GST_STATE_NULL);
  gst_element_set_state (demo->callee, GST_STATE_NULL);
}

/* The summary on stdout, JSON or text; demo->lock held. */
static void
print_summary (Demo * demo, const Settings * s, const Figures * f)
{
  gdouble p50, p99, lat_min, target_mean = 0;
  guint64 lost;

  g_array_sort (demo->latency_ms, compare_double);
  p50 = percentile (demo->latency_ms, 0.50);
  p99 = percentile (demo->latency_ms, 0.99);
  lat_min = percentile (demo->latency_ms, 0.0);
  if (f->target_n > 0)
    target_mean = f->target_sum / f->target_n;
  lost = demo->frames_sent - demo->frames_received;
  if (s->json) {
    g_print ("{\"seconds\": %d, \"mode\": \"%s\", \"policy\": \"%s\", "
        "\"security\": \"%s\", \"frames_sent\": %" G_GUINT64_FORMAT
        ", \"frames_received\": %" G_GUINT64_FORMAT ", \"frames_played\": %"
        G_GUINT64_FORMAT ", \"frames_lost\": %" G_GUINT64_FORMAT
        ", \"frames_late\": %" G_GUINT64_FORMAT ", \"loss_ratio\": %.4f, "
        "\"late_ratio\": %.4f, \"latency_ms\": {\"min\": %.1f, \"p50\": %.1f, "
        "\"p99\": %.1f}, \"jitterbuffer_latency_ms\": %u, "
        "\"jitterbuffer_base_delay_ms\": %.1f, "
        "\"playout_target_ms\": %.1f, \"mouth_to_ear_ms\": %.1f, "
        "\"links_up\": %u, \"live_quality\": {\"messages\": %u, "
        "\"r_mean\": %.2f, \"mos_mean\": %.3f, \"r_last\": %.2f, "
        "\"mos_last\": %.3f}}\n", s->seconds, s->direct ? "direct" : "donar",
        s->policy, s->security, demo->frames_sent, demo->frames_received,
        demo->frames_played, lost, f->late,
        demo->frames_sent ? (gdouble) lost / demo->frames_sent : 0.0,
        demo->frames_sent ? (gdouble) f->late / demo->frames_sent : 0.0,
        lat_min, p50, p99, f->jb_latency, f->jb_base_delay, target_mean,
        lat_min + target_mean, f->links_up, live_quality.n,
        live_quality.n ? live_quality.r_sum / live_quality.n : 0.0,
        live_quality.n ? live_quality.mos_sum / live_quality.n : 0.0,
        live_quality.r_last, live_quality.mos_last);
  } else {
    g_print ("%s call, %d s, policy %s, security %s\n"
        "  frames sent      %" G_GUINT64_FORMAT "\n"
        "  frames received  %" G_GUINT64_FORMAT "\n"
        "  frames played    %" G_GUINT64_FORMAT
        " (out of rtpopusdepay: PLC not counted)\n"
        "  frames lost      %" G_GUINT64_FORMAT "\n"
        "  frames late      %" G_GUINT64_FORMAT " (donarjitterbuffer)\n"
        "  one-way latency  min %.1f ms, p50 %.1f ms, p99 %.1f ms\n"
        "  jitter buffer    %u ms at the end, target %.1f ms on average\n"
        "  mouth to ear     %.1f ms (min latency + mean target)\n"
        "  links up         %u\n", s->direct ? "Direct (UDP)" : "DONAR",
        s->seconds, s->policy, s->security, demo->frames_sent,
        demo->frames_received, demo->frames_played, lost, f->late, lat_min, p50,
        p99, f->jb_latency, target_mean, lat_min + target_mean, f->links_up);
  }
}

int
main (int argc, char **argv)
{
  Settings s = {.seconds = 20 };
  Figures f = {.jb_base_delay = -1 };
  GError *error = NULL;
  Demo *demo;
  gchar *call_props, *address;
  GstClock *clock;

  if (!parse_settings (&s, &argc, &argv))
    return 2;
  demo = demo_new ();
  /* Separate calls (call=callee, call=caller): this process holds both
   * ends, which must not share one DonarCall. */
  call_props = g_strdup_printf ("tor-control=\"%s\" policy=%s security=%s",
      s.tor_control ? s.tor_control : "", s.policy, s.security);
  /* The one clock of both pipelines: GStreamer's default, monotonic, the
   * clock donarsrc's arrival stamps come from (and udpsrc's, which stamps
   * with the running time of the arrival too). */
  clock = gst_system_clock_obtain ();
  start_callee (demo, &s, call_props, clock);
  address = callee_address (demo, &s);
  if (address == NULL)
    return 1;
  if (!start_caller (demo, &s, call_props, address, clock))
    return 1;
  g_free (address);
  run_call (demo, &s, &f);
  read_end_figures (demo, &s, &f);
  stop_pipelines (demo);

  g_mutex_lock (&demo->lock);
  if (s.frame_log && !write_frame_log (demo, s.frame_log, &error)) {
    g_printerr ("donar-demo: --frame-log: %s\n", error->message);
    return 1;
  }
  print_summary (demo, &s, &f);
  g_mutex_unlock (&demo->lock);

  gst_object_unref (clock);
  demo_free (demo);
  g_free (call_props);
  settings_clear (&s);
  gst_deinit ();
  return 0;
}
