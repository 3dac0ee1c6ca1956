/* donarsink and donarsrc over a direct call (no Tor, 127.0.0.1): both
 * directions of an Opus call with the caps in-band, the properties, the
 * donar:// URI handler, a buffer that is not RTP, buffers too large for a
 * frame in a call that goes on, the stats.  Run under GST_TRACERS=leaks:
 * gst_deinit () at the end makes the leaks tracer warn about anything
 * left, and warnings are fatal. */
#include "elements-test.h"

#include <gst/gst.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

/* Frames each way: 10-ms Opus frames, 5 s. */
#define FRAMES 500
#define SETUP_TIMEOUT (10 * GST_SECOND)
#define CALL_TIMEOUT (20 * GST_SECOND)

typedef struct
{
  gint count;
} Counter;

static void
on_handoff (GstElement * fakesink, GstBuffer * buffer, GstPad * pad,
    gpointer user_data)
{
  Counter *counter = user_data;

  g_atomic_int_inc (&counter->count);
}

/* Drains the bus, failing on an error; counts the donar-stats messages. */
static guint
drain_bus (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  guint stats = 0;

  while ((msg = gst_bus_pop_filtered (bus,
              GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *error = NULL;
      gchar *debug = NULL;

      gst_message_parse_error (msg, &error, &debug);
      g_error ("%s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
          error->message, debug);
    }
    if (gst_message_has_name (msg, "donar-stats"))
      stats++;
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return stats;
}

static GstElement *
make_end (const gchar * call, const gchar * tor_control,
    const gchar * address, guint freq, Counter * counter)
{
  g_autofree gchar *addr = address ?
      g_strdup_printf (" address=\"%s\"", address) : g_strdup ("");
  /* No caps string on donarsrc: they come in-band. */
  g_autofree gchar *desc = g_strdup_printf ("audiotestsrc is-live=true "
      "freq=%u ! opusenc frame-size=10 ! rtpopuspay ! donarsink name=sink "
      "call=%s tor-control=%s stats-interval=500%s  "
      "donarsrc name=src call=%s tor-control=%s%s ! rtpopusdepay ! "
      "fakesink name=out sync=false signal-handoffs=true", freq, call,
      tor_control, addr, call, tor_control, addr);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *out;

  g_assert_no_error (error);
  out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  g_signal_connect (out, "handoff", G_CALLBACK (on_handoff), counter);
  gst_object_unref (out);
  return pipeline;
}

static guint64
stats_uint64 (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  gst_structure_get_uint64 (s, field, &v);
  return v;
}

static void
check_link_stats (const GstStructure * stats)
{
  const GValue *value = gst_structure_get_value (stats, "links");
  GValueArray *links;
  gboolean ready = FALSE;
  guint up = 0;

  g_assert_true (gst_structure_get_boolean (stats, "ready", &ready));
  g_assert_true (ready);
  /* A GValueArray, as srtsink's callers: what PyGObject can read. */
  g_assert_nonnull (value);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  g_assert_true (G_VALUE_HOLDS (value, g_value_array_get_type ()));
  G_GNUC_END_IGNORE_DEPRECATIONS;
  links = g_value_get_boxed (value);
  g_assert_cmpuint (links->n_values, ==, 12);
  for (guint i = 0; i < 12; i++) {
    const GstStructure *l = gst_value_get_structure (&links->values[i]);
    const gchar *state = gst_structure_get_string (l, "state");

    g_assert_nonnull (state);
    g_assert_nonnull (gst_structure_get_string (l, "group"));
    g_assert_true (gst_structure_has_field (l, "score"));
    g_assert_true (gst_structure_has_field (l, "bytes-sent"));
    g_assert_true (gst_structure_has_field (l, "frames-delivered"));
    g_assert_true (gst_structure_has_field (l, "failures"));
    if (g_str_equal (state, "up"))
      up++;
  }
  g_assert_cmpuint (up, >, 0);
}

/* Both directions of an Opus call, `frames` each way. */
static void
run_duplex_call (const gchar * tor_control, gint frames,
    GstClockTime setup_timeout)
{
  Counter at_callee = { 0 }, at_caller = { 0 };
  GstElement *callee, *caller;
  GstMessage *msg;
  const gchar *address;
  gchar *addr;
  GstStructure *stats;
  gint64 start, deadline;
  guint stats_messages = 0;
  gboolean callee_flag = FALSE;

  start = g_get_monotonic_time ();
  callee = make_end ("callee", tor_control, NULL, 440, &at_callee);
  g_assert_cmpint (gst_element_set_state (callee, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  msg =
      elements_test_wait_message (callee, "donar-call-address", setup_timeout);
  g_assert_nonnull (msg);
  address = gst_structure_get_string (gst_message_get_structure (msg),
      "address");
  g_assert_true (gst_structure_get_boolean (gst_message_get_structure (msg),
          "callee", &callee_flag));
  g_assert_true (callee_flag);
  g_assert_true (g_str_has_prefix (address, "donar://"));
  g_print ("# callee ready in %.1f s\n", (g_get_monotonic_time () - start) /
      1e6);
  addr = g_strdup (address);
  gst_message_unref (msg);

  caller = make_end ("caller", tor_control, addr, 880, &at_caller);
  g_free (addr);
  g_assert_cmpint (gst_element_set_state (caller, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  msg = elements_test_wait_message (caller, "donar-ready", setup_timeout);
  g_assert_nonnull (msg);
  gst_message_unref (msg);

  deadline = g_get_monotonic_time () + CALL_TIMEOUT / GST_USECOND;
  while (g_get_monotonic_time () < deadline &&
      (g_atomic_int_get (&at_callee.count) < frames ||
          g_atomic_int_get (&at_caller.count) < frames)) {
    stats_messages += drain_bus (callee);
    drain_bus (caller);
    g_usleep (50 * 1000);
  }
  g_print ("# %d frames at the callee, %d at the caller in %.1f s\n",
      g_atomic_int_get (&at_callee.count),
      g_atomic_int_get (&at_caller.count),
      (g_get_monotonic_time () - start) / 1e6);
  g_assert_cmpint (g_atomic_int_get (&at_callee.count), >=, frames);
  g_assert_cmpint (g_atomic_int_get (&at_caller.count), >=, frames);
  g_assert_cmpuint (stats_messages, >, 0);

  /* One call per name: the sink and the src see the same links. */
  stats = elements_test_get_stats (caller, "sink");
  check_link_stats (stats);
  g_assert_cmpuint (stats_uint64 (stats, "buffers-sent"), >=, frames);
  g_assert_cmpuint (stats_uint64 (stats, "caps-frames-sent"), >, 0);
  gst_structure_free (stats);
  stats = elements_test_get_stats (callee, "src");
  check_link_stats (stats);
  g_assert_cmpuint (stats_uint64 (stats, "buffers-received"), >=, frames);
  g_assert_cmpuint (stats_uint64 (stats, "caps-frames-received"), >, 0);
  g_assert_cmpuint (stats_uint64 (stats, "frames-delivered"), >=, frames);
  gst_structure_free (stats);

  gst_element_set_state (caller, GST_STATE_NULL);
  gst_element_set_state (callee, GST_STATE_NULL);
  gst_object_unref (caller);
  gst_object_unref (callee);
}

static void
test_duplex_call (void)
{
  run_duplex_call ("direct", FRAMES, SETUP_TIMEOUT);
}

/* The same over donar-torsim, an emulated Tor (docs/torsim.md): the
 * onion published and dialed through its control and SOCKS ports. */
static void
test_torsim_call (void)
{
  ElementsTestTorsim torsim;

  if (!elements_test_torsim_start (&torsim, "donarsinksrc"))
    return;
  run_duplex_call (torsim.control, FRAMES / 2, 20 * GST_SECOND);
  elements_test_torsim_stop (&torsim);
}

/* The name of the element's policy, as gst-launch-1.0 users give it. */
static const gchar *
policy_nick (GstElement * e, gint policy)
{
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "policy");

  return g_enum_get_value (G_PARAM_SPEC_ENUM (spec)->enum_class,
      policy)->value_nick;
}

static void
test_properties (void)
{
  const gchar *names[] = { "donarsink", "donarsrc" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElement *e = gst_element_factory_make (names[i], NULL);
    gchar *address, *call, *tor_control, *tor_socks_path;
    guint tor_socks, links, n1st, n2nd, window, redundancy, interval, guards;
    gint policy, security;
    gdouble budget;
    gboolean callee, spread;
    GstStructure *stats;

    g_assert_nonnull (e);
    g_object_get (e, "links", &links, "n1st", &n1st, "n2nd", &n2nd,
        "window", &window, "redundancy", &redundancy, "policy", &policy,
        "budget", &budget, "address", &address, "stats-interval", &interval,
        "tor-socks-path", &tor_socks_path, "guards", &guards,
        "spread-copies", &spread, NULL);
    g_assert_cmpuint (links, ==, 12);
    /* Seed 000's Default configuration: 2 guards a side. */
    g_assert_cmpuint (guards, ==, 2);
    g_assert_cmpuint (n1st, ==, 3);
    g_assert_cmpuint (n2nd, ==, 3);
    g_assert_cmpuint (window, ==, 2000);
    g_assert_cmpuint (redundancy, ==, 1);
    /* ADAPTIVE at DOUBLE-SEND's cells, by default. */
    g_assert_cmpstr (policy_nick (e, policy), ==, "adaptive");
    g_assert_cmpfloat (budget, ==, 2.0);
    /* A frame and its piggybacked copy on four links (docs/protocol.md). */
    g_assert_true (spread);
    g_assert_cmpuint (interval, ==, 0);
    g_assert_cmpstr (address, ==, "");
    g_free (address);
    g_assert_cmpstr (tor_socks_path, ==, "");
    g_free (tor_socks_path);
    /* The frame limit the settings give, before any call: one Tor cell
     * less the header, which ADAPTIVE's fields make larger. */
    if (i == 0) {
      guint max_frame_size;

      g_object_get (e, "max-frame-size", &max_frame_size, NULL);
      g_assert_cmpuint (max_frame_size, ==, 402);
      gst_util_set_object_arg (G_OBJECT (e), "policy", "alternate");
      g_object_get (e, "max-frame-size", &max_frame_size, NULL);
      g_assert_cmpuint (max_frame_size, ==, 426);
      g_assert_false (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
              "max-frame-size")->flags & G_PARAM_WRITABLE);
    }

    gst_util_set_object_arg (G_OBJECT (e), "policy", "double-send");
    gst_util_set_object_arg (G_OBJECT (e), "security", "1way");
    g_object_set (e, "address", "donar://x", "callee", TRUE, "call", "c1",
        "tor-control", "9051", "tor-socks", 9050, "links", 8, "n1st", 2,
        "n2nd", 4, "window", 1000, "redundancy", 2, "stats-interval", 250,
        "budget", 1.25, "guards", 4, NULL);
    g_object_get (e, "guards", &guards, NULL);
    g_assert_cmpuint (guards, ==, 4);
    g_object_get (e, "address", &address, "callee", &callee, "call", &call,
        "tor-control", &tor_control, "tor-socks", &tor_socks, "links",
        &links, "n1st", &n1st, "n2nd", &n2nd, "window", &window,
        "redundancy", &redundancy, "policy", &policy, "security", &security,
        "stats-interval", &interval, "stats", &stats, "budget", &budget, NULL);
    g_assert_cmpstr (address, ==, "donar://x");
    g_assert_true (callee);
    g_assert_cmpstr (call, ==, "c1");
    g_assert_cmpstr (tor_control, ==, "9051");
    g_assert_cmpuint (tor_socks, ==, 9050);
    g_assert_cmpuint (links, ==, 8);
    g_assert_cmpuint (n1st, ==, 2);
    g_assert_cmpuint (n2nd, ==, 4);
    g_assert_cmpuint (window, ==, 1000);
    g_assert_cmpuint (redundancy, ==, 2);
    g_assert_cmpstr (policy_nick (e, policy), ==, "double-send");
    g_assert_cmpfloat (budget, ==, 1.25);
    g_assert_cmpint (security, ==, 2);
    g_assert_cmpuint (interval, ==, 250);
    g_assert_true (gst_structure_has_name (stats, "application/x-donar-stats"));
    g_free (address);
    g_free (call);
    g_free (tor_control);
    gst_structure_free (stats);
    /* Debian's tor service: Unix sockets, taken as tor writes them too. */
    g_object_set (e, "tor-control", "/run/tor/control", "tor-socks-path",
        "unix:/run/tor/socks", NULL);
    g_object_get (e, "tor-control", &tor_control, "tor-socks-path",
        &tor_socks_path, NULL);
    g_assert_cmpstr (tor_control, ==, "/run/tor/control");
    g_assert_cmpstr (tor_socks_path, ==, "unix:/run/tor/socks");
    g_free (tor_control);
    g_free (tor_socks_path);

    if (i == 1) {
      GstCaps *caps = gst_caps_from_string ("application/x-rtp, "
          "media=audio, clock-rate=48000, encoding-name=OPUS, payload=96");
      GstCaps *got = NULL;

      g_object_set (e, "caps", caps, NULL);
      g_object_get (e, "caps", &got, NULL);
      g_assert_true (gst_caps_is_equal (caps, got));
      gst_caps_unref (caps);
      gst_caps_unref (got);
    }
    gst_object_unref (e);
  }
}

/* A call address as the parser's tests build one (tests/link). */
#define ONION "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion"
#define URI "donar://" ONION ":5004?secret=" \
  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

static void
check_uri_handler (GstURIType type, const gchar * factory_name)
{
  GstElement *e;
  GError *error = NULL;
  gchar *uri, *address;
  const gchar *const *protocols;

  e = gst_element_make_from_uri (type, URI, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (e);
  g_assert_cmpstr (GST_OBJECT_NAME (gst_element_get_factory (e)), ==,
      factory_name);
  protocols = gst_uri_handler_get_protocols (GST_URI_HANDLER (e));
  g_assert_true (g_strv_contains (protocols, "donar"));
  g_assert_cmpint (gst_uri_handler_get_uri_type (GST_URI_HANDLER (e)), ==,
      type);
  uri = gst_uri_handler_get_uri (GST_URI_HANDLER (e));
  g_object_get (e, "address", &address, NULL);
  g_assert_cmpstr (uri, ==, URI);
  g_assert_cmpstr (address, ==, URI);
  g_free (uri);
  g_free (address);

  /* A bad URI names what is wrong and leaves the address as it was. */
  g_assert_false (gst_uri_handler_set_uri (GST_URI_HANDLER (e),
          "donar://" ONION ":5004", &error));
  g_assert_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI);
  g_assert_nonnull (strstr (error->message, "no secret"));
  g_clear_error (&error);
  uri = gst_uri_handler_get_uri (GST_URI_HANDLER (e));
  g_assert_cmpstr (uri, ==, URI);
  g_free (uri);

  /* READY: neither element has a call yet (it starts at READY to
   * PAUSED). */
  g_assert_cmpint (gst_element_set_state (e, GST_STATE_READY), ==,
      GST_STATE_CHANGE_SUCCESS);
  g_assert_true (gst_uri_handler_set_uri (GST_URI_HANDLER (e), URI, &error));
  g_assert_no_error (error);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);

  /* A callee's URI is the callee form (tests/elements/test-uri.c has its
   * parameters), and once it is set up it takes none. */
  e = gst_element_factory_make (factory_name, NULL);
  g_object_set (e, "tor-control", "direct", NULL);
  uri = gst_uri_handler_get_uri (GST_URI_HANDLER (e));
  g_assert_cmpstr (uri, ==, "donar://callee");
  g_free (uri);
  g_assert_cmpint (gst_element_set_state (e, GST_STATE_PAUSED), !=,
      GST_STATE_CHANGE_FAILURE);
  g_assert_false (gst_uri_handler_set_uri (GST_URI_HANDLER (e), URI, &error));
  g_assert_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_STATE);
  g_clear_error (&error);
  uri = gst_uri_handler_get_uri (GST_URI_HANDLER (e));
  g_assert_cmpstr (uri, ==, "donar://callee");
  g_free (uri);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);

  g_assert_null (gst_element_make_from_uri (type,
          "donar://" ONION ":5004?secret=0011", NULL, &error));
  g_assert_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI);
  g_assert_nonnull (strstr (error->message, "secret"));
  g_clear_error (&error);
}

static void
test_uri_handler (void)
{
  check_uri_handler (GST_URI_SRC, "donarsrc");
  check_uri_handler (GST_URI_SINK, "donarsink");
}

static void
push (GstElement * appsrc, const guint8 * data, gsize size)
{
  GstBuffer *buf = gst_buffer_new_memdup (data, size);
  GstFlowReturn ret;

  g_signal_emit_by_name (appsrc, "push-buffer", buf, &ret);
  gst_buffer_unref (buf);
}

/* A buffer that is not RTP is dropped and counted. */
static void
test_bad_buffers (void)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch ("appsrc name=in is-live=true "
      "format=time caps=application/x-rtp ! donarsink name=sink sync=false "
      "tor-control=direct", &error);
  GstElement *in;
  GstMessage *msg;
  GstStructure *stats;
  guint8 data[100];
  gint64 deadline;

  g_assert_no_error (error);
  in = gst_bin_get_by_name (GST_BIN (pipeline), "in");
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  msg = elements_test_wait_message (pipeline, "donar-ready", SETUP_TIMEOUT);
  g_assert_nonnull (msg);
  gst_message_unref (msg);

  memset (data, 0, sizeof data);
  push (in, data, sizeof data);
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  for (;;) {
    stats = elements_test_get_stats (pipeline, "sink");
    if (stats_uint64 (stats, "dropped-not-rtp") == 1 ||
        g_get_monotonic_time () > deadline)
      break;
    gst_structure_free (stats);
    g_usleep (10 * 1000);
  }
  g_assert_cmpuint (stats_uint64 (stats, "dropped-not-rtp"), ==, 1);
  gst_structure_free (stats);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (in);
  gst_object_unref (pipeline);
}

/* The caps of the RTP packets test_too_large makes. */
#define RTP_CAPS "application/x-rtp,media=audio,clock-rate=48000," \
    "encoding-name=OPUS,payload=96"
/* The largest frame with the default settings (adaptive, 12 links): the
 * 498 bytes of a Tor cell's payload less the record prefix (2), the DATA
 * header (19), the per-link measures (4 x 12), the recent links (6 x 2 x 2)
 * and one frame header (3) (docs/protocol.md, "Overhead per message"). */
#define MAX_FRAME 402
/* The sequence numbers of test_too_large: warm-up frames below WARM_UP_END. */
#define WARM_UP_END 100
#define SEQS 256

typedef struct
{
  gint seen[SEQS];
  gint count;
} Arrivals;

static void
on_arrival (GstElement * fakesink, GstBuffer * buffer, GstPad * pad,
    gpointer user_data)
{
  Arrivals *arrivals = user_data;
  guint8 header[4];

  g_assert_cmpuint (gst_buffer_extract (buffer, 0, header, 4), ==, 4);
  g_atomic_int_set (&arrivals->seen[((header[2] << 8) | header[3]) % SEQS], 1);
  g_atomic_int_inc (&arrivals->count);
}

/* An RTP packet of `size` bytes with sequence number `seq`. */
static void
push_rtp (GstElement * appsrc, guint16 seq, gsize size)
{
  guint8 data[1000];

  g_assert_cmpuint (size, <=, sizeof data);
  memset (data, 0x55, size);
  data[0] = 0x80;
  data[1] = 96;
  data[2] = seq >> 8;
  data[3] = seq & 0xff;
  push (appsrc, data, size);
}

/* The warnings of sink about buffers too large, their messages in order;
 * an error from any element fails the test. */
static GPtrArray *
too_large_warnings (GstElement * pipeline, GPtrArray * found)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (bus,
              GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    GError *error = NULL;
    gchar *debug = NULL;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &error, &debug);
      g_error ("%s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
          error->message, debug);
    }
    gst_message_parse_warning (msg, &error, &debug);
    if (g_str_equal (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), "sink") &&
        strstr (error->message, "larger than a DONAR frame")) {
      g_print ("# warning: %s (%s)\n", error->message, debug);
      g_ptr_array_add (found, g_strdup (error->message));
    }
    g_clear_error (&error);
    g_free (debug);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return found;
}

static gboolean
all_seen (Arrivals * arrivals, const guint16 * seqs, guint n)
{
  for (guint i = 0; i < n; i++)
    if (!g_atomic_int_get (&arrivals->seen[seqs[i]]))
      return FALSE;
  return TRUE;
}

/* Buffers larger than a frame between ones that fit: dropped, counted and
 * warned about (the first at once, the next 5 s later at the earliest),
 * and the call goes on. */
static void
test_too_large (void)
{
  /* Sequence number and size, in the order pushed: the limit itself fits,
   * one byte more does not. */
  static const struct
  {
    guint16 seq;
    gsize size;
  } call[] = {
    {100, 172}, {101, 403}, {102, MAX_FRAME}, {103, 445}, {104, 172},
    {105, 495},
  };
  guint16 fit[64];
  guint n_fit = 0, warm_up = 0;
  Arrivals arrivals = { {0}, 0 };
  GError *error = NULL;
  GstElement *callee, *caller, *in, *out, *sink;
  GstMessage *msg;
  GstStructure *stats;
  guint max_frame_size;
  GPtrArray *warnings = g_ptr_array_new_with_free_func (g_free);
  gchar *address, *desc;
  gint64 first_too_large, deadline;

  callee = gst_parse_launch ("donarsrc name=src tor-control=direct "
      "caps=\"" RTP_CAPS "\" ! fakesink name=out sync=false "
      "signal-handoffs=true", &error);
  g_assert_no_error (error);
  out = gst_bin_get_by_name (GST_BIN (callee), "out");
  g_signal_connect (out, "handoff", G_CALLBACK (on_arrival), &arrivals);
  gst_object_unref (out);
  g_assert_cmpint (gst_element_set_state (callee, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  address = elements_test_wait_address (callee, SETUP_TIMEOUT);

  desc = g_strdup_printf ("appsrc name=in is-live=true format=time "
      "caps=\"" RTP_CAPS "\" ! donarsink name=sink sync=false "
      "tor-control=direct address=\"%s\"", address);
  caller = gst_parse_launch (desc, &error);
  g_assert_no_error (error);
  g_free (desc);
  g_free (address);
  in = gst_bin_get_by_name (GST_BIN (caller), "in");
  g_assert_cmpint (gst_element_set_state (caller, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  msg = elements_test_wait_message (caller, "donar-ready", SETUP_TIMEOUT);
  g_assert_nonnull (msg);
  gst_message_unref (msg);

  /* Frames sent before a link is up are lost: warm up until one comes. */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (g_atomic_int_get (&arrivals.count) == 0 &&
      g_get_monotonic_time () < deadline) {
    push_rtp (in, warm_up++ % WARM_UP_END, 172);
    g_usleep (20 * 1000);
  }
  g_assert_cmpint (g_atomic_int_get (&arrivals.count), >, 0);

  first_too_large = g_get_monotonic_time ();
  for (guint i = 0; i < G_N_ELEMENTS (call); i++) {
    push_rtp (in, call[i].seq, call[i].size);
    if (call[i].size <= MAX_FRAME)
      fit[n_fit++] = call[i].seq;
    g_usleep (20 * 1000);
  }
  for (guint16 seq = 106; seq < 126; seq++) {
    push_rtp (in, seq, 172);
    fit[n_fit++] = seq;
    g_usleep (20 * 1000);
  }
  /* 100, 102, 104 and 106 to 125. */
  g_assert_cmpuint (n_fit, ==, 23);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (!all_seen (&arrivals, fit, n_fit) &&
      g_get_monotonic_time () < deadline) {
    too_large_warnings (callee, warnings);
    g_usleep (50 * 1000);
  }
  g_assert_true (all_seen (&arrivals, fit, n_fit));
  g_assert_false (g_atomic_int_get (&arrivals.seen[101]));
  g_assert_false (g_atomic_int_get (&arrivals.seen[103]));
  g_assert_false (g_atomic_int_get (&arrivals.seen[105]));

  /* Three too large in well under 5 s: one warning, for the first. */
  too_large_warnings (callee, warnings);
  too_large_warnings (caller, warnings);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_nonnull (strstr (warnings->pdata[0], "A buffer of 403 bytes"));
  g_assert_nonnull (strstr (warnings->pdata[0], "at most 402 bytes"));
  /* What to change, for any codec: no Opus advice to a PCMU stream. */
  g_assert_nonnull (strstr (warnings->pdata[0], "Send smaller RTP packets"));
  g_assert_null (strstr (warnings->pdata[0], "opus"));
  stats = elements_test_get_stats (caller, "sink");
  g_assert_cmpuint (stats_uint64 (stats, "buffers-too-large"), ==, 3);
  g_assert_cmpuint (stats_uint64 (stats, "buffers-sent"), ==, warm_up + 23);
  g_assert_cmpuint (stats_uint64 (stats, "dropped-not-rtp"), ==, 0);
  gst_structure_free (stats);

  /* 5 s after the first: the next one warns, for the 445 and 495 left
   * unwarned and itself, 3, the largest 600 bytes; the call still goes
   * on. */
  g_usleep (MAX (0, first_too_large + 6 * G_USEC_PER_SEC -
          g_get_monotonic_time ()));
  push_rtp (in, 126, 600);
  push_rtp (in, 127, 172);
  fit[n_fit++] = 127;
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((!all_seen (&arrivals, fit, n_fit) || warnings->len < 2) &&
      g_get_monotonic_time () < deadline) {
    too_large_warnings (callee, warnings);
    too_large_warnings (caller, warnings);
    g_usleep (50 * 1000);
  }
  g_assert_true (all_seen (&arrivals, fit, n_fit));
  g_assert_false (g_atomic_int_get (&arrivals.seen[126]));
  g_assert_cmpuint (warnings->len, ==, 2);
  g_assert_nonnull (strstr (warnings->pdata[1], "3 more buffers"));
  g_assert_nonnull (strstr (warnings->pdata[1], "at most 402 bytes"));
  g_assert_nonnull (strstr (warnings->pdata[1], "the largest 600"));
  /* The property says the limit the warnings name. */
  sink = gst_bin_get_by_name (GST_BIN (caller), "sink");
  g_object_get (sink, "max-frame-size", &max_frame_size, NULL);
  g_assert_cmpuint (max_frame_size, ==, MAX_FRAME);
  gst_object_unref (sink);
  stats = elements_test_get_stats (caller, "sink");
  g_assert_cmpuint (stats_uint64 (stats, "buffers-too-large"), ==, 4);
  g_assert_cmpuint (stats_uint64 (stats, "buffers-sent"), ==, warm_up + 24);
  gst_structure_free (stats);

  gst_element_set_state (caller, GST_STATE_NULL);
  gst_element_set_state (callee, GST_STATE_NULL);
  g_ptr_array_unref (warnings);
  gst_object_unref (in);
  gst_object_unref (caller);
  gst_object_unref (callee);
}

int
main (int argc, char **argv)
{
  gboolean check_leaks = elements_test_init (&argc, &argv);
  int ret;

  g_test_add_func ("/donarsinksrc/properties", test_properties);
  g_test_add_func ("/donarsinksrc/uri-handler", test_uri_handler);
  g_test_add_func ("/donarsinksrc/bad-buffers", test_bad_buffers);
  g_test_add_func ("/donarsinksrc/too-large", test_too_large);
  g_test_add_func ("/donarsinksrc/duplex-call", test_duplex_call);
  g_test_add_func ("/donarsinksrc/torsim-call", test_torsim_call);
  ret = g_test_run ();
  return elements_test_finish (ret, check_leaks);
}
