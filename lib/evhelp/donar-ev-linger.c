/* Lingering closes and absolute timers on a libevent loop. */
#include "donar-ev-linger.h"

#include <sys/socket.h>

#include <event2/buffer.h>

struct _DonarLinger
{
  GHashTable *bevs;             /* the table frees them (bufferevent_free) */
  guint seconds;
};

DonarLinger *
donar_linger_new (guint seconds)
{
  DonarLinger *l = g_new0 (DonarLinger, 1);

  l->bevs = g_hash_table_new_full (NULL, NULL,
      (GDestroyNotify) bufferevent_free, NULL);
  l->seconds = seconds;
  return l;
}

void
donar_linger_close_all (DonarLinger * l)
{
  g_hash_table_remove_all (l->bevs);
}

void
donar_linger_free (DonarLinger * l)
{
  if (l == NULL)
    return;
  g_hash_table_unref (l->bevs);
  g_free (l);
}

static void
linger_read (struct bufferevent *bev, void *arg)
{
  struct evbuffer *input = bufferevent_get_input (bev);

  evbuffer_drain (input, evbuffer_get_length (input));
}

static void
linger_write (struct bufferevent *bev, void *arg)
{
  if (evbuffer_get_length (bufferevent_get_output (bev)) > 0)
    return;
  shutdown (bufferevent_getfd (bev), SHUT_WR);
  bufferevent_enable (bev, EV_READ);
}

static void
linger_event (struct bufferevent *bev, short what, void *arg)
{
  DonarLinger *l = arg;

  g_hash_table_remove (l->bevs, bev);
}

void
donar_linger_close (DonarLinger * l, struct bufferevent *bev)
{
  struct timeval timeout = { l->seconds, 0 };

  if (bev == NULL)
    return;
  bufferevent_disable (bev, EV_READ);
  if (bufferevent_getfd (bev) < 0) {
    bufferevent_free (bev);
    return;
  }
  evbuffer_drain (bufferevent_get_input (bev),
      evbuffer_get_length (bufferevent_get_input (bev)));
  bufferevent_setcb (bev, linger_read, linger_write, linger_event, l);
  bufferevent_setwatermark (bev, EV_READ, 0, 0);
  bufferevent_setwatermark (bev, EV_WRITE, 0, 0);
  bufferevent_set_timeouts (bev, &timeout, &timeout);
  g_hash_table_add (l->bevs, bev);
  if (evbuffer_get_length (bufferevent_get_output (bev)) == 0)
    linger_write (bev, l);
  else
    bufferevent_enable (bev, EV_WRITE);
}

void
donar_ev_timer_at (struct event_base *base, struct event *timer, gint64 at_us)
{
  gint64 delay;
  struct timeval tv;

  event_base_update_cache_time (base);
  delay = MAX (at_us - g_get_monotonic_time (), 0);
  tv.tv_sec = delay / G_USEC_PER_SEC;
  tv.tv_usec = delay % G_USEC_PER_SEC;
  evtimer_add (timer, &tv);
}
