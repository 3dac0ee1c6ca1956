/* The Tor link model: how the onion links of one call delay and lose data.
 *
 * Sans-I/O like the protocol core: no socket, no thread, no clock.  Every
 * time is passed in (microseconds, the call's time axis) and everything that
 * looks random comes from the seed, so a run is repeatable.  donar-sim drives
 * it in virtual time, donar-torsim in real time.  docs/netmodel.md describes
 * the model, its parameters and its calibration on seed 000, section 3.
 */
#ifndef DONAR_NETMODEL_H
#define DONAR_NETMODEL_H

#include <glib.h>

G_BEGIN_DECLS

/* The security configurations of seed 000, section 5 (Fig. 7). */
typedef enum
{
  DONAR_SECURITY_DEFAULT,       /* 6 relays, 2 guards on each side */
  DONAR_SECURITY_2HOP,          /* 4 relays, 2 guards on each side */
  DONAR_SECURITY_1WAY,          /* 4 relays, callee side not anonymous */
} DonarSecurity;

#define DONAR_SECURITY_COUNT 3

const char *donar_security_to_string (DonarSecurity s);
gboolean donar_security_from_string (const char *s, DonarSecurity * out);

/* Most relays a link crosses (the Default configuration). */
#define DONAR_NET_MODEL_MAX_PATH 6
/* Guards a Tor client keeps (seed 000, section 3: n = 2). */
#define DONAR_NET_MODEL_GUARDS 2

/* The parameters of the model.  donar_net_model_params_init() fills in the
 * calibrated values of a security configuration; tests and what-if runs may
 * change fields before donar_net_model_new_with_params().  Times in ms or s
 * as the field name says, so that the values read like docs/netmodel.md. */
typedef struct
{
  DonarSecurity security;

  /* Base delay of a relay (its queue in quiet times plus the hop after it),
   * lognormal across relays. */
  gdouble relay_base_median_ms;
  gdouble relay_base_sigma;
  /* The caller's and the callee's own access to Tor, each. */
  gdouble access_ms;
  /* Per-packet jitter: exponential, this mean for each relay of the path. */
  gdouble jitter_mean_ms_per_relay;

  /* Spikes: each relay alternates quiet periods (exponential, mean drawn per
   * relay from a lognormal) and spikes (Pareto durations, lognormal
   * amplitudes added to the delay of everything that crosses the relay).
   * A relay is flaky (shorter quiet periods) a fraction of the time, in
   * periods of exponential length (mean spike_flaky_mean_s; 0: a relay
   * stays as it was drawn).  spike_gap_median_s = 0 turns spikes off. */
  gdouble spike_gap_median_s;
  gdouble spike_gap_sigma;
  gdouble spike_flaky_fraction;
  gdouble spike_gap_flaky_median_s;
  gdouble spike_flaky_mean_s;
  gdouble spike_duration_min_s;
  gdouble spike_duration_alpha;
  gdouble spike_duration_max_s;
  gdouble spike_extra_median_ms;
  gdouble spike_extra_sigma;
  gdouble spike_extra_max_ms;

  /* Cell loss on the hop after a relay (per packet, lognormal across
   * relays): TCP retransmits it, and the stream behind waits (seed 002). */
  gdouble loss_median;
  gdouble loss_sigma;
  /* The retransmission takes 2 hop delays plus uniform [0, this]. */
  gdouble retransmit_extra_max_ms;

  /* Failures.  A guard fails as a Poisson process (rate per hour) and takes
   * every circuit through it along; the other relays of a circuit fail
   * with a Weibull hazard counted from when the circuit was ready. */
  gdouble guard_failures_per_hour;
  gdouble relay_failure_scale_s;
  gdouble relay_failure_shape;

  /* Circuit and rendezvous setup after a reopen, lognormal. */
  gdouble setup_median_s;
  gdouble setup_sigma;

  /* Relays of a path when not 0 (2 to DONAR_NET_MODEL_MAX_PATH), instead
   * of the configuration's own: with 1way and 3, a guard, a middle and a
   * fresh last relay, i.e. the exit link of seed 000, Fig. 3.A, on which
   * the relays are calibrated.  0 in every configuration. */
  gdouble path_relays;

  /* Guard bandwidth (lognormal, KiB/s); only cross traffic uses it. */
  gdouble guard_bandwidth_median_kib;
  gdouble guard_bandwidth_sigma;

  /* When not 0: the caller's (side 0) or the callee's (side 1) guards are
   * flaky for the whole call, with exponential quiet periods of this mean
   * between their spikes (durations and amounts as any relay's), even
   * with spike_gap_median_s = 0.  Every link of a side crosses one of its
   * 2 guards, so their spikes strike half the links at once: a scenario
   * of shared fate (docs/evaluation.md, "Shared fate").  0 in every
   * configuration; without guards on the callee's side (1way) the
   * callee's is ignored. */
  gdouble caller_guard_spike_gap_s;
  gdouble callee_guard_spike_gap_s;
} DonarNetModelParams;

void donar_net_model_params_init (DonarNetModelParams * params,
    DonarSecurity security);

/* Relays on a link's path, and how many of them are guards. */
guint donar_security_path_length (DonarSecurity security);
guint donar_security_path_guards (DonarSecurity security);
/* The same for given parameters (path_relays). */
guint donar_net_model_params_path_length (const DonarNetModelParams *
    params);

/* The fraction of circuits that have failed t_s seconds after they became
 * ready, from the hazard alone: 1 - exp (-cumulative hazard). */
gdouble donar_net_model_params_failed_fraction (const DonarNetModelParams *
    params, gdouble t_s);

/* The numeric fields of DonarNetModelParams by name (e.g.
 * "spike_gap_median_s"), for what-if runs.  set() refuses an unknown name
 * or a negative or non-finite value.  names() is NULL-terminated. */
const char *const *donar_net_model_params_names (void);
gboolean donar_net_model_params_set (DonarNetModelParams * params,
    const char *name, gdouble value);
gboolean donar_net_model_params_get (const DonarNetModelParams * params,
    const char *name, gdouble * value);

typedef struct _DonarNetModel DonarNetModel;

/* One call's network: n_links onion links between the caller (side 0) and
 * the callee (side 1).  The links' first circuits are ready at time 0 (the
 * call starts once they are up). */
DonarNetModel *donar_net_model_new (DonarSecurity security, guint n_links,
    guint64 seed);
/* The same with other parameters and a time origin (when the first circuits
 * are ready; donar-torsim passes its monotonic start time). */
DonarNetModel *donar_net_model_new_with_params (const DonarNetModelParams *
    params, guint n_links, guint64 seed, gint64 origin_us);
void donar_net_model_free (DonarNetModel * m);

guint donar_net_model_get_n_links (DonarNetModel * m);
const DonarNetModelParams *donar_net_model_get_params (DonarNetModel * m);

/* A packet of `bytes` handed to link `link` in direction dir (0 = caller to
 * callee, 1 = callee to caller) at send_us.  Returns its arrival time: >=
 * send_us and >= the previous arrival on the same link and direction (an
 * in-order byte stream: head-of-line blocking).  Returns -1 if the circuit of
 * the link has failed at or before send_us, or fails while the packet is
 * still in flight (its arrival would come after the failure).  A packet
 * sent before the circuit is ready waits for it.  Calls come in
 * non-decreasing send_us across the whole model. */
gint64 donar_net_model_send (DonarNetModel * m, guint link, guint dir,
    gint64 send_us, gsize bytes);
/* What donar_net_model_send() would return, without changing the state
 * (for an oracle that knows the future).  send_us may lie in the future. */
gint64 donar_net_model_peek (DonarNetModel * m, guint link, guint dir,
    gint64 send_us, gsize bytes);

/* When the current circuit of `link` fails (G_MAXINT64 if it does not). */
gint64 donar_net_model_failure_time (DonarNetModel * m, guint link);
/* When the current circuit of `link` is ready. */
gint64 donar_net_model_ready_time (DonarNetModel * m, guint link);
/* Builds a new circuit for `link` at now: new relays, the sides' guards
 * kept (a guard failure is a broken connection, the guard comes back).
 * Returns when it is ready (circuit and rendezvous setup, a few seconds). */
gint64 donar_net_model_reopen (DonarNetModel * m, guint link, gint64 now);

/* Guard `guard` (0 or 1) of side 0 (caller) or 1 (callee) fails for good
 * at now: every circuit through it fails at now (one still being built
 * too: its failure time then comes before its ready time, and the link
 * must be reopened), and circuits built from now on take the side's other
 * guard, as tor would once it has marked the guard down.  FALSE (and
 * nothing changes) when that side has no such guard or already lost one:
 * a side keeps at least one guard. */
gboolean donar_net_model_fail_guard (DonarNetModel * m, guint side,
    guint guard, gint64 now);

/* Which guard (0 or 1) of side 0 (caller) or 1 (callee) the current circuit
 * of `link` goes through; -1 when that side has no guard on the path. */
gint donar_net_model_link_guard (DonarNetModel * m, guint link, guint side);
/* The delay of the current circuit of `link` without jitter, spikes, loss
 * or cross traffic: the sides' access plus the relays' base delays. */
gint64 donar_net_model_link_base_delay (DonarNetModel * m, guint link);

/* Adds a spike of extra_us to the relay at position `hop` (0 = next to the
 * caller) of the current circuit of `link` for [start_us, start_us +
 * duration_us).  When that relay is a guard, every link through it sees
 * the spike.  For tests and scripted scenarios. */
void donar_net_model_add_spike (DonarNetModel * m, guint link, guint hop,
    gint64 start_us, gint64 duration_us, gint64 extra_us);

/* Trace replay.  Link i follows the file link<i>.csv of dir (i in decimal,
 * from 0) when it exists; other links follow the model.  Rows
 * `send_ms,delay_ms`, send_ms strictly increasing, relative to the model's
 * origin: the one-way delay (both directions) of a packet sent at send_ms.
 * A packet sent between two rows takes the earlier row's delay (before the
 * first row, the first row's).  An empty delay means the circuit fails at
 * send_ms.  After a reopen the link follows the model.  A bad file: FALSE
 * and a GError naming the file and the line. */
#define DONAR_NET_MODEL_ERROR (donar_net_model_error_quark ())
GQuark donar_net_model_error_quark (void);
typedef enum
{
  DONAR_NET_MODEL_ERROR_NO_TRACE,
  DONAR_NET_MODEL_ERROR_BAD_ROW,
  DONAR_NET_MODEL_ERROR_BAD_PARAMETER,
} DonarNetModelError;

/* "NAME=VALUE" (the --set of the tools): donar_net_model_params_set(), or
 * FALSE and a DONAR_NET_MODEL_ERROR_BAD_PARAMETER error saying why. */
gboolean donar_net_model_params_assign (DonarNetModelParams * params,
    const char *assignment, GError ** error);

gboolean donar_net_model_load_traces (DonarNetModel * m, const char *dir,
    GError ** error);
gboolean donar_net_model_link_is_traced (DonarNetModel * m, guint link);

/* Cross traffic (seed 003): bulk downloads through one guard, shared by
 * every link of that side that uses it. */
typedef struct
{
  guint side;                   /* 0: a caller's guard, 1: a callee's */
  guint guard;                  /* which of the side's 2 guards */
  guint n_flows;                /* bulk downloads */
  gdouble flow_kib_per_s;       /* what each would take if it could */
} DonarCrossTraffic;

/* The guard's backlog grows while the flows ask more than its bandwidth
 * (bounded by their stream windows, 250 KiB each) and drains afterwards;
 * a packet waits for the backlog and, while the guard is saturated, for
 * the next refill of its token bucket (once a second). */
void donar_net_model_add_cross_traffic (DonarNetModel * m, gint64 start_us,
    gint64 duration_us, const DonarCrossTraffic * traffic);
/* The bandwidth of a guard, bytes per second. */
gdouble donar_net_model_guard_bandwidth (DonarNetModel * m, guint side,
    guint guard);

/* One relay on its own, outside a call, as the model draws its relays: a
 * base delay, calm and flaky periods, spikes (docs/netmodel.md).  For
 * donar-shaper, which puts the model's relays in front of real tor relays
 * (docs/tornet.md).  The same (params, seed, index) is the same relay. */
typedef struct _DonarNetRelay DonarNetRelay;

DonarNetRelay *donar_net_relay_new (const DonarNetModelParams * params,
    guint64 seed, guint index, gint64 origin_us);
void donar_net_relay_free (DonarNetRelay * r);
gint64 donar_net_relay_base_delay (DonarNetRelay * r);
/* The extra delay of the relay's spike at t, 0 between spikes.  t does not
 * decrease from one call to the next (the relay forgets what lies behind
 * it). */
gint64 donar_net_relay_spike_delay (DonarNetRelay * r, gint64 t);
/* The relay's capacity in bytes per second, drawn as a guard's
 * (guard_bandwidth_median_kib, _sigma): what tools/tornet sets as a real
 * relay's BandwidthRate. */
gdouble donar_net_relay_bandwidth (DonarNetRelay * r);

G_END_DECLS

#endif /* DONAR_NETMODEL_H */
