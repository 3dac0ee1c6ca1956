/* One link's connection once it carries the call, in either role: records
 * out through a bounded queue, stream bytes in to the session, and what
 * happens when it closes. */
#include "donar-link-engine-private.h"

#include <event2/buffer.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

/* What the bufferevent itself may hold beyond the kernel's socket buffer:
 * two records, so that the queue (and its dropping of the oldest) is where
 * a stalled link's backlog waits. */
#define OUTPUT_HIGH (2 * DONAR_CELL_PAYLOAD)
/* The kernel's send buffer of a link, which Linux doubles for its own
 * accounting: a second of one busy link's records.  Left to autotuning it
 * grows to megabytes, minutes of records that a stalled circuit would hold
 * without the queue ever filling, so no stall would be seen. */
#define LINK_SNDBUF (8 * 1024)
#define READ_CHUNK 4096

void
donar_link_tune_socket (struct bufferevent *bev)
{
  int one = 1, sndbuf = LINK_SNDBUF;
  evutil_socket_t fd = bufferevent_getfd (bev);

  if (fd < 0)
    return;
  /* A record must leave at once: Nagle would hold a 40-ms frame back for
   * the acknowledgement of the previous one. */
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt (fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
}

void
donar_link_draw_nonce (guint8 * nonce)
{
  gsize got = 0;

  while (got < DONAR_WIRE_NONCE) {
    gssize n = getrandom (nonce + got, DONAR_WIRE_NONCE - got, 0);

    /* Only a signal interrupts 16 bytes once the pool is up (random(7)). */
    if (n < 0 && errno != EINTR)
      g_error ("getrandom: %s", g_strerror (errno));
    if (n > 0)
      got += (gsize) n;
  }
}

void
donar_link_init (DonarLink * link, DonarLinkEngine * engine, guint index)
{
  memset (link, 0, sizeof *link);
  link->engine = engine;
  link->index = index;
  link->state = DONAR_LINK_IDLE;
  link->rtt_us = -1;
  link->fd = -1;
  donar_record_queue_init (&link->queue, engine->settings.link_queue_bytes);
}

/* In the loop: the partial record, then the queue, to the bufferevent,
 * which writes them as the socket takes them. */
void
donar_link_flush (DonarLink * link)
{
  struct evbuffer *output = bufferevent_get_output (link->bev);
  GBytes *record;

  if (link->partial) {
    gsize length;
    const guint8 *data = g_bytes_get_data (link->partial, &length);

    evbuffer_add (output, data, length);
    g_clear_pointer (&link->partial, g_bytes_unref);
  }
  while (evbuffer_get_length (output) < OUTPUT_HIGH &&
      (record = donar_record_queue_pop (&link->queue))) {
    gsize length;
    const guint8 *data = g_bytes_get_data (record, &length);

    evbuffer_add (output, data, length);
    g_bytes_unref (record);
  }
  if (link->queue.bytes == 0)
    link->full_since = 0;
  link->backlog = link->queue.bytes > 0 || evbuffer_get_length (output) > 0;
}

/* Whatever thread writes, under the lock.  A socket that keeps up (the
 * usual case) takes the record at once, from this thread: no copy, no
 * wake-up of another.  What it does not take waits, and the loop writes
 * it as the socket drains; so do its errors, which the bufferevent then
 * reports there. */
void
donar_link_write (DonarLink * link, const guint8 * record, gsize length,
    gint64 now)
{
  DonarLinkEngine *engine = link->engine;

  if (link->state != DONAR_LINK_OPEN)
    return;
  if (!link->backlog) {
    gssize n = send (link->fd, record, length, MSG_DONTWAIT | MSG_NOSIGNAL);

    if (n == (gssize) length)
      return;
    if (n < 0)
      n = 0;
    link->partial = g_bytes_new (record + n, length - (gsize) n);
    link->backlog = TRUE;
    /* From here until the backlog is gone, the loop has either this
     * wake-up or the output's write callback to come: a write behind the
     * backlog needs no other. */
    if (engine->app_writing)
      event_active (engine->wake_event, 0, 0);
    else
      donar_link_flush (link);
    return;
  }
  if (donar_record_queue_push (&link->queue, record, length) > 0 &&
      link->full_since == 0)
    link->full_since = now;
  if (!engine->app_writing)
    donar_link_flush (link);
}

static void
on_link_writable (struct bufferevent *bev, gpointer user_data)
{
  DonarLink *link = user_data;

  donar_link_engine_lock (link->engine);
  if (link->state == DONAR_LINK_OPEN)
    donar_link_flush (link);
  /* Our BYE may just have left. */
  donar_link_engine_check_end (link->engine, g_get_monotonic_time ());
  donar_link_engine_unlock (link->engine);
}

static gboolean
link_authenticated (DonarLink * link)
{
  DonarLinkStats stats;

  donar_session_get_link_stats (link->engine->session, link->index, &stats);
  return stats.authenticated;
}

/* A link is up once both HELLOs crossed on it: frames sent on it then
 * reach the peer.  A callee's is at once (the caller's HELLO picked it); a
 * caller's when the callee's HELLO answers ours. */
static void
count_up (DonarLink * link)
{
  DonarLinkEngine *engine = link->engine;

  link->counted_up = TRUE;
  engine->links_up++;
  engine->had_link = TRUE;
  engine->peer_unreachable_reported = FALSE;
  donar_link_engine_raise (engine, DONAR_LINK_EVENT_LINK_UP, link->index,
      "link %u is open", link->index);
  if (engine->links_up == engine->settings.config.n_links)
    donar_link_engine_raise (engine, DONAR_LINK_EVENT_ALL_LINKS_UP,
        G_MAXUINT, "all %u links are open", engine->links_up);
}

static void
read_input (DonarLink * link, struct bufferevent *bev)
{
  DonarLinkEngine *engine = link->engine;
  struct evbuffer *input = bufferevent_get_input (bev);
  guint8 chunk[READ_CHUNK];
  int n;

  while (link->bev == bev && (n = evbuffer_remove (input, chunk,
              sizeof chunk)) > 0) {
    const guint8 *data = chunk;
    gsize length = (gsize) n;
    gint64 now = g_get_monotonic_time ();
    DonarError error;

    if (link->state == DONAR_LINK_SOCKS &&
        !donar_link_socks_read (link, &data, &length, now))
      break;
    if (link->state != DONAR_LINK_OPEN || length == 0)
      continue;
    error = donar_session_receive (engine->session, link->index, data,
        length, now);
    if (error != DONAR_OK) {
      donar_link_close (link, now, "the peer sent bad data: %s",
          donar_error_to_string (error));
      break;
    }
    /* The callee's HELLO answers ours, sent as its CHALLENGE came with
     * tor's SOCKS reply: one round trip of the circuit. */
    if (link->awaiting_peer && link_authenticated (link)) {
      link->rtt_us = now - link->opened_at;
      link->awaiting_peer = FALSE;
      count_up (link);
    }
  }
}

static void
on_link_readable (struct bufferevent *bev, gpointer user_data)
{
  DonarLink *link = user_data;

  donar_link_engine_lock (link->engine);
  read_input (link, bev);
  donar_link_engine_unlock (link->engine);
}

static void
on_link_event (struct bufferevent *bev, short what, gpointer user_data);

/* Callee: an identified connection becomes this link, replacing the one it
 * had (the caller dialed again: the old one is dead or dying). */
void
donar_link_take_connection (DonarLink * link, struct bufferevent *bev,
    gint64 now, gint64 rtt_us, const guint8 * nonce)
{
  if (link->state == DONAR_LINK_OPEN)
    donar_link_close (link, now, "replaced by a new connection of the peer");
  memcpy (link->nonce, nonce, DONAR_WIRE_NONCE);
  link->bev = bev;
  bufferevent_setcb (bev, on_link_readable, on_link_writable, on_link_event,
      link);
  bufferevent_enable (bev, EV_READ | EV_WRITE);
  donar_link_open (link, now);
  link->rtt_us = rtt_us;
  /* The HELLO and whatever followed it are still in the input. */
  read_input (link, bev);
}

void
donar_link_open (DonarLink * link, gint64 now)
{
  DonarLinkEngine *engine = link->engine;

  if (link->timer)
    evtimer_del (link->timer);
  link->state = DONAR_LINK_OPEN;
  link->opened_at = now;
  link->rtt_us = -1;
  link->awaiting_peer = engine->settings.role == DONAR_ROLE_CALLER;
  link->full_since = 0;
  link->fd = bufferevent_getfd (link->bev);
  /* What the SOCKS exchange or the CHALLENGE left in the output goes
   * first. */
  link->backlog = evbuffer_get_length (bufferevent_get_output (link->bev)) > 0;
  bufferevent_setcb (link->bev, on_link_readable, on_link_writable,
      on_link_event, link);
  link->counted_up = FALSE;
  engine->connections_opened++;
  /* A callee's CHALLENGE went out as the connection came. */
  if (engine->settings.role == DONAR_ROLE_CALLEE) {
    donar_session_link_accepted (engine->session, link->index, link->nonce,
        now);
  } else {
    donar_link_draw_nonce (link->nonce);
    donar_session_link_up (engine->session, link->index, link->nonce, now);
  }
  donar_link_path_apply (link);
  if (!link->awaiting_peer)
    count_up (link);
}

static void
release_connection (DonarLink * link)
{
  if (link->timer)
    evtimer_del (link->timer);
  g_clear_pointer (&link->bev, bufferevent_free);
  link->fd = -1;
  link->backlog = FALSE;
  g_clear_pointer (&link->partial, g_bytes_unref);
  donar_record_queue_clear (&link->queue);
  link->full_since = 0;
}

void
donar_link_close (DonarLink * link, gint64 now, const gchar * format, ...)
{
  DonarLinkEngine *engine = link->engine;
  gboolean was_open = link->state == DONAR_LINK_OPEN;
  gboolean was_up = was_open && link->counted_up;
  gboolean not_listening = link->state == DONAR_LINK_CONNECTING;
  va_list args;

  va_start (args, format);
  g_vsnprintf (link->last_error, sizeof link->last_error, format, args);
  va_end (args);
  release_connection (link);
  /* Whatever tor says next of the old circuit is not this link's. */
  donar_link_path_reset (link, "");

  if (was_open)
    donar_session_link_down (engine->session, link->index, now);
  if (was_up)
    engine->links_up--;
  link->counted_up = FALSE;
  if (was_up && engine->end == DONAR_LINK_END_NONE) {
    /* A link that carried the call a while was good: its next dial starts
     * the backoff over. */
    if (now - link->opened_at >= 10 * G_TIME_SPAN_SECOND)
      link->attempt = 0;
    donar_link_engine_raise (engine, DONAR_LINK_EVENT_LINK_DOWN, link->index,
        "link %u closed: %s", link->index, link->last_error);
    if (engine->links_up == 0) {
      engine->no_link_since = now;
      donar_link_engine_raise (engine, DONAR_LINK_EVENT_NO_LINK_LEFT,
          G_MAXUINT, "no link is open (the last one, %u: %s)", link->index,
          link->last_error);
    }
  } else if (!was_up && engine->end == DONAR_LINK_END_NONE) {
    engine->connections_failed++;
  }
  link->state = DONAR_LINK_IDLE;
  if (engine->settings.role == DONAR_ROLE_CALLER && !engine->stopped &&
      engine->end == DONAR_LINK_END_NONE)
    donar_link_schedule_dial (link, now, not_listening);
  donar_link_engine_check_end (engine, now);
}

void
donar_link_abandon (DonarLink * link)
{
  g_return_if_fail (link->state != DONAR_LINK_OPEN);
  release_connection (link);
  donar_link_path_reset (link, "");
  link->state = DONAR_LINK_IDLE;
}

/* What the close says of the far end: a caller whose HELLO waits for the
 * callee's was refused by whoever answered the stream, which a DONAR
 * callee does only to a HELLO made with another secret. */
static void
closed_by_peer (DonarLink * link, gint64 now)
{
  if (link->state == DONAR_LINK_OPEN && link->awaiting_peer) {
    link->failure = DONAR_LINK_FAILURE_WRONG_SECRET;
    donar_link_close (link, now, "the peer closed the link on our greeting: "
        "wrong secret, or not a DONAR callee");
    return;
  }
  if (link->state == DONAR_LINK_SOCKS)
    link->failure = link->socks.stage == DONAR_SOCKS_STAGE_METHOD ?
        DONAR_LINK_FAILURE_SOCKS_NOT_SOCKS : DONAR_LINK_FAILURE_TOR_FAILED;
  donar_link_close (link, now, "%s closed the connection",
      link->state == DONAR_LINK_OPEN ? "the peer or Tor" : "Tor");
}

static void
on_link_event (struct bufferevent *bev, short what, gpointer user_data)
{
  DonarLink *link = user_data;
  gint64 now = g_get_monotonic_time ();

  donar_link_engine_lock (link->engine);
  if (link->bev != bev) {
    /* A late event of a connection already replaced. */
  } else if (what & BEV_EVENT_CONNECTED) {
    donar_link_tune_socket (bev);
    if (!donar_link_engine_uses_socks (&link->engine->settings)) {
      donar_link_open (link, now);
    } else {
      guint8 greeting[DONAR_SOCKS_GREETING_LENGTH];
      gsize written;

      donar_socks_build_greeting (greeting, sizeof greeting, &written);
      donar_socks_reader_init (&link->socks);
      link->state = DONAR_LINK_SOCKS;
      bufferevent_write (bev, greeting, written);
    }
  } else if (what & BEV_EVENT_EOF) {
    closed_by_peer (link, now);
  } else if (what & BEV_EVENT_ERROR) {
    int code = EVUTIL_SOCKET_ERROR ();

    if (link->state == DONAR_LINK_CONNECTING)
      link->failure = DONAR_LINK_FAILURE_CONNECT_REFUSED;
    donar_link_close (link, now, "%s: %s",
        link->state == DONAR_LINK_CONNECTING ? "cannot connect" : "socket "
        "error", evutil_socket_error_to_string (code));
  }
  donar_link_engine_unlock (link->engine);
}

void
donar_link_check_stall (DonarLink * link, gint64 now)
{
  if (link->state != DONAR_LINK_OPEN || link->full_since == 0 ||
      now - link->full_since < link->engine->settings.stall_timeout_us)
    return;
  link->engine->stalls++;
  donar_link_close (link, now, "stalled: its queue stayed full for %"
      G_GINT64_FORMAT " ms", (now - link->full_since) / 1000);
}

/* A caller's link whose callee has not answered with its HELLO in time
 * never reached it, though tor said the stream was open: its circuit hung
 * at once, or the service never got the stream.  Nothing else would close
 * it: it looks open and carries nothing. */
void
donar_link_check_hello (DonarLink * link, gint64 now)
{
  gint64 timeout_us = link->engine->settings.hello_timeout_us;

  if (link->state != DONAR_LINK_OPEN || !link->awaiting_peer ||
      now - link->opened_at < timeout_us)
    return;
  link->engine->hello_timeouts++;
  link->failure = DONAR_LINK_FAILURE_NO_HELLO;
  donar_link_close (link, now, "no HELLO from the callee in %" G_GINT64_FORMAT
      " ms", (now - link->opened_at) / 1000);
}

/* A hung circuit whose socket still takes our writes (over Tor, the
 * stream window holds about 250 KB) never fills the queue: the peer's
 * frames that never come out of it tell first. */
void
donar_link_check_silence (DonarLink * link, gint64 now)
{
  DonarLinkEngine *engine = link->engine;
  gint64 silent_us, late_us;

  if (link->state != DONAR_LINK_OPEN)
    return;
  late_us = donar_session_get_link_lateness (engine->session, link->index, now);
  if (late_us >= engine->settings.stall_timeout_us) {
    /* Seen from our side: what it holds would take longer to come than a
     * new circuit takes to build (donar_session_get_link_lateness says
     * when that is). */
    engine->stalls++;
    donar_link_close (link, now, "stalled: our frames on it %"
        G_GINT64_FORMAT " ms overdue", late_us / 1000);
    return;
  }
  silent_us = donar_session_get_link_silence (engine->session, link->index,
      now);
  if (silent_us < engine->settings.silence_timeout_us)
    return;
  engine->silences++;
  donar_link_close (link, now, "silent: the peer's frames of the last %"
      G_GINT64_FORMAT " ms on it never came", silent_us / 1000);
}

/* Only once the engine's thread is gone and no popper runs the loop. */
void
donar_link_dispose (DonarLink * link)
{
  release_connection (link);
  g_clear_pointer (&link->timer, event_free);
  link->state = DONAR_LINK_IDLE;
}

/* The callbacks of a connection being dialed are those of an open link:
 * the state tells them apart. */
void
donar_link_setcb (DonarLink * link)
{
  bufferevent_setcb (link->bev, on_link_readable, on_link_writable,
      on_link_event, link);
}
