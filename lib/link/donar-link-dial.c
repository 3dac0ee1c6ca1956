/* The caller's side of a link: TCP (or a Unix socket) to Tor's
 * SocksPort, SOCKS5 with a username of its own, CONNECT to the onion by
 * name; and dialing again, with backoff, when that fails or the link
 * breaks. */
#include "donar-link-engine-private.h"

#include "donar-backoff.h"

#include <string.h>
#include <sys/un.h>

/* Tor answers the SOCKS greeting at once, from its own machine: a port
 * silent this long after the connection is not a SocksPort. */
#define SOCKS_GREETING_WAIT_US (2 * G_TIME_SPAN_SECOND)

static gboolean
socks_is_silent (DonarLink * link, gint64 now)
{
  return link->state == DONAR_LINK_SOCKS &&
      link->socks.stage == DONAR_SOCKS_STAGE_METHOD &&
      link->socks.filled == 0
      && now - link->dialed_at >= SOCKS_GREETING_WAIT_US;
}

DonarLinkFailure
donar_link_engine_likely_failure (DonarLinkEngine * engine, gint64 now)
{
  DonarLinkFailure likely = DONAR_LINK_FAILURE_NONE;

  for (guint i = 0; i < engine->settings.config.n_links; i++) {
    DonarLink *link = &engine->links[i];

    likely = donar_link_failure_max (likely, link->failure);
    if (socks_is_silent (link, now))
      likely = donar_link_failure_max (likely, DONAR_LINK_FAILURE_SOCKS_SILENT);
    else if (link->state == DONAR_LINK_CONNECTING ||
        link->state == DONAR_LINK_SOCKS)
      likely = donar_link_failure_max (likely, DONAR_LINK_FAILURE_DIALING);
  }
  return likely;
}

static void
on_timer (evutil_socket_t fd, short what, gpointer user_data)
{
  DonarLink *link = user_data;
  gint64 now = g_get_monotonic_time ();

  donar_link_engine_lock (link->engine);
  if (link->state == DONAR_LINK_WAITING)
    donar_link_dial (link);
  else if (link->state == DONAR_LINK_CONNECTING ||
      link->state == DONAR_LINK_SOCKS) {
    link->failure = socks_is_silent (link, now) ?
        DONAR_LINK_FAILURE_SOCKS_SILENT : DONAR_LINK_FAILURE_TOR_TIMEOUT;
    donar_link_close (link, now, "no connection within %" G_GINT64_FORMAT
        " s", link->engine->settings.connect_timeout_us / G_USEC_PER_SEC);
  }
  donar_link_engine_unlock (link->engine);
}

static void
arm_timer (DonarLink * link, gint64 delay_us)
{
  struct timeval tv = { delay_us / G_USEC_PER_SEC, delay_us % G_USEC_PER_SEC };

  if (link->timer == NULL)
    link->timer = evtimer_new (link->engine->base, on_timer, link);
  evtimer_add (link->timer, &tv);
}

void
donar_link_schedule_dial (DonarLink * link, gint64 now, gboolean not_listening)
{
  const DonarLinkEngineSettings *s = &link->engine->settings;
  gint64 delay;

  /* Knocking again on a local port costs nothing, to Tor or the callee:
   * the call then waits for a restarting tor only as long as tor takes,
   * not for a backoff grown meanwhile.  The backoff is for what tor or
   * the callee refuse. */
  if (not_listening) {
    delay = donar_backoff_delay (0, s->backoff_min_us, s->backoff_max_us,
        g_rand_double (link->engine->rand));
  } else {
    delay = donar_backoff_delay (link->attempt, s->backoff_min_us,
        s->backoff_max_us, g_rand_double (link->engine->rand));
    link->attempt++;
  }
  link->state = DONAR_LINK_WAITING;
  arm_timer (link, delay);
}

gboolean
donar_link_engine_uses_socks (const DonarLinkEngineSettings * s)
{
  return s->socks_port != 0 || s->socks_path != NULL;
}

/* Where a dial goes: Tor's SocksPort on 127.0.0.1 or on a Unix socket
 * (check_settings made sure the path fits), or the direct callee. */
static void
dial_address (const DonarLinkEngineSettings * s,
    struct sockaddr_storage *address, int *address_length, gchar ** target)
{
  memset (address, 0, sizeof *address);
  if (s->socks_path != NULL) {
    struct sockaddr_un *un = (struct sockaddr_un *) address;

    un->sun_family = AF_UNIX;
    g_strlcpy (un->sun_path, s->socks_path, sizeof un->sun_path);
    *address_length = sizeof *un;
    *target = g_strdup (s->socks_path);
    return;
  }
  *target = g_strdup_printf ("127.0.0.1:%u",
      s->socks_port ? s->socks_port : s->peer_port);
  *address_length = sizeof *address;
  evutil_parse_sockaddr_port (*target, (struct sockaddr *) address,
      address_length);
}

void
donar_link_dial (DonarLink * link)
{
  DonarLinkEngine *engine = link->engine;
  const DonarLinkEngineSettings *s = &engine->settings;
  g_autofree gchar *target = NULL;
  struct sockaddr_storage address;
  int address_length;

  link->dials++;
  link->dialed_at = g_get_monotonic_time ();
  link->state = DONAR_LINK_CONNECTING;
  dial_address (s, &address, &address_length, &target);
  link->bev = bufferevent_socket_new (engine->base, -1, BEV_OPT_CLOSE_ON_FREE);
  donar_link_setcb (link);
  bufferevent_enable (link->bev, EV_READ | EV_WRITE);
  arm_timer (link, s->connect_timeout_us);
  if (bufferevent_socket_connect (link->bev, (struct sockaddr *) &address,
          address_length) < 0) {
    link->failure = DONAR_LINK_FAILURE_CONNECT_REFUSED;
    donar_link_close (link, g_get_monotonic_time (), "cannot connect to %s",
        target);
  }
}

static void
send_auth (DonarLink * link)
{
  DonarLinkEngine *engine = link->engine;
  guint8 request[DONAR_SOCKS_MAX_AUTH_LENGTH];
  gsize written;
  /* Tor puts streams with different credentials on different circuits
   * (IsolateSOCKSAuth): one username per link and per dial, so that a link
   * dialed again after a failure gets a fresh circuit too. */
  g_autofree gchar *username = g_strdup_printf ("donar-%08x-%u-%u",
      engine->call_nonce, link->index, link->generation++);

  donar_link_path_reset (link, username);
  donar_socks_build_auth (username, "donar", request, sizeof request, &written);
  bufferevent_write (link->bev, request, written);
}

static gboolean
send_connect (DonarLink * link, gint64 now)
{
  const DonarLinkEngineSettings *s = &link->engine->settings;
  guint8 request[DONAR_SOCKS_MAX_CONNECT_LENGTH];
  gsize written;
  DonarSocksError error = donar_socks_build_connect (s->peer_host,
      s->peer_port, request, sizeof request, &written);

  if (error != DONAR_SOCKS_OK) {
    donar_link_close (link, now, "cannot ask Tor for %s: %s", s->peer_host,
        donar_socks_error_message (error));
    return FALSE;
  }
  bufferevent_write (link->bev, request, written);
  return TRUE;
}

/* Refusals that no retry will change: the onion wants a client key we do
 * not have, or not the one we have, or the address is not an onion's. */
static gboolean
is_final_refusal (DonarSocksError error)
{
  return error == DONAR_SOCKS_ERROR_ONION_MISSING_CLIENT_AUTH ||
      error == DONAR_SOCKS_ERROR_ONION_BAD_CLIENT_AUTH ||
      error == DONAR_SOCKS_ERROR_ONION_BAD_ADDRESS;
}

/* Said at once, not after peer_timeout_us: the user must fix the address.
 * The links keep dialing, in case the callee's tor changes its mind. */
static void
report_refusal (DonarLinkEngine * engine, DonarLink * link)
{
  if (engine->links_up > 0 || engine->peer_unreachable_reported)
    return;
  engine->peer_unreachable_reported = TRUE;
  donar_link_engine_raise (engine, DONAR_LINK_EVENT_PEER_UNREACHABLE,
      G_MAXUINT, "the callee cannot be reached: %s (%s)",
      donar_link_failure_explain (link->failure, TRUE), link->last_error);
}

/* Feeds Tor's SOCKS replies; TRUE while the link lives.  Once open,
 * *data and *length are what followed the last reply: the peer's first
 * bytes. */
gboolean
donar_link_socks_read (DonarLink * link, const guint8 ** data,
    gsize * length, gint64 now)
{
  while (*length > 0 && link->state == DONAR_LINK_SOCKS) {
    gboolean reply_done = FALSE;
    DonarSocksError error = donar_socks_reader_feed (&link->socks, data,
        length, &reply_done);

    if (error != DONAR_SOCKS_OK) {
      link->failure = donar_link_failure_from_socks (error, link->socks.stage,
          link->socks.filled > 0 ? link->socks.buffer[0] : -1);
      donar_link_close (link, now, "Tor: %s",
          donar_socks_error_message (error));
      if (is_final_refusal (error))
        report_refusal (link->engine, link);
      return FALSE;
    }
    if (!reply_done)
      continue;
    switch (link->socks.stage) {
      case DONAR_SOCKS_STAGE_AUTH:
        send_auth (link);
        break;
      case DONAR_SOCKS_STAGE_CONNECT:
        if (!send_connect (link, now))
          return FALSE;
        break;
      case DONAR_SOCKS_STAGE_OPEN:
        donar_link_open (link, now);
        break;
      default:
        break;
    }
  }
  return TRUE;
}
