/* The threads of a call (issue 14): donarsink writes its records to the
 * links' sockets from its streaming thread, and donarsrc's streaming
 * thread runs the link engine's loop while it waits for a frame.  Over a
 * direct call (no Tor, 127.0.0.1), with both ends in this process: both
 * ends sending at once, a state change to NULL while frames are being
 * sent and received, and links closed under a writer.  Each asserts what
 * the threads must keep: every frame (or the call going on), no error, a
 * stop that returns.  Run under GST_TRACERS=leaks like the others. */
#include "elements-test.h"

#include <gst/gst.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#define RTP_CAPS "application/x-rtp,media=audio,clock-rate=48000," \
    "encoding-name=OPUS,payload=96"
#define SETUP_TIMEOUT (10 * GST_SECOND)
#define SEQS 65536

typedef struct
{
  GstElement *pipeline;
  GstElement *in;
  gint *seen;                   /* SEQS, by RTP sequence number */
  gint count;
} End;

typedef struct
{
  End *end;
  guint16 first;
  guint n;
  gint64 period_us;
  /* Pushed until stop is set, when n is 0. */
  gint stop;
  guint pushed;
  GstFlowReturn last;
  GThread *thread;
} Sender;

static void
on_arrival (GstElement * fakesink, GstBuffer * buffer, GstPad * pad,
    gpointer user_data)
{
  End *end = user_data;
  guint8 header[4];

  g_assert_cmpuint (gst_buffer_extract (buffer, 0, header, 4), ==, 4);
  g_atomic_int_set (&end->seen[(header[2] << 8) | header[3]], 1);
  g_atomic_int_inc (&end->count);
}

static GstFlowReturn
push_rtp (End * end, guint16 seq)
{
  guint8 data[172];
  GstBuffer *buf;
  GstFlowReturn ret;

  memset (data, 0x55, sizeof data);
  data[0] = 0x80;
  data[1] = 96;
  data[2] = seq >> 8;
  data[3] = seq & 0xff;
  buf = gst_buffer_new_memdup (data, sizeof data);
  g_signal_emit_by_name (end->in, "push-buffer", buf, &ret);
  gst_buffer_unref (buf);
  return ret;
}

/* A sink and a source of one call, frames in through an appsrc and out
 * through a fakesink. */
static End *
end_new (const gchar * call, const gchar * address)
{
  End *end = g_new0 (End, 1);
  g_autofree gchar *addr = address ?
      g_strdup_printf (" address=\"%s\"", address) : g_strdup ("");
  g_autofree gchar *desc = g_strdup_printf ("appsrc name=in is-live=true "
      "format=time caps=\"" RTP_CAPS "\" ! donarsink name=sink sync=false "
      "call=%s tor-control=direct%s  donarsrc name=src call=%s "
      "tor-control=direct caps=\"" RTP_CAPS "\"%s ! fakesink name=out "
      "sync=false signal-handoffs=true", call, addr, call, addr);
  GError *error = NULL;
  GstElement *out;

  end->seen = g_new0 (gint, SEQS);
  end->pipeline = gst_parse_launch (desc, &error);
  g_assert_no_error (error);
  end->in = gst_bin_get_by_name (GST_BIN (end->pipeline), "in");
  out = gst_bin_get_by_name (GST_BIN (end->pipeline), "out");
  g_signal_connect (out, "handoff", G_CALLBACK (on_arrival), end);
  gst_object_unref (out);
  g_assert_cmpint (gst_element_set_state (end->pipeline, GST_STATE_PLAYING),
      !=, GST_STATE_CHANGE_FAILURE);
  return end;
}

/* Set to NULL (which must return), and freed. */
static void
end_free (End * end)
{
  g_assert_cmpint (gst_element_set_state (end->pipeline, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (end->in);
  gst_object_unref (end->pipeline);
  g_free (end->seen);
  g_free (end);
}

/* Fails the test on an error; returns how many warnings said a link went
 * down. */
static guint
check_bus (End * end)
{
  GstBus *bus = gst_element_get_bus (end->pipeline);
  GstMessage *msg;
  guint links_down = 0;

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
    if (strstr (error->message, "of the call is down"))
      links_down++;
    g_clear_error (&error);
    g_free (debug);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return links_down;
}

/* A callee and its caller, each with a link up, and a frame through each
 * way: frames sent before the first link is up are lost, so seq 0 to 99
 * are pushed until one arrives. */
static void
start_call (End ** callee, End ** caller)
{
  g_autofree gchar *address = NULL;
  GstMessage *msg;
  gint64 deadline;
  guint seq = 0;

  *callee = end_new ("callee", NULL);
  address = elements_test_wait_address ((*callee)->pipeline, SETUP_TIMEOUT);
  *caller = end_new ("caller", address);
  msg = elements_test_wait_message ((*caller)->pipeline, "donar-ready",
      SETUP_TIMEOUT);
  g_assert_nonnull (msg);
  gst_message_unref (msg);

  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((g_atomic_int_get (&(*callee)->count) == 0 ||
          g_atomic_int_get (&(*caller)->count) == 0) &&
      g_get_monotonic_time () < deadline) {
    push_rtp (*caller, seq % 100);
    push_rtp (*callee, seq % 100);
    seq++;
    g_usleep (20 * 1000);
  }
  g_assert_cmpint (g_atomic_int_get (&(*callee)->count), >, 0);
  g_assert_cmpint (g_atomic_int_get (&(*caller)->count), >, 0);
}

static gpointer
send_frames (gpointer user_data)
{
  Sender *s = user_data;
  gint64 next = g_get_monotonic_time ();

  for (guint i = 0; s->n == 0 ? !g_atomic_int_get (&s->stop) : i < s->n; i++) {
    s->last = push_rtp (s->end, (guint16) (s->first + i));
    if (s->last != GST_FLOW_OK)
      break;
    s->pushed++;
    next += s->period_us;
    if (next > g_get_monotonic_time ())
      g_usleep (next - g_get_monotonic_time ());
  }
  return NULL;
}

/* s[0] sends from the caller, s[1] from the callee, each n frames from
 * seq first (n 0: until stop or a flow that is not OK), one every
 * period_us. */
static void
senders_start (Sender s[2], End * caller, End * callee, guint16 first,
    guint n, gint64 period_us)
{
  for (guint i = 0; i < 2; i++) {
    s[i].end = i == 0 ? caller : callee;
    s[i].first = first;
    s[i].n = n;
    s[i].period_us = period_us;
    s[i].thread = g_thread_new (i == 0 ? "caller-sends" : "callee-sends",
        send_frames, &s[i]);
  }
}

static void
senders_join (Sender s[2])
{
  for (guint i = 0; i < 2; i++)
    g_thread_join (s[i].thread);
}

static gboolean
all_seen (End * end, guint16 first, guint n)
{
  for (guint i = 0; i < n; i++)
    if (!g_atomic_int_get (&end->seen[(guint16) (first + i)]))
      return FALSE;
  return TRUE;
}

static guint
missing (End * end, guint16 first, guint n)
{
  guint count = 0;

  for (guint i = 0; i < n; i++)
    count += !g_atomic_int_get (&end->seen[(guint16) (first + i)]);
  return count;
}

static guint64
counter (End * end, const gchar * element, const gchar * field)
{
  GstStructure *stats = elements_test_get_stats (end->pipeline, element);
  guint64 v = 0;

  gst_structure_get_uint64 (stats, field, &v);
  gst_structure_free (stats);
  return v;
}

/* Both ends send 1000 frames at once, one every 2 ms (20 times a voice
 * call's rate), while each end's donarsrc takes the other's: every frame
 * arrives at both ends unless its sender counted it withheld or dropped,
 * none is dropped at the receiver, no error. */
static void
test_both_ends_busy (void)
{
  End *callee, *caller;
  Sender s[2] = { {0} };
  gint64 deadline;

  start_call (&callee, &caller);
  senders_start (s, caller, callee, 1000, 1000, 2000);
  senders_join (s);
  g_assert_cmpuint (s[0].pushed, ==, 1000);
  g_assert_cmpuint (s[1].pushed, ==, 1000);

  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((!all_seen (callee, 1000, 1000) || !all_seen (caller, 1000, 1000))
      && g_get_monotonic_time () < deadline) {
    check_bus (callee);
    check_bus (caller);
    g_usleep (50 * 1000);
  }
  /* A frame may be lost only where the sender counts it: withheld by
   * ADAPTIVE as too late for the deadline (issue 26), or dropped, oldest
   * first, from a link's bounded queue that the loop could not drain.
   * Both happen only when the machine starves the loop (seen with the
   * test pinned to one busy core under the sanitizers: up to 81 records
   * dropped, 35 frames missing).  A frame is lost when every record of
   * it is dropped, so no more frames than records. */
  for (guint i = 0; i < 2; i++) {
    End *to = i == 0 ? callee : caller, *from = i == 0 ? caller : callee;
    guint lost = missing (to, 1000, 1000);
    guint64 withheld = counter (from, "sink", "frames-withheld");
    guint64 dropped = counter (from, "sink", "records-dropped");

    g_test_message ("%s: %u missing; sender's frames-withheld %"
        G_GUINT64_FORMAT ", records-dropped %" G_GUINT64_FORMAT,
        i == 0 ? "caller to callee" : "callee to caller", lost, withheld,
        dropped);
    g_assert_cmpuint (lost, <=, withheld + dropped);
  }
  check_bus (callee);
  check_bus (caller);
  g_assert_cmpuint (counter (caller, "sink", "buffers-sent"), >=, 1000);
  g_assert_cmpuint (counter (callee, "src", "buffers-received") +
      missing (callee, 1000, 1000), >=, 1000);
  g_assert_cmpuint (counter (callee, "src", "frames-dropped"), ==, 0);
  g_assert_cmpuint (counter (caller, "src", "frames-dropped"), ==, 0);
  end_free (caller);
  end_free (callee);
}

/* A state change to NULL while both ends send and receive: the streaming
 * threads are in the middle of writing to the links (donarsink) and of
 * running the link engine's loop (donarsrc).  It must return at once,
 * whichever end goes first, and the senders then see FLUSHING; three
 * calls in a row. */
static void
test_null_during_send (void)
{
  for (guint round = 0; round < 3; round++) {
    End *callee, *caller;
    Sender s[2] = { {0}
    };
    End *first, *second;
    gint64 start;
    gint before;

    start_call (&callee, &caller);
    senders_start (s, caller, callee, 200, 0, 1000);
    g_usleep (300 * 1000);
    before = g_atomic_int_get (&callee->count) +
        g_atomic_int_get (&caller->count);

    /* The caller first in one round, the callee in the next. */
    first = round % 2 ? callee : caller;
    second = round % 2 ? caller : callee;
    check_bus (first);
    start = g_get_monotonic_time ();
    g_assert_cmpint (gst_element_set_state (first->pipeline,
            GST_STATE_NULL), ==, GST_STATE_CHANGE_SUCCESS);
    g_test_message ("round %u: NULL in %.1f ms, %d frames arrived before",
        round, (g_get_monotonic_time () - start) / 1000.0, before);
    g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
    g_assert_cmpint (before, >, 0);
    g_usleep (50 * 1000);
    check_bus (second);
    start = g_get_monotonic_time ();
    g_assert_cmpint (gst_element_set_state (second->pipeline,
            GST_STATE_NULL), ==, GST_STATE_CHANGE_SUCCESS);
    g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);

    /* Pushing into a stopped appsrc ends each sender. */
    senders_join (s);
    g_assert_cmpint (s[0].last, ==, GST_FLOW_FLUSHING);
    g_assert_cmpint (s[1].last, ==, GST_FLOW_FLUSHING);
    end_free (caller);
    end_free (callee);
  }
}

/* The local port of this process's one listening TCP socket on IPv4: the
 * callee's link engine (a direct call has no tor). */
static guint16
listening_port (void)
{
  guint16 port = 0;

  for (int fd = 3; fd < 1024; fd++) {
    struct sockaddr_in a;
    socklen_t length = sizeof a;
    int listening = 0;
    socklen_t int_length = sizeof listening;

    if (getsockopt (fd, SOL_SOCKET, SO_ACCEPTCONN, &listening,
            &int_length) < 0 || !listening)
      continue;
    if (getsockname (fd, (struct sockaddr *) &a, &length) < 0 ||
        a.sin_family != AF_INET)
      continue;
    g_assert_cmpuint (port, ==, 0);
    port = ntohs (a.sin_port);
  }
  g_assert_cmpuint (port, >, 0);
  return port;
}

/* The caller's sockets of the links: connected to the callee's port. */
static GArray *
link_sockets (guint16 port)
{
  GArray *fds = g_array_new (FALSE, FALSE, sizeof (int));

  for (int fd = 3; fd < 1024; fd++) {
    struct sockaddr_in a;
    socklen_t length = sizeof a;

    if (getpeername (fd, (struct sockaddr *) &a, &length) == 0 &&
        a.sin_family == AF_INET && ntohs (a.sin_port) == port)
      g_array_append_val (fds, fd);
  }
  return fds;
}

/* Links closed under a writer: both ends send a frame every 2 ms while
 * the caller's sockets of the links are shut down, one every 100 ms, under
 * donarsink's writes and donarsrc's reads.  The links are said down (a
 * warning, no error), dialed again, and the call goes on both ways. */
static void
test_link_closed_during_write (void)
{
  End *callee, *caller;
  Sender s[2] = { {0} };
  GArray *fds;
  guint links_down = 0;
  gint at_callee, at_caller;
  gint64 deadline;
  guint16 port;

  start_call (&callee, &caller);
  port = listening_port ();
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  for (;;) {
    fds = link_sockets (port);
    if (fds->len == 12 || g_get_monotonic_time () > deadline)
      break;
    g_array_unref (fds);
    g_usleep (20 * 1000);
  }
  g_assert_cmpuint (fds->len, ==, 12);
  senders_start (s, caller, callee, 200, 0, 2000);
  g_usleep (100 * 1000);
  for (guint i = 0; i < fds->len; i++) {
    g_assert_cmpint (shutdown (g_array_index (fds, int, i), SHUT_RDWR), ==, 0);
    links_down += check_bus (caller) + check_bus (callee);
    g_usleep (100 * 1000);
  }
  g_array_unref (fds);

  /* The links are dialed again: frames come both ways after the last
   * shutdown, 200 more at each end. */
  at_callee = g_atomic_int_get (&callee->count);
  at_caller = g_atomic_int_get (&caller->count);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((g_atomic_int_get (&callee->count) < at_callee + 200 ||
          g_atomic_int_get (&caller->count) < at_caller + 200) &&
      g_get_monotonic_time () < deadline) {
    links_down += check_bus (caller) + check_bus (callee);
    g_usleep (50 * 1000);
  }
  g_assert_cmpint (g_atomic_int_get (&callee->count), >=, at_callee + 200);
  g_assert_cmpint (g_atomic_int_get (&caller->count), >=, at_caller + 200);
  links_down += check_bus (caller) + check_bus (callee);
  g_test_message ("%u link-down warnings", links_down);
  g_assert_cmpuint (links_down, >, 0);

  g_atomic_int_set (&s[0].stop, 1);
  g_atomic_int_set (&s[1].stop, 1);
  senders_join (s);
  g_assert_cmpint (s[0].last, ==, GST_FLOW_OK);
  g_assert_cmpint (s[1].last, ==, GST_FLOW_OK);
  end_free (caller);
  end_free (callee);
}

int
main (int argc, char **argv)
{
  gboolean check_leaks = elements_test_init (&argc, &argv);
  int ret;

  g_test_add_func ("/threading/both-ends-busy", test_both_ends_busy);
  g_test_add_func ("/threading/null-during-send", test_null_during_send);
  g_test_add_func ("/threading/link-closed-during-write",
      test_link_closed_during_write);
  ret = g_test_run ();
  return elements_test_finish (ret, check_leaks);
}
