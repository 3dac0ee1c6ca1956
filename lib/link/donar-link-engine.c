/* The link engine (donar-link-engine.h): its thread, its timers, and the
 * glue between the session and the links. */
#include "donar-link-engine-private.h"
#include "donar-link-sigpipe.h"
#include "donar-versioned.h"

#include <event2/thread.h>
#include <string.h>
#include <sys/un.h>

GQuark
donar_link_engine_error_quark (void)
{
  return g_quark_from_static_string ("donar-link-engine-error-quark");
}

/* Housekeeping: stalled links, a peer that is gone. */
#define TICK_US (250 * G_TIME_SPAN_MILLISECOND)
/* How long a thread that ran the loop in pop_frame keeps it between two
 * calls: the engine's thread looks once in that time (a wake-up it costs),
 * and timers and reads wait at most that long when the popper has gone
 * without flushing (a blocked downstream). */
#define LOOP_LEASE_US (500 * G_TIME_SPAN_MILLISECOND)

const gchar *
donar_link_event_type_to_string (DonarLinkEventType type)
{
  switch (type) {
    case DONAR_LINK_EVENT_LISTENING:
      return "listening";
    case DONAR_LINK_EVENT_LINK_UP:
      return "link-up";
    case DONAR_LINK_EVENT_LINK_DOWN:
      return "link-down";
    case DONAR_LINK_EVENT_ALL_LINKS_UP:
      return "all-links-up";
    case DONAR_LINK_EVENT_NO_LINK_LEFT:
      return "no-link-left";
    case DONAR_LINK_EVENT_REJECTED:
      return "rejected";
    case DONAR_LINK_EVENT_PEER_UNREACHABLE:
      return "peer-unreachable";
    case DONAR_LINK_EVENT_PEER_ENDED:
      return "peer-ended";
    case DONAR_LINK_EVENT_NO_LINK_IN_TIME:
      return "no-link-in-time";
    case DONAR_LINK_EVENT_IN_TIME_AGAIN:
      return "in-time-again";
    case DONAR_LINK_EVENT_NO_LINK_YET:
      return "no-link-yet";
    case DONAR_LINK_EVENT_INCOMING_CALL:
      return "incoming-call";
    case DONAR_LINK_EVENT_PEER_RESTARTED:
      return "peer-restarted";
  }
  return "unknown";
}

DONAR_VERSIONED_DEFINE (settings_versions, DonarLinkEngineSettings,
    sizeof (DonarLinkEngineSettings));
DONAR_VERSIONED_DEFINE (stats_versions, DonarLinkEngineStats,
    sizeof (DonarLinkEngineStats));
DONAR_VERSIONED_DEFINE (link_stats_versions, DonarLinkEngineLinkStats,
    sizeof (DonarLinkEngineLinkStats));

static void
settings_init (DonarLinkEngineSettings * settings, DonarRole role)
{
  memset (settings, 0, sizeof *settings);
  settings->role = role;
  donar_config_init (&settings->config);
  settings->socks_host = g_strdup ("127.0.0.1");
  /* 16 records of 498 bytes: 0.64 s of 40-ms frames, beyond which a voice
   * frame is worthless anyway. */
  settings->link_queue_bytes = 16 * DONAR_CELL_PAYLOAD;
  settings->stall_timeout_us = 5 * G_TIME_SPAN_SECOND;
  settings->connect_timeout_us = 60 * G_TIME_SPAN_SECOND;
  settings->hello_timeout_us = 10 * G_TIME_SPAN_SECOND;
  /* Far beyond any spike a voice frame could outlive (the deadline is
   * 360 ms), and short next to a call: 8 s of nothing is a hung circuit. */
  settings->silence_timeout_us = 8 * G_TIME_SPAN_SECOND;
  settings->backoff_min_us = 500 * G_TIME_SPAN_MILLISECOND;
  settings->backoff_max_us = 30 * G_TIME_SPAN_SECOND;
  settings->peer_timeout_us = DONAR_LINK_ENGINE_DEFAULT_PEER_TIMEOUT_US;
  settings->receive_queue_frames = 256;
  settings->max_pending_connections = 64;
}

static void
settings_clear (DonarLinkEngineSettings * settings)
{
  g_clear_pointer (&settings->peer_host, g_free);
  g_clear_pointer (&settings->socks_host, g_free);
  g_clear_pointer (&settings->socks_path, g_free);
  explicit_bzero (settings->secret, sizeof settings->secret);
  settings->secret_length = 0;
}

void
donar_link_engine_settings_init_versioned (gint settings_version,
    DonarLinkEngineSettings * settings, DonarRole role)
{
  DonarLinkEngineSettings latest;

  g_return_if_fail (role <= DONAR_ROLE_CALLEE);
  settings_init (&latest, role);
  donar_versioned_init (&settings_versions, settings_version, &latest,
      settings, (GDestroyNotify) settings_clear);
}

/* The caller's settings of its version, what that version lacks at its
 * default: a shallow copy, the strings still the caller's. */
static gboolean
settings_from_versioned (gint settings_version,
    const DonarLinkEngineSettings * settings, DonarLinkEngineSettings * latest)
{
  settings_init (latest, DONAR_ROLE_CALLER);
  /* Every string is in version 1, so the caller's replace these. */
  settings_clear (latest);
  return donar_versioned_copy (&settings_versions, settings_version,
      settings, latest);
}

void
donar_link_engine_settings_clear_versioned (gint settings_version,
    DonarLinkEngineSettings * settings)
{
  DonarLinkEngineSettings latest;

  if (!settings_from_versioned (settings_version, settings, &latest))
    return;
  settings_clear (&latest);
  donar_versioned_copy (&settings_versions, settings_version, &latest,
      settings);
}

static void
copy_settings (DonarLinkEngineSettings * to,
    const DonarLinkEngineSettings * from)
{
  *to = *from;
  to->peer_host = g_strdup (from->peer_host);
  to->socks_host = g_strdup (from->socks_host);
  to->socks_path = g_strdup (from->socks_path);
}

/* A SocksPort on a Unix socket alone, whose path a sockaddr_un takes
 * whole. */
static gboolean
socks_path_fits (const DonarLinkEngineSettings * s)
{
  return s->socks_port == 0 && s->socks_path[0] == '/' &&
      strlen (s->socks_path) < sizeof (struct sockaddr_un) -
      G_STRUCT_OFFSET (struct sockaddr_un, sun_path);
}

static gboolean
check_settings (const DonarLinkEngineSettings * s, GError ** error)
{
  const gchar *problem = NULL;
  DonarError config_error = donar_config_validate (&s->config);

  if (config_error != DONAR_OK)
    problem = donar_error_to_string (config_error);
  else if (s->secret_length == 0 || s->secret_length > sizeof s->secret)
    problem = "the call secret must be 1 to 64 bytes";
  else if (s->role == DONAR_ROLE_CALLER && (s->peer_host == NULL ||
          s->peer_port == 0))
    problem = "a caller needs the peer's host and port";
  else if (s->role == DONAR_ROLE_CALLER && !donar_link_engine_uses_socks (s)
      && strcmp (s->peer_host, "127.0.0.1") != 0)
    problem = "without a SocksPort the peer must be on 127.0.0.1 "
        "(an onion is reached only through Tor)";
  else if (s->role == DONAR_ROLE_CALLER && s->socks_port != 0 &&
      g_strcmp0 (s->socks_host, "127.0.0.1") != 0)
    problem = "Tor's SocksPort must be on 127.0.0.1";
  else if (s->role == DONAR_ROLE_CALLER && s->socks_path != NULL &&
      !socks_path_fits (s))
    problem = "Tor's SocksPort is a port or a Unix socket, not both, and a "
        "socket's path is absolute and fits a socket address";
  else if (s->link_queue_bytes < DONAR_CELL_PAYLOAD)
    problem = "link-queue-bytes must hold at least one record";
  else if (s->stall_timeout_us <= 0 || s->connect_timeout_us <= 0 ||
      s->hello_timeout_us <= 0 || s->silence_timeout_us <= 0 ||
      s->backoff_min_us <= 0 ||
      s->backoff_max_us < s->backoff_min_us || s->peer_timeout_us <= 0 ||
      s->no_link_warning_us < 0)
    problem = "every timeout must be positive, and the backoff maximum "
        "at least its minimum";
  else if (s->receive_queue_frames == 0 || s->max_pending_connections == 0)
    problem = "the receive queue and the pending connections need room";
  if (problem == NULL)
    return TRUE;
  g_set_error (error, DONAR_LINK_ENGINE_ERROR,
      DONAR_LINK_ENGINE_ERROR_SETTINGS, "invalid link engine settings: %s",
      problem);
  return FALSE;
}

void
donar_link_engine_raise (DonarLinkEngine * engine, DonarLinkEventType type,
    guint link, const gchar * format, ...)
{
  DonarQueuedEvent event = { type, link, 0, NULL };
  va_list args;

  va_start (args, format);
  event.message = g_strdup_vprintf (format, args);
  va_end (args);
  g_array_append_val (engine->events, event);
}

static void
rearm_expiry (DonarLinkEngine * engine)
{
  gint64 expiry = donar_session_get_expiry (engine->session);
  gint64 delay;
  struct timeval tv;

  /* Most calls into the session leave the window where it was. */
  if (expiry == engine->armed_expiry)
    return;
  delay = expiry - g_get_monotonic_time ();
  engine->armed_expiry = expiry;
  if (delay < 0)
    delay = 0;
  tv.tv_sec = delay / G_USEC_PER_SEC;
  tv.tv_usec = delay % G_USEC_PER_SEC;
  evtimer_add (engine->expiry_event, &tv);
}

void
donar_link_engine_lock (DonarLinkEngine * engine)
{
  g_mutex_lock (&engine->lock);
}

static void
raise_events (DonarLinkEngine * engine, GArray * raised)
{
  for (guint i = 0; i < raised->len; i++) {
    DonarQueuedEvent *queued = &g_array_index (raised, DonarQueuedEvent, i);
    DonarLinkEvent event = { queued->type, queued->link, queued->links_up,
      queued->message
    };

    if (engine->on_event)
      engine->on_event (&event, engine->user_data);
    g_free (queued->message);
  }
  g_array_unref (raised);
}

/* Under loop_lock: the events a popper handed over, taken. */
static GArray *
take_handed_events (DonarLinkEngine * engine)
{
  GArray *handed = engine->handed_events;

  if (handed->len == 0)
    return NULL;
  engine->handed_events = g_array_new (FALSE, FALSE, sizeof (DonarQueuedEvent));
  return handed;
}

/* Also re-arms the window timer, which anything done under the lock may
 * have moved, and then raises the events queued meanwhile, on the engine's
 * thread: from a popper's turn of the loop they go there. */
void
donar_link_engine_unlock (DonarLinkEngine * engine)
{
  GArray *raised = NULL, *handed;

  rearm_expiry (engine);
  /* Taken out under the lock: another thread may queue more meanwhile. */
  if (engine->events->len > 0) {
    raised = engine->events;
    engine->events = g_array_new (FALSE, FALSE, sizeof (DonarQueuedEvent));
    for (guint i = 0; i < raised->len; i++)
      g_array_index (raised, DonarQueuedEvent, i).links_up = engine->links_up;
  }
  g_mutex_unlock (&engine->lock);
  if (raised == NULL)
    return;

  g_mutex_lock (&engine->loop_lock);
  if (g_thread_self () != engine->loop_thread) {
    g_array_append_vals (engine->handed_events, raised->data, raised->len);
    g_array_unref (raised);
    g_cond_broadcast (&engine->loop_cond);
    /* It runs the loop just now (it took it back): its next turn raises
     * them. */
    if (engine->engine_in_loop)
      event_active (engine->wake_event, 0, 0);
    g_mutex_unlock (&engine->loop_lock);
    return;
  }
  /* Those handed over before go first. */
  handed = take_handed_events (engine);
  g_mutex_unlock (&engine->loop_lock);
  if (handed)
    raise_events (engine, handed);
  raise_events (engine, raised);
}

/* The unlock of a thread other than the engine's: the handlers are
 * called on the engine's thread, and the window timer is touched only if
 * it moved (touching it wakes that thread). */
static void
unlock_from_app (DonarLinkEngine * engine)
{
  gboolean wake = engine->events->len > 0;

  rearm_expiry (engine);
  g_mutex_unlock (&engine->lock);
  if (wake)
    event_active (engine->wake_event, 0, 0);
}

/* The session says at each frame whether any link delivers in time: a
 * change is told once, with what the session counted. */
static void
note_in_time (DonarLinkEngine * engine)
{
  DonarSessionStats stats;

  donar_session_get_stats (engine->session, &stats);
  if (stats.no_link_in_time == engine->no_link_in_time)
    return;
  engine->no_link_in_time = stats.no_link_in_time;
  if (stats.no_link_in_time)
    donar_link_engine_raise (engine, DONAR_LINK_EVENT_NO_LINK_IN_TIME,
        G_MAXUINT, "no link delivers in time: every link is stalled; one "
        "frame a round trip goes out as a probe, the others are withheld");
  else
    donar_link_engine_raise (engine, DONAR_LINK_EVENT_IN_TIME_AGAIN,
        G_MAXUINT, "a link delivers in time again (%" G_GUINT64_FORMAT
        " frames withheld in all)", stats.frames_withheld);
}

static void
session_send (gpointer user_data, guint link, const guint8 * record,
    gsize length)
{
  DonarLinkEngine *engine = user_data;

  donar_link_write (&engine->links[link], record, length,
      g_get_monotonic_time ());
}

/* Inside donar_session_receive (), as the link's HELLO is checked. */
static void
session_peer_session (gpointer user_data, guint link, gboolean restarted)
{
  DonarLinkEngine *engine = user_data;

  if (restarted)
    donar_link_engine_raise (engine, DONAR_LINK_EVENT_PEER_RESTARTED, link,
        "the other end restarted: a new session on link %u", link);
  else if (engine->settings.role == DONAR_ROLE_CALLEE)
    donar_link_engine_raise (engine, DONAR_LINK_EVENT_INCOMING_CALL, link,
        "a call came in on link %u", link);
}

static void
session_deliver (gpointer user_data, guint32 seq, const guint8 * data,
    gsize length, guint link, gboolean piggybacked)
{
  DonarLinkEngine *engine = user_data;
  DonarLinkFrame *frame = g_malloc (sizeof *frame + length);

  frame->seq = seq;
  frame->link = link;
  frame->piggybacked = piggybacked;
  frame->arrival_us = g_get_monotonic_time ();
  frame->length = length;
  memcpy (frame->data, data, length);

  g_mutex_lock (&engine->out_lock);
  while (engine->out_frames.length >= engine->settings.receive_queue_frames) {
    g_free (g_queue_pop_head (&engine->out_frames));
    engine->frames_dropped++;
  }
  g_queue_push_tail (&engine->out_frames, frame);
  /* Usually the popper runs the loop itself and waits on no condition. */
  if (engine->out_waiters > 0)
    g_cond_signal (&engine->out_cond);
  g_mutex_unlock (&engine->out_lock);
}

/* Another thread left work here: records its sockets did not take, events
 * to raise. */
static void
on_wake (evutil_socket_t fd, short what, gpointer user_data)
{
  DonarLinkEngine *engine = user_data;
  GArray *handed;

  donar_link_engine_lock (engine);
  for (guint i = 0; i < engine->settings.config.n_links; i++) {
    DonarLink *link = &engine->links[i];

    if (link->state == DONAR_LINK_OPEN && link->backlog)
      donar_link_flush (link);
  }
  donar_link_engine_check_end (engine, g_get_monotonic_time ());
  donar_link_engine_unlock (engine);

  /* A popper may have handed events over while this thread ran the loop. */
  g_mutex_lock (&engine->loop_lock);
  handed = g_thread_self () == engine->loop_thread ?
      take_handed_events (engine) : NULL;
  g_mutex_unlock (&engine->loop_lock);
  if (handed)
    raise_events (engine, handed);
}

static void
on_expiry (evutil_socket_t fd, short what, gpointer user_data)
{
  DonarLinkEngine *engine = user_data;

  donar_link_engine_lock (engine);
  /* The timer fired: armed again even if the window did not move. */
  engine->armed_expiry = G_MININT64;
  donar_session_handle_expiry (engine->session, g_get_monotonic_time ());
  donar_link_engine_unlock (engine);
}

/* The error at peer_timeout_us says why, as far as the dials tell. */
static void
raise_unreachable (DonarLinkEngine * engine, gint64 now)
{
  const gchar *last = engine->links[0].last_error;
  DonarLinkFailure failure = donar_link_engine_likely_failure (engine, now);
  gdouble seconds = (now - engine->no_link_since) / (gdouble) G_USEC_PER_SEC;

  if (engine->settings.role == DONAR_ROLE_CALLER &&
      failure > DONAR_LINK_FAILURE_DIALING)
    donar_link_engine_raise (engine, DONAR_LINK_EVENT_PEER_UNREACHABLE,
        G_MAXUINT, "no link to the peer for %.1f s: %s (last error: %s)",
        seconds, donar_link_failure_explain (failure,
            donar_link_engine_uses_socks (&engine->settings)), last);
  else
    donar_link_engine_raise (engine, DONAR_LINK_EVENT_PEER_UNREACHABLE,
        G_MAXUINT, "no link to the peer for %.1f s%s%s", seconds,
        last[0] ? "; last error: " : "", last);
}

/* A caller with no link yet hears why soon, not at peer_timeout_us: the
 * dials have usually told by then (Tor's refusals come in a second or
 * two, a callee's in a round trip). */
static void
check_no_link_yet (DonarLinkEngine * engine, gint64 now)
{
  const DonarLinkEngineSettings *s = &engine->settings;
  DonarLinkFailure failure;

  if (s->role != DONAR_ROLE_CALLER || s->no_link_warning_us == 0 ||
      engine->no_link_warned || engine->had_link ||
      engine->end != DONAR_LINK_END_NONE ||
      now - engine->started_at < s->no_link_warning_us)
    return;
  engine->no_link_warned = TRUE;
  failure = donar_link_engine_likely_failure (engine, now);
  donar_link_engine_raise (engine, DONAR_LINK_EVENT_NO_LINK_YET, G_MAXUINT,
      "no link to the callee after %.1f s: %s (last error: %s)",
      (now - engine->started_at) / (gdouble) G_USEC_PER_SEC,
      donar_link_failure_explain (failure, donar_link_engine_uses_socks (s)),
      engine->links[0].last_error[0] ? engine->links[0].last_error : "none");
}

static void
on_tick (evutil_socket_t fd, short what, gpointer user_data)
{
  DonarLinkEngine *engine = user_data;
  gint64 now = g_get_monotonic_time ();

  donar_link_engine_lock (engine);
  for (guint i = 0; i < engine->settings.config.n_links; i++) {
    donar_link_check_stall (&engine->links[i], now);
    donar_link_check_hello (&engine->links[i], now);
    donar_link_check_silence (&engine->links[i], now);
  }
  check_no_link_yet (engine, now);
  /* A callee waits for its caller as long as it likes: the peer is lost
   * only once it was there. */
  if (engine->links_up == 0 && engine->end == DONAR_LINK_END_NONE &&
      (engine->settings.role == DONAR_ROLE_CALLER || engine->had_link) &&
      now - engine->no_link_since >= engine->settings.peer_timeout_us) {
    if (!engine->peer_unreachable_reported)
      raise_unreachable (engine, now);
    engine->peer_unreachable_reported = TRUE;
    donar_link_engine_lose_peer (engine, now);
  }
  donar_link_engine_check_end (engine, now);
  donar_link_engine_unlock (engine);
}

static void
on_handover (evutil_socket_t fd, short what, gpointer user_data)
{
  DonarLinkEngine *engine = user_data;

  event_base_loopbreak (engine->base);
}

static void
on_deadline (evutil_socket_t fd, short what, gpointer user_data)
{
}

void
donar_link_engine_kick (DonarLinkEngine * engine)
{
  g_mutex_lock (&engine->loop_lock);
  engine->kicked = TRUE;
  g_cond_broadcast (&engine->loop_cond);
  g_mutex_unlock (&engine->loop_lock);
}

static void
use_libevent_threads_once (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    evthread_use_pthreads ();
    g_once_init_leave (&done, 1);
  }
}

static DonarLinkEngine *
engine_new (const DonarLinkEngineSettings * settings,
    DonarLinkEventFunc on_event, gpointer user_data, GError ** error)
{
  DonarLinkEngine *engine;
  DonarCallbacks callbacks = { session_send, session_deliver,
    donar_link_engine_peer_ended, session_peer_session,
    donar_link_engine_peer_rendezvous
  };
  DonarError session_error;
  struct timeval tick = { 0, TICK_US };

  if (!check_settings (settings, error))
    return NULL;
  use_libevent_threads_once ();

  engine = g_new0 (DonarLinkEngine, 1);
  copy_settings (&engine->settings, settings);
  engine->rand = g_rand_new ();
  if (engine->settings.config.seed == 0)
    engine->settings.config.seed = g_rand_int_range (engine->rand, 1,
        G_MAXINT32);
  engine->call_nonce = g_rand_int (engine->rand);
  engine->on_event = on_event;
  engine->user_data = user_data;
  g_mutex_init (&engine->lock);
  g_mutex_init (&engine->out_lock);
  g_cond_init (&engine->out_cond);
  g_mutex_init (&engine->loop_lock);
  g_cond_init (&engine->loop_cond);
  engine->handed_events = g_array_new (FALSE, FALSE, sizeof (DonarQueuedEvent));
  g_cond_init (&engine->end_cond);
  g_queue_init (&engine->out_frames);
  engine->events = g_array_new (FALSE, FALSE, sizeof (DonarQueuedEvent));
  engine->service_circuits = g_array_new (FALSE, FALSE,
      sizeof (DonarServiceCircuit));

  engine->session = donar_session_new (&engine->settings.config,
      settings->role, settings->secret, settings->secret_length, &callbacks,
      engine, g_get_monotonic_time (), &session_error);
  if (engine->session == NULL) {
    g_set_error (error, DONAR_LINK_ENGINE_ERROR,
        DONAR_LINK_ENGINE_ERROR_SETTINGS, "cannot make the session: %s",
        donar_error_to_string (session_error));
    donar_link_engine_free (engine);
    return NULL;
  }
  /* The session keeps only the keys derived from the secret. */
  explicit_bzero (engine->settings.secret, sizeof engine->settings.secret);
  engine->max_frame = donar_session_get_max_frame (engine->session);

  engine->base = event_base_new ();
  engine->wake_event = event_new (engine->base, -1, 0, on_wake, engine);
  engine->handover_event = event_new (engine->base, -1, 0, on_handover, engine);
  engine->deadline_event = evtimer_new (engine->base, on_deadline, engine);
  engine->expiry_event = evtimer_new (engine->base, on_expiry, engine);
  engine->tick_event = event_new (engine->base, -1, EV_PERSIST, on_tick,
      engine);
  evtimer_add (engine->tick_event, &tick);
  for (guint i = 0; i < DONAR_MAX_LINKS; i++)
    donar_link_init (&engine->links[i], engine, i);
  return engine;
}

DonarLinkEngine *
donar_link_engine_new_versioned (gint settings_version,
    const DonarLinkEngineSettings * settings, DonarLinkEventFunc on_event,
    gpointer user_data, GError ** error)
{
  DonarLinkEngineSettings latest;
  DonarLinkEngine *engine;

  if (!donar_versioned_known (&settings_versions, settings_version,
          DONAR_LINK_ENGINE_ERROR, DONAR_LINK_ENGINE_ERROR_SETTINGS, error) ||
      !settings_from_versioned (settings_version, settings, &latest))
    return NULL;
  engine = engine_new (&latest, on_event, user_data, error);
  /* The copy held the call secret too. */
  explicit_bzero (latest.secret, sizeof latest.secret);
  return engine;
}

/* The engine's thread runs the loop whenever no thread in pop_frame
 * does (donar-link-engine-private.h, loop_lock). */
static gpointer
run_loop (gpointer user_data)
{
  DonarSigpipeGuard sigpipe;
  DonarLinkEngine *engine = user_data;

  g_mutex_lock (&engine->loop_lock);
  engine->loop_thread = g_thread_self ();
  while (!engine->loop_quit) {
    if (engine->app_wants_loop) {
      guint64 pops = engine->app_pops;
      gint64 until = g_get_monotonic_time () + LOOP_LEASE_US;

      for (;;) {
        GArray *handed = take_handed_events (engine);

        if (handed) {
          g_mutex_unlock (&engine->loop_lock);
          raise_events (engine, handed);
          g_mutex_lock (&engine->loop_lock);
          continue;
        }
        if (engine->loop_quit || (engine->kicked && !engine->app_in_loop) ||
            !g_cond_wait_until (&engine->loop_cond, &engine->loop_lock, until))
          break;
      }
      if (engine->loop_quit)
        break;
      if (!engine->kicked && (engine->app_in_loop || engine->app_pops != pops))
        continue;
      /* Kicked, or a whole lease without a turn: the popper asks again
       * when it comes back. */
      engine->app_wants_loop = FALSE;
    }
    engine->kicked = FALSE;
    engine->engine_in_loop = TRUE;
    g_mutex_unlock (&engine->loop_lock);
    donar_sigpipe_block (&sigpipe);
    event_base_loop (engine->base, EVLOOP_NO_EXIT_ON_EMPTY);
    donar_sigpipe_unblock (&sigpipe);
    g_mutex_lock (&engine->loop_lock);
    engine->engine_in_loop = FALSE;
    g_cond_broadcast (&engine->loop_cond);
  }
  g_mutex_unlock (&engine->loop_lock);
  return NULL;
}

/* One turn of the loop on the thread in pop_frame, until something
 * happened or end_time (monotonic µs, -1: none; 0: only what is ready,
 * and only if this thread has the loop already).  FALSE when this thread
 * cannot run it: the loop is stopped, or another popper runs it. */
static gboolean
drive_loop (DonarLinkEngine * engine, gint64 end_time)
{
  DonarSigpipeGuard sigpipe;
  gboolean now_only = end_time == 0;

  g_mutex_lock (&engine->loop_lock);
  if (!engine->loop_started || engine->loop_quit || engine->app_in_loop ||
      (now_only && (engine->engine_in_loop || !engine->app_wants_loop))) {
    g_mutex_unlock (&engine->loop_lock);
    return FALSE;
  }
  engine->app_pops++;
  engine->app_wants_loop = TRUE;
  /* The engine's thread has it (at the start, after a kick or a lease
   * that lapsed): it gives it up at the handover event. */
  while (engine->engine_in_loop && !engine->loop_quit) {
    /* Asked again at each wake-up: a kick (set_flushing, the end) makes
     * the engine's thread drop the request, and it would then take the
     * loop straight back after every handover while this thread waits
     * here for ever (a source set to NULL hung so, 2 runs in 30). */
    engine->app_wants_loop = TRUE;
    event_active (engine->handover_event, 0, 0);
    g_cond_wait (&engine->loop_cond, &engine->loop_lock);
  }
  if (engine->loop_quit) {
    g_mutex_unlock (&engine->loop_lock);
    return FALSE;
  }
  engine->app_in_loop = TRUE;
  g_mutex_unlock (&engine->loop_lock);

  if (end_time > 0) {
    gint64 delay = MAX (end_time - g_get_monotonic_time (), 0);
    struct timeval tv = { delay / G_USEC_PER_SEC, delay % G_USEC_PER_SEC };

    evtimer_add (engine->deadline_event, &tv);
  }
  donar_sigpipe_block (&sigpipe);
  event_base_loop (engine->base, now_only ? EVLOOP_NONBLOCK : EVLOOP_ONCE);
  donar_sigpipe_unblock (&sigpipe);
  if (end_time > 0)
    evtimer_del (engine->deadline_event);

  g_mutex_lock (&engine->loop_lock);
  engine->app_in_loop = FALSE;
  /* Only then is the engine's thread waiting for this one: otherwise no
   * wake-up. */
  if (engine->kicked || engine->loop_quit)
    g_cond_broadcast (&engine->loop_cond);
  g_mutex_unlock (&engine->loop_lock);
  return TRUE;
}

gboolean
donar_link_engine_start (DonarLinkEngine * engine, GError ** error)
{
  g_return_val_if_fail (engine != NULL, FALSE);

  if (engine->started) {
    g_set_error (error, DONAR_LINK_ENGINE_ERROR,
        DONAR_LINK_ENGINE_ERROR_STATE, "the link engine is already started");
    return FALSE;
  }
  engine->started = TRUE;
  engine->no_link_since = g_get_monotonic_time ();
  engine->started_at = engine->no_link_since;

  donar_link_engine_lock (engine);
  if (engine->settings.role == DONAR_ROLE_CALLEE) {
    if (!donar_link_engine_listen (engine, error)) {
      g_mutex_unlock (&engine->lock);
      return FALSE;
    }
  } else {
    for (guint i = 0; i < engine->settings.config.n_links; i++)
      donar_link_dial (&engine->links[i]);
  }
  /* The events of the start are raised on the engine's thread like the
   * others: the loop is not running yet, so they wait in the queue until
   * the first callback releases the lock. */
  rearm_expiry (engine);
  g_mutex_unlock (&engine->lock);
  event_active (engine->wake_event, 0, 0);

  g_mutex_lock (&engine->loop_lock);
  engine->loop_started = TRUE;
  g_mutex_unlock (&engine->loop_lock);
  engine->thread = g_thread_new ("donar-links", run_loop, engine);
  return TRUE;
}

guint16
donar_link_engine_get_listen_port (DonarLinkEngine * engine)
{
  g_return_val_if_fail (engine != NULL, 0);
  return engine->listen_port;
}

gsize
donar_link_engine_get_max_frame (DonarLinkEngine * engine)
{
  g_return_val_if_fail (engine != NULL, 0);
  return engine->max_frame;
}

gboolean
donar_link_engine_send_frame (DonarLinkEngine * engine, const guint8 * frame,
    gsize length, GError ** error)
{
  g_return_val_if_fail (engine != NULL, FALSE);
  g_return_val_if_fail (frame != NULL || length == 0, FALSE);
  if (length == 0 || length > engine->max_frame) {
    g_set_error (error, DONAR_LINK_ENGINE_ERROR,
        DONAR_LINK_ENGINE_ERROR_FRAME_TOO_LARGE,
        "a frame of %" G_GSIZE_FORMAT " bytes: DONAR carries 1 to %"
        G_GSIZE_FORMAT " bytes per frame with these settings (one Tor cell)",
        length, engine->max_frame);
    return FALSE;
  }
  g_mutex_lock (&engine->lock);
  if (!engine->started || engine->stopped) {
    g_mutex_unlock (&engine->lock);
    g_set_error (error, DONAR_LINK_ENGINE_ERROR,
        DONAR_LINK_ENGINE_ERROR_STOPPED, "the link engine is not running");
    return FALSE;
  }
  /* Written here, on the caller's thread (donar_link_write): handing the
   * frame to the engine's thread would wake it for every frame.
   * DONAR_ERROR_NO_LINK is counted by the session (frames_unsent). */
  engine->app_writing = TRUE;
  donar_session_send_frame (engine->session, frame, length,
      g_get_monotonic_time ());
  engine->app_writing = FALSE;
  note_in_time (engine);
  unlock_from_app (engine);
  return TRUE;
}

/* The waiting thread runs the engine's loop itself (drive_loop): the
 * frame's bytes wake it, and no other thread, which would then wake it. */
DonarLinkFrame *
donar_link_engine_pop_frame (DonarLinkEngine * engine, gint64 end_time)
{
  DonarLinkFrame *frame = NULL;
  gboolean turned = FALSE;

  g_return_val_if_fail (engine != NULL, NULL);
  g_mutex_lock (&engine->out_lock);
  while (!engine->flushing) {
    gboolean now_only, driven;

    frame = g_queue_pop_head (&engine->out_frames);
    if (frame || engine->ended)
      break;
    /* Past the deadline: what has come, with one turn of the loop if this
     * thread has it (a popper that polls keeps the loop too). */
    now_only = end_time == 0 || (end_time > 0 &&
        g_get_monotonic_time () >= end_time);
    if (now_only && turned)
      break;
    g_mutex_unlock (&engine->out_lock);
    driven = drive_loop (engine, now_only ? 0 : end_time);
    g_mutex_lock (&engine->out_lock);
    turned = now_only;
    if (driven || now_only)
      continue;
    if (engine->flushing || engine->ended ||
        !g_queue_is_empty (&engine->out_frames))
      continue;
    engine->out_waiters++;
    if (end_time < 0)
      g_cond_wait (&engine->out_cond, &engine->out_lock);
    else
      g_cond_wait_until (&engine->out_cond, &engine->out_lock, end_time);
    engine->out_waiters--;
  }
  g_mutex_unlock (&engine->out_lock);
  return frame;
}

void
donar_link_engine_set_flushing (DonarLinkEngine * engine, gboolean flushing)
{
  g_return_if_fail (engine != NULL);
  g_mutex_lock (&engine->out_lock);
  engine->flushing = flushing;
  g_cond_broadcast (&engine->out_cond);
  g_mutex_unlock (&engine->out_lock);
  if (!flushing)
    return;
  /* A popper in its turn of the loop leaves it; the engine's thread takes
   * the loop at once rather than after the lease (a paused source). */
  event_active (engine->handover_event, 0, 0);
  donar_link_engine_kick (engine);
}

static void
get_stats (DonarLinkEngine * engine, DonarLinkEngineStats * stats)
{
  memset (stats, 0, sizeof *stats);
  g_mutex_lock (&engine->lock);
  donar_session_get_stats (engine->session, &stats->session);
  stats->links_up = engine->links_up;
  stats->connections_opened = engine->connections_opened;
  stats->connections_failed = engine->connections_failed;
  stats->connections_rejected = engine->connections_rejected;
  stats->stalls = engine->stalls;
  stats->hello_timeouts = engine->hello_timeouts;
  stats->silences = engine->silences;
  stats->paths_known = donar_link_engine_count_paths (engine);
  stats->paths_told = engine->paths_told;
  for (guint i = 0; i < DONAR_MAX_LINKS; i++)
    stats->records_dropped += engine->links[i].queue.dropped_records;
  g_mutex_lock (&engine->out_lock);
  stats->frames_dropped = engine->frames_dropped;
  g_mutex_unlock (&engine->out_lock);
  g_mutex_unlock (&engine->lock);
}

void
donar_link_engine_get_stats_versioned (DonarLinkEngine * engine,
    gint stats_version, DonarLinkEngineStats * stats)
{
  DonarLinkEngineStats latest;

  g_return_if_fail (engine != NULL);
  get_stats (engine, &latest);
  donar_versioned_copy (&stats_versions, stats_version, &latest, stats);
}

static gboolean
get_link_stats (DonarLinkEngine * engine, guint index,
    DonarLinkEngineLinkStats * stats)
{
  DonarLink *link;

  memset (stats, 0, sizeof *stats);
  if (index >= engine->settings.config.n_links)
    return FALSE;
  link = &engine->links[index];
  g_mutex_lock (&engine->lock);
  donar_session_get_link_stats (engine->session, index, &stats->session);
  stats->open = link->state == DONAR_LINK_OPEN;
  stats->dials = link->dials;
  stats->records_dropped = link->queue.dropped_records;
  stats->queued_bytes = link->queue.bytes;
  stats->rtt_us = stats->open ? link->rtt_us : -1;
  g_strlcpy (stats->last_error, link->last_error, sizeof stats->last_error);
  g_mutex_unlock (&engine->lock);
  return TRUE;
}

gboolean
donar_link_engine_get_link_stats_versioned (DonarLinkEngine * engine,
    guint link, gint stats_version, DonarLinkEngineLinkStats * stats)
{
  DonarLinkEngineLinkStats latest;

  g_return_val_if_fail (engine != NULL, FALSE);
  return get_link_stats (engine, link, &latest) &&
      donar_versioned_copy (&link_stats_versions, stats_version, &latest,
      stats);
}

const gchar *
donar_link_engine_get_failure (DonarLinkEngine * engine,
    const gchar ** explanation)
{
  DonarLinkFailure failure;

  g_return_val_if_fail (engine != NULL, NULL);
  g_mutex_lock (&engine->lock);
  failure = donar_link_engine_likely_failure (engine, g_get_monotonic_time ());
  g_mutex_unlock (&engine->lock);
  if (explanation)
    *explanation = donar_link_failure_explain (failure,
        donar_link_engine_uses_socks (&engine->settings));
  return donar_link_failure_to_string (failure);
}

gint64
donar_link_engine_get_min_rtt (DonarLinkEngine * engine)
{
  gint64 best;

  g_return_val_if_fail (engine != NULL, -1);
  g_mutex_lock (&engine->lock);
  /* Measured on every frame acknowledged, where the open's one measure
   * (HELLO to first reply) is a single sample; but an end that only
   * listens sends no frame to acknowledge, and would never have one. */
  if (donar_session_peer_acknowledges (engine->session)) {
    best = donar_session_get_least_round_trip (engine->session);
    if (best >= 0) {
      g_mutex_unlock (&engine->lock);
      return best;
    }
  }
  best = -1;
  for (guint i = 0; i < engine->settings.config.n_links; i++) {
    DonarLink *link = &engine->links[i];

    if (link->state == DONAR_LINK_OPEN && link->rtt_us >= 0 &&
        (best < 0 || link->rtt_us < best))
      best = link->rtt_us;
  }
  g_mutex_unlock (&engine->lock);
  return best;
}

void
donar_link_engine_stop (DonarLinkEngine * engine)
{
  g_return_if_fail (engine != NULL);
  if (engine->stopped)
    return;
  /* Under the lock: the loop thread reads it as a link closes (no redial)
   * and as a connection comes (refused). */
  g_mutex_lock (&engine->lock);
  engine->stopped = TRUE;
  g_mutex_unlock (&engine->lock);
  donar_link_engine_set_flushing (engine, TRUE);
  g_mutex_lock (&engine->loop_lock);
  engine->loop_quit = TRUE;
  g_cond_broadcast (&engine->loop_cond);
  g_mutex_unlock (&engine->loop_lock);
  if (engine->thread) {
    event_active (engine->handover_event, 0, 0);
    g_thread_join (engine->thread);
    engine->thread = NULL;
  }
  /* A popper may still be in its turn of the loop (flushing ends it). */
  g_mutex_lock (&engine->loop_lock);
  while (engine->app_in_loop) {
    event_active (engine->handover_event, 0, 0);
    g_cond_wait (&engine->loop_cond, &engine->loop_lock);
  }
  g_mutex_unlock (&engine->loop_lock);
  /* The thread is gone: what it owned is ours to close. */
  g_mutex_lock (&engine->lock);
  for (guint i = 0; i < DONAR_MAX_LINKS; i++)
    donar_link_dispose (&engine->links[i]);
  donar_link_engine_drop_pending (engine);
  g_clear_pointer (&engine->listener, evconnlistener_free);
  engine->links_up = 0;
  g_mutex_unlock (&engine->lock);
  for (guint i = 0; i < engine->events->len; i++)
    g_free (g_array_index (engine->events, DonarQueuedEvent, i).message);
  g_array_set_size (engine->events, 0);
  for (guint i = 0; i < engine->handed_events->len; i++)
    g_free (g_array_index (engine->handed_events, DonarQueuedEvent, i).message);
  g_array_set_size (engine->handed_events, 0);
}

void
donar_link_engine_free (DonarLinkEngine * engine)
{
  if (engine == NULL)
    return;
  if (engine->started)
    donar_link_engine_stop (engine);
  for (guint i = 0; i < DONAR_MAX_LINKS; i++)
    donar_link_dispose (&engine->links[i]);
  g_clear_pointer (&engine->wake_event, event_free);
  g_clear_pointer (&engine->handover_event, event_free);
  g_clear_pointer (&engine->deadline_event, event_free);
  g_clear_pointer (&engine->expiry_event, event_free);
  g_clear_pointer (&engine->tick_event, event_free);
  g_clear_pointer (&engine->base, event_base_free);
  g_clear_pointer (&engine->session, donar_session_free);
  g_queue_clear_full (&engine->out_frames, g_free);
  if (engine->events)
    g_array_unref (engine->events);
  if (engine->handed_events)
    g_array_unref (engine->handed_events);
  g_clear_pointer (&engine->service_circuits, g_array_unref);
  g_clear_pointer (&engine->rand, g_rand_free);
  donar_link_engine_settings_clear (&engine->settings);
  g_mutex_clear (&engine->lock);
  g_mutex_clear (&engine->out_lock);
  g_cond_clear (&engine->out_cond);
  g_mutex_clear (&engine->loop_lock);
  g_cond_clear (&engine->loop_cond);
  g_cond_clear (&engine->end_cond);
  g_free (engine);
}
