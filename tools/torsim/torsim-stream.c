/* A stream: the SOCKS client's connection (side 0, the caller) and the
 * connection to the onion service's local port (side 1, the callee).
 * Bytes read on side d go over the stream's link in direction d and are
 * written to the other side when the model says they arrive.  Like tor's
 * stream windows, a direction stops reading while too much of it is in
 * flight or waiting to be written.
 *
 * DONAR-STALL: a stalled stream delivers nothing either way until its
 * release, and what its ends write meanwhile is held, as by a congested
 * hop of a real circuit, up to tor's stream window of 500 cells; then
 * the stream stops reading, so the writer's socket fills.  At the release
 * what was held enters the link, in order, with the model's delays from
 * then on. */
#include "torsim.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

/* Tor's stream window (STREAMWINDOW_START in tor's or.h): cells a
 * stream's edge packages before the far edge acknowledges them, and the
 * relay payload of a cell (RELAY_PAYLOAD_SIZE). */
#define STREAM_WINDOW_CELLS 500
#define CELL_PAYLOAD 498

/* What the SOCKS handshake may buffer, and how long it may take. */
#define SOCKS_MAX_INPUT 2048
#define SOCKS_TIMEOUT_S 60

typedef enum
{
  STREAM_SOCKS,                 /* the handshake */
  STREAM_WAITING,               /* for the link's circuit */
  STREAM_CONNECTING,            /* to the onion's target port */
  STREAM_OPEN,
  STREAM_CLOSED,
} StreamState;

struct _TorsimStream
{
  Torsim *t;
  guint id;
  StreamState state;
  gchar client_address[INET6_ADDRSTRLEN];
  struct bufferevent *side[2];  /* NULL once that side has closed */
  TorsimSocks *socks;
  TorsimLink *link;
  guint32 target_address;       /* host order, on loopback */
  guint16 target_port;
  gsize in_flight[2];           /* bytes sent on the link, not delivered */
  gboolean frozen;              /* DONAR-FREEZE: never read again */
  guint cells[2];               /* read, not delivered, in tor's cells */
  gboolean windowed;            /* stalled once: the window applies */
  gint64 stall_until_us;        /* DONAR-STALL: nothing delivered before */
  GQueue held[2];               /* evbuffers read in the stall; NULL: END */
  guint drain;                  /* cells/s the held go out at; 0: at once */
  gint64 drain_next_us[2];      /* when the next held read may go */
  struct event *release_timer;
};

static void stream_finish (TorsimStream * s);
static void stall (TorsimStream * s, gint64 until, guint drain);

static void
stream_free (gpointer data)
{
  TorsimStream *s = data;

  torsim_socks_free (s->socks);
  if (s->release_timer != NULL)
    event_free (s->release_timer);
  g_free (s);
}

static guint
side_of (TorsimStream * s, struct bufferevent *bev)
{
  return bev == s->side[0] ? 0 : 1;
}

/* Tor packages what it read into cells of up to 498 bytes: one read
 * (a write of the client's, or several that came together) is that many
 * cells. */
static guint
cells_of (gsize length)
{
  return (length + CELL_PAYLOAD - 1) / CELL_PAYLOAD;
}

static void
update_reading (TorsimStream * s, guint dir)
{
  struct bufferevent *to = s->side[1 - dir];
  gsize pending = s->in_flight[dir];

  if (s->state != STREAM_OPEN || s->side[dir] == NULL)
    return;
  /* Only streams that were stalled have tor's window: elsewhere,
   * --max-pending is the bound the tests of back-pressure expect. */
  if (s->frozen || (s->windowed && s->cells[dir] >= STREAM_WINDOW_CELLS)) {
    bufferevent_disable (s->side[dir], EV_READ);
    return;
  }
  if (to != NULL)
    pending += evbuffer_get_length (bufferevent_get_output (to));
  if (pending >= s->t->options->max_pending)
    bufferevent_disable (s->side[dir], EV_READ);
  else
    bufferevent_enable (s->side[dir], EV_READ);
}

/* Everything read on side dir is one packet on the link. */
static void
relay (TorsimStream * s, guint dir)
{
  struct evbuffer *input = bufferevent_get_input (s->side[dir]);
  gsize length = evbuffer_get_length (input);
  struct evbuffer *chunk;

  if (length == 0)
    return;
  chunk = evbuffer_new ();
  evbuffer_remove_buffer (input, chunk, length);
  s->in_flight[dir] += length;
  s->cells[dir] += cells_of (length);
  /* Behind what a stall still holds too, until its release sends it. */
  if (s->held[dir].length > 0
      || torsim_stream_stalled_until (s) > torsim_now ())
    g_queue_push_tail (&s->held[dir], chunk);
  else
    torsim_link_send (s->link, s, dir, chunk);
  update_reading (s, dir);
}

static void
stream_open (TorsimStream * s)
{
  gsize low = s->t->options->max_pending / 2;

  torsim_socks_reply (s->side[0], TORSIM_SOCKS_SUCCEEDED);
  s->state = STREAM_OPEN;
  torsim_log (s->t, "stream %u: open on link %u", s->id,
      torsim_link_index (s->link));
  bufferevent_set_timeouts (s->side[0], NULL, NULL);
  for (guint dir = 0; dir < 2; dir++) {
    bufferevent_setwatermark (s->side[dir], EV_READ, 0, 0);
    bufferevent_setwatermark (s->side[dir], EV_WRITE, low, 0);
    update_reading (s, dir);
  }
  if (s->t->stall_until_us > torsim_now ())
    stall (s, s->t->stall_until_us, s->t->stall_drain);
  /* The client may have sent data after its request (optimistic data). */
  relay (s, 0);
}

/* Side dir closed: its END follows its last bytes over the link. */
static void
side_ended (TorsimStream * s, guint dir)
{
  struct bufferevent *bev = s->side[dir];

  s->side[dir] = NULL;
  torsim_close_flushed (s->t, bev);
  if (s->side[1 - dir] == NULL) {
    stream_finish (s);
    return;
  }
  torsim_log (s->t, "stream %u: side %u closed", s->id, dir);
  /* In a stall, the END waits behind what was held. */
  if (s->held[dir].length > 0
      || torsim_stream_stalled_until (s) > torsim_now ())
    g_queue_push_tail (&s->held[dir], NULL);
  else
    torsim_link_send (s->link, s, dir, NULL);
}

static void
on_read (struct bufferevent *bev, void *arg)
{
  TorsimStream *s = arg;

  switch (s->state) {
    case STREAM_SOCKS:
      if (!torsim_socks_input (s->socks, s, s->t))
        stream_finish (s);
      break;
    case STREAM_OPEN:
      relay (s, side_of (s, bev));
      break;
    default:
      break;
  }
}

static void
on_write (struct bufferevent *bev, void *arg)
{
  TorsimStream *s = arg;

  if (s->state == STREAM_OPEN)
    update_reading (s, 1 - side_of (s, bev));
}

static void
on_event (struct bufferevent *bev, short what, void *arg)
{
  TorsimStream *s = arg;
  guint dir = side_of (s, bev);

  if (what & BEV_EVENT_CONNECTED) {
    /* The circuit was ready before the target was dialed. */
    if (s->state == STREAM_CONNECTING)
      stream_open (s);
    return;
  }
  if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT)))
    return;
  switch (s->state) {
    case STREAM_CONNECTING:
    case STREAM_WAITING:
      /* The target refused, or closed before the stream was up: tor's
       * client gets END (CONNECTREFUSED or DONE), i.e. 0x05. */
      if (dir == 1)
        torsim_stream_refuse (s, TORSIM_SOCKS_CONNECTION_REFUSED);
      else
        stream_finish (s);
      break;
    case STREAM_OPEN:
      side_ended (s, dir);
      break;
    default:
      stream_finish (s);
      break;
  }
}

void
torsim_stream_accept (Torsim * t, evutil_socket_t fd,
    const struct sockaddr *address)
{
  TorsimStream *s = g_new0 (TorsimStream, 1);
  struct timeval timeout = { SOCKS_TIMEOUT_S, 0 };
  int one = 1;

  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  torsim_constrain_socket (t, fd);
  s->t = t;
  s->id = t->next_stream_id++;
  s->state = STREAM_SOCKS;
  /* The listener is IPv4 (127.0.0.1). */
  if (address->sa_family != AF_INET
      || inet_ntop (AF_INET, &((const struct sockaddr_in *) address)->sin_addr,
          s->client_address, sizeof s->client_address) == NULL)
    g_strlcpy (s->client_address, "?", sizeof s->client_address);
  s->socks = torsim_socks_new ();
  s->side[0] = bufferevent_socket_new (t->base, fd, BEV_OPT_CLOSE_ON_FREE);
  bufferevent_setcb (s->side[0], on_read, on_write, on_event, s);
  bufferevent_setwatermark (s->side[0], EV_READ, 0, SOCKS_MAX_INPUT);
  bufferevent_set_timeouts (s->side[0], &timeout, &timeout);
  bufferevent_enable (s->side[0], EV_READ);
  t->streams = g_list_prepend (t->streams, s);
  torsim_log (t, "stream %u: SOCKS connection from %s", s->id,
      s->client_address);
}

/* The BEGIN reaches the onion service: it dials its target port.  Only
 * once the circuit is built, as with tor, whose client sends BEGIN over
 * the built rendezvous circuit: a target that accepted earlier would see
 * a connection long before the client can use it, and time the circuit's
 * build as the link's round trip (docs/torsim.md). */
static void
connect_target (TorsimStream * s)
{
  Torsim *t = s->t;

  s->side[1] = torsim_connect_local (t, s->target_address, s->target_port);
  if (s->side[1] == NULL) {
    torsim_stream_refuse (s, TORSIM_SOCKS_CONNECTION_REFUSED);
    return;
  }
  bufferevent_setcb (s->side[1], on_read, on_write, on_event, s);
  s->state = STREAM_CONNECTING;
  torsim_log (t, "stream %u: to %u.%u.%u.%u:%u over link %u", s->id,
      s->target_address >> 24, (s->target_address >> 16) & 0xFF,
      (s->target_address >> 8) & 0xFF, s->target_address & 0xFF,
      s->target_port, torsim_link_index (s->link));
}

void
torsim_stream_connect (TorsimStream * s, const char *key,
    const char *username, const char *password, guint32 target_address,
    guint16 target_port)
{
  Torsim *t = s->t;

  s->link = torsim_link_attach (t, key, username, password, s);
  if (s->link == NULL) {
    torsim_log (t, "stream %u: every link is in use", s->id);
    torsim_stream_refuse (s, TORSIM_SOCKS_GENERAL_FAILURE);
    return;
  }
  s->target_address = target_address;
  s->target_port = target_port;
  /* The client's data waits in its socket until the stream is open. */
  bufferevent_disable (s->side[0], EV_READ);
  s->state = STREAM_WAITING;
  if (torsim_link_is_ready (s->link))
    connect_target (s);
  else
    torsim_log (t, "stream %u: waiting for the circuit of link %u", s->id,
        torsim_link_index (s->link));
}

void
torsim_stream_refuse (TorsimStream * s, guint8 reply)
{
  if (s->state == STREAM_CLOSED)
    return;
  torsim_log (s->t, "stream %u: refused with 0x%02X", s->id, reply);
  if (s->side[0] != NULL)
    torsim_socks_reply (s->side[0], reply);
  stream_finish (s);
}

void
torsim_stream_deliver (TorsimStream * s, guint dir, struct evbuffer *data)
{
  struct bufferevent *to = s->side[1 - dir];

  if (data == NULL) {
    /* The END: the other side closes once it has what came before. */
    s->side[1 - dir] = NULL;
    torsim_close_flushed (s->t, to);
    stream_finish (s);
    return;
  }
  s->in_flight[dir] -= evbuffer_get_length (data);
  s->cells[dir] -= MIN (s->cells[dir], cells_of (evbuffer_get_length (data)));
  if (to != NULL)
    bufferevent_write_buffer (to, data);
  evbuffer_free (data);
  update_reading (s, dir);
}

void
torsim_stream_link_ready (TorsimStream * s)
{
  if (s->state == STREAM_WAITING)
    connect_target (s);
}

void
torsim_stream_link_failed (TorsimStream * s)
{
  /* Tor ends a stream whose circuit is destroyed; before the stream was
   * up, its client gets END (DESTROY), i.e. 0x01. */
  if (s->link != NULL)
    torsim_link_detach (s->link, s);
  s->link = NULL;
  if (s->state == STREAM_CONNECTING || s->state == STREAM_WAITING)
    torsim_stream_refuse (s, TORSIM_SOCKS_GENERAL_FAILURE);
  else
    stream_finish (s);
}

static void
stream_finish (TorsimStream * s)
{
  Torsim *t = s->t;

  if (s->state == STREAM_CLOSED)
    return;
  s->state = STREAM_CLOSED;
  torsim_log (t, "stream %u: closed", s->id);
  for (guint dir = 0; dir < 2; dir++) {
    torsim_close_flushed (t, s->side[dir]);
    s->side[dir] = NULL;
    while (s->held[dir].length > 0) {
      struct evbuffer *held = g_queue_pop_head (&s->held[dir]);

      if (held != NULL)
        evbuffer_free (held);
    }
  }
  if (s->release_timer != NULL)
    evtimer_del (s->release_timer);
  if (s->link != NULL)
    torsim_link_detach (s->link, s);
  s->link = NULL;
  t->streams = g_list_remove (t->streams, s);
  torsim_defer_free (t, s, stream_free);
}

void
torsim_streams_close_all (Torsim * t)
{
  while (t->streams != NULL)
    stream_finish (t->streams->data);
}

guint
torsim_streams_freeze (Torsim * t, guint max_streams)
{
  guint frozen = 0;

  for (GList * l = t->streams; l != NULL && frozen < max_streams; l = l->next) {
    TorsimStream *s = l->data;

    if (s->state != STREAM_OPEN || s->frozen)
      continue;
    s->frozen = TRUE;
    frozen++;
    for (guint dir = 0; dir < 2; dir++)
      update_reading (s, dir);
    torsim_log (t, "stream %u: frozen", s->id);
  }
  return frozen;
}

/* The stall's end: what was held enters the link in the order it was
 * read, each read a packet of its own, as the cells a congested hop
 * forwards once it clears; their delays are the model's from then on.
 * With a drain rate, the hop forwards that many cells a second until it
 * holds nothing (what the ends write meanwhile waits behind). */
static void
on_release (evutil_socket_t fd, short what, void *arg)
{
  TorsimStream *s = arg;
  gint64 now = torsim_now (), next = G_MAXINT64;

  if (s->state != STREAM_OPEN)
    return;
  for (guint dir = 0; dir < 2; dir++) {
    s->drain_next_us[dir] = MAX (s->drain_next_us[dir], s->stall_until_us);
    while (s->held[dir].length > 0 && s->link != NULL
        && (s->drain == 0 || s->drain_next_us[dir] <= now)) {
      struct evbuffer *chunk = g_queue_pop_head (&s->held[dir]);

      if (s->drain > 0 && chunk != NULL)
        s->drain_next_us[dir] += cells_of (evbuffer_get_length (chunk)) *
            G_USEC_PER_SEC / s->drain;
      torsim_link_send (s->link, s, dir, chunk);
    }
    if (s->held[dir].length > 0)
      next = MIN (next, s->drain_next_us[dir]);
    else
      s->drain_next_us[dir] = 0;
  }
  if (next != G_MAXINT64 && s->link != NULL)
    torsim_timer_at (s->t, s->release_timer, next);
  for (guint dir = 0; dir < 2; dir++)
    update_reading (s, dir);
}

static void
stall (TorsimStream * s, gint64 until, guint drain)
{
  Torsim *t = s->t;

  s->stall_until_us = until;
  s->drain = drain;
  s->windowed = TRUE;
  if (s->release_timer == NULL)
    s->release_timer = evtimer_new (t->base, on_release, s);
  torsim_timer_at (t, s->release_timer, until);
  for (guint dir = 0; dir < 2; dir++)
    update_reading (s, dir);
  torsim_log (t, "stream %u: stalled for %" G_GINT64_FORMAT " ms", s->id,
      (until - torsim_now ()) / 1000);
}

guint
torsim_streams_stall (Torsim * t, guint ms, guint max_streams, guint drain)
{
  gint64 until = torsim_now () + ms * (gint64) 1000;
  guint stalled = 0;

  /* A stall of every stream is the guard's: the streams opened during
   * it, whose circuits cross it too, stall until the same release. */
  if (max_streams == G_MAXUINT) {
    t->stall_until_us = MAX (t->stall_until_us, until);
    t->stall_drain = drain;
  }
  for (GList * l = t->streams; l != NULL && stalled < max_streams; l = l->next) {
    TorsimStream *s = l->data;

    if (s->state != STREAM_OPEN || s->stall_until_us > until)
      continue;
    stall (s, until, drain);
    stalled++;
  }
  torsim_links_reschedule (t);
  return stalled;
}

gint64
torsim_stream_stalled_until (TorsimStream * s)
{
  return s->stall_until_us;
}

guint
torsim_streams_stalled (Torsim * t)
{
  gint64 now = torsim_now ();
  guint n = 0;

  for (GList * l = t->streams; l != NULL; l = l->next)
    if (((TorsimStream *) l->data)->stall_until_us > now)
      n++;
  return n;
}

gsize
torsim_stream_buffered (TorsimStream * s)
{
  gsize total = s->in_flight[0] + s->in_flight[1];

  for (guint dir = 0; dir < 2; dir++)
    if (s->side[dir] != NULL)
      total += evbuffer_get_length (bufferevent_get_input (s->side[dir])) +
          evbuffer_get_length (bufferevent_get_output (s->side[dir]));
  return total;
}

struct bufferevent *
torsim_stream_client (TorsimStream * s)
{
  return s->side[0];
}

const char *
torsim_stream_client_address (TorsimStream * s)
{
  return s->client_address;
}
