/* Which frames were delivered: the first copy of each passes, later copies
 * are duplicates.  Sequence numbers are 32-bit and wrap around; memory is a
 * fixed window of the latest DONAR_RECEIVER_WINDOW numbers. */
#ifndef DONAR_RECEIVER_H
#define DONAR_RECEIVER_H

#include "donar.h"

G_BEGIN_DECLS

#define DONAR_RECEIVER_WINDOW 1024

typedef enum
{
  DONAR_RECEIVED_NEW,
  DONAR_RECEIVED_DUPLICATE,
  /* Behind the window: it cannot be told from a duplicate, and a frame that
   * late is of no use to a call. */
  DONAR_RECEIVED_TOO_OLD,
} DonarReceived;

typedef struct
{
  guint32 delivered[DONAR_RECEIVER_WINDOW / 32];
  guint32 highest;
  gboolean started;
} DonarReceiver;

/* Serial number arithmetic (RFC 1982): positive when a is after b. */
static inline gint32
donar_seq_diff (guint32 a, guint32 b)
{
  return (gint32) (a - b);
}

void donar_receiver_reset (DonarReceiver * receiver);
DonarReceived donar_receiver_accept (DonarReceiver * receiver, guint32 seq);
gboolean donar_receiver_has (const DonarReceiver * receiver, guint32 seq);
/* How many frames after seq were delivered: the out-of-order metric of a
 * copy of seq arriving now. */
guint donar_receiver_count_newer (const DonarReceiver * receiver,
    guint32 seq);

G_END_DECLS

#endif /* DONAR_RECEIVER_H */
