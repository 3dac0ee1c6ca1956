/* A relay of donar-shaper: its listener on 127.0.0.1 and its schedule. */
#include "shaper.h"

#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

static gboolean
parse_port (const char *text, guint16 * out)
{
  guint64 v;

  if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT16, &v, NULL))
    return FALSE;
  *out = (guint16) v;
  return TRUE;
}

ShaperRelay *
shaper_relay_parse (Shaper * s, const char *text, guint index,
    const DonarNetModelParams * model, guint64 seed, GError ** error)
{
  gchar **f = g_strsplit (text, ",", -1);
  guint n = g_strv_length (f);
  ShaperRelay *r = NULL;
  guint16 listen_port, target_port;
  gchar *end = NULL;
  gdouble base_ms = -1.0;
  gboolean ok = n == 3 || (n == 2 && model != NULL);

  /* With a model, the base delay may be the model's (no third field). */
  if (n == 3) {
    base_ms = g_ascii_strtod (f[2], &end);
    ok = end != f[2] && *end == '\0' && base_ms >= 0.0 && base_ms <= 1e9;
  }
  if (!ok || !parse_port (f[0], &listen_port)
      || !parse_port (f[1], &target_port) || target_port == 0) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "a relay is LISTEN_PORT,TARGET_PORT,BASE_MS%s: '%s'",
        model ? " or LISTEN_PORT,TARGET_PORT" : "", text);
  } else {
    gint64 base_us = base_ms < 0.0 ? -1 : (gint64) (base_ms * 1000.0);

    r = g_new0 (ShaperRelay, 1);
    r->shaper = s;
    r->index = index;
    r->listen_port = listen_port;
    r->target_port = target_port;
    r->schedule = model != NULL ?
        donar_shaper_schedule_new_from_model (model, seed, index, base_us) :
        donar_shaper_schedule_new (base_us);
  }
  g_strfreev (f);
  return r;
}

static void
on_accept (struct evconnlistener *listener, evutil_socket_t fd,
    struct sockaddr *address, int length, void *arg)
{
  shaper_conn_accept (arg, fd);
}

gboolean
shaper_relay_listen (ShaperRelay * r, GError ** error)
{
  struct sockaddr_in sin = { 0 };
  socklen_t length = sizeof sin;

  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  sin.sin_port = htons (r->listen_port);
  r->listener = evconnlistener_new_bind (r->shaper->base, on_accept, r,
      LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 128,
      (struct sockaddr *) &sin, sizeof sin);
  if (r->listener == NULL) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
        "relay %u: cannot listen on 127.0.0.1:%u: %s", r->index,
        r->listen_port, g_strerror (errno));
    return FALSE;
  }
  /* Port 0 asks the kernel for one: say which (tests). */
  getsockname (evconnlistener_get_fd (r->listener), (struct sockaddr *) &sin,
      &length);
  r->listen_port = ntohs (sin.sin_port);
  return TRUE;
}

void
shaper_relay_free (ShaperRelay * r)
{
  if (r->listener != NULL)
    evconnlistener_free (r->listener);
  donar_shaper_schedule_free (r->schedule);
  g_free (r);
}
