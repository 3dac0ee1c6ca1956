/* The security configurations and the calibrated parameters of the link
 * model.  docs/netmodel.md gives the reasons for each value and the
 * calibration figures they produce (donar-netmodel-calibrate). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "netmodel-private.h"

static const char *const security_names[DONAR_SECURITY_COUNT] = {
  "default", "2hop", "1way"
};

const char *
donar_security_to_string (DonarSecurity s)
{
  if ((guint) s >= DONAR_SECURITY_COUNT)
    return "unknown";
  return security_names[s];
}

gboolean
donar_security_from_string (const char *s, DonarSecurity * out)
{
  guint i;

  g_return_val_if_fail (out != NULL, FALSE);
  if (s == NULL)
    return FALSE;
  for (i = 0; i < DONAR_SECURITY_COUNT; i++) {
    if (strcmp (s, security_names[i]) == 0) {
      *out = (DonarSecurity) i;
      return TRUE;
    }
  }
  return FALSE;
}

guint
donar_security_path_length (DonarSecurity security)
{
  /* Default: caller guard, middle, rendezvous, then the service's 3-hop
   * circuit to it (middle, middle, guard).  2-hop: the patched client
   * builds guard-rendezvous, the service guard-middle-rendezvous.  1-way:
   * the client's 3 hops and one relay on the single-onion service side. */
  return security == DONAR_SECURITY_DEFAULT ? 6 : 4;
}

guint
donar_security_path_guards (DonarSecurity security)
{
  /* 1-way: the service's single relay has no guard pool constraint
   * (seed 000, section 5), so it is a fresh relay on every circuit. */
  return security == DONAR_SECURITY_1WAY ? 1 : 2;
}

void
donar_net_model_params_init (DonarNetModelParams * params,
    DonarSecurity security)
{
  g_return_if_fail (params != NULL);

  memset (params, 0, sizeof (*params));
  params->security = security;

  /* Relays behave the same in every configuration: the configurations
   * differ by how many relays a link crosses and which are guards, which
   * is where "more relays, more spikes and failures" comes from. */
  params->relay_base_median_ms = 24.0;
  params->relay_base_sigma = 0.5;
  params->access_ms = 5.0;
  params->jitter_mean_ms_per_relay = 1.5;

  params->spike_gap_median_s = 3000.0;
  params->spike_gap_sigma = 1.5;
  params->spike_flaky_fraction = 0.15;
  params->spike_gap_flaky_median_s = 10.0;
  params->spike_flaky_mean_s = 7200.0;
  params->spike_duration_min_s = 0.1;
  params->spike_duration_alpha = 1.2;
  params->spike_duration_max_s = 60.0;
  params->spike_extra_median_ms = 400.0;
  params->spike_extra_sigma = 0.8;
  params->spike_extra_max_ms = 5000.0;

  params->loss_median = 5e-5;
  params->loss_sigma = 1.5;
  params->retransmit_extra_max_ms = 300.0;

  params->guard_failures_per_hour = 0.01;
  params->relay_failure_scale_s = 3.32e6;
  params->relay_failure_shape = 0.5;

  switch (security) {
    case DONAR_SECURITY_DEFAULT:
      params->setup_median_s = 3.0;
      break;
    case DONAR_SECURITY_2HOP:
      params->setup_median_s = 2.2;
      break;
    case DONAR_SECURITY_1WAY:
    default:
      params->setup_median_s = 2.4;
      break;
  }
  params->setup_sigma = 0.4;

  params->guard_bandwidth_median_kib = 250.0;
  params->guard_bandwidth_sigma = 0.7;
}

guint
donar_net_model_params_path_length (const DonarNetModelParams * params)
{
  guint n = (guint) params->path_relays;

  if (n == 0)
    return donar_security_path_length (params->security);
  return CLAMP (n, 2, DONAR_NET_MODEL_MAX_PATH);
}

gdouble
donar_net_model_params_failed_fraction (const DonarNetModelParams * params,
    gdouble t_s)
{
  guint n_relays = donar_net_model_params_path_length (params);
  guint n_guards = donar_security_path_guards (params->security);
  gdouble hazard;

  if (t_s <= 0.0)
    return 0.0;
  hazard = n_guards * params->guard_failures_per_hour * t_s / 3600.0;
  if (params->relay_failure_scale_s > 0.0)
    hazard += (n_relays - n_guards) *
        pow (t_s / params->relay_failure_scale_s, params->relay_failure_shape);
  return 1.0 - exp (-hazard);
}

/* The numeric fields by name, for what-if runs from the command line. */
typedef struct
{
  const char *name;
  gsize offset;
} ParamField;

#define FIELD(f) { #f, offsetof (DonarNetModelParams, f) }
static const ParamField param_fields[] = {
  FIELD (relay_base_median_ms),
  FIELD (relay_base_sigma),
  FIELD (access_ms),
  FIELD (jitter_mean_ms_per_relay),
  FIELD (spike_gap_median_s),
  FIELD (spike_gap_sigma),
  FIELD (spike_flaky_fraction),
  FIELD (spike_gap_flaky_median_s),
  FIELD (spike_flaky_mean_s),
  FIELD (spike_duration_min_s),
  FIELD (spike_duration_alpha),
  FIELD (spike_duration_max_s),
  FIELD (spike_extra_median_ms),
  FIELD (spike_extra_sigma),
  FIELD (spike_extra_max_ms),
  FIELD (loss_median),
  FIELD (loss_sigma),
  FIELD (retransmit_extra_max_ms),
  FIELD (guard_failures_per_hour),
  FIELD (relay_failure_scale_s),
  FIELD (relay_failure_shape),
  FIELD (setup_median_s),
  FIELD (setup_sigma),
  FIELD (path_relays),
  FIELD (guard_bandwidth_median_kib),
  FIELD (guard_bandwidth_sigma),
  FIELD (caller_guard_spike_gap_s),
  FIELD (callee_guard_spike_gap_s),
};

#undef FIELD

const char *const *
donar_net_model_params_names (void)
{
  static const char *names[G_N_ELEMENTS (param_fields) + 1];
  guint i;

  /* Filled each time: cheap, and no one-time initialisation to guard. */
  for (i = 0; i < G_N_ELEMENTS (param_fields); i++)
    names[i] = param_fields[i].name;
  names[i] = NULL;
  return names;
}

static gdouble *
param_field (DonarNetModelParams * params, const char *name)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (param_fields); i++)
    if (strcmp (name, param_fields[i].name) == 0)
      return (gdouble *) ((char *) params + param_fields[i].offset);
  return NULL;
}

gboolean
donar_net_model_params_set (DonarNetModelParams * params, const char *name,
    gdouble value)
{
  gdouble *field;

  g_return_val_if_fail (params != NULL && name != NULL, FALSE);
  field = param_field (params, name);
  if (field == NULL || !isfinite (value) || value < 0.0)
    return FALSE;
  *field = value;
  return TRUE;
}

gboolean
donar_net_model_params_get (const DonarNetModelParams * params,
    const char *name, gdouble * value)
{
  gdouble *field;

  g_return_val_if_fail (params != NULL && name != NULL && value, FALSE);
  field = param_field ((DonarNetModelParams *) params, name);
  if (field == NULL)
    return FALSE;
  *value = *field;
  return TRUE;
}

gboolean
donar_net_model_params_assign (DonarNetModelParams * params,
    const char *assignment, GError ** error)
{
  gchar **pair = g_strsplit (assignment, "=", 2);
  gchar *end = NULL;
  gdouble value = 0.0;
  gboolean ok = FALSE;

  if (pair[0] == NULL || pair[0][0] == '\0' || pair[1] == NULL) {
    g_set_error (error, DONAR_NET_MODEL_ERROR,
        DONAR_NET_MODEL_ERROR_BAD_PARAMETER, "'%s' is not NAME=VALUE",
        assignment);
  } else if (value = g_ascii_strtod (pair[1], &end),
      pair[1][0] == '\0' || *end != '\0') {
    g_set_error (error, DONAR_NET_MODEL_ERROR,
        DONAR_NET_MODEL_ERROR_BAD_PARAMETER, "'%s' is not a number", pair[1]);
  } else if (!donar_net_model_params_set (params, pair[0], value)) {
    g_set_error (error, DONAR_NET_MODEL_ERROR,
        DONAR_NET_MODEL_ERROR_BAD_PARAMETER,
        "unknown parameter '%s' or bad value '%s' (a parameter of "
        "docs/netmodel.md, a finite value >= 0)", pair[0], pair[1]);
  } else {
    ok = TRUE;
  }
  g_strfreev (pair);
  return ok;
}
