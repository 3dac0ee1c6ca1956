/* Link monitoring (seed 000, section 4.1): the out-of-order metric of each
 * frame that arrives, the metric of frames still missing charged to the link
 * they were sent on, their mean over the window w, and its merge with the
 * peer's aggregate.  Scores are in centi-frames (1/100 of a frame out of
 * order); lower is better; -1 is unknown. */
#ifndef DONAR_MONITOR_H
#define DONAR_MONITOR_H

#include "donar-receiver.h"
#include "donar-wire.h"

G_BEGIN_DECLS

#define DONAR_SCORE_UNKNOWN (-1)
/* Frames whose links are remembered for the charge of missing frames: ten
 * seconds of 40 ms frames. */
#define DONAR_MONITOR_HISTORY 256
#define DONAR_MONITOR_LINKS_PER_FRAME 2

typedef struct
{
  guint32 seq;
  guint8 links[DONAR_MONITOR_LINKS_PER_FRAME];
  guint8 n_links;
  guint8 arrived;               /* bit i: links[i] delivered its copy */
  gboolean valid;
} DonarExpectedFrame;

typedef struct
{
  guint n_links;
  DonarScoreMerge merge;
  gint64 remote_ttl_us;
  guint64 window_sum[DONAR_MAX_LINKS];
  guint window_count[DONAR_MAX_LINKS];
  gint32 local[DONAR_MAX_LINKS];
  gint32 remote[DONAR_MAX_LINKS];
  /* How far behind a missing frame of the link was seen in this window
   * (centi-frames), 0 if none: reported at once, not at the window's end. */
  gint32 alarm[DONAR_MAX_LINKS];
  gint64 remote_time[DONAR_MAX_LINKS];
  /* The newest frame that came on each link: a TCP stream delivers in the
   * order sent, so everything sent on the link before it has come or was
   * dropped at the sender. */
  guint32 last_arrival[DONAR_MAX_LINKS];
  gboolean arrived_any[DONAR_MAX_LINKS];
  /* The oldest frame the peer sent on the link after its last arrival,
   * while `silent` holds: a link the peer writes to and nothing comes out
   * of (a circuit that hangs).  Only for a link that delivered data since
   * it opened. */
  guint32 silent_from[DONAR_MAX_LINKS];
  gint64 silent_since[DONAR_MAX_LINKS];     /* when we learned of it */
  gboolean silent[DONAR_MAX_LINKS];
  DonarExpectedFrame expected[DONAR_MONITOR_HISTORY];
  /* Bit i: expected[i] is valid and a copy of it has not come.  The
   * alarm looks at those only, not at every frame of its span on every
   * message. */
  guint32 incomplete[DONAR_MONITOR_HISTORY / 32];
} DonarMonitor;

void donar_monitor_init (DonarMonitor * monitor, guint n_links,
    DonarScoreMerge merge, gint64 remote_ttl_us);
/* The peer restarted: what we expected from its old numbering is void. */
void donar_monitor_forget_expected (DonarMonitor * monitor);
/* The link was closed: a reopened link is a new circuit with no history. */
void donar_monitor_forget_link (DonarMonitor * monitor, guint link);

/* The peer says (in a recent-links list) that frame seq went on link. */
void donar_monitor_note_sent (DonarMonitor * monitor, guint32 seq,
    guint link, gint64 now);
/* The same for each entry of the recent-links list of the peer's message
 * `seq`, in order. */
void donar_monitor_note_recent (DonarMonitor * monitor, guint32 seq,
    const DonarWireRecent * recent, guint n_recent, gint64 now);
/* The copy of seq sent on link arrived, `out_of_order` frames after seq
 * having been delivered before it. */
void donar_monitor_on_arrival (DonarMonitor * monitor, guint32 seq,
    guint link, guint out_of_order);
void donar_monitor_set_remote (DonarMonitor * monitor,
    const guint16 * scores, guint n_scores, gint64 now);

/* End of a window: frames still missing are charged to their links, and
 * each link's local aggregate becomes the mean of its samples. */
void donar_monitor_close_window (DonarMonitor * monitor,
    const DonarReceiver * receiver);

/* The links with a frame still missing although `alarm_frames` frames after
 * it were delivered: they are late by a third of the deadline already.
 * Looks only at the frames just old enough to tell, so its cost does not
 * grow with the window. */
guint32 donar_monitor_check_overdue (DonarMonitor * monitor,
    const DonarReceiver * receiver, guint alarm_frames);

/* How many frames newer than the first one the peer sent on link since
 * its last arrival have been delivered (on any link): 0 while the link
 * keeps up.  Grows with the time the link has carried nothing. */
guint donar_monitor_silent_frames (const DonarMonitor * monitor,
    const DonarReceiver * receiver, guint link);
/* How long the link has been silent by both clocks: the frames delivered
 * since (at frame_period_us each) and the time since we learned of the
 * first lost one, whichever is less.  Frames alone would count a peer
 * that catches up after a pause in a burst; time alone would count the
 * frames in flight when the peer stopped sending altogether. */
gint64 donar_monitor_silence_us (const DonarMonitor * monitor,
    const DonarReceiver * receiver, guint link, gint64 now,
    gint64 frame_period_us);

gint32 donar_monitor_local (const DonarMonitor * monitor, guint link);
/* What we tell the peer of a link: the local aggregate, or the alarm of
 * this window if it is worse. */
gint32 donar_monitor_reported (const DonarMonitor * monitor, guint link);
gint32 donar_monitor_remote (const DonarMonitor * monitor, guint link,
    gint64 now);
gint32 donar_monitor_score (const DonarMonitor * monitor, guint link,
    gint64 now);

G_END_DECLS

#endif /* DONAR_MONITOR_H */
