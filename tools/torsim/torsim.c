/* The process: its loop, the model, the two listeners on 127.0.0.1, and
 * the helpers every module needs (deferred frees, flushed closes, timers,
 * the log). */
#include "torsim.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A closing bufferevent waits this long for its peer to take the rest. */
#define LINGER_SECONDS 5

typedef struct
{
  gpointer data;
  GDestroyNotify notify;
} Grave;

gint64
torsim_now (void)
{
  return g_get_monotonic_time ();
}

void
torsim_log (Torsim * t, const char *format, ...)
{
  va_list args;
  g_autofree gchar *text = NULL;

  if (!t->options->verbose)
    return;
  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "donar-torsim: [%.3f] %s\n",
      (torsim_now () - t->origin_us) / 1e6, text);
}

void
torsim_timer_at (Torsim * t, struct event *timer, gint64 at_us)
{
  /* torsim_now () is the monotonic clock. */
  donar_ev_timer_at (t->base, timer, at_us);
}

static void
reap (evutil_socket_t fd, short what, void *arg)
{
  Torsim *t = arg;

  while (t->graveyard->len > 0) {
    Grave *grave = g_ptr_array_steal_index (t->graveyard,
        t->graveyard->len - 1);

    grave->notify (grave->data);
    g_free (grave);
  }
}

void
torsim_defer_free (Torsim * t, gpointer data, GDestroyNotify notify)
{
  Grave *grave = g_new (Grave, 1);

  grave->data = data;
  grave->notify = notify;
  g_ptr_array_add (t->graveyard, grave);
  event_active (t->reaper, EV_TIMEOUT, 0);
}

void
torsim_close_flushed (Torsim * t, struct bufferevent *bev)
{
  donar_linger_close (t->lingering, bev);
}

void
torsim_constrain_socket (Torsim * t, evutil_socket_t fd)
{
  int size = t->options->constrained_sock_size;

  if (size == 0)
    return;
  setsockopt (fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
}

struct bufferevent *
torsim_connect_local (Torsim * t, guint32 address, guint16 port)
{
  struct sockaddr_in sin;
  struct bufferevent *bev;
  evutil_socket_t fd;
  int one = 1;

  fd = socket (AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return NULL;
  evutil_make_socket_nonblocking (fd);
  evutil_make_socket_closeonexec (fd);
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  torsim_constrain_socket (t, fd);
  bev = bufferevent_socket_new (t->base, fd, BEV_OPT_CLOSE_ON_FREE);
  if (bev == NULL) {
    close (fd);
    return NULL;
  }
  memset (&sin, 0, sizeof sin);
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl (address);
  sin.sin_port = htons (port);
  if (bufferevent_socket_connect (bev, (struct sockaddr *) &sin,
          sizeof sin) < 0) {
    int saved = errno;

    bufferevent_free (bev);
    errno = saved;
    return NULL;
  }
  return bev;
}

static void
on_socks_accept (struct evconnlistener *listener, evutil_socket_t fd,
    struct sockaddr *address, int length, void *arg)
{
  torsim_stream_accept (arg, fd, address);
}

static void
on_control_accept (struct evconnlistener *listener, evutil_socket_t fd,
    struct sockaddr *address, int length, void *arg)
{
  torsim_control_accept (arg, fd);
}

/* Out of descriptors and the like: say so and keep serving. */
static void
on_accept_error (struct evconnlistener *listener, void *arg)
{
  int error = EVUTIL_SOCKET_ERROR ();

  fprintf (stderr, "donar-torsim: accept: %s\n",
      evutil_socket_error_to_string (error));
}

static struct evconnlistener *
listen_local (Torsim * t, guint16 port, evconnlistener_cb callback,
    guint16 * bound, GError ** error)
{
  struct sockaddr_in sin;
  socklen_t length = sizeof sin;
  struct evconnlistener *listener;

  memset (&sin, 0, sizeof sin);
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  sin.sin_port = htons (port);
  listener = evconnlistener_new_bind (t->base, callback, t,
      LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC, -1,
      (struct sockaddr *) &sin, sizeof sin);
  if (listener == NULL) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "cannot listen on 127.0.0.1:%u: %s", port, g_strerror (errno));
    return NULL;
  }
  evconnlistener_set_error_cb (listener, on_accept_error);
  getsockname (evconnlistener_get_fd (listener), (struct sockaddr *) &sin,
      &length);
  *bound = ntohs (sin.sin_port);
  return listener;
}

Torsim *
torsim_new (const TorsimOptions * options, GError ** error)
{
  Torsim *t = g_new0 (Torsim, 1);
  struct event_config *config;
  GError *local = NULL;

  t->options = options;
  config = event_config_new ();
  /* Delays are the point: no coarse clock. */
  event_config_set_flag (config, EVENT_BASE_FLAG_PRECISE_TIMER);
  t->base = event_base_new_with_config (config);
  event_config_free (config);
  if (t->base == NULL) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
        "cannot create the event loop");
    g_free (t);
    return NULL;
  }
  t->graveyard = g_ptr_array_new ();
  t->reaper = event_new (t->base, -1, 0, reap, t);
  t->lingering = donar_linger_new (LINGER_SECONDS);
  t->onions = g_hash_table_new (g_str_hash, g_str_equal);
  t->next_stream_id = 1;

  /* The model's time axis is the monotonic clock, from now. */
  t->origin_us = torsim_now ();
  t->model = donar_net_model_new_with_params (&options->params,
      options->n_links, options->seed, t->origin_us);
  if (options->trace_dir != NULL
      && !donar_net_model_load_traces (t->model, options->trace_dir, &local)) {
    /* A bad trace is a bad option. */
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--trace: %s", local->message);
    g_error_free (local);
    torsim_free (t);
    return NULL;
  }
  torsim_links_init (t);

  if (options->cookie_file != NULL
      && !torsim_auth_write_cookie (t, options->cookie_file, error)) {
    g_prefix_error (error, "--cookie-file: ");
    torsim_free (t);
    return NULL;
  }

  t->socks_listener = listen_local (t, options->socks_port, on_socks_accept,
      &t->socks_port, error);
  if (t->socks_listener == NULL) {
    g_prefix_error (error, "--socks-port: ");
    torsim_free (t);
    return NULL;
  }
  t->control_listener = listen_local (t, options->control_port,
      on_control_accept, &t->control_port, error);
  if (t->control_listener == NULL) {
    g_prefix_error (error, "--control-port: ");
    torsim_free (t);
    return NULL;
  }
  return t;
}

void
torsim_quit (Torsim * t, guint delay_ms)
{
  struct timeval tv = { delay_ms / 1000, (delay_ms % 1000) * 1000 };

  if (delay_ms == 0)
    event_base_loopbreak (t->base);
  else
    event_base_loopexit (t->base, &tv);
}

void
torsim_free (Torsim * t)
{
  if (t == NULL)
    return;
  g_clear_pointer (&t->socks_listener, evconnlistener_free);
  g_clear_pointer (&t->control_listener, evconnlistener_free);
  torsim_controls_close_all (t);
  torsim_streams_close_all (t);
  torsim_onions_clear (t);
  torsim_client_auth_clear (t);
  reap (-1, 0, t);
  /* Whatever still lingers is closed now. */
  donar_linger_close_all (t->lingering);
  if (t->links != NULL)
    torsim_links_clear (t);
  reap (-1, 0, t);
  donar_linger_free (t->lingering);
  g_hash_table_unref (t->onions);
  g_ptr_array_unref (t->graveyard);
  event_free (t->reaper);
  donar_net_model_free (t->model);
  event_base_free (t->base);
  explicit_bzero (t->cookie, sizeof t->cookie);
  g_free (t);
}
