/* Internals of the Tor link model, shared by its .c files only. */
#ifndef DONAR_NETMODEL_PRIVATE_H
#define DONAR_NETMODEL_PRIVATE_H

#include "donar-netmodel.h"

G_BEGIN_DECLS

#define DONAR_US_PER_S G_GINT64_CONSTANT (1000000)
#define DONAR_US_PER_MS G_GINT64_CONSTANT (1000)

/* ---- Randomness (netmodel-random.c) ----
 * Slow processes (a relay's spikes, a circuit's draws) use their own GRand,
 * seeded from the model seed and the object's identity, so that what one
 * object draws never depends on how often another one was asked.  Per-packet
 * draws are a hash of (seed, link, direction, send time): send and peek then
 * see the same jitter and loss without any state. */
GRand *donar_random_new (guint64 seed, guint64 identity);
gdouble donar_random_exponential (GRand * rand, gdouble mean);
gdouble donar_random_lognormal (GRand * rand, gdouble median, gdouble sigma);
gdouble donar_random_pareto (GRand * rand, gdouble minimum, gdouble alpha);
guint64 donar_hash (guint64 seed, guint64 a, guint64 b, guint64 c);
guint64 donar_hash_next (guint64 h);
gdouble donar_hash_uniform (guint64 h);

/* ---- Relays (netmodel-relay.c) ---- */

/* A period of extra delay at a relay, [start_us, end_us). */
typedef struct
{
  gint64 start_us;
  gint64 end_us;
  gint64 extra_us;
} DonarSpike;

/* Bulk cross traffic through a relay, [start_us, end_us). */
typedef struct
{
  gint64 start_us;
  gint64 end_us;
  gdouble demand_bytes_per_s;
  gdouble max_backlog_bytes;
} DonarCongestion;

typedef struct
{
  const DonarNetModelParams *params;
  guint64 seed;
  guint64 identity;
  gint64 created_us;

  gint64 base_us;
  gdouble loss_probability;

  /* The spike timeline, drawn lazily in time order from `rand`. */
  GRand *rand;
  gboolean spike_flaky;
  gint64 regime_end_us;         /* when spike_flaky flips */
  gdouble spike_gap_calm_s;
  gdouble spike_gap_flaky_s;
  GArray *spikes;               /* DonarSpike, sorted, disjoint */
  guint cursor;                 /* first spike not over at the last send */
  /* The same at the last look, send or peek: where the next one starts
   * its search.  The oracle peeks at every link at every frame, and a
   * link it leaves unused would otherwise search from its last send
   * through every spike since.  The search finds the same spike from
   * anywhere: they are sorted and disjoint. */
  guint peek_cursor;
  gint64 timeline_end_us;       /* spikes are known up to here */
  GArray *injected;             /* DonarSpike, from add_spike; or NULL */
  gboolean forced_flaky;        /* donar_relay_force_flaky () */

  /* Guards only. */
  gboolean is_guard;
  gdouble failure_rate_per_us;
  GArray *failures;             /* gint64, event times, sorted */
  gdouble bandwidth_bytes_per_s;
  gint64 bucket_phase_us;
  GArray *congestion;           /* DonarCongestion; or NULL */
} DonarRelay;

DonarRelay *donar_relay_new (const DonarNetModelParams * params, guint64 seed,
    guint64 identity, gboolean is_guard, gint64 created_us);
void donar_relay_free (DonarRelay * relay);
/* Spike delay at t (drawn and injected).  With `advance`, t is a send time
 * (non-decreasing) and the relay forgets what lies behind it. */
gint64 donar_relay_spike_delay (DonarRelay * relay, gint64 t, gboolean advance);
void donar_relay_inject_spike (DonarRelay * relay, gint64 start_us,
    gint64 duration_us, gint64 extra_us);
/* Keeps the relay flaky for good, with exponential quiet periods of mean
 * gap_s between its spikes, whatever the parameters say of calm and flaky
 * periods (the *_guard_spike_gap_s parameters).  Before the first look at
 * its spikes, so that its timeline is drawn from the start this way. */
void donar_relay_force_flaky (DonarRelay * relay, gdouble gap_s);
/* The first failure event of a guard strictly after t; G_MAXINT64 for a
 * relay that is not a guard or a guard that never fails. */
gint64 donar_relay_next_failure (DonarRelay * relay, gint64 t);

/* ---- Cross traffic (netmodel-cross.c) ---- */
void donar_relay_add_congestion (DonarRelay * relay, gint64 start_us,
    gint64 duration_us, const DonarCrossTraffic * traffic);
gint64 donar_relay_congestion_delay (const DonarRelay * relay, gint64 t,
    gsize bytes);

/* ---- Traces (netmodel-trace.c) ---- */
typedef struct
{
  gint64 send_us;
  gint64 delay_us;
} DonarTraceRow;

typedef struct
{
  GArray *rows;                 /* DonarTraceRow, send_us increasing */
  gint64 failure_us;            /* G_MAXINT64 when it does not fail */
} DonarTrace;

DonarTrace *donar_trace_load (const char *path, gint64 origin_us,
    GError ** error);
void donar_trace_free (DonarTrace * trace);
/* The delay of a packet sent at t (< failure_us).  *cursor speeds up
 * lookups in time order; it is only moved with `advance`. */
gint64 donar_trace_delay (const DonarTrace * trace, gint64 t, guint * cursor,
    gboolean advance);

G_END_DECLS

#endif /* DONAR_NETMODEL_PRIVATE_H */
