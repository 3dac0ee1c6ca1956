/* The callee's side: listen on 127.0.0.1 where the onion service forwards,
 * send each incoming connection a CHALLENGE, and hold it apart until its
 * first record, a HELLO that answers it, proves it belongs to the call and
 * says which link it is.  Strangers are closed and counted; the call never
 * sees them. */
#include "donar-link-engine-private.h"

#include <donar-wire.h>

#include <event2/buffer.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

static void
drop_pending (DonarPendingConnection * pending)
{
  DonarLinkEngine *engine = pending->engine;

  engine->pending = g_list_remove (engine->pending, pending);
  engine->n_pending--;
  g_clear_pointer (&pending->bev, bufferevent_free);
  g_clear_pointer (&pending->timeout, event_free);
  g_free (pending);
}

static void
reject (DonarPendingConnection * pending, const gchar * why)
{
  DonarLinkEngine *engine = pending->engine;

  engine->connections_rejected++;
  donar_link_engine_raise (engine, DONAR_LINK_EVENT_REJECTED, G_MAXUINT,
      "closed an incoming connection: %s", why);
  drop_pending (pending);
}

static void
on_pending_readable (struct bufferevent *bev, gpointer user_data)
{
  DonarPendingConnection *pending = user_data;
  DonarLinkEngine *engine = pending->engine;
  struct evbuffer *input = bufferevent_get_input (bev);
  guint8 prefix[2];
  gsize length;
  const guint8 *record;
  guint index;
  guint8 nonce[DONAR_WIRE_NONCE];
  DonarError error;
  gint64 now, rtt_us;

  donar_link_engine_lock (engine);
  if (evbuffer_copyout (input, prefix, 2) < 2)
    goto out;
  length = (gsize) prefix[0] << 8 | prefix[1];
  if (length == 0 || length + 2 > engine->settings.config.max_record) {
    reject (pending, "not a DONAR link (bad record length)");
    goto out;
  }
  if (evbuffer_get_length (input) < length + 2)
    goto out;
  record = evbuffer_pullup (input, (ev_ssize_t) (length + 2));
  error = donar_session_identify_link (engine->session, record + 2, length,
      pending->nonce, &index);
  if (error == DONAR_OK && index >= engine->settings.config.n_links)
    error = DONAR_ERROR_BAD_LINK;
  if (error != DONAR_OK) {
    reject (pending, donar_error_to_string (error));
    goto out;
  }
  /* The HELLO stays in the input: the link's session reads it. */
  now = g_get_monotonic_time ();
  rtt_us = now - pending->accepted_at;
  memcpy (nonce, pending->nonce, sizeof nonce);
  pending->bev = NULL;
  drop_pending (pending);
  donar_link_tune_socket (bev);
  donar_link_take_connection (&engine->links[index], bev, now, rtt_us, nonce);
out:
  donar_link_engine_unlock (engine);
}

static void
on_pending_event (struct bufferevent *bev, short what, gpointer user_data)
{
  DonarPendingConnection *pending = user_data;
  DonarLinkEngine *engine = pending->engine;

  donar_link_engine_lock (engine);
  reject (pending, "it closed before proving it belongs to the call");
  donar_link_engine_unlock (engine);
}

static void
on_pending_timeout (evutil_socket_t fd, short what, gpointer user_data)
{
  DonarPendingConnection *pending = user_data;
  DonarLinkEngine *engine = pending->engine;

  donar_link_engine_lock (engine);
  reject (pending, "no HELLO in time");
  donar_link_engine_unlock (engine);
}

static void
on_accept (struct evconnlistener *listener, evutil_socket_t fd,
    struct sockaddr *address, int address_length, gpointer user_data)
{
  DonarLinkEngine *engine = user_data;
  DonarPendingConnection *pending;
  guint8 challenge[DONAR_WIRE_PREFIX + DONAR_WIRE_CHALLENGE];
  gsize challenge_size;
  gint64 timeout_us = engine->settings.hello_timeout_us;
  struct timeval tv = { timeout_us / G_USEC_PER_SEC,
    timeout_us % G_USEC_PER_SEC
  };

  donar_link_engine_lock (engine);
  if (engine->end != DONAR_LINK_END_NONE) {
    /* A late link of a call that is over. */
    evutil_closesocket (fd);
    donar_link_engine_unlock (engine);
    return;
  }
  if (engine->stopped ||
      engine->n_pending >= engine->settings.max_pending_connections) {
    evutil_closesocket (fd);
    engine->connections_rejected++;
    donar_link_engine_raise (engine, DONAR_LINK_EVENT_REJECTED, G_MAXUINT,
        "closed an incoming connection: %u others are still unproven",
        engine->n_pending);
    donar_link_engine_unlock (engine);
    return;
  }
  pending = g_new0 (DonarPendingConnection, 1);
  pending->engine = engine;
  pending->accepted_at = g_get_monotonic_time ();
  pending->bev = bufferevent_socket_new (engine->base, fd,
      BEV_OPT_CLOSE_ON_FREE);
  bufferevent_setcb (pending->bev, on_pending_readable, NULL,
      on_pending_event, pending);
  bufferevent_enable (pending->bev, EV_READ | EV_WRITE);
  donar_link_draw_nonce (pending->nonce);
  challenge_size = donar_wire_encode_challenge (pending->nonce, challenge,
      sizeof challenge);
  bufferevent_write (pending->bev, challenge, challenge_size);
  pending->timeout = evtimer_new (engine->base, on_pending_timeout, pending);
  evtimer_add (pending->timeout, &tv);
  engine->pending = g_list_prepend (engine->pending, pending);
  engine->n_pending++;
  donar_link_engine_unlock (engine);
}

gboolean
donar_link_engine_listen (DonarLinkEngine * engine, GError ** error)
{
  struct sockaddr_in address;
  socklen_t address_length = sizeof address;

  memset (&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  address.sin_port = htons (engine->settings.listen_port);
  engine->listener = evconnlistener_new_bind (engine->base, on_accept,
      engine, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
      16, (struct sockaddr *) &address, sizeof address);
  if (engine->listener == NULL) {
    int code = EVUTIL_SOCKET_ERROR ();

    g_set_error (error, DONAR_LINK_ENGINE_ERROR,
        DONAR_LINK_ENGINE_ERROR_LISTEN, "cannot listen on 127.0.0.1:%u: %s",
        engine->settings.listen_port, evutil_socket_error_to_string (code));
    return FALSE;
  }
  getsockname (evconnlistener_get_fd (engine->listener),
      (struct sockaddr *) &address, &address_length);
  engine->listen_port = ntohs (address.sin_port);
  donar_link_engine_raise (engine, DONAR_LINK_EVENT_LISTENING, G_MAXUINT,
      "listening on 127.0.0.1:%u", engine->listen_port);
  return TRUE;
}

void
donar_link_engine_drop_pending (DonarLinkEngine * engine)
{
  while (engine->pending)
    drop_pending (engine->pending->data);
}
