/* Bulk cross traffic through a guard (seed 003).
 *
 * Relays are slow (the majority under 100 KiB/s in seed 003) and rate-limit
 * themselves with token buckets refilled once a second.  Bulk downloads
 * that ask more than a relay's bandwidth fill its output queue; every cell
 * of every circuit through the relay then waits behind that backlog, and for
 * the next refill of an empty bucket.  The backlog is a fluid: it grows at
 * (demand - bandwidth), is bounded by what the flows may have in flight (a
 * stream window of 500 cells, 250 KiB, each), and drains at the bandwidth
 * once they stop.  Voice (about 12 KiB/s a call) is left out of the load. */
#include <math.h>

#include "netmodel-private.h"

#define STREAM_WINDOW_BYTES (500.0 * 512.0)
#define CELL_BYTES 514.0
#define CELL_PAYLOAD_BYTES 498

void
donar_relay_add_congestion (DonarRelay * relay, gint64 start_us,
    gint64 duration_us, const DonarCrossTraffic * traffic)
{
  DonarCongestion congestion;

  congestion.start_us = start_us;
  congestion.end_us = start_us + MAX (duration_us, 0);
  congestion.demand_bytes_per_s = traffic->n_flows * traffic->flow_kib_per_s
      * 1024.0;
  congestion.max_backlog_bytes = traffic->n_flows * STREAM_WINDOW_BYTES;

  if (relay->congestion == NULL)
    relay->congestion = g_array_new (FALSE, FALSE, sizeof (DonarCongestion));
  g_array_append_val (relay->congestion, congestion);
}

/* The backlog of one period at t, in bytes. */
static gdouble
backlog_at (const DonarCongestion * c, gdouble bandwidth, gint64 t)
{
  gdouble growth = c->demand_bytes_per_s - bandwidth;
  gdouble backlog;

  if (growth <= 0.0)
    return 0.0;
  backlog = growth * (MIN (t, c->end_us) - c->start_us) / 1e6;
  backlog = MIN (backlog, c->max_backlog_bytes);
  if (t > c->end_us)
    backlog -= bandwidth * (t - c->end_us) / 1e6;
  return MAX (backlog, 0.0);
}

gint64
donar_relay_congestion_delay (const DonarRelay * relay, gint64 t, gsize bytes)
{
  gdouble bandwidth = relay->bandwidth_bytes_per_s;
  gdouble cells = (gdouble) ((bytes + CELL_PAYLOAD_BYTES - 1) /
      CELL_PAYLOAD_BYTES);
  gdouble wait_s = 0.0;
  guint i;

  if (relay->congestion == NULL)
    return 0;

  /* Overlapping periods are rare; each adds its own wait. */
  for (i = 0; i < relay->congestion->len; i++) {
    const DonarCongestion *c =
        &g_array_index (relay->congestion, DonarCongestion, i);
    gdouble backlog;

    if (t < c->start_us)
      continue;
    backlog = backlog_at (c, bandwidth, t);
    if (backlog > 0.0 || (t < c->end_us && c->demand_bytes_per_s >= bandwidth)) {
      /* Saturated: the bucket is emptied right after each refill, so the
       * packet waits for the next refill, then one more second for every
       * bucketful of backlog ahead of it. */
      gint64 since_phase = t - relay->bucket_phase_us;
      gint64 to_refill = DONAR_US_PER_S -
          (since_phase % DONAR_US_PER_S + DONAR_US_PER_S) % DONAR_US_PER_S;

      wait_s += to_refill / 1e6 + floor (backlog / bandwidth)
          + cells * CELL_BYTES / bandwidth;
    } else if (t < c->end_us) {
      /* Busy but not saturated: the mean wait of an M/D/1 queue of cells. */
      gdouble load = c->demand_bytes_per_s / bandwidth;

      wait_s += load / (2.0 * (1.0 - load)) * CELL_BYTES / bandwidth
          + cells * CELL_BYTES / bandwidth;
    }
  }
  return (gint64) (wait_s * 1e6);
}
