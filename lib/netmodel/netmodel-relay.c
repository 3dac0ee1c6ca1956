/* A relay of the link model: its base delay, its spike timeline and, for a
 * guard, its failure events.  Links that share a relay call the same object,
 * so they see the same spikes and the same failures. */
#include <math.h>

#include "netmodel-private.h"

/* Spikes behind the last send are dropped in batches of this many, so that
 * a long call keeps a short array without moving it on every spike. */
#define SPIKES_KEPT_BEHIND 64

/* How long the relay stays in its current state (exponential, the means
 * set so that it is flaky spike_flaky_fraction of the time); forever when
 * spike_flaky_mean_s is 0. */
static gint64
regime_duration_us (DonarRelay * relay)
{
  const DonarNetModelParams *p = relay->params;
  gdouble f = p->spike_flaky_fraction, mean_s;

  if (p->spike_flaky_mean_s <= 0.0 || f <= 0.0 || f >= 1.0)
    return G_MAXINT64 / 4;
  mean_s = relay->spike_flaky ? p->spike_flaky_mean_s :
      p->spike_flaky_mean_s * (1.0 - f) / f;
  return 1 + (gint64) (donar_random_exponential (relay->rand, mean_s) * 1e6);
}

DonarRelay *
donar_relay_new (const DonarNetModelParams * params, guint64 seed,
    guint64 identity, gboolean is_guard, gint64 created_us)
{
  DonarRelay *relay = g_new0 (DonarRelay, 1);
  gdouble spike_factor;

  relay->params = params;
  relay->seed = seed;
  relay->identity = identity;
  relay->rand = donar_random_new (seed, identity);
  relay->is_guard = is_guard;

  /* The order of these draws is part of the model: changing it changes
   * every seed's network. */
  relay->base_us = (gint64) (1000.0 *
      donar_random_lognormal (relay->rand, params->relay_base_median_ms,
          params->relay_base_sigma));
  relay->loss_probability = MIN (0.5,
      donar_random_lognormal (relay->rand, params->loss_median,
          params->loss_sigma));
  /* A relay is calm or flaky (overloaded, badly connected), and switches
   * between the two every so often: flaky relays spike more often.  Which
   * state it is in does not depend on its base delay, so that spikes strike
   * good and bad links alike (seed 000, Fig. 5). */
  spike_factor = donar_random_lognormal (relay->rand, 1.0,
      params->spike_gap_sigma);
  relay->spike_gap_calm_s = params->spike_gap_median_s * spike_factor;
  relay->spike_gap_flaky_s = params->spike_gap_flaky_median_s * spike_factor;
  relay->spike_flaky = g_rand_double (relay->rand) <
      params->spike_flaky_fraction;
  relay->bandwidth_bytes_per_s = 1024.0 *
      donar_random_lognormal (relay->rand, params->guard_bandwidth_median_kib,
      params->guard_bandwidth_sigma);
  relay->bucket_phase_us = g_rand_int_range (relay->rand, 0, 1000000);

  /* Sized once for what a relay holds in a call (the spikes kept behind
   * the last send, a batch, the one ahead), so that its heap does not
   * follow how flaky it has been: a long call stays flat. */
  relay->spikes = g_array_sized_new (FALSE, FALSE, sizeof (DonarSpike),
      2 * SPIKES_KEPT_BEHIND + 2);
  relay->created_us = created_us;
  relay->timeline_end_us = created_us;
  relay->regime_end_us = created_us + regime_duration_us (relay);

  if (is_guard) {
    relay->failure_rate_per_us = params->guard_failures_per_hour / 3600e6;
    relay->failures = g_array_new (FALSE, FALSE, sizeof (gint64));
  }
  return relay;
}

void
donar_relay_free (DonarRelay * relay)
{
  if (relay == NULL)
    return;
  g_rand_free (relay->rand);
  g_array_unref (relay->spikes);
  if (relay->injected)
    g_array_unref (relay->injected);
  if (relay->failures)
    g_array_unref (relay->failures);
  if (relay->congestion)
    g_array_unref (relay->congestion);
  g_free (relay);
}

/* Draws the next quiet period and the spike after it. */
static void
draw_next_spike (DonarRelay * relay)
{
  const DonarNetModelParams *p = relay->params;
  DonarSpike spike;
  gdouble gap_s, duration_s, extra_ms;

  for (;;) {
    gap_s = donar_random_exponential (relay->rand, relay->spike_flaky ?
        relay->spike_gap_flaky_s : relay->spike_gap_calm_s);
    if (relay->timeline_end_us + gap_s * 1e6 < relay->regime_end_us)
      break;
    /* The relay changes state first.  Quiet periods are exponential, hence
     * memoryless: draw again from the change with the new rate. */
    relay->timeline_end_us = relay->regime_end_us;
    relay->spike_flaky = !relay->spike_flaky;
    relay->regime_end_us += regime_duration_us (relay);
  }
  duration_s = MIN (p->spike_duration_max_s,
      donar_random_pareto (relay->rand, p->spike_duration_min_s,
          p->spike_duration_alpha));
  extra_ms = MIN (p->spike_extra_max_ms,
      donar_random_lognormal (relay->rand, p->spike_extra_median_ms,
          p->spike_extra_sigma));

  /* At least 1 µs apart, so that spikes never overlap. */
  spike.start_us = relay->timeline_end_us + 1 + (gint64) (gap_s * 1e6);
  spike.end_us = spike.start_us + 1 + (gint64) (duration_s * 1e6);
  spike.extra_us = (gint64) (extra_ms * 1000.0);
  g_array_append_val (relay->spikes, spike);
  relay->timeline_end_us = spike.end_us;
}

static gint64
injected_delay (const DonarRelay * relay, gint64 t)
{
  gint64 extra = 0;
  guint i;

  for (i = 0; i < relay->injected->len; i++) {
    const DonarSpike *s = &g_array_index (relay->injected, DonarSpike, i);

    if (s->start_us <= t && t < s->end_us)
      extra += s->extra_us;
  }
  return extra;
}

gint64
donar_relay_spike_delay (DonarRelay * relay, gint64 t, gboolean advance)
{
  const DonarSpike *spikes;
  gint64 extra = 0;
  guint i, len;

  if (relay->params->spike_gap_median_s > 0.0 || relay->forced_flaky) {
    while (relay->timeline_end_us <= t)
      draw_next_spike (relay);

    spikes = (const DonarSpike *) relay->spikes->data;
    len = relay->spikes->len;
    i = MIN (relay->peek_cursor, len);
    /* A peek may look behind the last send. */
    while (i > 0 && spikes[i - 1].end_us > t)
      i--;
    while (i < len && spikes[i].end_us <= t)
      i++;
    if (i < len && spikes[i].start_us <= t)
      extra = spikes[i].extra_us;

    relay->peek_cursor = i;
    if (advance) {
      relay->cursor = i;
      if (relay->cursor >= 2 * SPIKES_KEPT_BEHIND) {
        g_array_remove_range (relay->spikes, 0, SPIKES_KEPT_BEHIND);
        relay->cursor -= SPIKES_KEPT_BEHIND;
        relay->peek_cursor = relay->cursor;
      }
    }
  }

  if (relay->injected)
    extra += injected_delay (relay, t);
  return extra;
}

void
donar_relay_inject_spike (DonarRelay * relay, gint64 start_us,
    gint64 duration_us, gint64 extra_us)
{
  DonarSpike spike = { start_us, start_us + duration_us, extra_us };

  if (relay->injected == NULL)
    relay->injected = g_array_new (FALSE, FALSE, sizeof (DonarSpike));
  g_array_append_val (relay->injected, spike);
}

void
donar_relay_force_flaky (DonarRelay * relay, gdouble gap_s)
{
  g_return_if_fail (gap_s > 0.0);
  g_return_if_fail (relay->spikes->len == 0 &&
      relay->timeline_end_us == relay->created_us);

  relay->forced_flaky = TRUE;
  relay->spike_flaky = TRUE;
  relay->spike_gap_flaky_s = gap_s;
  /* Never calm again: draw_next_spike () never reaches the change. */
  relay->regime_end_us = G_MAXINT64 / 4;
}

gint64
donar_relay_next_failure (DonarRelay * relay, gint64 t)
{
  guint i;

  if (!relay->is_guard || relay->failure_rate_per_us <= 0.0)
    return G_MAXINT64;

  /* Failure events are rare (a few per guard per year of calls): keep them
   * all and scan.  Event k comes from a hash, not from the relay's GRand,
   * so that asking for failures never shifts the spike timeline. */
  for (i = 0;; i++) {
    gint64 event;

    if (i == relay->failures->len) {
      gint64 previous = i == 0 ? relay->created_us :
          g_array_index (relay->failures, gint64, i - 1);
      gdouble u = donar_hash_uniform (donar_hash (relay->seed,
              relay->identity, G_GUINT64_CONSTANT (0xfa11), i));
      gdouble gap_us = -log (1.0 - u) / relay->failure_rate_per_us;

      /* Beyond ~292 000 years: it does not fail. */
      if (gap_us >= (gdouble) (G_MAXINT64 / 4) || previous >= G_MAXINT64 / 4)
        return G_MAXINT64;
      event = previous + 1 + (gint64) gap_us;
      g_array_append_val (relay->failures, event);
    }
    event = g_array_index (relay->failures, gint64, i);
    if (event > t)
      return event;
  }
}
