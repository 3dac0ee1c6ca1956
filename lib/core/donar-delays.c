/* Relative one-way delays, overdue frames and the reports of each link. */
#include "donar-delays.h"
#include "donar-wire.h"

#include <string.h>

/* Minima are kept over two buckets of this length: long enough that every
 * link was calm at some point of it, short against the drift of two
 * clocks (50 ppm is 1.5 ms in 30 s). */
#define BUCKET_US (30 * G_USEC_PER_SEC)
/* A measurement older than this is not reported: the peer would take an
 * old delay for the link's state now. */
#define REPORT_TTL_US (1 * G_USEC_PER_SEC)
/* A frame the peer sent this long before a link (re)opened here went on
 * its previous connection, gone with it. */
#define PREVIOUS_CONNECTION_US (2 * G_USEC_PER_SEC)
/* The peer sends a frame every period: after this many periods with no
 * message on any link, the peer is silent, and its news no longer says how
 * late our frames are (donar_delays_in_flight_excess). */
#define SILENT_PERIODS 3

static void
update_least_round_trip (DonarDelays * delays)
{
  delays->least_round_trip_us = G_MAXINT64;
  for (guint i = 0; i < delays->n_links; i++)
    delays->least_round_trip_us = MIN (delays->least_round_trip_us,
        MIN (delays->links[i].round_trip_us[0],
            delays->links[i].round_trip_us[1]));
}

void
donar_delays_init (DonarDelays * delays, guint n_links,
    gint64 frame_period_us, gint64 now)
{
  memset (delays, 0, sizeof *delays);
  delays->n_links = n_links;
  delays->frame_period_us = frame_period_us;
  delays->offset_us[0] = delays->offset_us[1] = G_MAXINT64;
  delays->bucket_start_us = now;
  for (guint i = 0; i < DONAR_MAX_LINKS; i++)
    donar_delays_reset_link (delays, i, now);
}

void
donar_delays_reset_link (DonarDelays * delays, guint link, gint64 now)
{
  DonarLinkDelay *l = &delays->links[link];

  memset (l, 0, sizeof *l);
  l->opened_us = now;
  l->floor_us[0] = l->floor_us[1] = G_MAXINT64;
  delays->floor_changes++;
  l->round_trip_us[0] = l->round_trip_us[1] = G_MAXINT64;
  l->acked_us = G_MININT64;
  l->opening_sent_us = G_MININT64;
  l->opening_round_trip_us = DONAR_DELAY_UNKNOWN;
  update_least_round_trip (delays);
}

void
donar_delays_on_opening_sent (DonarDelays * delays, guint link, gint64 now)
{
  delays->links[link].opening_sent_us = now;
}

void
donar_delays_on_opening_answered (DonarDelays * delays, guint link,
    gint64 now)
{
  DonarLinkDelay *l = &delays->links[link];

  if (l->opening_sent_us != G_MININT64)
    l->opening_round_trip_us = MAX (0, now - l->opening_sent_us);
}

gint64
donar_delays_opening_round_trip (const DonarDelays * delays, guint link)
{
  return delays->links[link].opening_round_trip_us;
}

void
donar_delays_forget_peer (DonarDelays * delays)
{
  delays->peer_clock_known = FALSE;
  delays->offset_us[0] = delays->offset_us[1] = G_MAXINT64;
  for (guint i = 0; i < delays->n_links; i++) {
    DonarLinkDelay *l = &delays->links[i];

    l->heard = l->overdue = l->reported = FALSE;
  }
}

guint32
donar_delays_clock_ms (gint64 now)
{
  return (guint32) (now / 1000);
}

static gint64
unwrap_peer_clock (DonarDelays * delays, guint32 time_ms)
{
  gint64 t;

  if (!delays->peer_clock_known) {
    delays->peer_clock_known = TRUE;
    delays->peer_clock_ms = time_ms;
    delays->peer_clock_us = (gint64) time_ms *1000;
    return delays->peer_clock_us;
  }
  t = delays->peer_clock_us + (gint64) (gint32) (time_ms -
      delays->peer_clock_ms) * 1000;
  /* Only a peer that moves its clock on by weeks at every message gets
   * here (after millions of them): start over rather than overflow. */
  if (t > G_MAXINT64 / 4) {
    donar_delays_forget_peer (delays);
    return unwrap_peer_clock (delays, time_ms);
  }
  if (t > delays->peer_clock_us) {
    delays->peer_clock_us = t;
    delays->peer_clock_ms = time_ms;
  }
  return t;
}

static void
rotate_buckets (DonarDelays * delays, gint64 now)
{
  if (now - delays->bucket_start_us < BUCKET_US)
    return;
  delays->bucket_start_us = now;
  delays->offset_us[1] = delays->offset_us[0];
  delays->offset_us[0] = G_MAXINT64;
  for (guint i = 0; i < delays->n_links; i++) {
    delays->links[i].floor_us[1] = delays->links[i].floor_us[0];
    delays->links[i].floor_us[0] = G_MAXINT64;
    delays->floor_changes++;
    delays->links[i].round_trip_us[1] = delays->links[i].round_trip_us[0];
    delays->links[i].round_trip_us[0] = G_MAXINT64;
  }
  update_least_round_trip (delays);
}

static gint64
offset (const DonarDelays * delays)
{
  return MIN (delays->offset_us[0], delays->offset_us[1]);
}

static void
note_floor (DonarDelays * delays, DonarLinkDelay * l, gint64 delay)
{
  if (delay >= l->floor_us[0])
    return;
  l->floor_us[0] = delay;
  delays->floor_changes++;
}

void
donar_delays_on_arrival (DonarDelays * delays, guint link, guint32 seq,
    guint32 time_ms, gint64 now)
{
  DonarLinkDelay *l = &delays->links[link];
  gint64 sample = now - unwrap_peer_clock (delays, time_ms);

  rotate_buckets (delays, now);
  delays->offset_us[0] = MIN (delays->offset_us[0], sample);
  l->last_delay_us = sample - offset (delays);
  l->last_heard_us = now;
  delays->last_heard_us = now;
  l->last_seq = seq;
  l->heard = TRUE;
  note_floor (delays, l, l->last_delay_us);
  /* A stream delivers in order: all the link carried before seq is in. */
  if (l->overdue && donar_seq_diff (seq, l->overdue_seq) >= 0)
    l->overdue = FALSE;
}

/* note_sent once the peer's clock is read: `message_us` is the message's
 * time on it and `off` the offset, known. */
static void
note_sent_at (DonarDelays * delays, guint link, guint32 seq, guint age,
    gint64 message_us, gint64 off)
{
  DonarLinkDelay *l = &delays->links[link];
  guint32 frame = seq - age;
  gint64 sent_us = message_us - (gint64) age * delays->frame_period_us;

  if (l->heard && donar_seq_diff (frame, l->last_seq) <= 0)
    return;
  if (sent_us + off + PREVIOUS_CONNECTION_US < l->opened_us)
    return;
  if (l->overdue && donar_seq_diff (frame, l->overdue_seq) >= 0)
    return;
  l->overdue = TRUE;
  l->overdue_seq = frame;
  l->overdue_sent_us = sent_us;
}

void
donar_delays_note_recent (DonarDelays * delays, guint32 seq, guint32 time_ms,
    const DonarWireRecent * recent, guint n_recent, gint64 now)
{
  gint64 message_us;

  if (n_recent == 0)
    return;
  /* Reading the same time again changes nothing: once is enough. */
  message_us = unwrap_peer_clock (delays, time_ms);
  if (offset (delays) == G_MAXINT64)
    return;
  for (guint i = 0; i < n_recent; i++)
    note_sent_at (delays, recent[i].link, seq, recent[i].age, message_us,
        offset (delays));
}

void
donar_delays_note_sent (DonarDelays * delays, guint link, guint32 seq,
    guint age, guint32 time_ms, gint64 now)
{
  gint64 message_us = unwrap_peer_clock (delays, time_ms);

  if (offset (delays) == G_MAXINT64)
    return;
  note_sent_at (delays, link, seq, age, message_us, offset (delays));
}

void
donar_delays_clear_reports (DonarDelays * delays, guint n)
{
  for (guint i = 0; i < MIN (n, delays->n_links); i++)
    delays->links[i].reported = FALSE;
}

void
donar_delays_set_reports (DonarDelays * delays, const guint16 * reports,
    guint n_reports, gint64 now)
{
  for (guint i = 0; i < MIN (n_reports, delays->n_links); i++) {
    DonarLinkDelay *l = &delays->links[i];

    if (reports[i] == DONAR_WIRE_DELAY_UNKNOWN) {
      l->reported = FALSE;
      continue;
    }
    l->reported = TRUE;
    l->report_growing = (reports[i] & DONAR_WIRE_DELAY_GROWING) != 0;
    l->report_us = (gint64) (reports[i] & ~DONAR_WIRE_DELAY_GROWING) * 1000;
    l->report_time_us = now;
    if (!l->report_growing)
      note_floor (delays, l, l->report_us);
  }
}

void
donar_delays_on_send (DonarDelays * delays, guint link, guint32 seq, gint64 now)
{
  DonarLinkDelay *l = &delays->links[link];
  DonarSend *slot;

  /* Full: the oldest is forgotten, its successors are as old. */
  if (l->n_in_flight == DONAR_DELAY_IN_FLIGHT) {
    l->first = (l->first + 1) % DONAR_DELAY_IN_FLIGHT;
    l->n_in_flight--;
  }
  slot = &l->in_flight[(l->first + l->n_in_flight) % DONAR_DELAY_IN_FLIGHT];
  slot->seq = seq;
  slot->sent_us = now;
  l->n_in_flight++;
}

void
donar_delays_on_acks (DonarDelays * delays, guint32 ack,
    const guint8 * ages, guint n_ages, gint64 now)
{
  rotate_buckets (delays, now);
  for (guint i = 0; i < MIN (n_ages, delays->n_links); i++) {
    DonarLinkDelay *l = &delays->links[i];
    guint32 newest = ack - ages[i];

    if (ages[i] == DONAR_WIRE_ACK_NONE)
      continue;
    while (l->n_in_flight > 0) {
      const DonarSend *oldest = &l->in_flight[l->first];

      if (donar_seq_diff (oldest->seq, newest) > 0)
        break;
      if (oldest->seq == newest) {
        l->round_trip_us[0] = MIN (l->round_trip_us[0], now - oldest->sent_us);
        delays->least_round_trip_us = MIN (delays->least_round_trip_us,
            l->round_trip_us[0]);
      }
      l->first = (l->first + 1) % DONAR_DELAY_IN_FLIGHT;
      l->n_in_flight--;
      l->acked_us = now;
    }
  }
}

static inline guint8
ack_age (const DonarDelays * delays, guint link, guint32 ack)
{
  const DonarLinkDelay *l = &delays->links[link];
  gint32 age;

  if (!l->heard)
    return DONAR_WIRE_ACK_NONE;
  age = donar_seq_diff (ack, l->last_seq);
  return age >= 0 && age < DONAR_WIRE_ACK_NONE ? age : DONAR_WIRE_ACK_NONE;
}

guint8
donar_delays_ack_age (const DonarDelays * delays, guint link, guint32 ack)
{
  return ack_age (delays, link, ack);
}

gint64
donar_delays_least_round_trip (const DonarDelays * delays)
{
  return delays->least_round_trip_us == G_MAXINT64 ? DONAR_DELAY_UNKNOWN :
      delays->least_round_trip_us;
}

/* What every link's excess is measured from, the peer's newest message on
 * our clock less the least round trip; G_MININT64 when there is no
 * measure. */
static inline gint64
excess_base (const DonarDelays * delays, gint64 now)
{
  gint64 round_trip, news;

  if (!delays->peer_clock_known || offset (delays) == G_MAXINT64)
    return G_MININT64;
  round_trip = donar_delays_least_round_trip (delays);
  if (round_trip == DONAR_DELAY_UNKNOWN)
    return G_MININT64;
  /* The peer's newest message, on our clock as if it had come the fastest
   * way: when it left, our oldest frame on the link had not come out.
   * Measured from there, not from now, so that a slow way back does not
   * count against the link.  But when the peer has gone silent, its news
   * stops: then every link we keep sending on without word is suspect. */
  news = delays->peer_clock_us + offset (delays);
  if (now - delays->last_heard_us > SILENT_PERIODS * delays->frame_period_us)
    news = now;
  return news - round_trip;
}

static inline gint64
excess_from (const DonarDelays * delays, guint link, gint64 base)
{
  const DonarLinkDelay *l = &delays->links[link];

  if (l->n_in_flight == 0 || base == G_MININT64)
    return 0;
  return MAX (base - l->in_flight[l->first].sent_us, 0);
}

static inline gint64
in_flight_excess (const DonarDelays * delays, guint link, gint64 now)
{
  if (delays->links[link].n_in_flight == 0)
    return 0;
  return excess_from (delays, link, excess_base (delays, now));
}

gint64
donar_delays_in_flight_excess (const DonarDelays * delays, guint link,
    gint64 now)
{
  return in_flight_excess (delays, link, now);
}

/* The link's delay toward us as measured here: the latest message's, or
 * the age of the overdue frame when that is more.  *growing says which. */
static inline gint64
measured (const DonarDelays * delays, const DonarLinkDelay * l, gint64 now,
    gboolean * growing)
{
  gint64 value = DONAR_DELAY_UNKNOWN;

  *growing = FALSE;
  if (l->heard && now - l->last_heard_us <= REPORT_TTL_US)
    value = l->last_delay_us;
  if (l->overdue) {
    gint64 age = now - (l->overdue_sent_us + offset (delays));

    if (value == DONAR_DELAY_UNKNOWN || age > value) {
      value = MAX (age, 0);
      *growing = TRUE;
    }
  }
  return value;
}

static inline guint16
report (const DonarDelays * delays, guint link, gint64 now)
{
  gboolean growing;
  gint64 value = measured (delays, &delays->links[link], now, &growing);
  guint16 ms;

  if (value == DONAR_DELAY_UNKNOWN)
    return DONAR_WIRE_DELAY_UNKNOWN;
  ms = MIN (value / 1000, DONAR_WIRE_DELAY_MAX_MS);
  return growing ? ms | DONAR_WIRE_DELAY_GROWING : ms;
}

guint16
donar_delays_report (const DonarDelays * delays, guint link, gint64 now)
{
  return report (delays, link, now);
}

void
donar_delays_report_all (const DonarDelays * delays, guint n, guint32 ack,
    gint64 now, guint16 * reports, guint8 * ages)
{
  for (guint i = 0; i < n; i++) {
    reports[i] = report (delays, i, now);
    ages[i] = ack_age (delays, i, ack);
  }
}

static inline gint64
predict (const DonarDelays * delays, guint link, gint64 now, gint64 * fresh_us)
{
  const DonarLinkDelay *l = &delays->links[link];
  gint64 value = DONAR_DELAY_UNKNOWN, fresh = G_MININT64;
  gboolean growing;
  gint64 here = measured (delays, l, now, &growing);

  if (here != DONAR_DELAY_UNKNOWN) {
    value = here;
    fresh = growing ? now : l->last_heard_us;
  }
  if (l->reported && (l->report_growing ||
          now - l->report_time_us <= REPORT_TTL_US)) {
    gint64 there = l->report_us +
        (l->report_growing ? now - l->report_time_us : 0);

    value = value == DONAR_DELAY_UNKNOWN ? there : MAX (value, there);
    fresh = MAX (fresh, l->report_time_us);
  }
  if (fresh_us)
    *fresh_us = fresh;
  return value;
}

gint64
donar_delays_predict (const DonarDelays * delays, guint link, gint64 now,
    gint64 * fresh_us)
{
  return predict (delays, link, now, fresh_us);
}

static inline gint64
floor_of (const DonarDelays * delays, guint link)
{
  const DonarLinkDelay *l = &delays->links[link];
  gint64 floor = MIN (l->floor_us[0], l->floor_us[1]);

  return floor == G_MAXINT64 ? DONAR_DELAY_UNKNOWN : floor;
}

gint64
donar_delays_floor (const DonarDelays * delays, guint link)
{
  return floor_of (delays, link);
}

void
donar_delays_views (const DonarDelays * delays, guint32 links, gint64 now,
    DonarLinkView * views)
{
  gint64 base = excess_base (delays, now);

  for (guint link = 0; links; link++, links >>= 1) {
    DonarLinkView *view = &views[link];

    if (!(links & 1))
      continue;
    view->floor = floor_of (delays, link);
    view->predicted = predict (delays, link, now, &view->fresh);
    view->excess = excess_from (delays, link, base);
    view->acked = delays->links[link].acked_us;
    view->in_flight = delays->links[link].n_in_flight;
  }
}
