/* Link monitoring by the out-of-order metric. */
#include "donar-monitor.h"

#include "donar-wire.h"

#include <string.h>

void
donar_monitor_init (DonarMonitor * monitor, guint n_links,
    DonarScoreMerge merge, gint64 remote_ttl_us)
{
  memset (monitor, 0, sizeof *monitor);
  monitor->n_links = n_links;
  monitor->merge = merge;
  monitor->remote_ttl_us = remote_ttl_us;
  for (guint i = 0; i < DONAR_MAX_LINKS; i++) {
    monitor->local[i] = DONAR_SCORE_UNKNOWN;
    monitor->remote[i] = DONAR_SCORE_UNKNOWN;
  }
}

static gboolean
frame_complete (const DonarExpectedFrame * frame)
{
  return frame->arrived == (1 << frame->n_links) - 1;
}

/* Keeps the frame's bit of `incomplete` in step, after any change to it. */
static inline void
mark (DonarMonitor * monitor, const DonarExpectedFrame * frame)
{
  guint i = frame - monitor->expected;

  if (frame->valid && !frame_complete (frame))
    monitor->incomplete[i / 32] |= 1u << (i % 32);
  else
    monitor->incomplete[i / 32] &= ~(1u << (i % 32));
}

void
donar_monitor_forget_expected (DonarMonitor * monitor)
{
  memset (monitor->expected, 0, sizeof monitor->expected);
  memset (monitor->incomplete, 0, sizeof monitor->incomplete);
  memset (monitor->arrived_any, 0, sizeof monitor->arrived_any);
  memset (monitor->silent, 0, sizeof monitor->silent);
}

void
donar_monitor_forget_link (DonarMonitor * monitor, guint link)
{
  monitor->window_sum[link] = 0;
  monitor->window_count[link] = 0;
  monitor->local[link] = DONAR_SCORE_UNKNOWN;
  monitor->remote[link] = DONAR_SCORE_UNKNOWN;
  monitor->alarm[link] = 0;
  monitor->arrived_any[link] = FALSE;
  monitor->silent[link] = FALSE;
  for (guint i = 0; i < DONAR_MONITOR_HISTORY; i++) {
    DonarExpectedFrame *frame = &monitor->expected[i];

    for (guint k = 0; k < frame->n_links; k++)
      if (frame->links[k] == link)
        frame->arrived |= 1 << k;
    mark (monitor, frame);
  }
}

/* The record of seq, claimed from an older frame if need be; NULL when seq
 * is older than what the slot holds. */
static inline DonarExpectedFrame *
expected_slot (DonarMonitor * monitor, guint32 seq)
{
  DonarExpectedFrame *frame = &monitor->expected[seq % DONAR_MONITOR_HISTORY];

  if (frame->valid && frame->seq == seq)
    return frame;
  if (frame->valid && donar_seq_diff (seq, frame->seq) < 0)
    return NULL;
  memset (frame, 0, sizeof *frame);
  frame->valid = TRUE;
  frame->seq = seq;
  mark (monitor, frame);
  return frame;
}

/* Index of link among the frame's links, adding it if there is room. */
static inline gint
expected_link (DonarExpectedFrame * frame, guint link)
{
  for (guint k = 0; k < frame->n_links; k++)
    if (frame->links[k] == link)
      return k;
  if (frame->n_links == DONAR_MONITOR_LINKS_PER_FRAME)
    return -1;
  frame->links[frame->n_links] = link;
  return frame->n_links++;
}

static inline void
note_silence (DonarMonitor * monitor, guint32 seq, guint link, gint64 now)
{
  /* Only from the link's first data on: until then the peer's lists may
   * still name frames it wrote to the connection this one replaced.  And
   * a frame sent before what the link delivered last came, or the
   * sender's full queue dropped it; either way the link was alive after. */
  if (!monitor->arrived_any[link] ||
      donar_seq_diff (seq, monitor->last_arrival[link]) <= 0)
    return;
  if (!monitor->silent[link]) {
    monitor->silent_from[link] = seq;
    monitor->silent_since[link] = now;
    monitor->silent[link] = TRUE;
  } else if (donar_seq_diff (seq, monitor->silent_from[link]) < 0) {
    monitor->silent_from[link] = seq;
  }
}

/* Inline: a message names a dozen frames, each already noted from the
 * messages before it, and the calls cost more than the checks. */
static inline void
note_sent (DonarMonitor * monitor, guint32 seq, guint link, gint64 now)
{
  DonarExpectedFrame *frame = expected_slot (monitor, seq);

  /* Mostly a frame and link noted already, from an earlier message: then
   * nothing changed. */
  if (frame) {
    guint before = frame->n_links;

    expected_link (frame, link);
    if (frame->n_links != before)
      mark (monitor, frame);
  }
  note_silence (monitor, seq, link, now);
}

void
donar_monitor_note_sent (DonarMonitor * monitor, guint32 seq, guint link,
    gint64 now)
{
  note_sent (monitor, seq, link, now);
}

void
donar_monitor_note_recent (DonarMonitor * monitor, guint32 seq,
    const DonarWireRecent * recent, guint n_recent, gint64 now)
{
  for (guint i = 0; i < n_recent; i++)
    note_sent (monitor, seq - recent[i].age, recent[i].link, now);
}

static void
add_sample (DonarMonitor * monitor, guint link, guint out_of_order)
{
  monitor->window_sum[link] += out_of_order;
  monitor->window_count[link]++;
}

void
donar_monitor_on_arrival (DonarMonitor * monitor, guint32 seq, guint link,
    guint out_of_order)
{
  DonarExpectedFrame *frame = expected_slot (monitor, seq);

  add_sample (monitor, link, out_of_order);
  if (!monitor->arrived_any[link] ||
      donar_seq_diff (seq, monitor->last_arrival[link]) > 0) {
    monitor->last_arrival[link] = seq;
    monitor->arrived_any[link] = TRUE;
  }
  if (monitor->silent[link] &&
      donar_seq_diff (seq, monitor->silent_from[link]) >= 0)
    monitor->silent[link] = FALSE;
  if (frame) {
    gint k = expected_link (frame, link);

    if (k >= 0)
      frame->arrived |= 1 << k;
    mark (monitor, frame);
  }
}

void
donar_monitor_set_remote (DonarMonitor * monitor, const guint16 * scores,
    guint n_scores, gint64 now)
{
  for (guint i = 0; i < MIN (n_scores, monitor->n_links); i++) {
    if (scores[i] == DONAR_WIRE_SCORE_UNKNOWN)
      continue;
    monitor->remote[i] = scores[i];
    monitor->remote_time[i] = now;
  }
}

void
donar_monitor_close_window (DonarMonitor * monitor,
    const DonarReceiver * receiver)
{
  for (guint i = 0; i < DONAR_MONITOR_HISTORY; i++) {
    DonarExpectedFrame *frame = &monitor->expected[i];
    guint newer;

    if (!frame->valid)
      continue;
    if (!receiver->started ||
        donar_seq_diff (receiver->highest, frame->seq) >=
        DONAR_MONITOR_HISTORY) {
      frame->valid = FALSE;
      mark (monitor, frame);
      continue;
    }
    if (frame_complete (frame))
      continue;
    /* A copy still on its way once later frames are in is the slow link's
     * doing: it is charged every window until it arrives. */
    newer = donar_receiver_count_newer (receiver, frame->seq);
    if (newer == 0)
      continue;
    for (guint k = 0; k < frame->n_links; k++)
      if (!(frame->arrived & (1 << k)))
        add_sample (monitor, frame->links[k], newer);
  }

  for (guint link = 0; link < monitor->n_links; link++) {
    if (monitor->window_count[link] == 0)
      monitor->local[link] = DONAR_SCORE_UNKNOWN;
    else
      monitor->local[link] = MIN (monitor->window_sum[link] * 100 /
          monitor->window_count[link], G_MAXINT32);
    monitor->window_sum[link] = 0;
    monitor->window_count[link] = 0;
    monitor->alarm[link] = 0;
  }
}

/* Frames this far back from the newest are looked at again and again while
 * they stay missing; beyond, the window's charge takes over. */
#define OVERDUE_SPAN 32

/* The bits of `incomplete` for the 32 slots from `start` on, wrapping
 * around the history: bit i is slot (start + i) % DONAR_MONITOR_HISTORY. */
static guint32
incomplete_window (const DonarMonitor * monitor, guint start)
{
  const guint words = DONAR_MONITOR_HISTORY / 32;
  guint w = start / 32, b = start % 32;
  guint64 pair = monitor->incomplete[w] |
      (guint64) monitor->incomplete[(w + 1) % words] << 32;

  return (guint32) (pair >> b);
}

guint32
donar_monitor_check_overdue (DonarMonitor * monitor,
    const DonarReceiver * receiver, guint alarm_frames)
{
  guint32 overdue = 0, oldest, candidates;

  if (!receiver->started || alarm_frames == 0)
    return 0;
  /* The frames alarm_frames .. alarm_frames + OVERDUE_SPAN - 1 behind the
   * newest, of which only the incomplete ones; their order does not
   * matter (a bit set, a maximum). */
  G_STATIC_ASSERT (OVERDUE_SPAN == 32);
  oldest = receiver->highest - (alarm_frames + OVERDUE_SPAN - 1);
  candidates = incomplete_window (monitor, oldest % DONAR_MONITOR_HISTORY);
  while (candidates) {
    guint32 seq = oldest + __builtin_ctz (candidates);
    const DonarExpectedFrame *frame =
        &monitor->expected[seq % DONAR_MONITOR_HISTORY];
    guint newer;

    candidates &= candidates - 1;
    if (frame->seq != seq)
      continue;
    newer = donar_receiver_count_newer (receiver, seq);
    if (newer < alarm_frames)
      continue;
    for (guint k = 0; k < frame->n_links; k++) {
      guint link = frame->links[k];

      if (frame->arrived & (1 << k))
        continue;
      overdue |= 1u << link;
      monitor->alarm[link] = MAX (monitor->alarm[link], (gint32) newer * 100);
    }
  }
  return overdue;
}

guint
donar_monitor_silent_frames (const DonarMonitor * monitor,
    const DonarReceiver * receiver, guint link)
{
  gint32 behind;

  if (!monitor->silent[link] || !receiver->started)
    return 0;
  behind = donar_seq_diff (receiver->highest, monitor->silent_from[link]);
  return behind > 0 ? (guint) behind : 0;
}

gint64
donar_monitor_silence_us (const DonarMonitor * monitor,
    const DonarReceiver * receiver, guint link, gint64 now,
    gint64 frame_period_us)
{
  gint64 by_frames = (gint64) donar_monitor_silent_frames (monitor, receiver,
      link) * frame_period_us;

  if (by_frames == 0)
    return 0;
  return MAX (0, MIN (by_frames, now - monitor->silent_since[link]));
}

gint32
donar_monitor_reported (const DonarMonitor * monitor, guint link)
{
  if (monitor->alarm[link] > 0)
    return MAX (monitor->local[link], monitor->alarm[link]);
  return monitor->local[link];
}

gint32
donar_monitor_local (const DonarMonitor * monitor, guint link)
{
  return monitor->local[link];
}

gint32
donar_monitor_remote (const DonarMonitor * monitor, guint link, gint64 now)
{
  if (monitor->remote[link] == DONAR_SCORE_UNKNOWN ||
      now - monitor->remote_time[link] > monitor->remote_ttl_us)
    return DONAR_SCORE_UNKNOWN;
  return monitor->remote[link];
}

gint32
donar_monitor_score (const DonarMonitor * monitor, guint link, gint64 now)
{
  gint32 local = donar_monitor_local (monitor, link);
  gint32 remote = donar_monitor_remote (monitor, link, now);

  switch (monitor->merge) {
    case DONAR_MERGE_LOCAL:
      return local;
    case DONAR_MERGE_REMOTE:
      return remote;
    case DONAR_MERGE_MEAN:
    default:
      if (local == DONAR_SCORE_UNKNOWN)
        return remote;
      if (remote == DONAR_SCORE_UNKNOWN)
        return local;
      return (local + remote) / 2;
  }
}
