/* The links of one call: each link is an in-order stream over the relays of
 * its current circuit; a packet's delay is the sum of what the relays add
 * at its send time, and it cannot overtake the packet before it
 * (head-of-line blocking, seeds 002 and 004). */
#include <math.h>

#include "netmodel-private.h"

/* What identities seed: guards, the relays of a circuit, a circuit's own
 * draws.  Part of the model: changing them changes every seed's network. */
#define IDENTITY_GUARD (G_GUINT64_CONSTANT (1) << 60)
#define IDENTITY_RELAY (G_GUINT64_CONSTANT (2) << 60)
#define IDENTITY_CIRCUIT (G_GUINT64_CONSTANT (3) << 60)

/* A failed guard's circuits go to "the other" guard of its side. */
G_STATIC_ASSERT (DONAR_NET_MODEL_GUARDS == 2);

typedef struct
{
  guint generation;             /* 0 for the first circuit, +1 a reopen */
  DonarRelay *relays[DONAR_NET_MODEL_MAX_PATH]; /* caller side first */
  gboolean owns_relay[DONAR_NET_MODEL_MAX_PATH];        /* FALSE: a guard */
  guint n_relays;
  gint guard[2];                /* per side, -1: none */

  gint64 ready_us;
  gint64 failure_us;            /* G_MAXINT64: never */
  gint64 last_arrival_us[2];    /* per direction, for in-order delivery */

  /* Sums over the path, cached because every packet needs them. */
  gint64 base_us;
  gdouble jitter_mean_us;
  gdouble loss_probability;

  const DonarTrace *trace;      /* non-NULL: the circuit follows it */
  guint trace_cursor;
} DonarCircuit;

struct _DonarNetModel
{
  DonarNetModelParams params;
  guint64 seed;
  gint64 origin_us;
  guint n_links;
  DonarRelay *guards[2][DONAR_NET_MODEL_GUARDS];        /* NULL: none */
  /* When a guard failed for good (donar_net_model_fail_guard);
   * G_MAXINT64: it has not. */
  gint64 guard_down_us[2][DONAR_NET_MODEL_GUARDS];
  DonarCircuit *circuits;
  DonarTrace **traces;          /* per link, NULL when it has none */
};

GQuark
donar_net_model_error_quark (void)
{
  return g_quark_from_static_string ("donar-net-model-error-quark");
}

static guint64
circuit_identity (guint link, guint generation)
{
  return IDENTITY_CIRCUIT | ((guint64) link << 40) | ((guint64) generation
      << 8);
}

static void
circuit_clear (DonarCircuit * c)
{
  guint i;

  for (i = 0; i < c->n_relays; i++) {
    if (c->owns_relay[i])
      donar_relay_free (c->relays[i]);
    c->relays[i] = NULL;
  }
  c->n_relays = 0;
}

/* Builds circuit `generation` of `link`, asked for at now.  The first
 * circuits are ready at once; later ones after a setup time. */
static void
circuit_build (DonarNetModel * m, guint link, guint generation, gint64 now)
{
  const DonarNetModelParams *p = &m->params;
  DonarCircuit *c = &m->circuits[link];
  DonarSecurity security = p->security;
  GRand *rand = donar_random_new (m->seed, circuit_identity (link,
          generation));
  guint n_relays = donar_net_model_params_path_length (p);
  guint n_guards = donar_security_path_guards (security);
  gdouble setup_s, hazard_draw, other_s;
  gint64 failure_us;
  guint i;

  circuit_clear (c);
  c->generation = generation;
  c->n_relays = n_relays;

  /* Always the same draws in the same order, used or not. */
  c->guard[0] = g_rand_int_range (rand, 0, DONAR_NET_MODEL_GUARDS);
  c->guard[1] = g_rand_int_range (rand, 0, DONAR_NET_MODEL_GUARDS);
  setup_s = donar_random_lognormal (rand, p->setup_median_s, p->setup_sigma);
  hazard_draw = donar_random_exponential (rand, 1.0);
  g_rand_free (rand);

  if (n_guards < 2)
    c->guard[1] = -1;
  /* A guard that failed for good is not used again: the side's other one
   * takes the circuit, as tor would once it has marked the guard down.
   * The draw above is made all the same, so that the rest of the circuit
   * is the one it would have been. */
  for (i = 0; i < 2; i++)
    if (c->guard[i] >= 0 && m->guard_down_us[i][c->guard[i]] <= now)
      c->guard[i] = 1 - c->guard[i];
  c->ready_us = generation == 0 ? now : now + (gint64) (setup_s * 1e6);

  for (i = 0; i < n_relays; i++) {
    gboolean caller_guard = i == 0;
    gboolean callee_guard = n_guards == 2 && i == n_relays - 1;

    if (caller_guard || callee_guard) {
      c->relays[i] = m->guards[caller_guard ? 0 : 1][c->guard[caller_guard ?
              0 : 1]];
      c->owns_relay[i] = FALSE;
    } else {
      c->relays[i] = donar_relay_new (p, m->seed, IDENTITY_RELAY |
          ((guint64) link << 40) | ((guint64) generation << 8) | i, FALSE, now);
      c->owns_relay[i] = TRUE;
    }
  }

  c->base_us = 2 * (gint64) (p->access_ms * 1000.0);
  c->loss_probability = 0.0;
  for (i = 0; i < n_relays; i++) {
    c->base_us += c->relays[i]->base_us;
    c->loss_probability += c->relays[i]->loss_probability;
  }
  c->jitter_mean_us = n_relays * p->jitter_mean_ms_per_relay * 1000.0;

  /* The relays that are not guards: Weibull hazard from the ready time,
   * drawn by inverting the survival function exp (-n (t / scale)^shape). */
  failure_us = G_MAXINT64;
  if (p->relay_failure_scale_s > 0.0 && n_relays > n_guards) {
    other_s = p->relay_failure_scale_s *
        pow (hazard_draw / (n_relays - n_guards), 1.0 / p->relay_failure_shape);
    if (other_s < 1e12)
      failure_us = c->ready_us + (gint64) (other_s * 1e6);
  }
  /* The guards: their shared failure events after the ready time. */
  for (i = 0; i < n_relays; i++) {
    if (!c->owns_relay[i])
      failure_us = MIN (failure_us,
          donar_relay_next_failure (c->relays[i], c->ready_us));
  }
  c->failure_us = failure_us;

  c->last_arrival_us[0] = c->last_arrival_us[1] = G_MININT64;
  c->trace = NULL;
  c->trace_cursor = 0;
}

/* The *_guard_spike_gap_s parameters: a side's guards flaky for the whole
 * call.  Only the guards: the other relays belong to one circuit each, so
 * their spikes are not shared. */
static void
force_flaky_guards (DonarNetModel * m)
{
  gdouble gap_s[2] = { m->params.caller_guard_spike_gap_s,
    m->params.callee_guard_spike_gap_s
  };
  guint side, g;

  for (side = 0; side < 2; side++)
    for (g = 0; g < DONAR_NET_MODEL_GUARDS; g++)
      if (gap_s[side] > 0.0 && m->guards[side][g] != NULL)
        donar_relay_force_flaky (m->guards[side][g], gap_s[side]);
}

DonarNetModel *
donar_net_model_new (DonarSecurity security, guint n_links, guint64 seed)
{
  DonarNetModelParams params;

  donar_net_model_params_init (&params, security);
  return donar_net_model_new_with_params (&params, n_links, seed, 0);
}

DonarNetModel *
donar_net_model_new_with_params (const DonarNetModelParams * params,
    guint n_links, guint64 seed, gint64 origin_us)
{
  DonarNetModel *m;
  guint side, g, link;

  g_return_val_if_fail (params != NULL, NULL);
  g_return_val_if_fail ((guint) params->security < DONAR_SECURITY_COUNT, NULL);
  g_return_val_if_fail (n_links > 0 && n_links < (1 << 20), NULL);

  m = g_new0 (DonarNetModel, 1);
  m->params = *params;
  m->seed = seed;
  m->origin_us = origin_us;
  m->n_links = n_links;

  for (side = 0; side < 2; side++) {
    if (side == 1 && donar_security_path_guards (params->security) < 2)
      continue;
    for (g = 0; g < DONAR_NET_MODEL_GUARDS; g++)
      m->guards[side][g] = donar_relay_new (&m->params, seed,
          IDENTITY_GUARD | (side << 8) | g, TRUE, origin_us);
  }
  force_flaky_guards (m);
  for (side = 0; side < 2; side++)
    for (g = 0; g < DONAR_NET_MODEL_GUARDS; g++)
      m->guard_down_us[side][g] = G_MAXINT64;

  m->circuits = g_new0 (DonarCircuit, n_links);
  m->traces = g_new0 (DonarTrace *, n_links);
  for (link = 0; link < n_links; link++)
    circuit_build (m, link, 0, origin_us);
  return m;
}

void
donar_net_model_free (DonarNetModel * m)
{
  guint side, g, link;

  if (m == NULL)
    return;
  for (link = 0; link < m->n_links; link++) {
    circuit_clear (&m->circuits[link]);
    donar_trace_free (m->traces[link]);
  }
  for (side = 0; side < 2; side++)
    for (g = 0; g < DONAR_NET_MODEL_GUARDS; g++)
      donar_relay_free (m->guards[side][g]);
  g_free (m->circuits);
  g_free (m->traces);
  g_free (m);
}

guint
donar_net_model_get_n_links (DonarNetModel * m)
{
  g_return_val_if_fail (m != NULL, 0);
  return m->n_links;
}

const DonarNetModelParams *
donar_net_model_get_params (DonarNetModel * m)
{
  g_return_val_if_fail (m != NULL, NULL);
  return &m->params;
}

/* The one-way delay the relays of c give a packet sent at t. */
static gint64
model_delay (DonarNetModel * m, DonarCircuit * c, guint link, guint dir,
    gint64 t, gsize bytes, gboolean advance)
{
  const DonarNetModelParams *p = &m->params;
  guint64 h = donar_hash (m->seed, ((guint64) link << 1) | dir, (guint64) t,
      c->generation);
  gint64 delay = c->base_us;
  gdouble u;
  guint i;

  /* Spikes and cross traffic are read at the send time at every relay:
   * they last far longer than a packet takes to cross the path. */
  for (i = 0; i < c->n_relays; i++) {
    DonarRelay *r = c->relays[i];

    delay += donar_relay_spike_delay (r, t, advance);
    if (r->congestion != NULL)
      delay += donar_relay_congestion_delay (r, t, bytes);
  }

  u = donar_hash_uniform (h);
  delay += (gint64) (-log (1.0 - u) * c->jitter_mean_us);

  /* A cell lost on a hop: TCP retransmits it after about a round trip of
   * that hop, and the stream waits behind it. */
  h = donar_hash_next (h);
  u = donar_hash_uniform (h);
  if (u < c->loss_probability) {
    gdouble cumulated = 0.0;

    for (i = 0; i + 1 < c->n_relays; i++) {
      cumulated += c->relays[i]->loss_probability;
      if (u < cumulated)
        break;
    }
    h = donar_hash_next (h);
    delay += 2 * c->relays[i]->base_us +
        (gint64) (donar_hash_uniform (h) * p->retransmit_extra_max_ms * 1000.0);
  }
  return delay;
}

static gint64
arrival_time (DonarNetModel * m, guint link, guint dir, gint64 send_us,
    gsize bytes, gboolean advance)
{
  DonarCircuit *c = &m->circuits[link];
  gint64 start_us, delay_us, arrival_us;

  if (send_us >= c->failure_us)
    return -1;
  start_us = MAX (send_us, c->ready_us);
  if (c->trace != NULL)
    delay_us = donar_trace_delay (c->trace, start_us, &c->trace_cursor,
        advance);
  else
    delay_us = model_delay (m, c, link, dir, start_us, bytes, advance);

  arrival_us = MAX (start_us + delay_us, c->last_arrival_us[dir]);
  if (advance)
    c->last_arrival_us[dir] = arrival_us;
  /* Still in flight when the circuit breaks: lost. */
  if (arrival_us > c->failure_us)
    return -1;
  return arrival_us;
}

gint64
donar_net_model_send (DonarNetModel * m, guint link, guint dir,
    gint64 send_us, gsize bytes)
{
  g_return_val_if_fail (m != NULL, -1);
  g_return_val_if_fail (link < m->n_links, -1);
  g_return_val_if_fail (dir < 2, -1);

  return arrival_time (m, link, dir, send_us, bytes, TRUE);
}

gint64
donar_net_model_peek (DonarNetModel * m, guint link, guint dir,
    gint64 send_us, gsize bytes)
{
  g_return_val_if_fail (m != NULL, -1);
  g_return_val_if_fail (link < m->n_links, -1);
  g_return_val_if_fail (dir < 2, -1);

  return arrival_time (m, link, dir, send_us, bytes, FALSE);
}

gint64
donar_net_model_failure_time (DonarNetModel * m, guint link)
{
  g_return_val_if_fail (m != NULL, G_MAXINT64);
  g_return_val_if_fail (link < m->n_links, G_MAXINT64);

  return m->circuits[link].failure_us;
}

gint64
donar_net_model_ready_time (DonarNetModel * m, guint link)
{
  g_return_val_if_fail (m != NULL, G_MAXINT64);
  g_return_val_if_fail (link < m->n_links, G_MAXINT64);

  return m->circuits[link].ready_us;
}

gint64
donar_net_model_reopen (DonarNetModel * m, guint link, gint64 now)
{
  DonarCircuit *c;

  g_return_val_if_fail (m != NULL, -1);
  g_return_val_if_fail (link < m->n_links, -1);

  c = &m->circuits[link];
  circuit_build (m, link, c->generation + 1, now);
  return c->ready_us;
}

gboolean
donar_net_model_fail_guard (DonarNetModel * m, guint side, guint guard,
    gint64 now)
{
  guint link;

  g_return_val_if_fail (m != NULL, FALSE);
  g_return_val_if_fail (side < 2 && guard < DONAR_NET_MODEL_GUARDS, FALSE);

  /* The side needs a guard left to build circuits through. */
  if (m->guards[side][guard] == NULL ||
      m->guard_down_us[side][guard] != G_MAXINT64 ||
      m->guard_down_us[side][1 - guard] != G_MAXINT64)
    return FALSE;
  m->guard_down_us[side][guard] = now;
  for (link = 0; link < m->n_links; link++) {
    DonarCircuit *c = &m->circuits[link];

    if (c->guard[side] == (gint) guard && c->failure_us > now)
      c->failure_us = now;
  }
  return TRUE;
}

gint
donar_net_model_link_guard (DonarNetModel * m, guint link, guint side)
{
  g_return_val_if_fail (m != NULL, -1);
  g_return_val_if_fail (link < m->n_links, -1);
  g_return_val_if_fail (side < 2, -1);

  return m->circuits[link].guard[side];
}

gint64
donar_net_model_link_base_delay (DonarNetModel * m, guint link)
{
  g_return_val_if_fail (m != NULL, -1);
  g_return_val_if_fail (link < m->n_links, -1);

  return m->circuits[link].base_us;
}

void
donar_net_model_add_spike (DonarNetModel * m, guint link, guint hop,
    gint64 start_us, gint64 duration_us, gint64 extra_us)
{
  DonarCircuit *c;

  g_return_if_fail (m != NULL);
  g_return_if_fail (link < m->n_links);
  c = &m->circuits[link];
  g_return_if_fail (hop < c->n_relays);

  donar_relay_inject_spike (c->relays[hop], start_us, duration_us, extra_us);
}

gboolean
donar_net_model_load_traces (DonarNetModel * m, const char *dir,
    GError ** error)
{
  DonarTrace **loaded;
  gboolean any = FALSE, ok = TRUE;
  guint link;

  g_return_val_if_fail (m != NULL, FALSE);
  g_return_val_if_fail (dir != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* All or nothing: a bad file leaves the model as it was. */
  loaded = g_new0 (DonarTrace *, m->n_links);
  for (link = 0; ok && link < m->n_links; link++) {
    char *name = g_strdup_printf ("link%u.csv", link);
    char *path = g_build_filename (dir, name, NULL);

    if (g_file_test (path, G_FILE_TEST_EXISTS)) {
      any = TRUE;
      loaded[link] = donar_trace_load (path, m->origin_us, error);
      ok = loaded[link] != NULL;
    }
    g_free (path);
    g_free (name);
  }
  if (ok && !any) {
    g_set_error (error, DONAR_NET_MODEL_ERROR, DONAR_NET_MODEL_ERROR_NO_TRACE,
        "%s: no link<i>.csv for links 0 to %u", dir, m->n_links - 1);
    ok = FALSE;
  }
  if (!ok) {
    for (link = 0; link < m->n_links; link++)
      donar_trace_free (loaded[link]);
    g_free (loaded);
    return FALSE;
  }

  for (link = 0; link < m->n_links; link++) {
    DonarCircuit *c = &m->circuits[link];

    if (loaded[link] == NULL)
      continue;
    donar_trace_free (m->traces[link]);
    m->traces[link] = loaded[link];
    c->trace = loaded[link];
    c->trace_cursor = 0;
    c->failure_us = loaded[link]->failure_us;
    c->last_arrival_us[0] = c->last_arrival_us[1] = G_MININT64;
  }
  g_free (loaded);
  return TRUE;
}

gboolean
donar_net_model_link_is_traced (DonarNetModel * m, guint link)
{
  g_return_val_if_fail (m != NULL, FALSE);
  g_return_val_if_fail (link < m->n_links, FALSE);

  return m->circuits[link].trace != NULL;
}

void
donar_net_model_add_cross_traffic (DonarNetModel * m, gint64 start_us,
    gint64 duration_us, const DonarCrossTraffic * traffic)
{
  g_return_if_fail (m != NULL);
  g_return_if_fail (traffic != NULL);
  g_return_if_fail (traffic->side < 2);
  g_return_if_fail (traffic->guard < DONAR_NET_MODEL_GUARDS);
  g_return_if_fail (m->guards[traffic->side][traffic->guard] != NULL);

  donar_relay_add_congestion (m->guards[traffic->side][traffic->guard],
      start_us, duration_us, traffic);
}

gdouble
donar_net_model_guard_bandwidth (DonarNetModel * m, guint side, guint guard)
{
  g_return_val_if_fail (m != NULL, 0.0);
  g_return_val_if_fail (side < 2 && guard < DONAR_NET_MODEL_GUARDS, 0.0);

  if (m->guards[side][guard] == NULL)
    return 0.0;
  return m->guards[side][guard]->bandwidth_bytes_per_s;
}
