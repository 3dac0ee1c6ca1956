/* donar-torsim: an emulated Tor client in real time (docs/torsim.md).
 *
 * One process, one libevent loop, no thread.  The SOCKS port carries each
 * stream over a link of the Tor link model (lib/netmodel, the same code as
 * donar-sim); the control port speaks the subset of control-spec that DONAR
 * uses, plus a few fault hooks for tests.  This header holds what the
 * modules share: the options, the process state and the module entry
 * points, one file per concept. */
#ifndef TORSIM_H
#define TORSIM_H

#include <event2/event.h>
#include <event2/bufferevent.h>
#include <event2/buffer.h>
#include <event2/listener.h>

#include "donar-ev-linger.h"
#include "donar-netmodel.h"

G_BEGIN_DECLS
#define TORSIM_VERSION "0.4.9.11-torsim"
#define TORSIM_MIN_LINKS 12
#define TORSIM_MAX_LINKS 32
typedef struct _Torsim Torsim;
typedef struct _TorsimLink TorsimLink;
typedef struct _TorsimStream TorsimStream;
typedef struct _TorsimOnion TorsimOnion;
typedef struct _TorsimControl TorsimControl;

/* torsim-isolation.c: tor's SocksPort isolation flags (its ISO_* bits),
 * and the key that decides which streams share a circuit. */
typedef enum
{
  TORSIM_ISOLATE_DEST_PORT = 1 << 0,
  TORSIM_ISOLATE_DEST_ADDR = 1 << 1,
  TORSIM_ISOLATE_SOCKS_AUTH = 1 << 2,
  TORSIM_ISOLATE_CLIENT_PROTOCOL = 1 << 3,
  TORSIM_ISOLATE_CLIENT_ADDR = 1 << 4,
} TorsimIsolation;

/* Tor's default: a SocksPort line without flags. */
#define TORSIM_ISOLATE_DEFAULT \
  (TORSIM_ISOLATE_CLIENT_ADDR | TORSIM_ISOLATE_SOCKS_AUTH)

/* What a stream's key is made of; only the fields of the flags count. */
typedef struct
{
  const char *client_address;   /* the SOCKS client's IP, as text */
  gboolean authenticated;       /* username/password were given */
  const GString *username;      /* raw bytes, may hold NULs */
  const GString *password;
  const char *dest_address;     /* as the client sent it, lower case */
  guint16 dest_port;
} TorsimIsolationFields;

/* Applies one of tor's flag names, "No" before it to clear it, in any
 * case; FALSE for a name that is not an isolation flag. */
gboolean torsim_isolation_apply (TorsimIsolation * flags, const char *name);
/* Streams with equal keys may share a circuit; others may not. */
gchar *torsim_isolation_key (TorsimIsolation flags,
    const TorsimIsolationFields * fields);

/* torsim-options.c: the command line. */
typedef struct
{
  guint16 socks_port;
  guint16 control_port;
  gchar *port_file;
  DonarNetModelParams params;   /* security and --set applied */
  guint64 seed;
  guint n_links;
  gchar *trace_dir;
  guint publish_ms;
  gchar *cookie_file;
  gsize max_pending;            /* bytes in flight per stream and direction */
  guint constrained_sock_size;  /* 0: the kernel's socket buffers */
  TorsimIsolation isolation;    /* --socks-flag */
  gboolean verbose;
} TorsimOptions;

/* FALSE with a message naming the option (exit status 2). */
gboolean torsim_options_parse (TorsimOptions * options, int *argc,
    char ***argv, GError ** error);
void torsim_options_clear (TorsimOptions * options);

/* torsim.c: the process. */
struct _Torsim
{
  const TorsimOptions *options;
  struct event_base *base;
  DonarNetModel *model;
  gint64 origin_us;

  TorsimLink *links;
  guint n_links;
  guint next_circuit_id;
  gint64 cut_until_us;          /* DONAR-CUT: nothing delivered before */
  gint64 stall_until_us;        /* DONAR-STALL of every stream: new ones too */
  guint stall_drain;            /* its DRAIN= (cells/s), 0: none */

  GHashTable *onions;           /* service id -> TorsimOnion */
  GHashTable *client_auth_keys; /* torsim-client-auth.c */
  GList *streams;
  GList *controls;
  DonarLinger *lingering;       /* bufferevents flushing before close */
  GPtrArray *graveyard;         /* freed at the next loop turn */
  struct event *reaper;

  struct evconnlistener *socks_listener;
  struct evconnlistener *control_listener;
  guint16 socks_port;
  guint16 control_port;

  gboolean have_cookie;
  guint8 cookie[32];
  guint next_stream_id;
};

Torsim *torsim_new (const TorsimOptions * options, GError ** error);
void torsim_free (Torsim * t);
/* Stops the loop after `delay_ms` (0: now), letting replies go out. */
void torsim_quit (Torsim * t, guint delay_ms);
/* Frees `data` with `notify` at the next turn of the loop, when no
 * callback up the stack can still hold it. */
void torsim_defer_free (Torsim * t, gpointer data, GDestroyNotify notify);
/* Flushes what is queued for the peer, shuts the socket down and frees
 * the bufferevent once the peer closes (or after a few seconds). */
void torsim_close_flushed (Torsim * t, struct bufferevent *bev);
void
torsim_log (Torsim * t, const char *format, ...)
G_GNUC_PRINTF (2, 3);
/* Monotonic µs, the model's time axis (origin: torsim's start). */
     gint64 torsim_now (void);
/* Arms a timer for the monotonic time at_us (at once if past). */
     void torsim_timer_at (Torsim * t, struct event *timer, gint64 at_us);
/* A socket's bufferevent with TCP_NODELAY, connecting to `address` (host
 * order, on loopback) and `port`; NULL with errno set when the connect
 * fails at once. */
     struct bufferevent *torsim_connect_local (Torsim * t, guint32 address,
    guint16 port);
/* --constrained-sock-size on a stream's socket. */
     void torsim_constrain_socket (Torsim * t, evutil_socket_t fd);

/* torsim-random.c: secrets, ids and names. */
     void torsim_random_bytes (guint8 * out, gsize length);
/* RFC 4648 base32, lower case, no padding. */
     gchar *torsim_base32 (const guint8 * data, gsize length);
/* 40 upper-case hex digits standing for a relay's identity. */
     gchar *torsim_fingerprint (guint64 seed, const char *identity);
/* A QuotedString (control-spec 2.1.1) for any bytes. */
     void torsim_append_quoted (GString * out, const char *text);

/* torsim-link.c: model links, their circuits and in-flight data. */
     void torsim_links_init (Torsim * t);
     void torsim_links_clear (Torsim * t);
/* The link of the stream's isolation key: the one already carrying that
 * key, else the lowest free one (reopened if used before).  NULL when
 * every link is in use. */
     TorsimLink *torsim_link_attach (Torsim * t, const char *key,
    const char *username, const char *password, TorsimStream * stream);
     void torsim_link_detach (TorsimLink * link, TorsimStream * stream);
     gboolean torsim_link_is_ready (TorsimLink * link);
     guint torsim_link_index (TorsimLink * link);
/* Hands `data` (NULL: the stream's END) from the stream's side `dir` to
 * the link; takes the buffer. */
     void torsim_link_send (TorsimLink * link, TorsimStream * stream, guint dir,
    struct evbuffer *data);
/* DONAR-FAIL-LINK: the circuit of link `index` fails now. */
     gboolean torsim_link_fail_now (Torsim * t, guint index);
/* DONAR-CUT: nothing is delivered for `ms` from now. */
     void torsim_links_cut (Torsim * t, guint ms);
/* Each link's next delivery again, after a cut or a stall. */
     void torsim_links_reschedule (Torsim * t);
/* GETINFO circuit-status: one line per link in use. */
     void torsim_links_circuit_status (Torsim * t, GString * out);
/* DONAR-STATS: "LINK ..." lines, each ending with "\n". */
     void torsim_links_stats (Torsim * t, GString * out);

/* torsim-stream.c: a SOCKS stream and the relay of its bytes. */
     void torsim_stream_accept (Torsim * t, evutil_socket_t fd,
    const struct sockaddr *address);
/* From the SOCKS handshake: attach to a link, connect to the target. */
     void torsim_stream_connect (TorsimStream * s, const char *key,
    const char *username, const char *password, guint32 target_address,
    guint16 target_port);
/* A refusal: the reply, then close. */
     void torsim_stream_refuse (TorsimStream * s, guint8 reply);
/* From the link: bytes (or the END, data NULL) that left side `dir` have
 * arrived; takes the buffer. */
     void torsim_stream_deliver (TorsimStream * s, guint dir,
    struct evbuffer *data);
     void torsim_stream_link_ready (TorsimStream * s);
     void torsim_stream_link_failed (TorsimStream * s);
     void torsim_streams_close_all (Torsim * t);
/* DONAR-FREEZE: open streams, the newest first and at most max_streams,
 * are never read again, on either side; returns how many. */
     guint torsim_streams_freeze (Torsim * t, guint max_streams);
/* DONAR-STALL: open streams, the newest first and at most max_streams,
 * deliver nothing for `ms` and hold what they read up to tor's stream
 * window, sent on after, at `drain` cells a second (0: at once); returns
 * how many.  With G_MAXUINT, streams opened before the release stall
 * too. */
     guint torsim_streams_stall (Torsim * t, guint ms, guint max_streams,
    guint drain);
/* Nothing of the stream is delivered before this (µs, monotonic). */
     gint64 torsim_stream_stalled_until (TorsimStream * s);
/* Streams stalled now. */
     guint torsim_streams_stalled (Torsim * t);
     struct bufferevent *torsim_stream_client (TorsimStream * s);
/* The SOCKS client's IP address, as text. */
     const char *torsim_stream_client_address (TorsimStream * s);
/* Bytes torsim holds for the stream: in flight, and read or to write. */
     gsize torsim_stream_buffered (TorsimStream * s);

/* torsim-socks.c: the server side of RFC 1928 / RFC 1929. */
     typedef struct _TorsimSocks TorsimSocks;
     TorsimSocks *torsim_socks_new (void);
     void torsim_socks_free (TorsimSocks * socks);
/* Reads what the client sent so far; calls torsim_stream_connect or
 * torsim_stream_refuse when the request is whole.  FALSE: the client
 * broke the protocol, close without a reply. */
     gboolean torsim_socks_input (TorsimSocks * socks, TorsimStream * s,
    Torsim * t);
     void torsim_socks_reply (struct bufferevent *client, guint8 reply);

/* SOCKS5 reply codes (RFC 1928 and tor's ExtendedErrors). */
#define TORSIM_SOCKS_SUCCEEDED 0x00
#define TORSIM_SOCKS_GENERAL_FAILURE 0x01
#define TORSIM_SOCKS_HOST_UNREACHABLE 0x04
#define TORSIM_SOCKS_CONNECTION_REFUSED 0x05
#define TORSIM_SOCKS_COMMAND_NOT_SUPPORTED 0x07
#define TORSIM_SOCKS_ADDRESS_TYPE_NOT_SUPPORTED 0x08
#define TORSIM_SOCKS_ONION_DESC_NOT_FOUND 0xF0
#define TORSIM_SOCKS_ONION_MISSING_CLIENT_AUTH 0xF4
#define TORSIM_SOCKS_ONION_BAD_CLIENT_AUTH 0xF5
#define TORSIM_SOCKS_ONION_BAD_ADDRESS 0xF6

/* torsim-onion.c: the onion services of ADD_ONION. */
#define TORSIM_ONION_KEY_LENGTH 64
#define TORSIM_ONION_ID_LENGTH 56
#define TORSIM_ONION_MAX_PORTS 64

     typedef struct
     {
       guint16 virtual_port;
       guint32 target_address;  /* host order, in 127.0.0.0/8 */
       guint16 target_port;
     } TorsimOnionPort;

     typedef struct
     {
       const guint8 *key;       /* NULL: a new key */
       gboolean detach;
       TorsimOnionPort ports[TORSIM_ONION_MAX_PORTS];
       guint n_ports;
       gchar **client_auth_v3;  /* torsim-client-auth.c enforces them */
       guint max_streams;       /* kept, not enforced */
     } TorsimOnionSpec;

/* NULL when an onion with that key exists (tor's collision). */
     TorsimOnion *torsim_onion_add (Torsim * t, const TorsimOnionSpec * spec,
    TorsimControl * owner);
     void torsim_onion_remove (Torsim * t, TorsimOnion * onion);
     TorsimOnion *torsim_onion_lookup (Torsim * t, const char *service_id);
     const char *torsim_onion_id (TorsimOnion * onion);
     const guint8 *torsim_onion_key (TorsimOnion * onion);
     TorsimControl *torsim_onion_owner (TorsimOnion * onion);
     gboolean torsim_onion_is_published (TorsimOnion * onion);
/* NULL-terminated ClientAuthV3 keys, or NULL. */
     const gchar *const *torsim_onion_client_auth (TorsimOnion * onion);
/* The mapping of a virtual port, NULL when not mapped. */
     const TorsimOnionPort *torsim_onion_target (TorsimOnion * onion,
    guint16 virtual_port);
/* Emits HS_DESC UPLOAD now (after the ADD_ONION reply). */
     void torsim_onion_announce (TorsimOnion * onion);
     void torsim_onions_remove_owned (Torsim * t, TorsimControl * owner);
     void torsim_onions_clear (Torsim * t);

/* torsim-control.c: control connections. */
     typedef enum
     {
       TORSIM_EVENT_CIRC = 1 << 0,
       TORSIM_EVENT_HS_DESC = 1 << 1,
     } TorsimEvents;

     void torsim_control_accept (Torsim * t, evutil_socket_t fd);
     void torsim_controls_close_all (Torsim * t);
/* Sends "650 <text>" to each authenticated connection that asked for
 * `event`. */
     void torsim_control_broadcast (Torsim * t, TorsimEvents event,
    const char *text);
/* Writes one line, CRLF added. */
     void torsim_control_write (TorsimControl * c, const char *line);
/* Writes a reply of several lines: `text` holds its lines, each ended by
 * "\n", all but the last with '-' after the code (or '+' for data). */
     void torsim_control_write_raw (TorsimControl * c, const char *text);
/* Answers, then closes once the answer has gone out. */
     void torsim_control_close (TorsimControl * c);
     Torsim *torsim_control_torsim (TorsimControl * c);
     void torsim_control_set_events (TorsimControl * c, TorsimEvents events);

/* torsim-control-onion.c, torsim-control-info.c: the commands after
 * AUTHENTICATE; `args` is the line after the keyword. */
     void torsim_command_add_onion (TorsimControl * c, const char *args);
     void torsim_command_del_onion (TorsimControl * c, const char *args);
     void torsim_command_getinfo (TorsimControl * c, const char *args);
     void torsim_command_setevents (TorsimControl * c, const char *args);
     void torsim_command_setconf (TorsimControl * c, const char *args);
     void torsim_command_signal (TorsimControl * c, const char *args);
     void torsim_command_onion_client_auth_add (TorsimControl * c,
    const char *args);
     void torsim_command_onion_client_auth_remove (TorsimControl * c,
    const char *args);

/* torsim-client-auth.c: SUCCEEDED when this torsim may reach an onion
 * whose ClientAuthV3 keys are `allowed`, else the SOCKS error tor gives. */
     guint8 torsim_client_auth_check (Torsim * t, const char *service_id,
    const gchar * const *allowed);
     void torsim_client_auth_clear (Torsim * t);
     void torsim_command_fail_link (TorsimControl * c, const char *args);
     void torsim_command_cut (TorsimControl * c, const char *args);
     void torsim_command_stats (TorsimControl * c, const char *args);
     void torsim_command_close_controls (TorsimControl * c, const char *args);
     void torsim_command_freeze (TorsimControl * c, const char *args);
     void torsim_command_stall (TorsimControl * c, const char *args);

/* torsim-auth.c: PROTOCOLINFO's methods, the cookie, SAFECOOKIE. */
     gboolean torsim_auth_write_cookie (Torsim * t, const char *path,
    GError ** error);
     void torsim_auth_server_hash (const guint8 * cookie,
    const guint8 * client_nonce, const guint8 * server_nonce, guint8 * hash);
     gboolean torsim_auth_check_client_hash (const guint8 * cookie,
    const guint8 * client_nonce, const guint8 * server_nonce,
    const guint8 * client_hash);
     gboolean torsim_auth_check_cookie (const guint8 * cookie,
    const guint8 * given);

G_END_DECLS
#endif /* TORSIM_H */
