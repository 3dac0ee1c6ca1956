/* One-way delays of each link, both ways, without synchronized clocks.
 *
 * Every DATA message carries its sender's clock.  Arrival time minus that
 * clock is the one-way delay plus an unknown offset between the clocks;
 * the offset is the same on every link, so subtracting the least such
 * sample of the last minute leaves each link's delay above the fastest
 * one: comparable across links, and free of the clocks' slow drift.
 *
 * The receiver keeps, per link, the relative delay of its latest message
 * and the oldest frame the peer sent on it that has not come out yet (it
 * learns of it from the recent-links lists on the other links): while that
 * frame is overdue, the link's delay is at least its age, and grows.  That
 * is what it reports to the peer, which predicts with it where its next
 * frame arrives first.
 *
 * The sender also keeps its own frames that the peer has not acknowledged
 * on each link: once the peer's newest message left more than a least
 * round trip after the oldest of them, that link is late by the
 * difference, whatever the peer could report. */
#ifndef DONAR_DELAYS_H
#define DONAR_DELAYS_H

#include "donar-receiver.h"
#include "donar-wire.h"

G_BEGIN_DECLS

#define DONAR_DELAY_UNKNOWN G_MAXINT64
/* Our frames in flight on a link that we keep the send times of: 2.5 s of
 * 40 ms frames on one link. */
#define DONAR_DELAY_IN_FLIGHT 64

typedef struct
{
  guint32 seq;
  gint64 sent_us;
} DonarSend;

typedef struct
{
  /* Peer to us, measured here. */
  gboolean heard;               /* a message came since the link opened */
  gint64 opened_us;
  gint64 last_delay_us;
  gint64 last_heard_us;
  guint32 last_seq;
  gboolean overdue;             /* a frame sent on it after last_seq */
  guint32 overdue_seq;
  gint64 overdue_sent_us;       /* its send time, on the peer's clock */
  /* Us to peer, as the peer last reported it. */
  gboolean reported;
  gint64 report_us;
  gboolean report_growing;
  gint64 report_time_us;        /* when it came */
  /* Our frames on the link that the peer has not said came out of it:
   * a ring, oldest first. */
  DonarSend in_flight[DONAR_DELAY_IN_FLIGHT];
  guint first, n_in_flight;
  /* When the peer last said that frames of ours came out of the link;
   * G_MININT64: not since it opened. */
  gint64 acked_us;
  /* The least time from sending a frame on the link to the peer's word
   * that it came: one way, the peer's wait for its next message, and the
   * way back. */
  gint64 round_trip_us[2];
  /* The least delay seen on the link either way over the last two
   * buckets: its base, to which a spike adds. */
  gint64 floor_us[2];
  /* The opening: when our first message of it went (the callee's
   * CHALLENGE, the caller's HELLO; G_MININT64: not yet), and the time to
   * the peer's HELLO (DONAR_DELAY_UNKNOWN: not yet). */
  gint64 opening_sent_us;
  gint64 opening_round_trip_us;
} DonarLinkDelay;

typedef struct
{
  guint n_links;
  gint64 frame_period_us;
  gboolean peer_clock_known;
  gint64 peer_clock_us;         /* the latest peer time, unwrapped */
  guint32 peer_clock_ms;
  /* Least (arrival - peer time) of the current and previous bucket. */
  gint64 offset_us[2];
  gint64 bucket_start_us;
  gint64 last_heard_us;         /* the latest message on any link */
  /* The least of the links' round trips (G_MAXINT64: none), kept as they
   * change: ADAPTIVE asks for it for every link at every frame. */
  gint64 least_round_trip_us;
  /* Counts the changes to any link's floor_us: ADAPTIVE's median base
   * stands while it does not move. */
  guint64 floor_changes;
  DonarLinkDelay links[DONAR_MAX_LINKS];
} DonarDelays;

void donar_delays_init (DonarDelays * delays, guint n_links,
    gint64 frame_period_us, gint64 now);
/* The link (re)opened or closed at now: a new circuit, nothing known. */
void donar_delays_reset_link (DonarDelays * delays, guint link, gint64 now);
/* The peer's clock restarts with its session. */
void donar_delays_forget_peer (DonarDelays * delays);

/* A message of the peer, stamped time_ms on its clock, came on link. */
void donar_delays_on_arrival (DonarDelays * delays, guint link,
    guint32 seq, guint32 time_ms, gint64 now);
/* The peer's message stamped time_ms (seq) says frame seq - age went on
 * link: frames are handed over every frame period, so it left about
 * age periods before the message. */
void donar_delays_note_sent (DonarDelays * delays, guint link,
    guint32 seq, guint age, guint32 time_ms, gint64 now);
/* The same for each entry of a message's recent-links list, in order: the
 * peer's clock is read once for them all. */
void donar_delays_note_recent (DonarDelays * delays, guint32 seq,
    guint32 time_ms, const DonarWireRecent * recent, guint n_recent,
    gint64 now);
/* The peer's report of each link toward it (DONAR_WIRE_DELAY_*). */
/* The peer reported none of its first n links: set_reports with every
 * report unknown. */
void donar_delays_clear_reports (DonarDelays * delays, guint n);
void donar_delays_set_reports (DonarDelays * delays,
    const guint16 * reports, guint n_reports, gint64 now);

/* We sent frame seq on link at now. */
void donar_delays_on_send (DonarDelays * delays, guint link, guint32 seq,
    gint64 now);
/* The peer's acknowledgements: the newest of our frames it has (`ack`),
 * and for each link how many frames before it is the newest that came out
 * of that link (DONAR_WIRE_ACK_NONE: none lately). */
void donar_delays_on_acks (DonarDelays * delays, guint32 ack,
    const guint8 * ages, guint n_ages, gint64 now);
/* Ours, to put in a message: the newest frame of the peer we have, and the
 * age of each link's newest one behind it. */
guint8 donar_delays_ack_age (const DonarDelays * delays, guint link,
    guint32 ack);

/* What we report of a link toward us: its delay now, at least the age of
 * its overdue frame. */
guint16 donar_delays_report (const DonarDelays * delays, guint link,
    gint64 now);
/* report and ack_age of the first n links at once, into reports[] and
 * ages[]: a message carries them all. */
void donar_delays_report_all (const DonarDelays * delays, guint n,
    guint32 ack, gint64 now, guint16 * reports, guint8 * ages);
/* A link's delay toward the peer, predicted from both directions (a spike
 * of a relay delays both); *fresh_us is when the newest of that was
 * measured, or G_MININT64.  DONAR_DELAY_UNKNOWN when nothing is known. */
gint64 donar_delays_predict (const DonarDelays * delays, guint link,
    gint64 now, gint64 * fresh_us);
/* How much longer than the least round trip our oldest frame on the link
 * has gone without word of it: the link's delay has grown by that at
 * least.  0 when nothing is overdue. */
gint64 donar_delays_in_flight_excess (const DonarDelays * delays,
    guint link, gint64 now);
/* Our first message of the link's opening went at now; the peer's HELLO
 * that ends it came at now. */
void donar_delays_on_opening_sent (DonarDelays * delays, guint link,
    gint64 now);
void donar_delays_on_opening_answered (DonarDelays * delays, guint link,
    gint64 now);
/* The round trip of the link's opening, or DONAR_DELAY_UNKNOWN before the
 * peer's HELLO. */
gint64 donar_delays_opening_round_trip (const DonarDelays * delays,
    guint link);
/* The least round trip of our frames lately (sent on a link, acknowledged
 * by a message on any link), or DONAR_DELAY_UNKNOWN: acknowledgements come
 * only from a peer that sends ADAPTIVE's parts. */
gint64 donar_delays_least_round_trip (const DonarDelays * delays);
/* The link's base: the least delay seen on it lately, or
 * DONAR_DELAY_UNKNOWN. */
gint64 donar_delays_floor (const DonarDelays * delays, guint link);

/* What ADAPTIVE reads of each link at every frame, in one call: floor,
 * predict (and its fresh_us) and in_flight_excess, into views[link] for
 * each link whose bit is set in `links`. */
typedef struct
{
  gint64 floor;
  gint64 predicted;
  gint64 fresh;
  gint64 excess;
  gint64 acked;                 /* acked_us */
  guint in_flight;              /* our frames on it without word */
} DonarLinkView;

void donar_delays_views (const DonarDelays * delays, guint32 links,
    gint64 now, DonarLinkView * views);

/* Our clock as the peer sees it in our messages. */
guint32 donar_delays_clock_ms (gint64 now);

G_END_DECLS

#endif /* DONAR_DELAYS_H */
