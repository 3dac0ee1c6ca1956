/* donar-bench-elements: one endpoint of a DONAR call in GStreamer, for the
 * figures of docs/performance.md (a benchmark, not a test;
 * tools/bench/bench-elements.py runs it).
 *
 * The endpoint is one pipeline, full duplex, 12 links, 25 frames/s each way:
 *
 *     appsrc (172-byte RTP packets, 25/s) ! donarsink call=bench
 *     donarsrc call=bench ! fakesink
 *
 * With --baseline the same shape without the donar elements: two appsrc, fed
 * by the same timer, each into a fakesink.  The difference between the two is
 * what the donar elements cost: the elements, lib/call, the link engine and
 * its thread, the protocol core, and the sockets (the kernel's time for them
 * is the process's system time).
 *
 * With --udp the elements DONAR replaces, as the anchor of the same run
 * (issue 14): the same frames, the same schedule, plain RTP over UDP on
 * 127.0.0.1, its peer a second process in the same mode:
 *
 *     appsrc ! udpsink host=127.0.0.1 port=PEER-PORT
 *     udpsrc address=127.0.0.1 port=PORT ! fakesink
 *
 * Its window starts --warmup s after the peer's first frame came, as the
 * donar window starts after all links are open.
 *
 * It reports, as one JSON object on stdout, over a window of --seconds that
 * starts --warmup s after all links are open: the process's CPU time
 * (getrusage) and context switches, frames sent and received, VmRSS and
 * VmHWM at the end.  With
 * --times PREFIX it writes PREFIX.sent (seq and CLOCK_MONOTONIC µs at
 * donarsink's sink pad, udpsink's with --udp) and PREFIX.recv (the same at
 * donarsrc's src pad, udpsrc's), for the one-way delay the two elements add,
 * joined across the two ends by tools/bench/bench-elements.py (one machine,
 * one clock). */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#ifdef HAVE_CALLGRIND_H
/* Under valgrind --tool=callgrind, the window's instructions alone: the
 * counters are zeroed at its start and dumped at its end ("window"); no-ops
 * otherwise. */
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(name)
#endif

#define FRAME_BYTES 172         /* Opus at 32 kbit/s, 40 ms, with RTP */
#define FRAME_US 40000

typedef struct
{
  gboolean baseline;
  gboolean udp;
  gint port;
  gint peer_port;
  gchar *role;
  gchar *address;
  gchar *address_file;
  gchar *tor_control;
  gchar *times;
  gchar *policy;
  gdouble seconds;
  gdouble warmup;
  gdouble tail;
  gint links;
} Options;

typedef struct
{
  gint64 seq;
  gint64 t;
} Stamp;

typedef struct
{
  Options o;
  GstElement *pipeline;
  GstElement *appsrc[2];        /* donar: [0] only */
  GstElement *donarsink;
  GstElement *donarsrc;
  GstElement *udpsink;          /* --udp */
  GstElement *udpsrc;
  GThread *thread;
  gint stop;
  guint16 seq;
  gint64 frames_sent;           /* atomic */
  gint64 frames_received;       /* atomic */
  GMutex lock;
  GArray *sent;                 /* Stamp */
  GArray *recv;
} Bench;

static gint64
now_us (void)
{
  return g_get_monotonic_time ();
}

static gdouble
cpu_s (gdouble * user, gdouble * sys, glong * switches, glong * voluntary)
{
  struct rusage r;

  getrusage (RUSAGE_SELF, &r);
  *switches = r.ru_nvcsw + r.ru_nivcsw;
  /* Apart: the involuntary ones are mostly preemptions by other work on a
   * shared machine, the voluntary ones the waits of the threads. */
  *voluntary = r.ru_nvcsw;
  *user = r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6;
  *sys = r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
  return *user + *sys;
}

static void
read_memory (guint64 * rss_kib, guint64 * hwm_kib)
{
  g_autofree gchar *status = NULL;
  gchar **lines;

  *rss_kib = *hwm_kib = 0;
  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return;
  lines = g_strsplit (status, "\n", -1);
  for (guint i = 0; lines[i]; i++) {
    if (g_str_has_prefix (lines[i], "VmRSS:"))
      *rss_kib = g_ascii_strtoull (lines[i] + 6, NULL, 10);
    else if (g_str_has_prefix (lines[i], "VmHWM:"))
      *hwm_kib = g_ascii_strtoull (lines[i] + 6, NULL, 10);
  }
  g_strfreev (lines);
}

static GstBuffer *
make_packet (guint16 seq)
{
  GstBuffer *buffer = gst_buffer_new_allocate (NULL, FRAME_BYTES, NULL);
  GstMapInfo map;
  guint32 ts = (guint32) seq * 1920;

  gst_buffer_map (buffer, &map, GST_MAP_WRITE);
  memset (map.data, 0x5a, map.size);
  map.data[0] = 0x80;
  map.data[1] = 96;
  map.data[2] = seq >> 8;
  map.data[3] = seq & 0xff;
  map.data[4] = ts >> 24;
  map.data[5] = ts >> 16;
  map.data[6] = ts >> 8;
  map.data[7] = ts;
  map.data[8] = 0x12;
  map.data[9] = 0x34;
  map.data[10] = 0x56;
  map.data[11] = 0x78;
  gst_buffer_unmap (buffer, &map);
  return buffer;
}

/* 25 packets a second on an absolute schedule; in the baseline the second
 * appsrc stands for what donarsrc would receive. */
static gpointer
sender_thread (gpointer user_data)
{
  Bench *b = user_data;
  struct timespec next;

  clock_gettime (CLOCK_MONOTONIC, &next);
  while (!g_atomic_int_get (&b->stop)) {
    next.tv_nsec += FRAME_US * 1000L;
    if (next.tv_nsec >= 1000000000L) {
      next.tv_nsec -= 1000000000L;
      next.tv_sec++;
    }
    clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    for (guint i = 0; i < 2 && b->appsrc[i]; i++) {
      gst_app_src_push_buffer (GST_APP_SRC (b->appsrc[i]),
          make_packet (b->seq));
      if (i == 1)
        g_atomic_pointer_add (&b->frames_received, 1);
    }
    b->seq++;
  }
  return NULL;
}

static guint16
packet_seq (GstBuffer * buffer)
{
  guint8 header[4] = { 0 };

  gst_buffer_extract (buffer, 0, header, 4);
  return (guint16) (header[2] << 8 | header[3]);
}

/* A frame seen: counted, and its time kept with --times. */
static GstPadProbeReturn
stamp_frame (Bench * b, GstPadProbeInfo * info, gint64 * count, GArray * stamps)
{
  Stamp s = { packet_seq (GST_PAD_PROBE_INFO_BUFFER (info)), now_us () };

  g_atomic_pointer_add (count, 1);
  if (b->o.times) {
    g_mutex_lock (&b->lock);
    g_array_append_val (stamps, s);
    g_mutex_unlock (&b->lock);
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_sent (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Bench *b = user_data;

  return stamp_frame (b, info, &b->frames_sent, b->sent);
}

static GstPadProbeReturn
on_received (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Bench *b = user_data;

  return stamp_frame (b, info, &b->frames_received, b->recv);
}

static void
check_bus (Bench * b)
{
  GstBus *bus = gst_element_get_bus (b->pipeline);
  GstMessage *msg;

  while ((msg = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *error = NULL;
      gchar *debug = NULL;

      gst_message_parse_error (msg, &error, &debug);
      g_printerr ("donar-bench-elements: %s: %s (%s)\n",
          GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), error->message, debug);
      exit (1);
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT) {
      const GstStructure *s = gst_message_get_structure (msg);

      if (gst_structure_has_name (s, "donar-call-address") &&
          b->o.address_file && g_strcmp0 (b->o.role, "callee") == 0) {
        g_autofree gchar *text = g_strdup_printf ("%s\n",
            gst_structure_get_string (s, "address"));

        g_file_set_contents_full (b->o.address_file, text, -1,
            G_FILE_SET_CONTENTS_CONSISTENT, 0600, NULL);
      }
    }
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
}

static guint
links_up (Bench * b)
{
  GstStructure *stats = NULL;
  guint n = 0;

  g_object_get (b->donarsink, "stats", &stats, NULL);
  if (stats)
    gst_structure_get_uint (stats, "links-up", &n);
  gst_structure_free (stats);
  return n;
}

/* Wakes 5 times a second, in both modes: the main thread's own share of
 * the CPU stays small and the same. */
static void
wait_us (Bench * b, gint64 until)
{
  gint64 now;

  while ((now = now_us ()) < until) {
    if (!b->o.baseline)
      check_bus (b);
    g_usleep (MIN (until - now, 200 * 1000));
  }
}

static void
write_times (const gchar * path, GArray * stamps)
{
  FILE *f = fopen (path, "w");

  if (f == NULL) {
    g_printerr ("donar-bench-elements: cannot write %s\n", path);
    exit (1);
  }
  for (guint i = 0; i < stamps->len; i++) {
    Stamp *s = &g_array_index (stamps, Stamp, i);

    fprintf (f, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n", s->seq, s->t);
  }
  fclose (f);
}

static GstElement *
make (const gchar * factory, const gchar * name)
{
  GstElement *e = gst_element_factory_make (factory, name);

  if (e == NULL) {
    g_printerr ("donar-bench-elements: no element %s (GST_PLUGIN_PATH?)\n",
        factory);
    exit (1);
  }
  return e;
}

static void
build (Bench * b)
{
  GstCaps *caps = gst_caps_from_string ("application/x-rtp, media=audio, "
      "clock-rate=48000, encoding-name=OPUS, payload=96");
  GstElement *sink;
  GstPad *pad;

  b->pipeline = gst_pipeline_new ("bench");
  for (guint i = 0; i < (b->o.baseline ? 2u : 1u); i++) {
    b->appsrc[i] = make ("appsrc", NULL);
    g_object_set (b->appsrc[i], "is-live", TRUE, "format", GST_FORMAT_TIME,
        "do-timestamp", TRUE, "caps", caps, NULL);
    sink = make ("fakesink", NULL);
    g_object_set (sink, "sync", FALSE, "async", FALSE, NULL);
    if (i == 0 && b->o.udp) {
      /* sync=false as donarsink's: a frame goes out when appsrc pushes it. */
      b->udpsink = make ("udpsink", "sink");
      g_object_set (b->udpsink, "host", "127.0.0.1", "port", b->o.peer_port,
          "sync", FALSE, "async", FALSE, NULL);
      b->udpsrc = make ("udpsrc", "src");
      g_object_set (b->udpsrc, "address", "127.0.0.1", "port", b->o.port,
          "caps", caps, NULL);
      gst_bin_add_many (GST_BIN (b->pipeline), b->appsrc[i], b->udpsink,
          b->udpsrc, sink, NULL);
      gst_element_link (b->appsrc[i], b->udpsink);
      gst_element_link (b->udpsrc, sink);
    } else if (i == 0 && !b->o.baseline) {
      b->donarsink = make ("donarsink", "sink");
      g_object_set (b->donarsink, "sync", FALSE, NULL);
      b->donarsrc = make ("donarsrc", "src");
      gst_bin_add_many (GST_BIN (b->pipeline), b->appsrc[i], b->donarsink,
          b->donarsrc, sink, NULL);
      gst_element_link (b->appsrc[i], b->donarsink);
      gst_element_link (b->donarsrc, sink);
    } else {
      gst_bin_add_many (GST_BIN (b->pipeline), b->appsrc[i], sink, NULL);
      gst_element_link (b->appsrc[i], sink);
    }
  }
  gst_caps_unref (caps);
  if (b->o.baseline)
    return;
  for (guint i = 0; i < 2 && !b->o.udp; i++) {
    GstElement *e = i == 0 ? b->donarsink : b->donarsrc;

    g_object_set (e, "call", "bench", "tor-control", b->o.tor_control,
        "links", (guint) b->o.links, NULL);
    gst_util_set_object_arg (G_OBJECT (e), "policy", b->o.policy);
    if (g_strcmp0 (b->o.role, "caller") == 0)
      g_object_set (e, "address", b->o.address, NULL);
    else
      g_object_set (e, "callee", TRUE, NULL);
  }
  /* The same stamps in both modes: a frame sent at the sink element's sink
   * pad, a frame received at the source element's src pad. */
  pad = gst_element_get_static_pad (b->o.udp ? b->udpsink : b->donarsink,
      "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_sent, b, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (b->o.udp ? b->udpsrc : b->donarsrc, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_received, b, NULL);
  gst_object_unref (pad);
}

/* The options, with their defaults: 0, or the exit status. */
static int
parse_options (Options * o, int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"baseline", 0, 0, G_OPTION_ARG_NONE, &o->baseline,
        "The same pipeline shape without the donar elements", NULL},
    {"udp", 0, 0, G_OPTION_ARG_NONE, &o->udp,
        "udpsink and udpsrc instead of the donar elements (the anchor)", NULL},
    {"port", 0, 0, G_OPTION_ARG_INT, &o->port,
        "--udp: udpsrc's port on 127.0.0.1", "PORT"},
    {"peer-port", 0, 0, G_OPTION_ARG_INT, &o->peer_port,
        "--udp: the peer's udpsrc port, udpsink's", "PORT"},
    {"address", 0, 0, G_OPTION_ARG_STRING, &o->address,
        "Caller: the call address", "ADDR"},
    {"address-file", 0, 0, G_OPTION_ARG_FILENAME, &o->address_file,
        "Callee: write the call address there", "FILE"},
    {"tor-control", 0, 0, G_OPTION_ARG_STRING, &o->tor_control,
        "direct (default) or a ControlPort (donar-torsim)", "PORT"},
    {"policy", 0, 0, G_OPTION_ARG_STRING, &o->policy,
        "The scheduling policy (alternate)", "NAME"},
    {"links", 0, 0, G_OPTION_ARG_INT, &o->links, "Links (12)", "N"},
    {"seconds", 0, 0, G_OPTION_ARG_DOUBLE, &o->seconds,
        "The measured window (20)", "S"},
    {"warmup", 0, 0, G_OPTION_ARG_DOUBLE, &o->warmup,
        "From all links open to the window (2)", "S"},
    {"tail", 0, 0, G_OPTION_ARG_DOUBLE, &o->tail,
        "Running on after the window, for the peer's (3)", "S"},
    {"times", 0, 0, G_OPTION_ARG_FILENAME, &o->times,
        "Write PREFIX.sent and PREFIX.recv (seq, µs)", "PREFIX"},
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context =
      g_option_context_new ("[callee | caller]");
  GError *error = NULL;

  o->seconds = 20;
  o->warmup = 2;
  o->tail = 3;
  o->links = 12;
  o->role = "callee";
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error)) {
    g_printerr ("donar-bench-elements: %s\n", error->message);
    return 2;
  }
  if (argc >= 2)
    o->role = argv[1];
  if (o->tor_control == NULL)
    o->tor_control = g_strdup ("direct");
  if (o->policy == NULL)
    o->policy = g_strdup ("alternate");
  if (o->udp && (o->baseline || o->port <= 0 || o->peer_port <= 0)) {
    g_printerr ("donar-bench-elements: --udp: --port and --peer-port, "
        "without --baseline\n");
    return 2;
  }
  if (!o->baseline && !o->udp && g_strcmp0 (o->role, "caller") == 0
      && !o->address) {
    g_printerr ("donar-bench-elements: caller: --address\n");
    return 2;
  }
  return 0;
}

static gboolean
peer_frame_came (Bench * b)
{
  return g_atomic_pointer_get (&b->frames_received) != 0;
}

static gboolean
all_links_up (Bench * b)
{
  return links_up (b) >= (guint) b->o.links;
}

/* Polls until ready (b), for 120 s from start at most: FALSE then. */
static gboolean
wait_until (Bench * b, gint64 start, gboolean (*ready) (Bench * b),
    const char *what)
{
  while (!ready (b)) {
    check_bus (b);
    if (now_us () - start > 120 * G_USEC_PER_SEC) {
      g_printerr ("donar-bench-elements: %s in 120 s\n", what);
      return FALSE;
    }
    g_usleep (2 * 1000);
  }
  return TRUE;
}

/* What the process did over the measured window. */
typedef struct
{
  gdouble u0, s0, u1, s1, c0, c1;
  glong w0, w1, v0, v1;
  gint64 sent0, recv0, sent1, recv1, start, end;
  guint64 rss, hwm;
} Window;

static void
measure_window (Bench * b, Window * w)
{
  CALLGRIND_ZERO_STATS;
  w->c0 = cpu_s (&w->u0, &w->s0, &w->w0, &w->v0);
  w->sent0 = g_atomic_pointer_get (&b->frames_sent);
  w->recv0 = g_atomic_pointer_get (&b->frames_received);
  w->start = now_us ();
  wait_us (b, w->start + (gint64) (b->o.seconds * G_USEC_PER_SEC));
  w->c1 = cpu_s (&w->u1, &w->s1, &w->w1, &w->v1);
  w->end = now_us ();
  CALLGRIND_DUMP_STATS_AT ("window");
  w->sent1 = g_atomic_pointer_get (&b->frames_sent);
  w->recv1 = g_atomic_pointer_get (&b->frames_received);
  read_memory (&w->rss, &w->hwm);
  /* The same timer feeds both. */
  if (b->o.baseline)
    w->sent1 = w->sent0 + (w->recv1 - w->recv0);
}

static void
print_window (const Bench * b, const Window * w)
{
  const Options *o = &b->o;
  gdouble events = ((w->sent1 - w->sent0) + (w->recv1 - w->recv0)) / 2.0;

  g_print ("{\"mode\": \"%s\", \"role\": \"%s\", \"seconds\": %.2f, "
      "\"frames_sent\": %" G_GINT64_FORMAT ", \"frames_received\": %"
      G_GINT64_FORMAT ", \"cpu_s\": %.4f, \"user_s\": %.4f, "
      "\"sys_s\": %.4f, \"cpu_us_per_event\": %.2f, "
      "\"switches_per_event\": %.2f, "
      "\"voluntary_switches_per_event\": %.2f, \"vmrss_kib\": %"
      G_GUINT64_FORMAT ", \"vmhwm_kib\": %" G_GUINT64_FORMAT "}\n",
      o->baseline ? "baseline" : o->udp ? "udp" : "donar", o->role,
      (w->end - w->start) / 1e6, w->sent1 - w->sent0, w->recv1 - w->recv0,
      w->c1 - w->c0, w->u1 - w->u0, w->s1 - w->s0,
      events > 0 ? (w->c1 - w->c0) * 1e6 / events : 0.0,
      events > 0 ? (w->w1 - w->w0) / events : 0.0,
      events > 0 ? (w->v1 - w->v0) / events : 0.0, w->rss, w->hwm);
}

/* The tail for the peer's window, then the sender and the pipeline
 * stopped. */
static void
stop (Bench * b)
{
  wait_us (b, now_us () + (gint64) (b->o.tail * G_USEC_PER_SEC));
  g_atomic_int_set (&b->stop, 1);
  g_thread_join (b->thread);
  for (guint i = 0; i < 2 && b->appsrc[i]; i++)
    gst_app_src_end_of_stream (GST_APP_SRC (b->appsrc[i]));
  gst_element_set_state (b->pipeline, GST_STATE_NULL);
}

int
main (int argc, char **argv)
{
  Bench b = { 0 };
  Options *o = &b.o;
  gint64 start;
  Window w;
  int status = parse_options (o, argc, argv);

  if (status != 0)
    return status;
  gst_init (NULL, NULL);
  g_mutex_init (&b.lock);
  b.sent = g_array_new (FALSE, FALSE, sizeof (Stamp));
  b.recv = g_array_new (FALSE, FALSE, sizeof (Stamp));
  build (&b);

  start = now_us ();
  if (gst_element_set_state (b.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    check_bus (&b);
    g_printerr ("donar-bench-elements: the pipeline did not start\n");
    return 1;
  }
  b.thread = g_thread_new ("sender", sender_thread, &b);

  /* The peer's first frame (udp): both ends send from then on, as with
   * the donar links below. */
  if (o->udp && !wait_until (&b, start, peer_frame_came,
          "no frame from the peer"))
    return 1;
  /* All links open (donar), then the warmup. */
  if (!o->baseline && !o->udp && !wait_until (&b, start, all_links_up,
          "not all links open"))
    return 1;
  wait_us (&b, now_us () + (gint64) (o->warmup * G_USEC_PER_SEC));

  measure_window (&b, &w);
  stop (&b);
  print_window (&b, &w);
  if (o->times) {
    g_autofree gchar *sent = g_strconcat (o->times, ".sent", NULL);
    g_autofree gchar *recv = g_strconcat (o->times, ".recv", NULL);

    write_times (sent, b.sent);
    write_times (recv, b.recv);
  }
  gst_object_unref (b.pipeline);
  g_array_unref (b.sent);
  g_array_unref (b.recv);
  return 0;
}
