/* libdonar: the DONAR protocol core.
 *
 * Sans-I/O: nothing here opens a socket, starts a thread or reads a clock.
 * Every entry point takes `now`, a monotonic time in microseconds, and what
 * must go on the wire comes out through the send callback, tagged with the
 * link to write it on.  The same code runs in the GStreamer elements, in
 * donar-sim (virtual time) and over donar-torsim.
 */
#ifndef DONAR_H
#define DONAR_H

#include "donar-api.h"

#include <glib.h>

G_BEGIN_DECLS

/* The Tor relay cell payload: one record (length prefix + message) always
 * fits in one cell, so a message never costs more than one cell. */
#define DONAR_CELL_PAYLOAD 498
#define DONAR_MAX_LINKS 32
#define DONAR_MAX_REDUNDANCY 8
/* Relays of a link's circuit that one side may name (Default: 3 its own). */
#define DONAR_MAX_PATH_RELAYS 8
/* The bytes of a link's nonce (donar_session_link_up ()): here rather than
 * with the rest of the wire format (donar-wire.h), which an application
 * of the session never needs. */
#define DONAR_WIRE_NONCE 16

typedef enum
{
  DONAR_OK = 0,
  DONAR_ERROR_INVALID_ARGUMENT,
  DONAR_ERROR_TRUNCATED,
  DONAR_ERROR_OVERSIZE,
  DONAR_ERROR_UNKNOWN_VERSION,
  DONAR_ERROR_UNKNOWN_TYPE,
  DONAR_ERROR_BAD_LENGTH,
  DONAR_ERROR_MALFORMED,
  DONAR_ERROR_EMPTY_FRAME,
  DONAR_ERROR_BAD_AUTHENTICATOR,
  DONAR_ERROR_NOT_AUTHENTICATED,
  DONAR_ERROR_BAD_LINK,
  DONAR_ERROR_FRAME_TOO_LARGE,
  DONAR_ERROR_NO_LINK,
  DONAR_ERROR_STALE,
  DONAR_ERROR_STREAM_BROKEN,
  DONAR_ERROR_CALL_ENDED,
  DONAR_ERROR_REPLAY,
  DONAR_ERROR_UNEXPECTED,
} DonarError;

/* The *_to_string functions: static strings, any thread; a value they do
 * not know is "unknown" (a reason: "no reason given"). */
DONAR_API
const char *donar_error_to_string (DonarError error);

typedef enum
{
  DONAR_POLICY_SIMPLE,
  DONAR_POLICY_TORFONE,
  DONAR_POLICY_ALTERNATE,
  DONAR_POLICY_DOUBLE_SEND,
  DONAR_POLICY_ADAPTIVE,
} DonarPolicy;

DONAR_API
const char *donar_policy_to_string (DonarPolicy policy);
/* FALSE for a name (or NULL) that is none, *policy left as it was. */
DONAR_API
gboolean donar_policy_from_string (const char *name, DonarPolicy * policy);

/* How the local and the peer's aggregate of a link make its score
 * (seed 000, section 4.1). */
typedef enum
{
  DONAR_MERGE_MEAN,
  DONAR_MERGE_LOCAL,
  DONAR_MERGE_REMOTE,
} DonarScoreMerge;

typedef enum
{
  DONAR_GROUP_1ST,
  DONAR_GROUP_2ND,
  DONAR_GROUP_INACTIVE,
} DonarGroup;

DONAR_API
const char *donar_group_to_string (DonarGroup group);

/* The caller opens the links, the callee answers.  Each direction has its
 * own key, so a message cannot be reflected back to its sender. */
typedef enum
{
  DONAR_ROLE_CALLER,
  DONAR_ROLE_CALLEE,
} DonarRole;

/* The product's defaults, which donar_config_init () sets: the elements'
 * properties, donar-call and the tools start from these rather than from
 * copies, so that they cannot drift apart.  The paper's (seed 000) but for
 * the policy: ADAPTIVE, not its ALTERNATE, which an evaluation of the
 * paper must ask for. */
#define DONAR_DEFAULT_LINKS 12
#define DONAR_DEFAULT_N_1ST 3
#define DONAR_DEFAULT_N_2ND 3
#define DONAR_DEFAULT_WINDOW_US (2 * G_USEC_PER_SEC)
#define DONAR_DEFAULT_POLICY DONAR_POLICY_ADAPTIVE
#define DONAR_DEFAULT_REDUNDANCY 1
#define DONAR_DEFAULT_FRAME_PERIOD_US (40 * 1000)
#define DONAR_DEFAULT_ALARM_FRAMES 8
#define DONAR_DEFAULT_BUDGET 2.0
#define DONAR_DEFAULT_DEADLINE_US (360 * 1000)
#define DONAR_DEFAULT_SPREAD_COPIES TRUE

typedef struct
{
  guint n_links;                /* nLINKS, 12 */
  guint n_1st;                  /* n1ST, 3 */
  guint n_2nd;                  /* n2ND, 3 */
  gint64 window_us;             /* w, 2 s */
  DonarPolicy policy;           /* ADAPTIVE (the paper's: ALTERNATE) */
  guint redundancy;             /* previous frames piggybacked, 1 */
  gint64 frame_period_us;       /* Tframe, 40 ms */
  gint64 max_piggyback_age_us;  /* older frames are not piggybacked */
  guint recent_frames;          /* frames listed in the recent-links list */
  gsize max_record;             /* bytes of one record on the wire, 498 */
  DonarScoreMerge merge;        /* mean of local and remote */
  /* A link one of whose frames is still missing when this many later frames
   * have come is taken out of L1ST / L2ND at once, on both sides, rather
   * than at the end of the window; 0 leaves it to the window, as the paper
   * does.  8 (320 ms of 40 ms frames). */
  guint alarm_frames;
  guint32 seed;                 /* the random groups at start, the epoch */
  /* ADAPTIVE: messages a frame on average, 1.0 (ALTERNATE's cells/s) to
   * 2.0 (DOUBLE-SEND's). */
  gdouble budget;
  /* One-way deadline of a frame, 360 ms (seed 000, Table 1: 400 ms mouth
   * to ear less a frame).  A frame later than this is worth nothing, so
   * ADAPTIVE keeps no more in flight on a link than can still make it. */
  gint64 deadline_us;
  /* ADAPTIVE: a frame's second copy avoids the previous frame's links as
   * well as its first copy's, so that a frame and its piggybacked copy
   * have four links where the links up allow, as DOUBLE-SEND's schedule
   * gives them, rather than the best second link.  TRUE by default: over
   * real tor, links share fate through relays no end can see, and four
   * links beat the best second link (docs/findings/tornet-evaluation.md,
   * *A variant in pairs*). */
  gboolean spread_copies;
} DonarConfig;

/* The versions of the structs a program allocates, as this header lays
 * them out (docs/api.md, "Versioned structs"): the functions that take
 * one are macros over their _versioned forms, which tell the library how
 * much of the struct the program has.  A struct that grows takes the next
 * version; the library still takes the older ones. */
#define DONAR_CONFIG_VERSION 1
#define DONAR_CALLBACKS_VERSION 1
#define DONAR_SESSION_STATS_VERSION 1
#define DONAR_LINK_STATS_VERSION 1

/* The config functions: any thread; validate says
 * DONAR_ERROR_INVALID_ARGUMENT for a setting out of range,
 * record_overhead 0 for a NULL config or an unknown version. */
DONAR_API
void donar_config_init_versioned (gint config_version, DonarConfig * config);
#define donar_config_init(config) \
  donar_config_init_versioned (DONAR_CONFIG_VERSION, (config))
DONAR_API
DonarError donar_config_validate_versioned (gint config_version,
    const DonarConfig * config);
#define donar_config_validate(config) \
  donar_config_validate_versioned (DONAR_CONFIG_VERSION, (config))
/* Bytes a record carrying n_frames frames adds to them, at most, with
 * these settings (docs/protocol.md). */
DONAR_API
gsize donar_config_record_overhead_versioned (gint config_version,
    const DonarConfig * config, guint n_frames);
#define donar_config_record_overhead(config, n_frames) \
  donar_config_record_overhead_versioned (DONAR_CONFIG_VERSION, (config), \
      (n_frames))

/* Why a call ended, as BYE tells the peer (docs/protocol.md).  A value
 * this version does not know reads as DONAR_BYE_UNKNOWN. */
typedef enum
{
  DONAR_BYE_UNKNOWN = 0,
  /* The user ended it: EOS, or the element stopped. */
  DONAR_BYE_HUNG_UP = 1,
  /* The application failed (an error in its pipeline). */
  DONAR_BYE_FAILED = 2,
  /* The callee did not take the call (its user rejected it). */
  DONAR_BYE_REJECTED = 3,
} DonarByeReason;

DONAR_API
const char *donar_bye_reason_to_string (DonarByeReason reason);

/* What the session asks of the application.  Each callback runs at once,
 * on the thread of the session function that caused it (send_frame,
 * receive, link_up, handle_expiry, end), in the middle of it.  So a
 * callback must not call a function of the same session: the session is
 * between two states there.  What it would do (close a link whose write
 * failed, send a frame in answer) it queues and does once that function
 * has returned, as the link engine does with its events.  The session has
 * no lock: its functions are called from one thread at a time. */
typedef struct
{
  /* One record (length prefix + message) to write whole on `link`. */
  void (*send) (gpointer user_data, guint link, const guint8 * record,
      gsize length);
  /* The first copy of a frame; `piggybacked` says it came as a redundant
   * copy in the message of a later frame. */
  void (*deliver) (gpointer user_data, guint32 seq, const guint8 * frame,
      gsize length, guint link, gboolean piggybacked);
  /* Or NULL: the peer ended the call (its BYE came on `link`).  Once. */
  void (*peer_ended) (gpointer user_data, guint link, DonarByeReason reason);
  /* Or NULL: a session of the peer began, its HELLO checked on `link`:
   * its first (`restarted` FALSE), or a new one after another (TRUE: the
   * peer restarted, so its frames and clock start over).  Once a session. */
  void (*peer_session) (gpointer user_data, guint link, gboolean restarted);
  /* Or NULL; callee: the caller told the rendezvous point of the link's
   * circuit (the id of a path's relay), where the callee's circuit of the
   * link ends too: by it the callee can tell which of its tor's circuits
   * the link is (docs/protocol.md, RENDEZVOUS). */
  void (*peer_rendezvous) (gpointer user_data, guint link, guint64 relay);
} DonarCallbacks;

typedef struct
{
  gboolean up;
  gboolean authenticated;       /* the peer's HELLO on it checked */
  DonarGroup group;
  gint32 local_score;           /* centi-frames out of order, -1 unknown */
  gint32 remote_score;
  gint32 score;
  gint64 last_used_us;          /* G_MININT64: never sent on */
  guint64 messages_sent;
  guint64 messages_received;
  guint64 bytes_sent;
  guint64 bytes_received;
  guint64 frames_delivered;     /* first copies that came on this link */
  guint64 failures;
  guint64 rejected;
  /* Frames delivered (on other links) since the first frame the peer sent
   * on this link after its last arrival: 0 while the link keeps up; at
   * Tframe each, how long the peer has written to it with nothing out. */
  guint silent_frames;
} DonarLinkStats;

typedef struct
{
  guint64 frames_sent;
  guint64 frames_unsent;        /* no link was up */
  guint64 frames_delivered;
  guint64 frames_piggyback_delivered;
  guint64 duplicates;
  guint64 messages_sent;
  guint64 messages_received;
  guint64 messages_rejected;
  guint64 bytes_sent;
  guint64 windows;
  guint64 alarms;               /* links taken out before the window's end */
  /* ADAPTIVE's bound on what is in flight (docs/protocol.md): whether no
   * link is known to deliver in time now; how often the call entered that
   * state; the frames handed over while none was; and those of them that
   * were withheld (one a round trip goes out, as a probe). */
  gboolean no_link_in_time;
  guint64 stalls;
  guint64 stalled_frames;
  guint64 frames_withheld;
  /* ADAPTIVE: messages that carried only acknowledgements (the latest
   * frame again) while the application had no frame to send. */
  guint64 keepalives;
} DonarSessionStats;

typedef struct _DonarSession DonarSession;

/* NULL and *error (or NULL) set for what cannot make a session: an
 * invalid config, no secret, no send or deliver callback, an unknown role
 * or version (DONAR_ERROR_INVALID_ARGUMENT).  The session's functions are
 * called from one thread at a time and never from its callbacks
 * (DonarCallbacks); a NULL session is a g_critical, and the function does
 * nothing (docs/api.md, "Contracts"). */
DONAR_API
DonarSession *donar_session_new_versioned (gint config_version,
    const DonarConfig * config, DonarRole role, const guint8 * secret,
    gsize secret_length, gint callbacks_version,
    const DonarCallbacks * callbacks, gpointer user_data, gint64 now,
    DonarError * error);
#define donar_session_new(config, role, secret, secret_length, callbacks, \
    user_data, now, error) \
  donar_session_new_versioned (DONAR_CONFIG_VERSION, (config), (role), \
      (secret), (secret_length), DONAR_CALLBACKS_VERSION, (callbacks), \
      (user_data), (now), (error))
DONAR_API
void donar_session_free (DonarSession * session);

/* Frames (RTP packets) from the application.  Every frame takes a sequence
 * number, even when no link is up (DONAR_ERROR_NO_LINK): it may still travel
 * as a redundant copy once a link comes back.  Refused, without a number:
 * an empty frame, one above get_max_frame (), one after the end. */
DONAR_API
DonarError donar_session_send_frame (DonarSession * session,
    const guint8 * frame, gsize length, gint64 now);
DONAR_API
gsize donar_session_get_max_frame (const DonarSession * session);

/* Bytes read from the TCP stream of `link`, in any split.  The stream must
 * open as docs/protocol.md says (the callee's CHALLENGE, the HELLOs).  On
 * an error the link must be closed (donar_session_link_down): a stream that
 * lied once cannot be trusted to be in step, and one that did not prove it
 * belongs to the call is not ours.  A link not open is
 * DONAR_ERROR_INVALID_ARGUMENT; one not below n_links a g_critical too. */
DONAR_API
DonarError donar_session_receive (DonarSession * session, guint link,
    const guint8 * data, gsize length, gint64 now);

/* A link's connection is open.  `nonce` (DONAR_WIRE_NONCE bytes) must be
 * fresh and unpredictable (a CSPRNG's): the peer's HELLO must answer it,
 * so that no HELLO of another connection can be played again.  A caller
 * answers the callee's CHALLENGE with its HELLO; a callee sends its
 * CHALLENGE (with the nonce) at once, through the send callback.  A link
 * already open is left as it is.  Misuse (a link not below the config's
 * n_links, a NULL nonce) is a g_critical and changes nothing. */
DONAR_API
void donar_session_link_up (DonarSession * session, guint link,
    const guint8 * nonce, gint64 now);
/* Callee: the connection whose CHALLENGE (with `nonce`) went out before its
 * link was known (donar_session_identify_link) is this link: as link_up,
 * without a CHALLENGE; the same misuse checked. */
DONAR_API
void donar_session_link_accepted (DonarSession * session, guint link,
    const guint8 * nonce, gint64 now);
/* The link's connection closed: what the session knew of it is forgotten
 * (its framer, nonce, delays and path).  A link not open is left as it
 * is; a link not below n_links is a g_critical. */
DONAR_API
void donar_session_link_down (DonarSession * session, guint link,
    gint64 now);

/* Ends the call: a BYE with the reason on every link our HELLO went out on
 * (through the send callback), after which the links may close.  Later
 * frames are refused (DONAR_ERROR_CALL_ENDED).  A second call does
 * nothing. */
DONAR_API
void donar_session_end (DonarSession * session, DonarByeReason reason,
    gint64 now);
/* Whether either side ended the call, and (peer: TRUE) who; by_peer and
 * reason may be NULL. */
DONAR_API
gboolean donar_session_has_ended (const DonarSession * session,
    gboolean * by_peer, DonarByeReason * reason);

/* For a callee, whose incoming connections are not numbered: the link a
 * first message (the bytes after its length prefix) is the HELLO of, if it
 * is a valid HELLO of this call that answers `nonce`, the CHALLENGE sent on
 * the connection.  Changes nothing: an error is the message's
 * (DONAR_ERROR_BAD_AUTHENTICATOR: not of this call; DONAR_ERROR_REPLAY:
 * it answers another connection), *link set only on DONAR_OK. */
DONAR_API
DonarError donar_session_identify_link (const DonarSession * session,
    const guint8 * message, gsize length, const guint8 * nonce,
    guint * link);

/* The relays of the link's current circuit that this side knows (opaque
 * ids, such as a hash of each fingerprint): ADAPTIVE puts the copies of a
 * frame on links with none in common.  Forgotten when the link goes down.
 * At most DONAR_MAX_PATH_RELAYS are kept.  A link not below n_links, or
 * relays NULL with n_relays > 0, is a g_critical and changes nothing.
 * A caller's path ends at the link's rendezvous point, which the session
 * tells the callee (RENDEZVOUS) once its HELLO is out. */
DONAR_API
void donar_session_set_link_path (DonarSession * session, guint link,
    const guint64 * relays, guint n_relays);

/* The window timer: call at or after donar_session_get_expiry (); earlier
 * does nothing that is not due. */
DONAR_API
void donar_session_handle_expiry (DonarSession * session, gint64 now);
/* G_MAXINT64 for a NULL session. */
DONAR_API
gint64 donar_session_get_expiry (const DonarSession * session);

DONAR_API
void donar_session_get_stats_versioned (const DonarSession * session,
    gint stats_version, DonarSessionStats * stats);
#define donar_session_get_stats(session, stats) \
  donar_session_get_stats_versioned ((session), \
      DONAR_SESSION_STATS_VERSION, (stats))
/* The least round trip of our frames in the last 30 to 60 s, in µs: sent
 * on a link, acknowledged on any.  -1 until an acknowledgement came (only
 * a peer with the ADAPTIVE policy sends them). */
DONAR_API
gint64 donar_session_get_least_round_trip (const DonarSession * session);
/* Whether the peer's messages carry acknowledgements (its policy is
 * ADAPTIVE): then a round trip will come from them. */
DONAR_API
gboolean donar_session_peer_acknowledges (const DonarSession * session);
/* FALSE for a link the call does not have; an unknown version or a NULL
 * stats is a g_critical too.  Nothing written then. */
DONAR_API
gboolean donar_session_get_link_stats_versioned (const DonarSession *
    session, guint link, gint stats_version, DonarLinkStats * stats);
#define donar_session_get_link_stats(session, link, stats) \
  donar_session_get_link_stats_versioned ((session), (link), \
      DONAR_LINK_STATS_VERSION, (stats))
/* How long the peer has been writing to the link with nothing coming out
 * of it (a circuit that hangs), in µs: the lesser of the frames delivered
 * on other links since the first lost one (at Tframe each) and the time
 * since we learned of it.  0 while the link keeps up; a link not below
 * n_links is a g_critical and 0. */
DONAR_API
gint64 donar_session_get_link_silence (const DonarSession * session,
    guint link, gint64 now);
/* How late our own frames on the link are, in µs, while other links have
 * delivered ours in time for a second (ADAPTIVE): the time by which the
 * oldest of them that the peer has not acknowledged is overdue beyond the
 * least round trip.  A circuit that hangs while the call goes on
 * elsewhere, seen from the sending side, whether or not the peer sends on
 * it; or, after a stall of every link, one whose backlog has not drained
 * within a second of the others'.  While no link is in time, only what
 * is beyond 10 s counts: a stall of every link is waited out on the
 * circuits there are for as long as tor itself would wait for a stream's
 * answer, then the circuits that hang are given up.  0 otherwise, and for
 * a link not below n_links, which is a g_critical. */
DONAR_API
gint64 donar_session_get_link_lateness (const DonarSession * session,
    guint link, gint64 now);

G_END_DECLS

#endif /* DONAR_H */
