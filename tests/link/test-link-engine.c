/* The link engine over loopback TCP, without Tor (the caller dials the
 * callee directly): a call both ways on 12 links, strangers and garbage
 * rejected without harm to the call, a peer that is not there, bad
 * settings and frames. */
#include "donar-link-engine.h"

#include <donar-wire.h>

#include <gio/gio.h>
#include <string.h>
#include <sys/socket.h>

static const gchar secret[] = "thirty-two bytes of call secret!";
/* The tests' thread, which pops frames and so runs the engines' loops in
 * turns: events must never be raised on it (on_event). */
static GThread *test_thread;

typedef struct
{
  GMutex lock;
  guint counts[DONAR_LINK_EVENT_PEER_RESTARTED + 1];
  gchar *last_message[DONAR_LINK_EVENT_PEER_RESTARTED + 1];
} Events;

static void
on_event (const DonarLinkEvent * event, gpointer user_data)
{
  Events *events = user_data;

  if (g_getenv ("DEBUG_EVENTS"))
    g_printerr ("%p %s %s\n", events,
        donar_link_event_type_to_string (event->type), event->message);
  g_assert_true (g_thread_self () != test_thread);
  g_mutex_lock (&events->lock);
  events->counts[event->type]++;
  g_free (events->last_message[event->type]);
  events->last_message[event->type] = g_strdup (event->message);
  g_mutex_unlock (&events->lock);
}

static guint
count (Events * events, DonarLinkEventType type)
{
  guint n;

  g_mutex_lock (&events->lock);
  n = events->counts[type];
  g_mutex_unlock (&events->lock);
  return n;
}

static void
events_clear (Events * events)
{
  for (guint i = 0; i < G_N_ELEMENTS (events->last_message); i++)
    g_free (events->last_message[i]);
}

static void
settings_for (DonarLinkEngineSettings * s, DonarRole role, const gchar * key)
{
  donar_link_engine_settings_init (s, role);
  /* What these tests were written for: settings_init ()'s policy before it
   * took the product's (DONAR_DEFAULT_POLICY). */
  s->config.policy = DONAR_POLICY_ALTERNATE;
  memcpy (s->secret, key, strlen (key));
  s->secret_length = strlen (key);
}

static DonarLinkEngine *
start_callee_with_timeout (Events * events, gint64 peer_timeout_us)
{
  DonarLinkEngineSettings s;
  DonarLinkEngine *callee;
  GError *error = NULL;

  settings_for (&s, DONAR_ROLE_CALLEE, secret);
  if (peer_timeout_us)
    s.peer_timeout_us = peer_timeout_us;
  callee = donar_link_engine_new (&s, on_event, events, &error);
  g_assert_no_error (error);
  g_assert_true (donar_link_engine_start (callee, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (donar_link_engine_get_listen_port (callee), >, 0);
  donar_link_engine_settings_clear (&s);
  return callee;
}

static DonarLinkEngine *
start_callee (Events * events)
{
  return start_callee_with_timeout (events, 0);
}

/* A caller dialing 127.0.0.1:port directly, with the settings of `s`
 * (taken); short backoffs. */
static DonarLinkEngine *
start_caller_with (DonarLinkEngineSettings * s, guint16 port, Events * events)
{
  DonarLinkEngine *caller;
  GError *error = NULL;

  s->peer_host = g_strdup ("127.0.0.1");
  s->peer_port = port;
  s->socks_port = 0;
  s->backoff_min_us = 50 * G_TIME_SPAN_MILLISECOND;
  s->backoff_max_us = 200 * G_TIME_SPAN_MILLISECOND;
  caller = donar_link_engine_new (s, on_event, events, &error);
  g_assert_no_error (error);
  g_assert_true (donar_link_engine_start (caller, &error));
  donar_link_engine_settings_clear (s);
  return caller;
}

static DonarLinkEngine *
start_caller (guint16 port, const gchar * key, Events * events,
    gint64 peer_timeout_us)
{
  DonarLinkEngineSettings s;

  settings_for (&s, DONAR_ROLE_CALLER, key);
  if (peer_timeout_us)
    s.peer_timeout_us = peer_timeout_us;
  return start_caller_with (&s, port, events);
}

static void
wait_for (Events * events, DonarLinkEventType type, guint n)
{
  gint64 end = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;

  while (count (events, type) < n) {
    g_assert_cmpint (g_get_monotonic_time (), <, end);
    g_usleep (2000);
  }
}

/* The same while this thread pops `engine`'s frames, and so runs its loop,
 * in which the events come: on_event checks they are raised elsewhere. */
static void
wait_popping (DonarLinkEngine * engine, Events * events,
    DonarLinkEventType type, guint n)
{
  gint64 end = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;

  while (count (events, type) < n) {
    g_assert_cmpint (g_get_monotonic_time (), <, end);
    g_free (donar_link_engine_pop_frame (engine,
            g_get_monotonic_time () + 2000));
  }
}

/* Waits for n events of `type`, then checks that the message of the last
 * one has `needle`: a copy taken under the lock, as the engine's thread
 * frees and replaces it with each event. */
static void
wait_for_message (Events * events, DonarLinkEventType type, guint n,
    const gchar * needle)
{
  g_autofree gchar *message = NULL;

  wait_for (events, type, n);
  g_mutex_lock (&events->lock);
  message = g_strdup (events->last_message[type]);
  g_mutex_unlock (&events->lock);
  g_assert_nonnull (message);
  g_test_message ("last %s: %s", donar_link_event_type_to_string (type),
      message);
  g_assert_nonnull (strstr (message, needle));
}

/* Frame i is 100 + i % 50 bytes of the value i. */
static void
make_frame (guint i, guint8 * frame, gsize * length)
{
  *length = 100 + i % 50;
  memset (frame, (int) (i & 0xff), *length);
  frame[0] = (guint8) (i >> 8);
  frame[1] = (guint8) i;
}

static void
check_received (DonarLinkFrame * frame, gboolean * seen, guint n)
{
  guint8 expected[256];
  gsize length;
  guint i = (guint) frame->data[0] << 8 | frame->data[1];

  g_assert_cmpuint (i, <, n);
  g_assert_false (seen[i]);
  make_frame (i, expected, &length);
  g_assert_cmpmem (frame->data, frame->length, expected, length);
  g_assert_cmpint (frame->arrival_us, <=, g_get_monotonic_time ());
  seen[i] = TRUE;
  g_free (frame);
}

/* Sends n frames every period_us, as a streaming thread would, while the
 * other side takes them as they come: every one arrives, intact, once. */
static void
exchange (DonarLinkEngine * from, DonarLinkEngine * to, guint n,
    gint64 period_us)
{
  gboolean *seen = g_new0 (gboolean, n);
  guint received = 0;
  DonarLinkFrame *frame;
  DonarLinkEngineStats stats;
  gint64 end;

  for (guint i = 0; i < n; i++) {
    guint8 data[256];
    gsize length;
    GError *error = NULL;

    make_frame (i, data, &length);
    g_assert_true (donar_link_engine_send_frame (from, data, length, &error));
    end = g_get_monotonic_time () + period_us;
    while ((frame = donar_link_engine_pop_frame (to, end))) {
      check_received (frame, seen, n);
      received++;
    }
  }
  end = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;
  while (received < n) {
    frame = donar_link_engine_pop_frame (to, end);
    g_assert_nonnull (frame);
    check_received (frame, seen, n);
    received++;
  }
  g_assert_null (donar_link_engine_pop_frame (to, 0));
  donar_link_engine_get_stats (to, &stats);
  g_assert_cmpuint (stats.frames_dropped, ==, 0);
  g_free (seen);
}

static void
test_call_both_ways (void)
{
  Events callee_events = { 0 }, caller_events = { 0 };
  DonarLinkEngine *callee = start_callee (&callee_events);
  DonarLinkEngine *caller = start_caller (donar_link_engine_get_listen_port
      (callee), secret, &caller_events, 0);
  DonarLinkEngineStats stats;
  DonarLinkEngineLinkStats link;

  wait_for (&caller_events, DONAR_LINK_EVENT_ALL_LINKS_UP, 1);
  wait_for (&callee_events, DONAR_LINK_EVENT_ALL_LINKS_UP, 1);
  g_assert_cmpuint (count (&callee_events, DONAR_LINK_EVENT_LISTENING), ==, 1);
  /* Twelve links, one call: it came in once, and only at the callee. */
  g_assert_cmpuint (count (&callee_events, DONAR_LINK_EVENT_INCOMING_CALL), ==,
      1);
  g_assert_cmpuint (count (&caller_events, DONAR_LINK_EVENT_INCOMING_CALL), ==,
      0);

  exchange (caller, callee, 500, 2000);
  exchange (callee, caller, 500, 2000);

  donar_link_engine_get_stats (caller, &stats);
  g_assert_cmpuint (stats.links_up, ==, 12);
  g_assert_cmpuint (stats.session.frames_sent, ==, 500);
  g_assert_cmpuint (stats.session.frames_delivered, ==, 500);
  g_assert_cmpuint (stats.records_dropped, ==, 0);
  donar_link_engine_get_stats (callee, &stats);
  g_assert_cmpuint (stats.connections_rejected, ==, 0);
  g_assert_cmpuint (stats.session.frames_delivered, ==, 500);
  /* ALTERNATE and its 3 + 3 links in use: each frame went on one link.
   * While the caller's 500 came first, the callee, which had handed over
   * no frame yet, sent its scores alone every 160 ms. */
  g_assert_cmpuint (stats.session.messages_sent - stats.session.keepalives,
      ==, 500);
  g_assert_cmpuint (stats.session.keepalives, >=, 1);
  g_assert_true (donar_link_engine_get_link_stats (callee, 11, &link));
  g_assert_true (link.open);
  g_assert_true (link.session.authenticated);
  g_assert_false (donar_link_engine_get_link_stats (callee, 12, &link));

  donar_link_engine_free (caller);
  /* The caller gone, every link of the callee closes. */
  wait_popping (callee, &callee_events, DONAR_LINK_EVENT_NO_LINK_LEFT, 1);
  g_assert_cmpuint (count (&callee_events, DONAR_LINK_EVENT_LINK_DOWN), ==, 12);
  g_assert_cmpuint (count (&callee_events, DONAR_LINK_EVENT_PEER_RESTARTED),
      ==, 0);

  /* The caller restarted (a new process, the same secret): the callee is
   * told once, and the frames of the new session come through. */
  events_clear (&caller_events);
  memset (&caller_events, 0, sizeof caller_events);
  caller = start_caller (donar_link_engine_get_listen_port (callee), secret,
      &caller_events, 0);
  wait_for (&callee_events, DONAR_LINK_EVENT_ALL_LINKS_UP, 2);
  g_assert_cmpuint (count (&callee_events, DONAR_LINK_EVENT_PEER_RESTARTED),
      ==, 1);
  g_assert_cmpuint (count (&callee_events, DONAR_LINK_EVENT_INCOMING_CALL), ==,
      1);
  g_assert_cmpuint (count (&caller_events, DONAR_LINK_EVENT_PEER_RESTARTED),
      ==, 0);
  exchange (caller, callee, 50, 2000);
  donar_link_engine_free (caller);
  donar_link_engine_free (callee);
  events_clear (&callee_events);
  events_clear (&caller_events);
}

static GSocketConnection *
connect_raw (guint16 port)
{
  GSocketClient *client = g_socket_client_new ();
  GError *error = NULL;
  GSocketConnection *connection =
      g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL,
      &error);

  g_assert_no_error (error);
  g_object_unref (client);
  return connection;
}

/* A stranger on the callee's port, with garbage or with a HELLO made with
 * another secret: closed and counted, and the call goes on. */
static void
test_strangers_rejected (void)
{
  Events callee_events = { 0 }, caller_events = { 0 }, wrong_events = { 0 };
  DonarLinkEngine *callee = start_callee (&callee_events);
  guint16 port = donar_link_engine_get_listen_port (callee);
  DonarLinkEngine *caller = start_caller (port, secret, &caller_events, 0);
  DonarLinkEngine *wrong;
  GSocketConnection *raw;
  GOutputStream *out;
  DonarLinkEngineStats stats;
  guint8 buffer[16];
  gssize received = 0, n;
  GError *error = NULL;

  wait_for (&callee_events, DONAR_LINK_EVENT_ALL_LINKS_UP, 1);

  raw = connect_raw (port);
  out = g_io_stream_get_output_stream (G_IO_STREAM (raw));
  g_output_stream_write_all (out, "GET / HTTP/1.0\r\n\r\n", 18, NULL, NULL,
      &error);
  g_assert_no_error (error);
  /* The callee's CHALLENGE (20 bytes), then it closes: the read ends. */
  while ((n = g_input_stream_read (g_io_stream_get_input_stream (G_IO_STREAM
                  (raw)), buffer, sizeof buffer, NULL, NULL)) > 0)
    received += n;
  g_assert_cmpint (received, ==, 20);
  g_object_unref (raw);
  wait_for_message (&callee_events, DONAR_LINK_EVENT_REJECTED, 1,
      "bad record length");

  wrong = start_caller (port, "another secret", &wrong_events, 0);
  wait_for_message (&callee_events, DONAR_LINK_EVENT_REJECTED, 13,
      "authenticator");
  g_assert_cmpuint (count (&wrong_events, DONAR_LINK_EVENT_ALL_LINKS_UP), <=,
      1);
  donar_link_engine_free (wrong);

  exchange (caller, callee, 100, 2000);
  donar_link_engine_get_stats (callee, &stats);
  g_assert_cmpuint (stats.links_up, ==, 12);
  g_assert_cmpuint (stats.connections_rejected, >=, 13);
  g_assert_cmpuint (stats.session.frames_delivered, ==, 100);

  donar_link_engine_free (caller);
  donar_link_engine_free (callee);
  events_clear (&callee_events);
  events_clear (&caller_events);
  events_clear (&wrong_events);
}

static guint16
unused_port (void)
{
  GSocket *socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
      G_SOCKET_PROTOCOL_TCP, NULL);
  GInetAddress *loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *address = g_inet_socket_address_new (loopback, 0);
  GSocketAddress *bound;
  guint16 port;

  g_assert_true (g_socket_bind (socket, address, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  /* Closed without listening: connections to it are refused. */
  g_object_unref (bound);
  g_object_unref (address);
  g_object_unref (loopback);
  g_object_unref (socket);
  return port;
}

static void
test_peer_unreachable (void)
{
  Events events = { 0 };
  DonarLinkEngine *caller = start_caller (unused_port (), secret, &events,
      300 * G_TIME_SPAN_MILLISECOND);
  DonarLinkEngineLinkStats link;
  guint8 frame[160] = { 0x80 };
  GError *error = NULL;
  guint64 dials;

  wait_for_message (&events, DONAR_LINK_EVENT_PEER_UNREACHABLE, 1, "refused");
  /* Reported once, and the call is over: no more dialing. */
  g_assert_cmpint (donar_link_engine_get_end (caller, NULL), ==,
      DONAR_LINK_END_PEER_LOST);
  g_assert_true (donar_link_engine_get_link_stats (caller, 0, &link));
  dials = link.dials;
  g_assert_cmpuint (dials, >=, 1);
  g_usleep (400 * 1000);
  g_assert_cmpuint (count (&events, DONAR_LINK_EVENT_PEER_UNREACHABLE), ==, 1);
  g_assert_true (donar_link_engine_get_link_stats (caller, 0, &link));
  g_assert_cmpuint (link.dials, ==, dials);
  g_assert_false (link.open);
  /* Whoever waits for frames is told at once. */
  g_assert_null (donar_link_engine_pop_frame (caller, -1));
  g_assert_true (donar_link_engine_send_frame (caller, frame, sizeof frame,
          &error));
  donar_link_engine_free (caller);
  events_clear (&events);
}

/* A caller whose links never come up is told why before peer_timeout_us
 * (NO_LINK_YET, once): a callee that closes each link on a HELLO made with
 * another secret, and a port where nothing listens. */
static void
test_no_link_yet (void)
{
  Events callee_events = { 0 }, wrong_events = { 0 }, gone_events = { 0 };
  DonarLinkEngine *callee = start_callee (&callee_events);
  DonarLinkEngineSettings s;
  DonarLinkEngine *wrong, *gone;
  const gchar *explanation;

  settings_for (&s, DONAR_ROLE_CALLER, "another secret of thirty-two bytes");
  s.no_link_warning_us = 300 * G_TIME_SPAN_MILLISECOND;
  wrong = start_caller_with (&s, donar_link_engine_get_listen_port (callee),
      &wrong_events);
  settings_for (&s, DONAR_ROLE_CALLER, secret);
  s.no_link_warning_us = 300 * G_TIME_SPAN_MILLISECOND;
  gone = start_caller_with (&s, unused_port (), &gone_events);

  wait_for_message (&wrong_events, DONAR_LINK_EVENT_NO_LINK_YET, 1,
      "the peer closed the link on our greeting: wrong secret");
  g_assert_cmpstr (donar_link_engine_get_failure (wrong, &explanation), ==,
      "wrong-secret");
  g_assert_nonnull (strstr (explanation, "wrong secret"));
  wait_for_message (&gone_events, DONAR_LINK_EVENT_NO_LINK_YET, 1,
      "nothing listens at the callee's port");
  g_assert_cmpstr (donar_link_engine_get_failure (gone, NULL), ==,
      "connect-refused");
  /* Once, and the call goes on until peer_timeout_us. */
  g_usleep (600 * 1000);
  g_assert_cmpuint (count (&wrong_events, DONAR_LINK_EVENT_NO_LINK_YET), ==, 1);
  g_assert_cmpuint (count (&wrong_events, DONAR_LINK_EVENT_PEER_UNREACHABLE),
      ==, 0);
  g_assert_cmpint (donar_link_engine_get_end (wrong, NULL), ==,
      DONAR_LINK_END_NONE);
  /* A callee says nothing of the kind: it waits for its caller. */
  g_assert_cmpuint (count (&callee_events, DONAR_LINK_EVENT_NO_LINK_YET), ==,
      0);
  donar_link_engine_free (wrong);
  donar_link_engine_free (gone);
  donar_link_engine_free (callee);
  events_clear (&callee_events);
  events_clear (&wrong_events);
  events_clear (&gone_events);
}

/* Hang-up: the caller's BYE reaches the callee after every frame sent
 * before it; the callee says why, its links close without a LINK_DOWN
 * each, and whoever waits on its frames is told at once.  The caller's
 * links close too, and it dials none again. */
static void
test_hang_up (void)
{
  Events callee_events = { 0 }, caller_events = { 0 };
  DonarLinkEngine *callee = start_callee (&callee_events);
  DonarLinkEngine *caller = start_caller (donar_link_engine_get_listen_port
      (callee), secret, &caller_events, 0);
  DonarLinkEngineStats stats;
  DonarLinkFrame *frame;
  DonarByeReason reason;
  gboolean seen[50] = { FALSE };
  guint received = 0;

  wait_for (&caller_events, DONAR_LINK_EVENT_ALL_LINKS_UP, 1);
  wait_for (&callee_events, DONAR_LINK_EVENT_ALL_LINKS_UP, 1);
  for (guint i = 0; i < 50; i++) {
    guint8 data[256];
    gsize length;

    make_frame (i, data, &length);
    g_assert_true (donar_link_engine_send_frame (caller, data, length, NULL));
  }
  g_assert_true (donar_link_engine_end (caller, DONAR_BYE_HUNG_UP,
          G_TIME_SPAN_SECOND));
  g_assert_false (donar_link_engine_end (caller, DONAR_BYE_FAILED,
          G_TIME_SPAN_SECOND));
  g_assert_cmpint (donar_link_engine_get_end (caller, &reason), ==,
      DONAR_LINK_END_HERE);
  g_assert_cmpint (reason, ==, DONAR_BYE_HUNG_UP);
  donar_link_engine_get_stats (caller, &stats);
  g_assert_cmpuint (stats.links_up, ==, 0);
  g_assert_cmpuint (stats.session.frames_sent, ==, 50);

  /* Every frame, then the end: pop_frame waits no longer. */
  while ((frame = donar_link_engine_pop_frame (callee,
              g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND))) {
    check_received (frame, seen, 50);
    received++;
  }
  g_assert_cmpuint (received, ==, 50);
  g_assert_cmpint (donar_link_engine_get_end (callee, &reason), ==,
      DONAR_LINK_END_BY_PEER);
  g_assert_cmpint (reason, ==, DONAR_BYE_HUNG_UP);
  wait_for_message (&callee_events, DONAR_LINK_EVENT_PEER_ENDED, 1, "hung up");
  donar_link_engine_get_stats (callee, &stats);
  g_assert_cmpuint (stats.links_up, ==, 0);
  g_assert_cmpuint (count (&callee_events, DONAR_LINK_EVENT_LINK_DOWN), ==, 0);
  g_assert_cmpuint (count (&caller_events, DONAR_LINK_EVENT_LINK_DOWN), ==, 0);
  g_assert_cmpuint (count (&caller_events, DONAR_LINK_EVENT_PEER_ENDED), ==, 0);

  /* Neither side opens a link again. */
  g_usleep (300 * 1000);
  donar_link_engine_get_stats (caller, &stats);
  g_assert_cmpuint (stats.connections_opened, ==, 12);
  g_assert_cmpuint (stats.links_up, ==, 0);
  donar_link_engine_free (caller);
  donar_link_engine_free (callee);
  events_clear (&callee_events);
  events_clear (&caller_events);
}

/* A caller that vanishes without a BYE: the callee, which waited for it
 * without a limit, ends the call peer_timeout after its last link went. */
static void
test_peer_lost_after_the_call (void)
{
  Events callee_events = { 0 }, caller_events = { 0 };
  DonarLinkEngine *callee = start_callee_with_timeout (&callee_events,
      500 * G_TIME_SPAN_MILLISECOND);
  DonarLinkEngine *caller;
  gint64 gone;

  /* Twice the timeout with no caller yet: the callee still waits. */
  g_usleep (1000 * 1000);
  g_assert_cmpuint (count (&callee_events,
          DONAR_LINK_EVENT_PEER_UNREACHABLE), ==, 0);
  caller = start_caller (donar_link_engine_get_listen_port (callee), secret,
      &caller_events, 0);
  wait_for (&callee_events, DONAR_LINK_EVENT_ALL_LINKS_UP, 1);
  donar_link_engine_free (caller);
  wait_for (&callee_events, DONAR_LINK_EVENT_NO_LINK_LEFT, 1);
  gone = g_get_monotonic_time ();
  wait_for_message (&callee_events, DONAR_LINK_EVENT_PEER_UNREACHABLE, 1,
      "no link to the peer");
  g_assert_cmpint (g_get_monotonic_time () - gone, >=,
      400 * G_TIME_SPAN_MILLISECOND);
  g_assert_cmpint (donar_link_engine_get_end (callee, NULL), ==,
      DONAR_LINK_END_PEER_LOST);
  g_assert_null (donar_link_engine_pop_frame (callee, -1));
  donar_link_engine_free (callee);
  events_clear (&callee_events);
  events_clear (&caller_events);
}

/* A peer that takes the caller's connections and never says anything:
 * a listener on 127.0.0.1 whose accepted sockets inherit receive buffers
 * of rcvbuf bytes (0: the kernel's). */
typedef struct
{
  GSocketListener *listener;
  GSocket *socket;
  guint16 port;
  GPtrArray *accepted;
} SilentPeer;

static SilentPeer *
silent_peer_new (gint rcvbuf)
{
  SilentPeer *peer = g_new0 (SilentPeer, 1);
  g_autoptr (GInetAddress) loopback =
      g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr (GSocketAddress) any_port = g_inet_socket_address_new (loopback, 0);
  g_autoptr (GSocketAddress) bound = NULL;
  GError *error = NULL;

  peer->listener = g_socket_listener_new ();
  peer->accepted = g_ptr_array_new_with_free_func (g_object_unref);
  peer->socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
      G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  if (rcvbuf > 0)
    g_assert_true (g_socket_set_option (peer->socket, SOL_SOCKET, SO_RCVBUF,
            rcvbuf, &error));
  g_assert_true (g_socket_bind (peer->socket, any_port, TRUE, &error));
  g_assert_true (g_socket_listen (peer->socket, &error));
  g_assert_true (g_socket_listener_add_socket (peer->listener, peer->socket,
          NULL, &error));
  g_assert_no_error (error);
  bound = g_socket_get_local_address (peer->socket, &error);
  g_assert_no_error (error);
  peer->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  return peer;
}

/* challenge: each connection gets a callee's CHALLENGE, so that the
 * caller's HELLO and frames go out. */
static void
silent_peer_accept (SilentPeer * peer, guint n, gboolean challenge)
{
  while (peer->accepted->len < n) {
    GError *error = NULL;
    GSocketConnection *c = g_socket_listener_accept (peer->listener, NULL,
        NULL, &error);
    guint8 nonce[DONAR_WIRE_NONCE] = { 7 };
    guint8 record[DONAR_WIRE_PREFIX + DONAR_WIRE_CHALLENGE];

    g_assert_no_error (error);
    if (challenge) {
      donar_wire_encode_challenge (nonce, record, sizeof record);
      g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM
              (c)), record, sizeof record, NULL, NULL, &error);
      g_assert_no_error (error);
    }
    g_ptr_array_add (peer->accepted, c);
  }
}

static void
silent_peer_free (SilentPeer * peer)
{
  g_ptr_array_unref (peer->accepted);
  g_socket_listener_close (peer->listener);
  g_object_unref (peer->listener);
  g_object_unref (peer->socket);
  g_free (peer);
}

/* A peer that takes the links and never reads: each link's queue stays at
 * its cap (the oldest records dropped, memory bounded), and a link full for
 * the stall timeout is closed and dialed again. */
static void
test_stalled_links_bounded (void)
{
  Events events = { 0 };
  /* A small receive window (inherited by the accepted sockets) keeps the
   * kernel from buffering megabytes on loopback, so the links' queues
   * fill at once, whatever the machine's load. */
  SilentPeer *peer = silent_peer_new (4096);
  DonarLinkEngineSettings s;
  DonarLinkEngine *caller;
  DonarLinkEngineStats stats;
  DonarLinkEngineLinkStats link;
  guint8 frame[370];
  GError *error = NULL;
  gint64 end;
  guint stalled = 0;

  settings_for (&s, DONAR_ROLE_CALLER, secret);
  s.stall_timeout_us = 500 * G_TIME_SPAN_MILLISECOND;
  /* Every frame on every link: the 3 + 3 links in use all fill up. */
  s.config.policy = DONAR_POLICY_DOUBLE_SEND;
  caller = start_caller_with (&s, peer->port, &events);
  silent_peer_accept (peer, 12, TRUE);
  memset (frame, 0x80, sizeof frame);
  /* Frames far faster than the sockets take them, until a link has
   * stalled for its timeout (or 10 s: a failure). */
  end = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  do {
    for (guint i = 0; i < 20; i++)
      g_assert_true (donar_link_engine_send_frame (caller, frame,
              sizeof frame, &error));
    g_usleep (2000);
    donar_link_engine_get_stats (caller, &stats);
  } while (stats.stalls == 0 && g_get_monotonic_time () < end);
  donar_link_engine_get_stats (caller, &stats);
  g_assert_cmpuint (stats.records_dropped, >, 0);
  g_assert_cmpuint (stats.stalls, >, 0);
  /* The silent peer never answers our HELLO: a stalled link was never up,
   * and says why in its last error, not in a LINK_DOWN. */
  for (guint i = 0; i < 12; i++) {
    g_assert_true (donar_link_engine_get_link_stats (caller, i, &link));
    g_assert_cmpuint (link.queued_bytes, <=, 16 * DONAR_CELL_PAYLOAD);
    stalled += strstr (link.last_error, "stalled") != NULL;
  }
  g_assert_cmpuint (stalled, >, 0);

  donar_link_engine_free (caller);
  silent_peer_free (peer);
  events_clear (&events);
}

/* A callee that takes the connections and never answers with its HELLO
 * (as when tor reports a stream open that the service never got): each
 * link is closed after the HELLO timeout, counted, and dialed again. */
static void
test_no_hello_reopened (void)
{
  Events events = { 0 };
  SilentPeer *peer = silent_peer_new (0);
  DonarLinkEngineSettings s;
  DonarLinkEngine *caller;
  DonarLinkEngineStats stats;

  settings_for (&s, DONAR_ROLE_CALLER, secret);
  s.hello_timeout_us = 300 * G_TIME_SPAN_MILLISECOND;
  caller = start_caller_with (&s, peer->port, &events);
  /* Each of the 12 links once, then again.  A link whose HELLO is not
   * answered is never up: no LINK_UP, no LINK_DOWN, a failed dial. */
  silent_peer_accept (peer, 24, FALSE);
  do {
    g_usleep (10 * 1000);
    donar_link_engine_get_stats (caller, &stats);
  } while (stats.connections_opened < 24 || stats.hello_timeouts < 12);
  g_assert_cmpuint (stats.stalls, ==, 0);
  g_assert_cmpuint (stats.links_up, ==, 0);
  g_assert_cmpuint (stats.connections_failed, >=, 12);
  g_assert_cmpuint (count (&events, DONAR_LINK_EVENT_LINK_UP), ==, 0);
  g_assert_cmpuint (count (&events, DONAR_LINK_EVENT_LINK_DOWN), ==, 0);

  donar_link_engine_free (caller);
  silent_peer_free (peer);
  events_clear (&events);
}

static void
test_bad_settings_and_frames (void)
{
  DonarLinkEngineSettings s;
  Events events = { 0 };
  DonarLinkEngine *callee;
  GError *error = NULL;
  guint8 big[1000] = { 0 };

  settings_for (&s, DONAR_ROLE_CALLER, secret);
  g_assert_null (donar_link_engine_new (&s, NULL, NULL, &error));
  g_assert_error (error, DONAR_LINK_ENGINE_ERROR,
      DONAR_LINK_ENGINE_ERROR_SETTINGS);
  g_assert_nonnull (strstr (error->message, "peer's host"));
  g_clear_error (&error);

  s.peer_host = g_strdup ("example.org");
  s.peer_port = 9;
  g_assert_null (donar_link_engine_new (&s, NULL, NULL, &error));
  g_assert_nonnull (strstr (error->message, "only through Tor"));
  g_clear_error (&error);

  /* A SocksPort on a Unix socket: absolute, and not beside a port. */
  s.socks_path = g_strdup ("run/tor/socks");
  g_assert_null (donar_link_engine_new (&s, NULL, NULL, &error));
  g_assert_nonnull (strstr (error->message, "a port or a Unix socket"));
  g_clear_error (&error);
  s.socks_path[0] = '/';
  s.socks_port = 9050;
  g_assert_null (donar_link_engine_new (&s, NULL, NULL, &error));
  g_assert_nonnull (strstr (error->message, "a port or a Unix socket"));
  g_clear_error (&error);
  g_clear_pointer (&s.socks_path, g_free);

  s.config.n_1st = 0;
  g_assert_null (donar_link_engine_new (&s, NULL, NULL, &error));
  g_assert_error (error, DONAR_LINK_ENGINE_ERROR,
      DONAR_LINK_ENGINE_ERROR_SETTINGS);
  g_clear_error (&error);
  donar_link_engine_settings_clear (&s);

  callee = start_callee (&events);
  g_assert_false (donar_link_engine_send_frame (callee, big, sizeof big,
          &error));
  g_assert_error (error, DONAR_LINK_ENGINE_ERROR,
      DONAR_LINK_ENGINE_ERROR_FRAME_TOO_LARGE);
  /* The limit is named: one record in a cell, less the overhead (docs/protocol.md). */
  g_assert_nonnull (strstr (error->message, "1 to 426 bytes"));
  g_clear_error (&error);
  g_assert_false (donar_link_engine_send_frame (callee, big, 0, &error));
  g_clear_error (&error);
  g_assert_false (donar_link_engine_start (callee, &error));
  g_assert_error (error, DONAR_LINK_ENGINE_ERROR,
      DONAR_LINK_ENGINE_ERROR_STATE);
  g_clear_error (&error);

  /* A popper waiting without limit is released by flushing. */
  donar_link_engine_set_flushing (callee, TRUE);
  g_assert_null (donar_link_engine_pop_frame (callee, -1));
  donar_link_engine_stop (callee);
  donar_link_engine_stop (callee);
  g_assert_false (donar_link_engine_send_frame (callee, big, 10, &error));
  g_assert_error (error, DONAR_LINK_ENGINE_ERROR,
      DONAR_LINK_ENGINE_ERROR_STOPPED);
  g_clear_error (&error);
  donar_link_engine_free (callee);
  events_clear (&events);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  test_thread = g_thread_self ();
  g_test_add_func ("/link-engine/call-both-ways", test_call_both_ways);
  g_test_add_func ("/link-engine/strangers-rejected", test_strangers_rejected);
  g_test_add_func ("/link-engine/peer-unreachable", test_peer_unreachable);
  g_test_add_func ("/link-engine/no-link-yet", test_no_link_yet);
  g_test_add_func ("/link-engine/hang-up", test_hang_up);
  g_test_add_func ("/link-engine/peer-lost-after-the-call",
      test_peer_lost_after_the_call);
  g_test_add_func ("/link-engine/stalled-links-bounded",
      test_stalled_links_bounded);
  g_test_add_func ("/link-engine/no-hello-reopened", test_no_hello_reopened);
  g_test_add_func ("/link-engine/bad-settings-and-frames",
      test_bad_settings_and_frames);
  return g_test_run ();
}
