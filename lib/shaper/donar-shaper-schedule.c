/* The delay schedule of a relay in donar-shaper (sans-I/O): spikes by hand
 * and, optionally, a relay of lib/netmodel. */
#include <math.h>

#include "donar-shaper-schedule.h"

typedef struct
{
  gint64 start_us;
  gint64 end_us;
  gint64 extra_us;
  gboolean hold;                /* extra: end_us - t (all due at end_us) */
} Spike;

struct _DonarShaperSchedule
{
  gint64 base_us;               /* unscaled */
  gdouble scale;
  GArray *spikes;               /* Spike, in the order given */
  DonarNetRelay *model;         /* or NULL */
};

DonarShaperSchedule *
donar_shaper_schedule_new (gint64 base_us)
{
  DonarShaperSchedule *s = g_new0 (DonarShaperSchedule, 1);

  s->base_us = base_us;
  s->scale = 1.0;
  s->spikes = g_array_new (FALSE, FALSE, sizeof (Spike));
  return s;
}

DonarShaperSchedule *
donar_shaper_schedule_new_from_model (const DonarNetModelParams * params,
    guint64 seed, guint index, gint64 base_us)
{
  /* The schedule's time 0 is the model relay's creation. */
  DonarNetRelay *model = donar_net_relay_new (params, seed, index, 0);
  DonarShaperSchedule *s = donar_shaper_schedule_new (base_us >= 0 ? base_us
      : donar_net_relay_base_delay (model));

  s->model = model;
  return s;
}

void
donar_shaper_schedule_free (DonarShaperSchedule * s)
{
  if (s == NULL)
    return;
  donar_net_relay_free (s->model);
  g_array_unref (s->spikes);
  g_free (s);
}

void
donar_shaper_schedule_set_scale (DonarShaperSchedule * s, gdouble scale)
{
  g_return_if_fail (scale >= 0.0 && isfinite (scale));
  s->scale = scale;
}

gdouble
donar_shaper_schedule_scale (const DonarShaperSchedule * s)
{
  return s->scale;
}

static gint64
scaled (const DonarShaperSchedule * s, gint64 us)
{
  return s->scale == 1.0 ? us : (gint64) llround (s->scale * (gdouble) us);
}

gint64
donar_shaper_schedule_base (const DonarShaperSchedule * s)
{
  return scaled (s, s->base_us);
}

void
donar_shaper_schedule_add_spike (DonarShaperSchedule * s, gint64 start_us,
    gint64 duration_us, gint64 extra_us)
{
  Spike spike = { start_us, start_us + duration_us, extra_us, FALSE };

  g_array_append_val (s->spikes, spike);
}

void
donar_shaper_schedule_add_hold (DonarShaperSchedule * s, gint64 start_us,
    gint64 duration_us)
{
  Spike spike = { start_us, start_us + duration_us, 0, TRUE };

  g_array_append_val (s->spikes, spike);
}

guint
donar_shaper_schedule_n_spikes (const DonarShaperSchedule * s)
{
  return s->spikes->len;
}

gint64
donar_shaper_schedule_delay (DonarShaperSchedule * s, gint64 t)
{
  gint64 extra = 0, hold = 0;

  if (s->model != NULL)
    extra += donar_net_relay_spike_delay (s->model, t);
  /* A scan: spikes by hand are a handful.  Those of the model come from
   * its relay, which keeps a cursor. */
  for (guint i = 0; i < s->spikes->len; i++) {
    const Spike *spike = &g_array_index (s->spikes, Spike, i);

    if (spike->start_us > t || t >= spike->end_us)
      continue;
    /* A hold is a moment, not a relay's delay: the scale leaves it. */
    if (spike->hold)
      hold += spike->end_us - t;
    else
      extra += spike->extra_us;
  }
  return donar_shaper_schedule_base (s) + scaled (s, extra) + hold;
}

gint64
donar_shaper_release_time (gint64 * last_release_us, gint64 t, gint64 delay_us)
{
  gint64 release = MAX (*last_release_us, t + delay_us);

  *last_release_us = release;
  return release;
}

static gboolean
parse_ms (const char *text, gint64 * out_us)
{
  gchar *end = NULL;
  gdouble ms = g_ascii_strtod (text, &end);

  if (end == text || *end != '\0' || !isfinite (ms) || ms < 0.0 || ms > 1e12)
    return FALSE;
  *out_us = (gint64) llround (ms * 1000.0);
  return TRUE;
}

gboolean
donar_shaper_schedule_parse_spike (DonarShaperSchedule * s,
    const char *text, GError ** error)
{
  gchar **fields = g_strsplit (text, ",", -1);
  gint64 v[3];
  gboolean ok = g_strv_length (fields) == 3;

  for (guint i = 0; ok && i < 3; i++)
    ok = parse_ms (g_strstrip (fields[i]), &v[i]);
  g_strfreev (fields);
  if (!ok) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "a spike is START_MS,DURATION_MS,EXTRA_MS (non-negative ms): '%s'",
        text);
    return FALSE;
  }
  donar_shaper_schedule_add_spike (s, v[0], v[1], v[2]);
  return TRUE;
}
