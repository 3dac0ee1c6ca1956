#include "frame-log-playout.h"

#include <stdlib.h>
#include <string.h>

typedef struct
{
  gint64 since_us, offset_us;
} Change;

typedef struct
{
  gint64 send_us, arrival_us;
} Arrival;

static int
cmp_arrival (const void *a, const void *b)
{
  const Arrival *x = a, *y = b;

  if (x->arrival_us != y->arrival_us)
    return x->arrival_us < y->arrival_us ? -1 : 1;
  return x->send_us < y->send_us ? -1 : x->send_us > y->send_us;
}

gboolean
frame_log_playout_adaptive (const FrameLog * log,
    const DonarPlayoutConfig * config, gboolean base_known, gint64 * due,
    guint64 * estimator_late)
{
  DonarPlayout *p = donar_playout_new (config);
  Arrival *arr = g_new (Arrival, log->n);
  GArray *changes = g_array_new (FALSE, FALSE, sizeof (Change));
  guint m = 0, k = 0;
  gint64 floor_us = G_MAXINT64;
  DonarPlayoutStats st;

  for (guint i = 0; i < log->n; i++)
    if (log->arrival_us[i] != FRAME_LOG_LOST) {
      arr[m].send_us = log->send_us[i];
      arr[m].arrival_us = log->arrival_us[i];
      m++;
      floor_us = MIN (floor_us, log->arrival_us[i] - log->send_us[i]);
    }
  qsort (arr, m, sizeof *arr, cmp_arrival);

  for (guint j = 0; j < m; j++) {
    gint64 offset;
    Change *last = changes->len ?
        &g_array_index (changes, Change, changes->len - 1) : NULL;

    donar_playout_push (p, arr[j].send_us, arr[j].arrival_us);
    if (base_known) {
      /* One clock: the relative base is the absolute one. */
      donar_playout_get_stats (p, &st);
      donar_playout_set_base_delay (p, st.base_us);
    }
    donar_playout_get_offset (p, &offset);
    if (last && last->since_us == arr[j].arrival_us) {
      last->offset_us = offset;
    } else if (!last || last->offset_us != offset) {
      Change change;

      change.since_us = arr[j].arrival_us;
      change.offset_us = offset;
      g_array_append_val (changes, change);
    }
  }
  if (estimator_late) {
    donar_playout_get_stats (p, &st);
    *estimator_late = st.late;
  }

  for (guint i = 0; i < log->n && changes->len > 0; i++) {
    gint64 send = log->send_us[i];

    /* Start at the last change before send + floor (no offset was below
     * the smallest delay), then find the first interval where it is due. */
    while (k > 0 && g_array_index (changes, Change, k).since_us >
        send + floor_us)
      k--;
    while (k + 1 < changes->len &&
        g_array_index (changes, Change, k + 1).since_us <= send + floor_us)
      k++;
    for (guint c = k; c < changes->len; c++) {
      const Change *ch = &g_array_index (changes, Change, c);

      due[i] = MAX (ch->since_us, send + ch->offset_us);
      if (c + 1 == changes->len ||
          due[i] < g_array_index (changes, Change, c + 1).since_us)
        break;
    }
  }

  g_array_free (changes, TRUE);
  g_free (arr);
  donar_playout_free (p);
  return m > 0;
}
