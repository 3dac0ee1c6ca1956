/* What the parts of the core share and the tests may look at. */
#ifndef DONAR_SESSION_PRIVATE_H
#define DONAR_SESSION_PRIVATE_H

#include "donar-adaptive.h"
#include "donar-framer.h"
#include "donar-monitor.h"
#include "donar-scheduler.h"

G_BEGIN_DECLS

/* Frames kept after sending: for piggybacking and the recent-links list. */
#define DONAR_SENT_HISTORY 64

typedef struct
{
  gboolean valid;
  guint32 seq;
  gint64 time;
  guint8 n_links;
  guint8 links[DONAR_SCHEDULER_MAX_SENDS];
  guint16 length;
  guint8 data[DONAR_WIRE_MAX_MESSAGE];
} DonarSentFrame;

typedef struct
{
  guint64 messages_sent;
  guint64 messages_received;
  guint64 bytes_sent;
  guint64 bytes_received;
  guint64 frames_delivered;
  guint64 failures;
  guint64 rejected;
} DonarLinkCounters;

struct _DonarSession
{
  DonarConfig config;
  DonarRole role;
  DonarCallbacks callbacks;
  gpointer user_data;
  DonarWireKey send_key;
  DonarWireKey receive_key;
  GRand *rand;
  gsize max_frame;

  guint32 epoch;
  guint32 next_seq;
  DonarSentFrame history[DONAR_SENT_HISTORY];
  DonarGroups groups;
  DonarScheduler scheduler;
  DonarAdaptive adaptive;
  DonarDelays delays;
  DonarPaths paths;

  gboolean peer_epoch_known;
  guint32 peer_epoch;
  gboolean peer_previous_epoch_known;
  guint32 peer_previous_epoch;
  /* The peer's messages carry ADAPTIVE's parts, acknowledgements among
   * them. */
  gboolean peer_acknowledges;
  DonarReceiver receiver;
  DonarMonitor monitor;
  DonarFramer framers[DONAR_MAX_LINKS];
  /* A link's opening (docs/protocol.md): its connection open, our HELLO
   * out (then the scheduler may use it: groups.up), the peer's checked;
   * our nonce of the connection, which the peer's HELLO must answer. */
  gboolean open[DONAR_MAX_LINKS];
  gboolean hello_sent[DONAR_MAX_LINKS];
  gboolean authenticated[DONAR_MAX_LINKS];
  guint8 nonce[DONAR_MAX_LINKS][DONAR_WIRE_NONCE];
  guint32 link_epoch[DONAR_MAX_LINKS];
  /* Caller: the rendezvous point told on the link's connection, 0 none. */
  guint64 rendezvous_told[DONAR_MAX_LINKS];

  /* BYE sent or received: no frame goes out after it. */
  gboolean ended;
  gboolean ended_by_peer;
  DonarByeReason end_reason;

  gint64 next_window;
  /* When the application last handed over a frame, and when we last sent
   * a keepalive (donar-session.c, send_keepalive). */
  gint64 last_handed_us;
  gint64 last_keepalive_us;
  /* When a new frame of the peer last came: keepalives answer frames, not
   * each other's keepalives. */
  gint64 last_delivered_us;
  gint32 scores[DONAR_MAX_LINKS];
  DonarLinkCounters links[DONAR_MAX_LINKS];
  DonarSessionStats stats;
  guint8 record[DONAR_CELL_PAYLOAD];
};

/* The caller's config of its version, what that version lacks at its
 * default (donar-versioned.h); FALSE for an unknown version. */
gboolean donar_config_from_versioned (gint config_version,
    const DonarConfig * config, DonarConfig * latest);
guint donar_config_recent_frames (const DonarConfig * config);
/* The per-link parts of our messages: what our policy uses. */
guint8 donar_config_wire_parts (const DonarConfig * config);

G_END_DECLS

#endif /* DONAR_SESSION_PRIVATE_H */
