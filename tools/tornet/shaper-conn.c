/* A connection through a relay of donar-shaper: side 0 is the client that
 * connected to the relay's listen port, side 1 the connection to its target
 * port.  What side d reads goes into direction d of the connection's timed
 * queue (lib/shaper), stamped with the time it is due, and is written to
 * side 1 - d then.  A close travels the same way, as a chunk without data:
 * the other side is closed once the bytes ahead of it are written. */
#include "shaper.h"
#include "donar-timed-queue.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

struct _ShaperConn
{
  ShaperRelay *relay;
  guint id;
  struct bufferevent *side[2];
  /* evbuffer, direction d: read on side d; NULL is the close of side d */
  DonarTimedQueue *fifo;
  gint64 last_release_us[2];
  struct event *timer[2];
  gboolean connected;           /* side 1 reached the target */
  gboolean ended[2];            /* side d closed (its close is queued) */
};

static void conn_finish (ShaperConn * c);

static void
set_nodelay (evutil_socket_t fd)
{
  int one = 1;

  /* Voice frames are small: Nagle would hold them back on top of the
   * shaped delay. */
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static guint
side_of (ShaperConn * c, struct bufferevent *bev)
{
  return bev == c->side[0] ? 0 : 1;
}

/* Like a TCP window: stop reading side d while too much of it waits. */
static void
update_reading (ShaperConn * c, guint dir)
{
  struct bufferevent *to = c->side[1 - dir];
  gsize pending = donar_timed_queue_bytes (c->fifo, dir);

  if (c->side[dir] == NULL || c->ended[dir])
    return;
  if (to != NULL)
    pending += evbuffer_get_length (bufferevent_get_output (to));
  if (pending >= c->relay->shaper->max_pending)
    bufferevent_disable (c->side[dir], EV_READ);
  else
    bufferevent_enable (c->side[dir], EV_READ);
}

static void
arm_timer (ShaperConn * c, guint dir)
{
  Shaper *s = c->relay->shaper;
  gint64 due_us = donar_timed_queue_next_due (c->fifo, dir);

  if (due_us == G_MAXINT64)
    return;
  donar_ev_timer_at (s->base, c->timer[dir], s->origin_us + due_us);
}

/* Bytes (or the close, data NULL) arrive from side dir now. */
static void
enqueue (ShaperConn * c, guint dir, struct evbuffer *data)
{
  Shaper *s = c->relay->shaper;
  gint64 now = shaper_now (s);
  gint64 delay = donar_shaper_schedule_delay (c->relay->schedule, now);
  gsize bytes = data ? evbuffer_get_length (data) : 0;
  gint64 release_us = donar_shaper_release_time (&c->last_release_us[dir],
      now, delay);
  gboolean head = donar_timed_queue_push (c->fifo, dir, release_us, data,
      bytes);

  shaper_log (s, "%s relay=%u conn=%u dir=%u bytes=%" G_GSIZE_FORMAT
      " recv_us=%" G_GINT64_FORMAT " delay_us=%" G_GINT64_FORMAT
      " release_us=%" G_GINT64_FORMAT, data ? "chunk" : "end",
      c->relay->index, c->id, dir, bytes, now, delay, release_us);
  if (head)
    arm_timer (c, dir);
}

/* Writes what is due in direction dir; the connection is gone once a
 * close was due. */
static void
deliver (ShaperConn * c, guint dir)
{
  Shaper *s = c->relay->shaper;
  struct bufferevent *to = c->side[1 - dir];
  gint64 now = shaper_now (s);
  struct evbuffer *data;
  gint64 release_us;

  while (donar_timed_queue_pop_due (c->fifo, dir, now, (gpointer *) & data,
          &release_us)) {
    if (data == NULL) {
      shaper_log (s, "close relay=%u conn=%u dir=%u written_us=%"
          G_GINT64_FORMAT, c->relay->index, c->id, dir, now);
      conn_finish (c);
      return;
    }
    /* backlog: what is due and still waits for the target to take it,
     * the queue this chunk joins (a receiver that does not read). */
    shaper_log (s, "write relay=%u conn=%u dir=%u bytes=%" G_GSIZE_FORMAT
        " release_us=%" G_GINT64_FORMAT " written_us=%" G_GINT64_FORMAT
        " backlog=%" G_GSIZE_FORMAT, c->relay->index, c->id, dir,
        evbuffer_get_length (data), release_us, now,
        to ? evbuffer_get_length (bufferevent_get_output (to)) : 0);
    if (to != NULL)
      bufferevent_write_buffer (to, data);
    evbuffer_free (data);
  }
  arm_timer (c, dir);
  update_reading (c, dir);
}

static void
on_timer_0 (evutil_socket_t fd, short what, void *arg)
{
  deliver (arg, 0);
}

static void
on_timer_1 (evutil_socket_t fd, short what, void *arg)
{
  deliver (arg, 1);
}

static void
on_read (struct bufferevent *bev, void *arg)
{
  ShaperConn *c = arg;
  guint dir = side_of (c, bev);
  struct evbuffer *input = bufferevent_get_input (bev);
  struct evbuffer *data;

  if (evbuffer_get_length (input) == 0)
    return;
  data = evbuffer_new ();
  evbuffer_add_buffer (data, input);
  enqueue (c, dir, data);
  update_reading (c, dir);
}

static void
on_write (struct bufferevent *bev, void *arg)
{
  ShaperConn *c = arg;

  update_reading (c, 1 - side_of (c, bev));
}

static void
on_event (struct bufferevent *bev, short what, void *arg)
{
  ShaperConn *c = arg;
  guint dir = side_of (c, bev);

  if (what & BEV_EVENT_CONNECTED) {
    c->connected = TRUE;
    set_nodelay (bufferevent_getfd (bev));
    return;
  }
  if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) || c->ended[dir])
    return;
  if (dir == 1 && !c->connected) {
    /* The target refused: nothing to deliver, close at once. */
    shaper_log (c->relay->shaper, "refused relay=%u conn=%u",
        c->relay->index, c->id);
    conn_finish (c);
    return;
  }
  /* The side closed (or broke): what it sent before, then its close, go
   * through the FIFO, as a FIN or a RST would cross the network. */
  c->ended[dir] = TRUE;
  bufferevent_disable (bev, EV_READ);
  on_read (bev, c);
  enqueue (c, dir, NULL);
}

void
shaper_conn_accept (ShaperRelay * r, evutil_socket_t fd)
{
  Shaper *s = r->shaper;
  ShaperConn *c = g_new0 (ShaperConn, 1);
  struct sockaddr_in sin = { 0 };

  c->relay = r;
  c->id = s->next_conn_id++;
  c->fifo = donar_timed_queue_new ((GDestroyNotify) evbuffer_free, NULL, NULL);
  for (guint dir = 0; dir < 2; dir++)
    c->last_release_us[dir] = G_MININT64;
  c->timer[0] = evtimer_new (s->base, on_timer_0, c);
  c->timer[1] = evtimer_new (s->base, on_timer_1, c);
  set_nodelay (fd);
  c->side[0] = bufferevent_socket_new (s->base, fd, BEV_OPT_CLOSE_ON_FREE);
  c->side[1] = bufferevent_socket_new (s->base, -1, BEV_OPT_CLOSE_ON_FREE);
  s->conns = g_list_prepend (s->conns, c);
  shaper_log (s, "accept relay=%u conn=%u at_us=%" G_GINT64_FORMAT,
      r->index, c->id, shaper_now (s));
  for (guint dir = 0; dir < 2; dir++) {
    bufferevent_setcb (c->side[dir], on_read, on_write, on_event, c);
    /* on_write when the output is half drained: reading may resume. */
    bufferevent_setwatermark (c->side[dir], EV_WRITE, s->max_pending / 2, 0);
    bufferevent_enable (c->side[dir], EV_READ);
  }
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  sin.sin_port = htons (r->target_port);
  if (bufferevent_socket_connect (c->side[1], (struct sockaddr *) &sin,
          sizeof sin) < 0) {
    shaper_log (s, "refused relay=%u conn=%u", r->index, c->id);
    conn_finish (c);
  }
}

static void
conn_finish (ShaperConn * c)
{
  Shaper *s = c->relay->shaper;

  shaper_log (s, "finish relay=%u conn=%u", c->relay->index, c->id);
  for (guint dir = 0; dir < 2; dir++) {
    evtimer_del (c->timer[dir]);
    event_free (c->timer[dir]);
    donar_linger_close (s->lingering, c->side[dir]);
  }
  donar_timed_queue_free (c->fifo);
  s->conns = g_list_remove (s->conns, c);
  g_free (c);
}

void
shaper_conns_close_all (Shaper * s)
{
  while (s->conns != NULL)
    conn_finish (s->conns->data);
}
