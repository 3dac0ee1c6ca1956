/* What the files of the link engine share: the engine and its links.
 * Everything here belongs to the event loop, whichever thread runs it (the
 * engine's, or one waiting in pop_frame), and is touched with engine->lock
 * held, except where a field says otherwise. */
#ifndef DONAR_LINK_ENGINE_PRIVATE_H
#define DONAR_LINK_ENGINE_PRIVATE_H

#include "donar-link-engine.h"
#include "donar-link-engine-paths.h"
#include "donar-link-failure.h"
#include "donar-record-queue.h"
#include "donar-rendezvous-match.h"

#include <donar-wire.h>

#include <donar-socks.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

G_BEGIN_DECLS

typedef enum
{
  DONAR_LINK_IDLE,              /* callee: no connection; caller: stopped */
  DONAR_LINK_WAITING,           /* caller: backoff before the next dial */
  DONAR_LINK_CONNECTING,        /* caller: TCP to the SocksPort or the peer */
  DONAR_LINK_SOCKS,             /* caller: SOCKS5 exchange with Tor */
  DONAR_LINK_OPEN,
} DonarLinkState;

typedef struct
{
  DonarLinkEngine *engine;
  guint index;
  DonarLinkState state;
  struct bufferevent *bev;
  /* bev's socket while open (-1 otherwise): the streaming threads write
   * to it directly, under the lock, while nothing waits before them. */
  evutil_socket_t fd;
  /* Bytes wait for the socket (partial, queue, bev's output): writes go
   * behind them, through the loop, until it has drained them all.
   * Cleared in the loop only, which alone sees the output's length
   * without a race. */
  gboolean backlog;
  /* The rest of a record the socket took only part of: it goes out
   * first, and no drop may touch it, or the stream would lose its
   * framing. */
  GBytes *partial;
  struct event *timer;          /* backoff or dial timeout */
  DonarSocksReader socks;
  DonarRecordQueue queue;
  guint attempt;                /* failed dials since the last good link */
  guint generation;             /* makes each dial's SOCKS username new */
  /* Caller: the SOCKS username of the current dial ("" between dials),
   * and the relays tor last told for its circuit (donar-link-path.c). */
  gchar socks_username[32];
  guint64 path[DONAR_MAX_PATH_RELAYS];
  guint n_path;
  /* Callee: the rendezvous point the caller told for this connection
   * (0: none yet), by which its circuit is found (donar-link-rendezvous.c). */
  guint64 rendezvous;
  gint64 opened_at;
  /* This connection's nonce, which the peer's HELLO must answer. */
  guint8 nonce[DONAR_WIRE_NONCE];
  /* The round trip measured as the link opened (µs), -1 until known:
   * caller, from the SOCKS reply (or the TCP connection) to the callee's
   * HELLO, which answers ours, sent as the callee's CHALLENGE came right
   * behind the reply; callee, from accepting the connection (its
   * CHALLENGE out) to the caller's HELLO, which answers it. */
  gint64 rtt_us;
  gboolean awaiting_peer;       /* caller: our HELLO is out, no reply yet */
  /* In links_up, LINK_UP raised: both HELLOs crossed (count_up). */
  gboolean counted_up;
  gint64 full_since;            /* 0: the queue is not at its cap */
  guint64 dials;
  gchar last_error[96];
  /* Caller: why its last dial failed, and when the current one began. */
  DonarLinkFailure failure;
  gint64 dialed_at;
} DonarLink;

typedef struct
{
  DonarLinkEngine *engine;
  struct bufferevent *bev;
  struct event *timeout;
  gint64 accepted_at;
  guint8 nonce[DONAR_WIRE_NONCE];       /* of its CHALLENGE */
} DonarPendingConnection;

typedef struct
{
  DonarLinkEventType type;
  guint link;
  guint links_up;               /* as the lock was released */
  gchar *message;
} DonarQueuedEvent;

struct _DonarLinkEngine
{
  DonarLinkEngineSettings settings;
  DonarLinkEventFunc on_event;
  gpointer user_data;

  GMutex lock;
  DonarSession *session;
  gsize max_frame;
  struct event_base *base;
  struct event *wake_event;
  /* Breaks the loop, whichever thread runs it. */
  struct event *handover_event;
  /* Ends the turn of the loop of a thread in pop_frame at its deadline. */
  struct event *deadline_event;
  struct event *expiry_event;
  struct event *tick_event;
  struct evconnlistener *listener;
  guint16 listen_port;
  GThread *thread;
  gboolean started;
  gboolean stopped;             /* written under lock, by stop () only */
  guint32 call_nonce;
  GRand *rand;

  DonarLink links[DONAR_MAX_LINKS];
  guint links_up;
  gint64 no_link_since;
  gboolean had_link;
  gboolean peer_unreachable_reported;
  /* Caller: NO_LINK_YET was raised (settings.no_link_warning_us). */
  gboolean no_link_warned;
  gint64 started_at;
  /* The end (donar-link-end.c): how, and until when the links may take
   * to say their last (our BYE out, the peer's frames in).  end_done once
   * they have closed; end_cond tells donar_link_engine_end (). */
  DonarLinkEnd end;
  DonarByeReason end_reason;
  gint64 end_deadline;
  gint end_done;                /* also read atomically, without lock */
  gboolean end_flushed;
  GCond end_cond;
  GList *pending;               /* DonarPendingConnection */
  guint n_pending;

  /* Queued under the lock, by any thread; raised on the engine's thread
   * once it released the lock, so that a handler may read the stats. */
  GArray *events;               /* DonarQueuedEvent */

  guint64 connections_opened;
  guint64 connections_failed;
  guint64 connections_rejected;
  guint64 stalls;
  guint64 hello_timeouts;
  guint64 silences;
  guint64 paths_told;
  /* Callee: its tor's live rendezvous circuits of the call's onion
   * (DonarServiceCircuit), as the call's watcher of tor tells them. */
  GArray *service_circuits;

  /* The expiry the window timer was armed for: a send that leaves it
   * where it was need not touch the timer, which would wake the engine's
   * thread. */
  gint64 armed_expiry;
  /* Set while a streaming thread writes, under the lock: what the
   * sockets do not take then is left to the loop (wake_event). */
  gboolean app_writing;
  /* As the session last said (DONAR_LINK_EVENT_NO_LINK_IN_TIME). */
  gboolean no_link_in_time;

  /* Who runs the loop: loop_lock (taken last).  A thread waiting in
   * pop_frame runs it itself (app_in_loop), so that a frame that comes
   * wakes that thread alone, not the engine's and then it.  Between its
   * turns it keeps the loop (app_wants_loop) while it comes back within
   * LOOP_LEASE_US (app_pops moves) and nothing else needs the loop
   * (kicked); then the engine's thread takes the loop back. */
  GMutex loop_lock;
  GCond loop_cond;
  gboolean loop_started;
  gboolean loop_quit;
  gboolean engine_in_loop;
  gboolean app_wants_loop;
  gboolean app_in_loop;
  gboolean kicked;
  guint64 app_pops;
  GThread *loop_thread;         /* the engine's own */
  /* Events raised on a popper's turn of the loop, which the engine's
   * thread passes to on_event: the elements' handlers (bus messages,
   * their locks) keep to the thread they always ran on, and never run on
   * a streaming thread. */
  GArray *handed_events;        /* DonarQueuedEvent */

  /* Frames to the application: out_lock (taken after lock, never
   * before). */
  GMutex out_lock;
  GCond out_cond;
  GQueue out_frames;            /* DonarLinkFrame */
  gboolean flushing;
  gboolean ended;               /* end_done, for pop_frame */
  guint out_waiters;            /* threads in g_cond_wait (out_cond) */
  guint64 frames_dropped;
};

/* donar-link-engine.c */
void donar_link_engine_raise (DonarLinkEngine * engine,
    DonarLinkEventType type, guint link, const gchar * format, ...)
    G_GNUC_PRINTF (4, 5);
void donar_link_engine_lock (DonarLinkEngine * engine);
void donar_link_engine_unlock (DonarLinkEngine * engine);
/* Work was posted to the loop (event_base_once) from another thread: the
 * engine's thread takes the loop if no thread in pop_frame runs it. */
void donar_link_engine_kick (DonarLinkEngine * engine);

/* donar-link.c: one link's connection, both roles */
void donar_link_init (DonarLink * link, DonarLinkEngine * engine,
    guint index);
void donar_link_open (DonarLink * link, gint64 now);
void donar_link_close (DonarLink * link, gint64 now, const gchar * format,
    ...) G_GNUC_PRINTF (3, 4);
/* A link not open stops dialing (the call ended): no event, no count. */
void donar_link_abandon (DonarLink * link);
void donar_link_write (DonarLink * link, const guint8 * record,
    gsize length, gint64 now);
/* In the loop: what waits for the link's socket goes to its
 * bufferevent. */
void donar_link_flush (DonarLink * link);
void donar_link_take_connection (DonarLink * link, struct bufferevent *bev,
    gint64 now, gint64 rtt_us, const guint8 * nonce);
/* A fresh nonce (DONAR_WIRE_NONCE bytes) from the kernel's CSPRNG. */
void donar_link_draw_nonce (guint8 * nonce);
void donar_link_check_stall (DonarLink * link, gint64 now);
void donar_link_check_hello (DonarLink * link, gint64 now);
void donar_link_check_silence (DonarLink * link, gint64 now);
void donar_link_dispose (DonarLink * link);
void donar_link_setcb (DonarLink * link);

/* donar-link-dial.c: the caller's side */
void donar_link_dial (DonarLink * link);
/* The most telling of the links' failures, those of dials still under
 * way included (a SocksPort that keeps silent fails no dial for
 * connect_timeout_us). */
DonarLinkFailure donar_link_engine_likely_failure (DonarLinkEngine * engine,
    gint64 now);
/* Whether a caller dials through Tor's SocksPort, a port or a Unix
 * socket, rather than straight to the callee. */
gboolean donar_link_engine_uses_socks (const DonarLinkEngineSettings * s);
/* not_listening: the TCP connection to 127.0.0.1 failed, so nothing
 * listened there (tor restarting, or the direct callee gone). */
void donar_link_schedule_dial (DonarLink * link, gint64 now,
    gboolean not_listening);
gboolean donar_link_socks_read (DonarLink * link, const guint8 ** data,
    gsize * length, gint64 now);

/* donar-link-path.c: the relays of a caller's links */
/* A new dial (socks_username) or none (""): what tor told of the last
 * circuit is of no use any more. */
void donar_link_path_reset (DonarLink * link, const gchar * socks_username);
/* The link is open in the session: the path tor told, if any, goes to it. */
void donar_link_path_apply (DonarLink * link);
/* donar-link-rendezvous.c: a callee's paths.  Inside the session (the
 * lock held): the caller told the link's rendezvous point. */
void donar_link_engine_peer_rendezvous (gpointer user_data, guint link,
    guint64 relay);
/* Open links whose path the session knows. */
guint donar_link_engine_count_paths (DonarLinkEngine * engine);

/* donar-link-end.c: how a call ends */
void donar_link_engine_peer_ended (gpointer user_data, guint link,
    DonarByeReason reason);
void donar_link_engine_lose_peer (DonarLinkEngine * engine, gint64 now);
/* After anything that may let an ending call finish: a link closed or
 * drained, the tick. */
void donar_link_engine_check_end (DonarLinkEngine * engine, gint64 now);

/* donar-link-accept.c: the callee's side */
gboolean donar_link_engine_listen (DonarLinkEngine * engine, GError ** error);
void donar_link_engine_drop_pending (DonarLinkEngine * engine);

void donar_link_tune_socket (struct bufferevent *bev);

G_END_DECLS

#endif /* DONAR_LINK_ENGINE_PRIVATE_H */
