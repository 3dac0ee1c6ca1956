/* Deduplication by sequence number in bounded memory. */
#include "donar-receiver.h"

#include <string.h>

#define SLOT(seq) ((seq) % DONAR_RECEIVER_WINDOW)

static gboolean
bit_get (const DonarReceiver * receiver, guint32 seq)
{
  return (receiver->delivered[SLOT (seq) / 32] >> (SLOT (seq) % 32)) & 1;
}

static void
bit_set (DonarReceiver * receiver, guint32 seq, gboolean value)
{
  guint32 mask = 1u << (SLOT (seq) % 32);

  if (value)
    receiver->delivered[SLOT (seq) / 32] |= mask;
  else
    receiver->delivered[SLOT (seq) / 32] &= ~mask;
}

void
donar_receiver_reset (DonarReceiver * receiver)
{
  memset (receiver, 0, sizeof *receiver);
}

DonarReceived
donar_receiver_accept (DonarReceiver * receiver, guint32 seq)
{
  gint32 ahead;

  if (!receiver->started) {
    receiver->started = TRUE;
    receiver->highest = seq;
    bit_set (receiver, seq, TRUE);
    return DONAR_RECEIVED_NEW;
  }

  ahead = donar_seq_diff (seq, receiver->highest);
  if (ahead > 0) {
    /* Slots between the old and the new highest now stand for numbers
     * never seen: clear them. */
    if (ahead >= DONAR_RECEIVER_WINDOW)
      memset (receiver->delivered, 0, sizeof receiver->delivered);
    else
      for (guint32 s = receiver->highest + 1; s != seq; s++)
        bit_set (receiver, s, FALSE);
    receiver->highest = seq;
    bit_set (receiver, seq, TRUE);
    return DONAR_RECEIVED_NEW;
  }
  /* Not -ahead: half the number space away, ahead is G_MININT32, whose
   * negation overflows. */
  if (ahead <= -DONAR_RECEIVER_WINDOW)
    return DONAR_RECEIVED_TOO_OLD;
  if (bit_get (receiver, seq))
    return DONAR_RECEIVED_DUPLICATE;
  bit_set (receiver, seq, TRUE);
  return DONAR_RECEIVED_NEW;
}

gboolean
donar_receiver_has (const DonarReceiver * receiver, guint32 seq)
{
  gint32 behind;

  if (!receiver->started)
    return FALSE;
  behind = donar_seq_diff (receiver->highest, seq);
  if (behind < 0 || behind >= DONAR_RECEIVER_WINDOW)
    return FALSE;
  return bit_get (receiver, seq);
}

guint
donar_receiver_count_newer (const DonarReceiver * receiver, guint32 seq)
{
  gint32 behind;
  guint count = 0;
  guint32 s;

  if (!receiver->started)
    return 0;
  behind = donar_seq_diff (receiver->highest, seq);
  if (behind <= 0)
    return 0;
  behind = MIN (behind, DONAR_RECEIVER_WINDOW - 1);
  /* The numbers seq + 1 .. highest, a bit at a time up to a word boundary,
   * then a word at a time. */
  s = receiver->highest - behind + 1;
  while (behind > 0) {
    guint bit = SLOT (s) % 32;

    if (bit == 0 && behind >= 32) {
      count += __builtin_popcount (receiver->delivered[SLOT (s) / 32]);
      s += 32;
      behind -= 32;
    } else {
      count += bit_get (receiver, s);
      s++;
      behind--;
    }
  }
  return count;
}
