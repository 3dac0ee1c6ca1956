/* donar-playout-gen: synthetic per-frame traces in the format of donar-sim's
 * --frame-log (DIR/call<N>-dir<D>.csv: seq,sent_ms,arrival_ms; arrival_ms
 * empty for a frame that never arrived), for donar-playout-eval and its
 * test until real traces exist.
 *
 * Not calibrated: a shape like DONAR's delivered frames over Tor (a base of
 * 100-250 ms, a few ms of jitter, spikes of heavy-tailed length, some of
 * them stalls where a blocked stream releases everything at once, level
 * shifts as links change groups, rare losses), so that the policies can be
 * compared on something with Tor's troubles.  docs/jitterbuffer.md. */
#include "frame-log-writer.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct
{
  gdouble start_s, length_s, extra_ms;
  gboolean stall;
} Spike;

static gdouble
lognormal (GRand * r, gdouble median, gdouble sigma)
{
  /* Box-Muller. */
  gdouble u1 = g_rand_double_range (r, 1e-12, 1.0);
  gdouble u2 = g_rand_double (r);

  return median * exp (sigma * sqrt (-2.0 * log (u1)) * cos (2 * G_PI * u2));
}

static gdouble
exponential (GRand * r, gdouble mean)
{
  return -mean * log (g_rand_double_range (r, 1e-12, 1.0));
}

static gdouble
pareto (GRand * r, gdouble xm, gdouble alpha)
{
  return xm / pow (g_rand_double_range (r, 1e-12, 1.0), 1.0 / alpha);
}

/* The extra delay of a frame sent at t_s in a spike. */
static gdouble
spike_extra (const Spike * s, gdouble t_s)
{
  gdouble into = t_s - s->start_s;
  gdouble ramp = 0.2;

  if (into < 0 || into > s->length_s)
    return 0;
  if (s->stall)                 /* released together at the end */
    return (s->length_s - into) * 1000.0;
  if (into < ramp)
    return s->extra_ms * into / ramp;
  if (s->length_s - into < ramp)
    return s->extra_ms * (s->length_s - into) / ramp;
  return s->extra_ms;
}

static gboolean
write_direction (const char *path, GRand * r, gdouble duration_s,
    gdouble frame_ms, gdouble call_base_ms, gboolean spiky, gdouble drift_ppm,
    GError ** error)
{
  guint n = (guint) (duration_s * 1000.0 / frame_ms);
  FrameLogWriter *writer = frame_log_writer_new (path);
  GArray *spikes = g_array_new (FALSE, FALSE, sizeof (Spike));
  gdouble base = call_base_ms + lognormal (r, 1.0, 1.0) * 3.0;
  gdouble jitter_ms = g_rand_double_range (r, 3.0, 12.0);
  gdouble gap_s = lognormal (r, spiky ? 8.0 : 45.0, 0.8);
  gdouble next_shift = exponential (r, 90.0);
  gdouble t = exponential (r, gap_s);
  guint next_spike = 0;

  /* The spikes of the whole direction, in order of start. */
  while (t < duration_s) {
    Spike s;

    s.stall = g_rand_boolean (r);
    s.extra_ms = MIN (lognormal (r, 90.0, 0.8), 1500.0);
    s.length_s = s.stall ? s.extra_ms / 1000.0 :
        MIN (pareto (r, 0.2, 1.4), 20.0);
    s.start_s = t;
    g_array_append_val (spikes, s);
    t += s.length_s + exponential (r, gap_s);
  }

  for (guint i = 0; i < n; i++) {
    gdouble sent = i * frame_ms, t_s = sent / 1000.0, extra = 0;
    gdouble jitter = 0;

    if (t_s >= next_shift) {
      /* Links change groups: another level around the call's. */
      base = MAX (call_base_ms + lognormal (r, 1.0, 1.0) * 6.0 *
          (g_rand_boolean (r) ? 1 : -1), 40.0);
      next_shift += exponential (r, 90.0);
    }
    while (next_spike < spikes->len &&
        g_array_index (spikes, Spike, next_spike).start_s +
        g_array_index (spikes, Spike, next_spike).length_s < t_s)
      next_spike++;
    for (guint k = next_spike; k < spikes->len &&
        g_array_index (spikes, Spike, k).start_s <= t_s; k++)
      extra = MAX (extra, spike_extra (&g_array_index (spikes, Spike, k), t_s));
    /* Gamma (3, jitter / 3): the sum of three relays' queues. */
    for (guint k = 0; k < 3; k++)
      jitter += exponential (r, jitter_ms / 3.0);

    if (g_rand_double (r) < 2e-4) {
      frame_log_writer_add_lost (writer, i, sent);
    } else {
      gdouble arrival = sent + base + jitter + extra + sent * drift_ppm * 1e-6;

      frame_log_writer_add (writer, i, sent, arrival);
    }
  }

  g_array_free (spikes, TRUE);
  return frame_log_writer_finish (writer, error);
}

int
main (int argc, char **argv)
{
  g_autofree gchar *dir = NULL;
  gint calls = 8, seed = 1;
  gdouble duration_s = 300, frame_ms = 40, drift_ppm = 0, spiky_share = 0.1;
  GOptionEntry entries[] = {
    {"out", 'o', 0, G_OPTION_ARG_FILENAME, &dir,
        "directory of the traces (required)", "DIR"},
    {"calls", 'n', 0, G_OPTION_ARG_INT, &calls, "calls (8)", "N"},
    {"duration", 'd', 0, G_OPTION_ARG_DOUBLE, &duration_s,
        "length of a call (300 s)", "S"},
    {"frame-ms", 0, 0, G_OPTION_ARG_DOUBLE, &frame_ms,
        "frame interval (40 ms)", "MS"},
    {"seed", 's', 0, G_OPTION_ARG_INT, &seed, "seed (1)", "N"},
    {"drift-ppm", 0, 0, G_OPTION_ARG_DOUBLE, &drift_ppm,
        "the receiver's clock runs this much fast (0)", "PPM"},
    {"spiky", 0, 0, G_OPTION_ARG_DOUBLE, &spiky_share,
        "share of calls with spikes 5 times as often (0.1)", "SHARE"},
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context =
      g_option_context_new ("- synthetic per-frame traces (donar-sim "
      "--frame-log format) for donar-playout-eval");
  g_autoptr (GError) error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error)) {
    fprintf (stderr, "donar-playout-gen: %s\n", error->message);
    return 2;
  }
  if (dir == NULL || calls < 1 || duration_s <= 0 || frame_ms <= 0) {
    fprintf (stderr, "donar-playout-gen: --out DIR is required; calls, "
        "duration and frame-ms must be positive\n");
    return 2;
  }
  if (g_mkdir_with_parents (dir, 0755) != 0) {
    fprintf (stderr, "donar-playout-gen: cannot create %s\n", dir);
    return 1;
  }

  for (gint c = 0; c < calls; c++) {
    GRand *r = g_rand_new_with_seed ((guint32) (seed * 7919 + c));
    gdouble call_base = lognormal (r, 140.0, 0.3);
    gboolean spiky = g_rand_double (r) < spiky_share;

    for (guint d = 0; d < 2; d++) {
      g_autofree gchar *name = g_strdup_printf ("call%d-dir%u.csv", c, d);
      g_autofree gchar *path = g_build_filename (dir, name, NULL);

      if (!write_direction (path, r, duration_s, frame_ms, call_base, spiky,
              drift_ppm, &error)) {
        fprintf (stderr, "donar-playout-gen: %s\n", error->message);
        g_rand_free (r);
        return 1;
      }
    }
    g_rand_free (r);
  }
  return 0;
}
