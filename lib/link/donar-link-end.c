/* How a call ends: our BYE (donar_link_engine_end), the peer's, or the
 * peer lost.  The links then close without a LINK_DOWN each (they did not
 * fail), and none is dialed or accepted again. */
#include "donar-link-engine-private.h"

#include <event2/buffer.h>

/* After the peer's BYE, how long its links may take to close: it closes
 * each once the BYE left, so frames it sent just before on slower links
 * come first.  Two seconds is far past any frame's use to playout. */
#define PEER_END_GRACE_US (2 * G_TIME_SPAN_SECOND)

const gchar *
donar_link_end_peer_reason (DonarByeReason reason)
{
  switch (reason) {
    case DONAR_BYE_HUNG_UP:
      return "peer-hung-up";
    case DONAR_BYE_FAILED:
      return "peer-failed";
    case DONAR_BYE_REJECTED:
      return "peer-rejected";
    case DONAR_BYE_UNKNOWN:
      break;
  }
  return "peer-ended";
}

static void
begin (DonarLinkEngine * engine, DonarLinkEnd end, DonarByeReason reason,
    gint64 deadline)
{
  engine->end = end;
  engine->end_reason = reason;
  engine->end_deadline = deadline;
  for (guint i = 0; i < DONAR_MAX_LINKS; i++)
    if (engine->links[i].state != DONAR_LINK_OPEN)
      donar_link_abandon (&engine->links[i]);
  donar_link_engine_drop_pending (engine);
}

static gboolean
link_has_left (DonarLink * link)
{
  return link->state != DONAR_LINK_OPEN || (link->queue.bytes == 0 &&
      link->partial == NULL
      && evbuffer_get_length (bufferevent_get_output (link->bev)) == 0);
}

/* Ours: every open link wrote our BYE to its socket.  The peer's: it closed
 * every link, each after its last frame. */
static gboolean
links_are_done (DonarLinkEngine * engine)
{
  for (guint i = 0; i < engine->settings.config.n_links; i++) {
    DonarLink *link = &engine->links[i];

    if (engine->end == DONAR_LINK_END_HERE && !link_has_left (link))
      return FALSE;
    if (engine->end == DONAR_LINK_END_BY_PEER && link->state == DONAR_LINK_OPEN)
      return FALSE;
  }
  return TRUE;
}

void
donar_link_engine_check_end (DonarLinkEngine * engine, gint64 now)
{
  if (engine->end == DONAR_LINK_END_NONE || engine->end_done)
    return;
  engine->end_flushed = links_are_done (engine);
  if (!engine->end_flushed && now < engine->end_deadline)
    return;
  /* Before the links close: their closing checks the end again. */
  g_atomic_int_set (&engine->end_done, TRUE);
  for (guint i = 0; i < engine->settings.config.n_links; i++)
    if (engine->links[i].state == DONAR_LINK_OPEN)
      donar_link_close (&engine->links[i], now, "the call ended");
  if (engine->end == DONAR_LINK_END_BY_PEER)
    donar_link_engine_raise (engine, DONAR_LINK_EVENT_PEER_ENDED, G_MAXUINT,
        "the other end %s", donar_bye_reason_to_string (engine->end_reason));
  g_cond_broadcast (&engine->end_cond);
  g_mutex_lock (&engine->out_lock);
  engine->ended = TRUE;
  g_cond_broadcast (&engine->out_cond);
  g_mutex_unlock (&engine->out_lock);
}

/* The session's callback, inside donar_session_receive (): the links
 * close later, as the peer closes them. */
void
donar_link_engine_peer_ended (gpointer user_data, guint link,
    DonarByeReason reason)
{
  DonarLinkEngine *engine = user_data;

  if (engine->end != DONAR_LINK_END_NONE)
    return;
  begin (engine, DONAR_LINK_END_BY_PEER, reason,
      g_get_monotonic_time () + PEER_END_GRACE_US);
}

void
donar_link_engine_lose_peer (DonarLinkEngine * engine, gint64 now)
{
  if (engine->end != DONAR_LINK_END_NONE)
    return;
  begin (engine, DONAR_LINK_END_PEER_LOST, DONAR_BYE_UNKNOWN, now);
  donar_link_engine_check_end (engine, now);
}

typedef struct
{
  DonarLinkEngine *engine;
  DonarByeReason reason;
  gint64 timeout_us;
} EndRequest;

/* In the loop: it begins the end under the lock, as every write is. */
static void
on_end (evutil_socket_t fd, short what, gpointer user_data)
{
  EndRequest *request = user_data;
  DonarLinkEngine *engine = request->engine;
  gint64 now = g_get_monotonic_time ();

  donar_link_engine_lock (engine);
  if (engine->end == DONAR_LINK_END_NONE) {
    begin (engine, DONAR_LINK_END_HERE, request->reason,
        now + request->timeout_us);
    donar_session_end (engine->session, request->reason, now);
    donar_link_engine_check_end (engine, now);
  }
  donar_link_engine_unlock (engine);
  g_free (request);
}

gboolean
donar_link_engine_end (DonarLinkEngine * engine, DonarByeReason reason,
    gint64 timeout_us)
{
  EndRequest *request;
  gint64 give_up;
  gboolean flushed;

  g_return_val_if_fail (engine != NULL, FALSE);
  if (!engine->started)
    return FALSE;
  g_mutex_lock (&engine->lock);
  if (engine->stopped || engine->end != DONAR_LINK_END_NONE) {
    g_mutex_unlock (&engine->lock);
    return FALSE;
  }
  request = g_new (EndRequest, 1);
  request->engine = engine;
  request->reason = reason;
  request->timeout_us = MAX (timeout_us, 0);
  event_base_once (engine->base, -1, EV_TIMEOUT, on_end, request, NULL);
  donar_link_engine_kick (engine);
  /* The tick ends it at the latest a tick after the deadline; beyond, the
   * loop is stuck and stop () will close the links anyway. */
  give_up = g_get_monotonic_time () + request->timeout_us +
      2 * G_TIME_SPAN_SECOND;
  while (!engine->end_done)
    if (!g_cond_wait_until (&engine->end_cond, &engine->lock, give_up))
      break;
  flushed = engine->end_done && engine->end == DONAR_LINK_END_HERE &&
      engine->end_flushed;
  g_mutex_unlock (&engine->lock);
  return flushed;
}

DonarLinkEnd
donar_link_engine_get_end (DonarLinkEngine * engine, DonarByeReason * reason)
{
  DonarLinkEnd end;

  g_return_val_if_fail (engine != NULL, DONAR_LINK_END_NONE);
  if (!g_atomic_int_get (&engine->end_done)) {
    if (reason)
      *reason = DONAR_BYE_UNKNOWN;
    return DONAR_LINK_END_NONE;
  }
  g_mutex_lock (&engine->lock);
  end = engine->end;
  if (reason)
    *reason = engine->end_reason;
  g_mutex_unlock (&engine->lock);
  return end;
}
