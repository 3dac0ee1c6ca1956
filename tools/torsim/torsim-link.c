/* Model links as Tor circuits.  Streams with the same isolation key
 * (torsim-isolation.c: by default, SOCKS credentials and client address)
 * share a link; a new key takes the lowest free link, whose circuit is
 * rebuilt if it carried streams before.  Each chunk
 * of bytes is one packet of donar_net_model_send(): it waits in the link's
 * timed queue (lib/shaper), per direction, until its arrival time, so bytes
 * arrive in order with the model's delays, and the circuit's failure ends
 * every stream on it. */
#include "torsim.h"
#include "donar-timed-queue.h"

#include <string.h>

typedef struct
{
  TorsimStream *stream;         /* NULL once the stream is gone */
  struct evbuffer *data;        /* NULL: the END of the stream */
} Packet;

struct _TorsimLink
{
  Torsim *t;
  guint index;
  gboolean in_use;
  gboolean used;                /* carried streams: its next user reopens */
  gboolean built;               /* the circuit's ready time has come */
  gboolean doomed;              /* lost a packet to its coming failure */
  gboolean failing;
  gchar *key;                   /* the isolation key while in use */
  gchar *username;              /* NULL without credentials */
  gchar *password;
  GList *streams;
  guint circuit_id;
  guint generation;             /* the model's circuit of this link */

  DonarTimedQueue *queue;       /* Packet, per direction, by arrival */
  struct event *deliver[2];
  struct event *ready_timer;
  struct event *failure_timer;
  struct event *fail_soon;

  guint64 bytes[2];
  guint64 packets[2];
  guint reopens;
  guint failures;
};

static DonarSecurity
security (Torsim * t)
{
  return t->options->params.security;
}

static void
append_path (TorsimLink * l, GString * out)
{
  Torsim *t = l->t;
  guint n =
      donar_net_model_params_path_length (donar_net_model_get_params
      (t->model));
  gboolean callee_guard = donar_security_path_guards (security (t)) == 2;

  for (guint pos = 0; pos < n; pos++) {
    g_autofree gchar *identity = NULL, *nickname = NULL, *fp = NULL;
    gint side = -1;

    if (pos == 0)
      side = 0;
    else if (callee_guard && pos == n - 1)
      side = 1;
    if (side >= 0) {
      gint guard = donar_net_model_link_guard (t->model, l->index, side);

      identity = g_strdup_printf ("guard %d %d", side, guard);
      nickname = g_strdup_printf ("guard%d%c", side, 'A' + guard);
    } else {
      identity = g_strdup_printf ("relay %u %u %u", l->index, l->generation,
          pos);
      nickname = g_strdup_printf ("relay%ug%uh%u", l->index, l->generation,
          pos);
    }
    fp = torsim_fingerprint (t->options->seed, identity);
    g_string_append_printf (out, "%s$%s~%s", pos > 0 ? "," : "", fp, nickname);
  }
}

/* A circuit-status line, or a CIRC event after "CIRC ". */
static void
append_circuit (TorsimLink * l, const char *status, const char *reason,
    GString * out)
{
  g_string_append_printf (out, "%u %s ", l->circuit_id, status);
  if (strcmp (status, "LAUNCHED") != 0) {
    append_path (l, out);
    g_string_append_c (out, ' ');
  }
  g_string_append (out, "BUILD_FLAGS=IS_INTERNAL,NEED_CAPACITY,NEED_UPTIME "
      "PURPOSE=GENERAL");
  if (reason != NULL)
    g_string_append_printf (out, " REASON=%s", reason);
  if (l->username != NULL) {
    g_string_append (out, " SOCKS_USERNAME=");
    torsim_append_quoted (out, l->username);
    g_string_append (out, " SOCKS_PASSWORD=");
    torsim_append_quoted (out, l->password);
  }
}

static void
announce (TorsimLink * l, const char *status, const char *reason)
{
  g_autoptr (GString) text = g_string_new ("CIRC ");

  append_circuit (l, status, reason, text);
  torsim_control_broadcast (l->t, TORSIM_EVENT_CIRC, text->str);
  torsim_log (l->t, "link %u: circuit %u %s%s%s", l->index, l->circuit_id,
      status, reason != NULL ? " " : "", reason != NULL ? reason : "");
}

/* A packet arrives after its arrival time only during a DONAR-CUT, or
 * while its stream is stalled (which holds back the packets behind it on
 * the circuit too). */
static gint64
hold_until (gpointer data, gpointer user_data)
{
  Packet *p = data;
  TorsimLink *l = user_data;
  gint64 until = l->t->cut_until_us;

  if (p->stream != NULL)
    until = MAX (until, torsim_stream_stalled_until (p->stream));
  return until;
}

static void
schedule (TorsimLink * l, guint dir)
{
  gint64 due_us = donar_timed_queue_next_due (l->queue, dir);

  if (due_us == G_MAXINT64)
    evtimer_del (l->deliver[dir]);
  else
    torsim_timer_at (l->t, l->deliver[dir], due_us);
}

static void
packet_free (gpointer data)
{
  Packet *p = data;

  if (p->data != NULL)
    evbuffer_free (p->data);
  g_free (p);
}

/* Hands over every chunk whose time has come, in order.  A delivery may
 * end its stream and free the link, which empties the queue: each pop
 * looks at the queue again. */
static void
deliver_due (TorsimLink * l, guint dir)
{
  gint64 now = torsim_now ();
  gpointer data;

  while (donar_timed_queue_pop_due (l->queue, dir, now, &data, NULL)) {
    Packet *p = data;

    if (p->stream != NULL) {
      torsim_stream_deliver (p->stream, dir, p->data);
      p->data = NULL;
    }
    packet_free (p);
  }
  schedule (l, dir);
}

static void
on_deliver_up (evutil_socket_t fd, short what, void *arg)
{
  deliver_due (arg, 0);
}

static void
on_deliver_down (evutil_socket_t fd, short what, void *arg)
{
  deliver_due (arg, 1);
}

static void
purge (TorsimLink * l)
{
  donar_timed_queue_clear (l->queue);
  for (guint dir = 0; dir < 2; dir++)
    evtimer_del (l->deliver[dir]);
}

/* The link carries no stream any more: its circuit is closed, and its
 * next user gets a new one. */
static void
release (TorsimLink * l, const char *reason)
{
  announce (l, "CLOSED", reason);
  l->in_use = FALSE;
  l->used = TRUE;
  l->built = FALSE;
  l->doomed = FALSE;
  g_clear_pointer (&l->key, g_free);
  g_clear_pointer (&l->username, g_free);
  g_clear_pointer (&l->password, g_free);
  evtimer_del (l->ready_timer);
  evtimer_del (l->failure_timer);
  event_del (l->fail_soon);
  purge (l);
}

/* The circuit dies: every stream on it ends, both sides. */
static void
link_fail (TorsimLink * l, const char *reason)
{
  GList *streams;

  l->failures++;
  if (!l->in_use) {
    l->used = TRUE;
    return;
  }
  torsim_log (l->t, "link %u: circuit %u failed (%u streams)", l->index,
      l->circuit_id, g_list_length (l->streams));
  streams = g_list_copy (l->streams);
  l->failing = TRUE;
  for (GList * s = streams; s != NULL; s = s->next)
    torsim_stream_link_failed (s->data);
  l->failing = FALSE;
  g_list_free (streams);
  g_clear_pointer (&l->streams, g_list_free);
  release (l, reason);
}

static void
on_fail_soon (evutil_socket_t fd, short what, void *arg)
{
  TorsimLink *l = arg;

  if (l->in_use)
    link_fail (l, "DESTROYED");
}

static void
on_failure (evutil_socket_t fd, short what, void *arg)
{
  TorsimLink *l = arg;

  /* What arrives at the failure instant still arrives. */
  deliver_due (l, 0);
  deliver_due (l, 1);
  if (l->in_use)
    link_fail (l, "DESTROYED");
}

static void
on_ready (evutil_socket_t fd, short what, void *arg)
{
  TorsimLink *l = arg;
  GList *streams;

  if (!l->in_use || l->built)
    return;
  l->built = TRUE;
  announce (l, "BUILT", NULL);
  streams = g_list_copy (l->streams);
  for (GList * s = streams; s != NULL; s = s->next)
    torsim_stream_link_ready (s->data);
  g_list_free (streams);
}

void
torsim_links_init (Torsim * t)
{
  t->n_links = t->options->n_links;
  t->links = g_new0 (TorsimLink, t->n_links);
  for (guint i = 0; i < t->n_links; i++) {
    TorsimLink *l = &t->links[i];

    l->t = t;
    l->index = i;
    l->queue = donar_timed_queue_new (packet_free, hold_until, l);
    l->deliver[0] = evtimer_new (t->base, on_deliver_up, l);
    l->deliver[1] = evtimer_new (t->base, on_deliver_down, l);
    l->ready_timer = evtimer_new (t->base, on_ready, l);
    l->failure_timer = evtimer_new (t->base, on_failure, l);
    l->fail_soon = event_new (t->base, -1, 0, on_fail_soon, l);
  }
}

void
torsim_links_clear (Torsim * t)
{
  for (guint i = 0; i < t->n_links; i++) {
    TorsimLink *l = &t->links[i];

    purge (l);
    donar_timed_queue_free (l->queue);
    g_list_free (l->streams);
    g_free (l->key);
    g_free (l->username);
    g_free (l->password);
    event_free (l->deliver[0]);
    event_free (l->deliver[1]);
    event_free (l->ready_timer);
    event_free (l->failure_timer);
    event_free (l->fail_soon);
  }
  g_clear_pointer (&t->links, g_free);
}

static void
open_circuit (TorsimLink * l, const char *key, const char *username,
    const char *password)
{
  Torsim *t = l->t;
  gint64 now = torsim_now ();
  gint64 ready, failure;

  /* A circuit that carried streams, or died unused, is not used again. */
  if (l->used || donar_net_model_failure_time (t->model, l->index) <= now) {
    donar_net_model_reopen (t->model, l->index, now);
    l->generation++;
    l->reopens++;
  }
  l->in_use = TRUE;
  l->used = TRUE;
  l->doomed = FALSE;
  l->key = g_strdup (key);
  l->username = g_strdup (username);
  l->password = g_strdup (password);
  l->circuit_id = ++t->next_circuit_id;

  ready = donar_net_model_ready_time (t->model, l->index);
  l->built = ready <= now;
  if (l->built) {
    announce (l, "BUILT", NULL);
  } else {
    announce (l, "LAUNCHED", NULL);
    torsim_timer_at (t, l->ready_timer, ready);
  }
  failure = donar_net_model_failure_time (t->model, l->index);
  if (failure != G_MAXINT64)
    torsim_timer_at (t, l->failure_timer, failure);
}

TorsimLink *
torsim_link_attach (Torsim * t, const char *key, const char *username,
    const char *password, TorsimStream * stream)
{
  TorsimLink *link = NULL;

  for (guint i = 0; link == NULL && i < t->n_links; i++)
    if (t->links[i].in_use && strcmp (t->links[i].key, key) == 0)
      link = &t->links[i];
  for (guint i = 0; link == NULL && i < t->n_links; i++)
    if (!t->links[i].in_use) {
      link = &t->links[i];
      open_circuit (link, key, username, password);
    }
  if (link == NULL)
    return NULL;
  link->streams = g_list_append (link->streams, stream);
  return link;
}

/* Its bytes still in flight go nowhere (and still count as queued). */
static void
orphan (gpointer data, gpointer stream)
{
  Packet *p = data;

  if (p->stream == stream) {
    p->stream = NULL;
    g_clear_pointer (&p->data, evbuffer_free);
  }
}

void
torsim_link_detach (TorsimLink * l, TorsimStream * stream)
{
  for (guint dir = 0; dir < 2; dir++)
    donar_timed_queue_foreach (l->queue, dir, orphan, stream);
  if (l->failing)
    return;
  l->streams = g_list_remove (l->streams, stream);
  if (l->streams == NULL && l->in_use)
    release (l, "FINISHED");
}

gboolean
torsim_link_is_ready (TorsimLink * l)
{
  return l->built;
}

guint
torsim_link_index (TorsimLink * l)
{
  return l->index;
}

void
torsim_link_send (TorsimLink * l, TorsimStream * stream, guint dir,
    struct evbuffer *data)
{
  Torsim *t = l->t;
  gsize length = data != NULL ? evbuffer_get_length (data) : 0;
  gint64 now = torsim_now ();
  gint64 arrival = -1;
  Packet *p;

  /* An END is a cell too: one byte for the model. */
  if (!l->doomed)
    arrival = donar_net_model_send (t->model, l->index, dir, now,
        MAX (length, 1));
  if (arrival < 0) {
    /* Lost: either the circuit is dead already, or it dies before this
     * arrives (and so does everything after it). */
    if (data != NULL)
      evbuffer_free (data);
    if (donar_net_model_failure_time (t->model, l->index) <= now)
      event_active (l->fail_soon, EV_TIMEOUT, 0);
    else if (!l->doomed) {
      l->doomed = TRUE;
      torsim_log (t, "link %u: circuit %u fails before this arrives",
          l->index, l->circuit_id);
    }
    return;
  }
  p = g_new0 (Packet, 1);
  p->stream = stream;
  p->data = data;
  l->bytes[dir] += length;
  l->packets[dir]++;
  if (donar_timed_queue_push (l->queue, dir, arrival, p, length))
    schedule (l, dir);
}

gboolean
torsim_link_fail_now (Torsim * t, guint index)
{
  if (index >= t->n_links)
    return FALSE;
  link_fail (&t->links[index], "DESTROYED");
  return TRUE;
}

void
torsim_links_cut (Torsim * t, guint ms)
{
  t->cut_until_us = MAX (t->cut_until_us, torsim_now () + ms * (gint64) 1000);
  torsim_links_reschedule (t);
}

void
torsim_links_reschedule (Torsim * t)
{
  for (guint i = 0; i < t->n_links; i++) {
    schedule (&t->links[i], 0);
    schedule (&t->links[i], 1);
  }
}

void
torsim_links_circuit_status (Torsim * t, GString * out)
{
  for (guint i = 0; i < t->n_links; i++) {
    TorsimLink *l = &t->links[i];

    if (!l->in_use)
      continue;
    if (out->len > 0)
      g_string_append_c (out, '\n');
    append_circuit (l, l->built ? "BUILT" : "LAUNCHED", NULL, out);
  }
}

static const char *
state_name (TorsimLink * l)
{
  if (l->in_use)
    return l->built ? "open" : "building";
  return l->used ? "closed" : "unused";
}

void
torsim_links_stats (Torsim * t, GString * out)
{
  gint64 now = torsim_now ();

  for (guint i = 0; i < t->n_links; i++) {
    TorsimLink *l = &t->links[i];
    gint64 failure = donar_net_model_failure_time (t->model, i);
    gchar fails[G_ASCII_DTOSTR_BUF_SIZE] = "never";

    if (failure != G_MAXINT64)
      g_ascii_formatd (fails, sizeof fails, "%.3f",
          MAX (failure - now, 0) / 1e6);
    g_string_append_printf (out, "LINK %u STATE=%s CIRCUIT=%u STREAMS=%u "
        "GENERATION=%u REOPENS=%u FAILURES=%u BYTES_UP=%" G_GUINT64_FORMAT
        " BYTES_DOWN=%" G_GUINT64_FORMAT " PACKETS_UP=%" G_GUINT64_FORMAT
        " PACKETS_DOWN=%" G_GUINT64_FORMAT " QUEUED_UP=%" G_GSIZE_FORMAT
        " QUEUED_DOWN=%" G_GSIZE_FORMAT " BASE_DELAY_US=%" G_GINT64_FORMAT
        " FAILS_IN_S=%s\n", i, state_name (l),
        l->in_use ? l->circuit_id : 0, g_list_length (l->streams),
        l->generation, l->reopens, l->failures, l->bytes[0], l->bytes[1],
        l->packets[0], l->packets[1], donar_timed_queue_bytes (l->queue, 0),
        donar_timed_queue_bytes (l->queue, 1),
        donar_net_model_link_base_delay (t->model, i), fails);
  }
}
