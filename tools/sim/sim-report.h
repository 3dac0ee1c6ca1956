/* The measures of seed 000, Table 1, over the calls of a run. */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include "sim-call.h"

G_BEGIN_DECLS

/* Latencies in 1 ms bins up to a minute; later ones in the last bin. */
#define SIM_HISTOGRAM_BINS 60000
/* A call is dropped after this many consecutive missing frames (1 s). */
#define SIM_DROP_FRAMES 25

typedef struct
{
  guint64 frames;               /* both directions */
  guint64 lost;
  guint64 late;                 /* delivered after the deadline */
  gboolean successful;
  gboolean dropped;
  gint64 p99_us;                /* -1: beyond every delivered frame (lost) */
  gint64 max_us;                /* the latest delivered frame; -1: none */
  guint64 records_over_window;
  guint64 bytes_sent;
  guint64 messages_sent;
  guint64 link_failures;
  guint64 stalled_frames;
  guint32 *histogram;           /* SIM_HISTOGRAM_BINS, delivered frames */
} SimCallSummary;

/* A frame later than deadline_us is late (it counts against a successful
 * call); one later than drop_after_us, or lost, is missing (25 missing in a
 * row drop the call). */
void sim_summarize_call (const SimCallResult * result, gint64 deadline_us,
    gint64 drop_after_us, SimCallSummary * summary);
void sim_call_summary_clear (SimCallSummary * summary);

typedef struct
{
  const char *policy;
  const char *security;
  guint oracle_sends;
  guint oracle_lag_ms;
  guint calls;
  gdouble duration_s;
  guint64 seed;
  gdouble cpu_s;
  /* With a cut: its length plus the deadline; the frames later than this
   * came late even for a call that expects the cut (0: no cut). */
  gint64 late_after_cut_us;
} SimRunInfo;

/* One JSON object (the format of `donar-sim --json`) or a short text
 * report, from the summaries of every call of the run, in call order. */
GString *sim_report (const SimRunInfo * info, const SimCallSummary * calls,
    gboolean json);

/* Writes the latencies of every delivered frame of the run as CSV rows
 * `latency_ms,frames` (bins of 1 ms, empty bins left out), for CDF plots. */
gboolean sim_write_histogram (const char *path, const SimCallSummary * calls,
    guint n_calls, GError ** error);

G_END_DECLS

#endif /* SIM_REPORT_H */
