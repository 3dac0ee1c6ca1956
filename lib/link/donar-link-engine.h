/* The link engine: the protocol core of lib/core over real TCP links.
 *
 * One event-loop thread (libevent) owns the links and the DonarSession.
 * A caller dials its links through Tor's SocksPort, one SOCKS username per
 * link so that Tor gives each its own circuit (IsolateSOCKSAuth), naming
 * the .onion host to Tor, never resolving it; a link that breaks is dialed
 * again with backoff.  A callee listens on 127.0.0.1, where its onion
 * service forwards, and takes a connection as link i once its HELLO proves
 * it belongs to the call; strangers are closed and counted.
 *
 * The API is for streaming threads: send_frame writes the frame's records
 * to their links' sockets itself and never blocks (what a socket does not
 * take waits in its link's queue for the loop), pop_frame waits
 * at most until a deadline, running the engine's loop itself meanwhile
 * (reads, timers), events come through a callback on the engine's
 * thread.  Every function here may be called from any
 * thread (the engine's locks, docs/link-engine.md), but free, which no
 * other call may overlap.  A NULL engine, a NULL out-pointer or an
 * unknown role is a g_critical, and the call does nothing (docs/api.md,
 * "Contracts"). */
#ifndef DONAR_LINK_ENGINE_H
#define DONAR_LINK_ENGINE_H

#include "donar-api.h"
#include "donar.h"

G_BEGIN_DECLS

#define DONAR_LINK_ENGINE_ERROR (donar_link_engine_error_quark ())
DONAR_API
GQuark donar_link_engine_error_quark (void);

typedef enum
{
  DONAR_LINK_ENGINE_ERROR_SETTINGS,
  DONAR_LINK_ENGINE_ERROR_LISTEN,
  DONAR_LINK_ENGINE_ERROR_STATE,
  DONAR_LINK_ENGINE_ERROR_FRAME_TOO_LARGE,
  DONAR_LINK_ENGINE_ERROR_STOPPED,
} DonarLinkEngineError;

typedef struct
{
  DonarRole role;
  /* The protocol settings.  seed 0 draws a random one: the seed also makes
   * the session's epoch, which must change when an endpoint restarts. */
  DonarConfig config;
  guint8 secret[64];
  gsize secret_length;

  /* Caller: where the callee is, and Tor's SocksPort on 127.0.0.1
   * (socks_port 0: dial the callee directly, for tests and the no-Tor
   * ceiling). */
  gchar *peer_host;
  guint16 peer_port;
  gchar *socks_host;
  guint16 socks_port;
  /* Caller: or Tor's SocksPort on a Unix socket (SocksPort unix:/path),
   * in place of socks_port; NULL: none. */
  gchar *socks_path;

  /* Callee: the loopback port the onion service forwards to (0: any). */
  guint16 listen_port;

  /* Bytes of records one link may hold while its socket does not take
   * them; beyond, its oldest records are dropped. */
  gsize link_queue_bytes;
  /* A link whose queue stays full this long is closed and dialed again. */
  gint64 stall_timeout_us;
  /* A dial (TCP, SOCKS, Tor's circuit and rendezvous) that takes longer
   * fails. */
  gint64 connect_timeout_us;
  /* A callee's incoming connection must prove itself within this, and a
   * caller's open link must hear the callee's HELLO within it. */
  gint64 hello_timeout_us;
  /* A link the peer keeps writing to while nothing comes out of it (its
   * circuit hangs) is closed, and dialed again by the caller, once it has
   * been silent this long (donar_session_get_link_silence: by the frames
   * delivered on other links since, and by the clock). */
  gint64 silence_timeout_us;
  gint64 backoff_min_us;
  gint64 backoff_max_us;
  /* With no link open for this long, the peer is gone: the call ends
   * (DONAR_LINK_EVENT_PEER_UNREACHABLE, DONAR_LINK_END_PEER_LOST).  A
   * caller counts from the start; a callee from its last link's close, so
   * that it waits for its caller as long as it likes. */
  gint64 peer_timeout_us;
  /* Caller: with no link up this long after the start, the engine says
   * why it thinks none came (DONAR_LINK_EVENT_NO_LINK_YET), once, rather
   * than nothing until peer_timeout_us; 0: never. */
  gint64 no_link_warning_us;
  /* Frames received and not yet taken by pop_frame; beyond, the oldest are
   * dropped. */
  guint receive_queue_frames;
  /* Callee: incoming connections not yet identified, at most. */
  guint max_pending_connections;
} DonarLinkEngineSettings;

/* settings_init ()'s peer_timeout_us, the elements' peer-timeout. */
#define DONAR_LINK_ENGINE_DEFAULT_PEER_TIMEOUT_US (60 * G_TIME_SPAN_SECOND)

/* The versions of the engine's structs a program allocates (donar.h,
 * DONAR_CONFIG_VERSION).  Each holds one of donar.h's by value, so it
 * takes a new version whenever that one grows. */
#define DONAR_LINK_ENGINE_SETTINGS_VERSION 1
#define DONAR_LINK_ENGINE_STATS_VERSION 1
#define DONAR_LINK_ENGINE_LINK_STATS_VERSION 1

/* Fills in the defaults of a role (docs/link-engine.md). */
DONAR_API
void donar_link_engine_settings_init_versioned (gint settings_version,
    DonarLinkEngineSettings * settings, DonarRole role);
#define donar_link_engine_settings_init(settings, role) \
  donar_link_engine_settings_init_versioned \
      (DONAR_LINK_ENGINE_SETTINGS_VERSION, (settings), (role))
DONAR_API
void donar_link_engine_settings_clear_versioned (gint settings_version,
    DonarLinkEngineSettings * settings);
#define donar_link_engine_settings_clear(settings) \
  donar_link_engine_settings_clear_versioned \
      (DONAR_LINK_ENGINE_SETTINGS_VERSION, (settings))

typedef enum
{
  DONAR_LINK_EVENT_LISTENING,   /* callee: the port is bound */
  DONAR_LINK_EVENT_LINK_UP,     /* a link's connection is open */
  DONAR_LINK_EVENT_LINK_DOWN,   /* it closed; message says why */
  DONAR_LINK_EVENT_ALL_LINKS_UP,        /* every link open (each time) */
  DONAR_LINK_EVENT_NO_LINK_LEFT,        /* the last open link closed */
  DONAR_LINK_EVENT_REJECTED,    /* callee: a stranger, closed */
  DONAR_LINK_EVENT_PEER_UNREACHABLE,    /* no link for peer_timeout_us */
  DONAR_LINK_EVENT_PEER_ENDED,  /* its BYE came, and its links closed */
  /* ADAPTIVE: no link is known to deliver our frames in time (every link
   * stalled); one frame a round trip goes out as a probe. */
  DONAR_LINK_EVENT_NO_LINK_IN_TIME,
  DONAR_LINK_EVENT_IN_TIME_AGAIN,       /* a link delivers in time again */
  /* Caller: no link up no_link_warning_us after the start; the message
   * names the likely cause (donar_link_engine_get_failure ()). */
  DONAR_LINK_EVENT_NO_LINK_YET,
  /* Callee: the caller's first link is authenticated, the call came in. */
  DONAR_LINK_EVENT_INCOMING_CALL,
  /* The peer restarted (a new session, as with a callee's key file): its
   * frames, sequence numbers and RTP start over. */
  DONAR_LINK_EVENT_PEER_RESTARTED,
} DonarLinkEventType;

DONAR_API
const gchar *donar_link_event_type_to_string (DonarLinkEventType type);

typedef struct
{
  DonarLinkEventType type;
  guint link;                   /* G_MAXUINT when no link is concerned */
  guint links_up;               /* after the event */
  const gchar *message;         /* for a person to read */
} DonarLinkEvent;

/* Called on the engine's thread (never on one in pop_frame, though it
 * runs the loop), after the engine's lock is released: it may call the
 * engine's functions that do not wait (send_frame, the stats, get_end),
 * and must not block nor call pop_frame, end, stop or free, which wait
 * for the loop of the thread it runs on. */
typedef void (*DonarLinkEventFunc) (const DonarLinkEvent * event,
    gpointer user_data);

typedef struct
{
  guint32 seq;
  guint link;
  gboolean piggybacked;
  gint64 arrival_us;            /* g_get_monotonic_time () at arrival */
  gsize length;
  guint8 data[];
} DonarLinkFrame;

typedef struct
{
  DonarSessionStats session;
  guint links_up;
  guint64 connections_opened;
  guint64 connections_failed;
  guint64 connections_rejected; /* callee: strangers */
  guint64 records_dropped;      /* stalled links */
  guint64 frames_dropped;       /* not popped in time */
  guint64 stalls;               /* links reopened for stalling */
  guint64 hello_timeouts;       /* caller: links reopened, no HELLO back */
  guint64 silences;             /* links closed: the peer wrote, none came */
  guint paths_known;            /* open links whose relays tor told */
  guint64 paths_told;           /* paths given to the session, in all */
} DonarLinkEngineStats;

typedef struct
{
  DonarLinkStats session;
  gboolean open;
  guint64 dials;
  guint64 records_dropped;
  gsize queued_bytes;
  gint64 rtt_us;                /* measured as it opened; -1: unknown */
  gchar last_error[96];
} DonarLinkEngineLinkStats;

typedef struct _DonarLinkEngine DonarLinkEngine;

/* NULL and *error for settings it cannot run with (an unknown version:
 * DONAR_LINK_ENGINE_ERROR_SETTINGS, as an invalid config or secret is);
 * on_event may be NULL. */
DONAR_API
DonarLinkEngine *donar_link_engine_new_versioned (gint settings_version,
    const DonarLinkEngineSettings * settings, DonarLinkEventFunc on_event,
    gpointer user_data, GError ** error);
#define donar_link_engine_new(settings, on_event, user_data, error) \
  donar_link_engine_new_versioned (DONAR_LINK_ENGINE_SETTINGS_VERSION, \
      (settings), (on_event), (user_data), (error))
/* Binds (callee) or starts dialing (caller) and starts the thread.
 * FALSE: DONAR_LINK_ENGINE_ERROR_STATE if started already, _LISTEN if the
 * port cannot be bound. */
DONAR_API
gboolean donar_link_engine_start (DonarLinkEngine * engine, GError ** error);
/* Callee: the bound port, once started; 0 before. */
DONAR_API
guint16 donar_link_engine_get_listen_port (DonarLinkEngine * engine);

/* Sends the frame (an RTP packet) from the calling thread, without
 * blocking: a socket that does not take its record at once leaves it, and
 * the records after it, to the loop (bounded queues, stalls).  FALSE:
 * DONAR_LINK_ENGINE_ERROR_FRAME_TOO_LARGE for 0 or more than
 * get_max_frame () bytes, _STOPPED before start or after stop.  No link
 * up is no error (the session counts it, frames_unsent). */
DONAR_API
gboolean donar_link_engine_send_frame (DonarLinkEngine * engine,
    const guint8 * frame, gsize length, GError ** error);
DONAR_API
gsize donar_link_engine_get_max_frame (DonarLinkEngine * engine);

/* The next frame received, waiting until end_time (monotonic µs; -1:
 * without limit, 0: not at all).  NULL on timeout, or at once while
 * flushing.  Free with g_free ().
 *
 * While it waits, the calling thread runs the engine's loop (one thread
 * at a time; another waits for it): the bytes of a frame wake it alone.
 * It keeps the loop between calls made within half a second, so a thread
 * that calls it in a loop (a source's streaming thread) reads the links
 * and runs the timers; flushing, donar_link_engine_end () or half a second
 * without a call gives the loop back to the engine's thread. */
DONAR_API
DonarLinkFrame *donar_link_engine_pop_frame (DonarLinkEngine * engine,
    gint64 end_time);
/* While flushing, pop_frame returns NULL at once (GstBaseSrc::unlock). */
DONAR_API
void donar_link_engine_set_flushing (DonarLinkEngine * engine,
    gboolean flushing);

DONAR_API
void donar_link_engine_get_stats_versioned (DonarLinkEngine * engine,
    gint stats_version, DonarLinkEngineStats * stats);
#define donar_link_engine_get_stats(engine, stats) \
  donar_link_engine_get_stats_versioned ((engine), \
      DONAR_LINK_ENGINE_STATS_VERSION, (stats))
/* FALSE for a link the call does not have, or an unknown version. */
DONAR_API
gboolean donar_link_engine_get_link_stats_versioned (DonarLinkEngine *
    engine, guint link, gint stats_version,
    DonarLinkEngineLinkStats * stats);
#define donar_link_engine_get_link_stats(engine, link, stats) \
  donar_link_engine_get_link_stats_versioned ((engine), (link), \
      DONAR_LINK_ENGINE_LINK_STATS_VERSION, (stats))
/* Caller: the short name of the most likely reason why no link is up
 * (donar-link-failure.h: "descriptor-not-found", "wrong-secret", ...),
 * "none" when no dial has failed, and its explanation for a person in
 * *explanation if not NULL (static strings). */
DONAR_API
const gchar *donar_link_engine_get_failure (DonarLinkEngine * engine,
    const gchar ** explanation);

/* The least round-trip time, in µs.  From a peer that acknowledges our
 * frames (donar_session_peer_acknowledges): that of the frames it
 * acknowledged in the last 30 to 60 s, once it has.  Before, from another
 * peer, or on an end that only listens (no frame to acknowledge): that of
 * the open links, each measured as it opened (HELLO to the first reply);
 * -1 until one has.  Half of it stands for the one-way delay
 * of the fastest path (donarsrc gives it to donarjitterbuffer). */
DONAR_API
gint64 donar_link_engine_get_min_rtt (DonarLinkEngine * engine);

/* How the call ended, if it has: no frame goes either way after it, no
 * link is dialed or accepted, and pop_frame returns NULL at once once the
 * frames received are taken. */
typedef enum
{
  DONAR_LINK_END_NONE,
  DONAR_LINK_END_HERE,          /* donar_link_engine_end () */
  DONAR_LINK_END_BY_PEER,       /* the peer's BYE */
  DONAR_LINK_END_PEER_LOST,     /* no link for peer_timeout_us */
} DonarLinkEnd;

/* The peer's BYE reason as the elements and donar-call name it:
 * "peer-hung-up", "peer-failed", "peer-rejected", "peer-ended" (no reason
 * it knows).  Static strings, as donar_link_event_type_to_string ()'s
 * ("unknown" for a type it does not know). */
DONAR_API
const gchar *donar_link_end_peer_reason (DonarByeReason reason);

/* Ends the call: a BYE with the reason on every open link, then the links
 * close once it has left, or after timeout_us.  Waits for that.  TRUE when
 * every open link took the BYE (or none was open); FALSE when the call had
 * already ended, or the engine does not run.  Not from the event callback
 * (it waits for the loop). */
DONAR_API
gboolean donar_link_engine_end (DonarLinkEngine * engine,
    DonarByeReason reason, gint64 timeout_us);
/* reason: the BYE's (DONAR_LINK_END_HERE, DONAR_LINK_END_BY_PEER).  The
 * end is told once the frames that were on their way came or the links
 * closed: whoever waits on pop_frame has them all first.  Before the end
 * it takes no lock: a streaming thread may ask for every buffer. */
DONAR_API
DonarLinkEnd donar_link_engine_get_end (DonarLinkEngine * engine,
    DonarByeReason * reason);

/* Closes every link and joins the thread, without a BYE: the peer sees the
 * links drop, as it would if this end crashed.  Idempotent; not from the
 * event callback (it joins the thread that runs it). */
DONAR_API
void donar_link_engine_stop (DonarLinkEngine * engine);
/* Stops the engine if it runs; NULL is fine.  No other call of the
 * engine may overlap it, nor follow it. */
DONAR_API
void donar_link_engine_free (DonarLinkEngine * engine);

G_END_DECLS

#endif /* DONAR_LINK_ENGINE_H */
