/* Per-call verdicts and the run's figures. */
#include "sim-report.h"

#include <math.h>
#include <string.h>

/* The smallest whole number of ms that `fraction` of `total` frames do not
 * exceed (bin b holds the latencies in (b - 1, b] ms); -1 when the frames
 * the histogram holds are fewer (the rest were lost). */
static gint64
histogram_percentile_us (const guint32 * histogram, guint64 total,
    gdouble fraction)
{
  guint64 wanted = (guint64) ceil (fraction * total), seen = 0;

  if (total == 0)
    return -1;
  for (guint bin = 0; bin < SIM_HISTOGRAM_BINS; bin++) {
    seen += histogram[bin];
    if (seen >= wanted)
      return (gint64) bin *1000;
  }
  return -1;
}

void
sim_summarize_call (const SimCallResult * result, gint64 deadline_us,
    gint64 drop_after_us, SimCallSummary * summary)
{
  gboolean direction_ok[2];

  memset (summary, 0, sizeof *summary);
  summary->histogram = g_new0 (guint32, SIM_HISTOGRAM_BINS);
  summary->bytes_sent = result->bytes_sent;
  summary->messages_sent = result->messages_sent;
  summary->link_failures = result->link_failures;
  summary->stalled_frames = result->stalled_frames;
  summary->records_over_window = result->records_over_window;
  summary->max_us = -1;

  direction_ok[1] = TRUE;
  for (guint d = 0; d < (result->one_way ? 1 : 2); d++) {
    guint64 in_time = 0, run = 0;

    for (guint f = 0; f < result->n_frames; f++) {
      gint32 latency = result->latency_us[d][f];

      summary->frames++;
      if (latency == SIM_LOST) {
        summary->lost++;
      } else {
        guint bin = MIN ((MAX (latency, 0) + 999) / 1000,
            SIM_HISTOGRAM_BINS - 1);

        summary->histogram[bin]++;
        summary->max_us = MAX (summary->max_us, latency);
        if (latency <= deadline_us)
          in_time++;
        else
          summary->late++;
      }
      if (latency == SIM_LOST || latency > drop_after_us) {
        if (++run >= SIM_DROP_FRAMES)
          summary->dropped = TRUE;
      } else {
        run = 0;
      }
    }
    direction_ok[d] = result->n_frames > 0 &&
        in_time * 100 >= (guint64) result->n_frames * 99;
  }
  summary->successful = direction_ok[0] && direction_ok[1];
  summary->p99_us = histogram_percentile_us (summary->histogram,
      summary->frames, 0.99);
}

void
sim_call_summary_clear (SimCallSummary * summary)
{
  g_free (summary->histogram);
  summary->histogram = NULL;
}

static void
append_ms (GString * out, gint64 us)
{
  if (us < 0)
    g_string_append (out, "null");
  else
    g_string_append_printf (out, "%.0f", us / 1000.0);
}

GString *
sim_report (const SimRunInfo * info, const SimCallSummary * calls,
    gboolean json)
{
  GString *out = g_string_new (NULL);
  guint32 *histogram = g_new0 (guint32, SIM_HISTOGRAM_BINS);
  guint64 frames = 0, lost = 0, delivered = 0, bytes = 0, messages = 0,
      failures = 0, over_window = 0, after_cut = 0, stalled = 0;
  gint64 max = -1;
  guint successful = 0, dropped = 0;
  gdouble endpoint_seconds = 2.0 * info->calls * info->duration_s;
  gint64 p50, p99, p999;

  for (guint c = 0; c < info->calls; c++) {
    frames += calls[c].frames;
    lost += calls[c].lost;
    bytes += calls[c].bytes_sent;
    messages += calls[c].messages_sent;
    failures += calls[c].link_failures;
    stalled += calls[c].stalled_frames;
    successful += calls[c].successful;
    dropped += calls[c].dropped;
    over_window += calls[c].records_over_window;
    max = MAX (max, calls[c].max_us);
    for (guint bin = 0; bin < SIM_HISTOGRAM_BINS; bin++)
      histogram[bin] += calls[c].histogram[bin];
  }
  /* Bin b holds (b - 1, b] ms: later than L ms is from bin L + 1 on. */
  if (info->late_after_cut_us > 0)
    for (guint bin = info->late_after_cut_us / 1000 + 1;
        bin < SIM_HISTOGRAM_BINS; bin++)
      after_cut += histogram[bin];
  delivered = frames - lost;
  /* Over the frames delivered; the lost ones are frame_loss_ratio. */
  p50 = histogram_percentile_us (histogram, delivered, 0.50);
  p99 = histogram_percentile_us (histogram, delivered, 0.99);
  p999 = histogram_percentile_us (histogram, delivered, 0.999);

  if (json) {
    g_string_append_printf (out, "{\"policy\": \"%s\", \"security\": \"%s\", "
        "\"calls\": %u, \"duration_s\": %.0f, \"seed\": %" G_GUINT64_FORMAT
        ", ", info->policy, info->security, info->calls, info->duration_s,
        info->seed);
    if (info->oracle_sends)
      g_string_append_printf (out, "\"oracle_sends\": %u, ",
          info->oracle_sends);
    if (info->oracle_lag_ms)
      g_string_append_printf (out, "\"oracle_lag_ms\": %u, ",
          info->oracle_lag_ms);
    g_string_append_printf (out, "\"successful_ratio\": %.4f, "
        "\"dropped_ratio\": %.4f, \"frame_loss_ratio\": %.6f, ",
        info->calls ? (gdouble) successful / info->calls : 0.0,
        info->calls ? (gdouble) dropped / info->calls : 0.0,
        frames ? (gdouble) lost / frames : 0.0);
    g_string_append (out, "\"latency_ms\": {\"p50\": ");
    append_ms (out, p50);
    g_string_append (out, ", \"p99\": ");
    append_ms (out, p99);
    g_string_append (out, ", \"p999\": ");
    append_ms (out, p999);
    g_string_append (out, ", \"max\": ");
    append_ms (out, max);
    g_string_append (out, "}, ");
    if (info->late_after_cut_us > 0)
      g_string_append_printf (out, "\"late_after_cut_ms\": %" G_GINT64_FORMAT
          ", \"frames_late_after_cut\": %" G_GUINT64_FORMAT ", "
          "\"records_over_window\": %" G_GUINT64_FORMAT ", ",
          info->late_after_cut_us / 1000, after_cut, over_window);
    g_string_append (out, "\"per_call_p99_ms\": [");
    for (guint c = 0; c < info->calls; c++) {
      if (c)
        g_string_append (out, ", ");
      append_ms (out, calls[c].p99_us);
    }
    g_string_append_printf (out, "], \"bytes_per_s\": %.1f, "
        "\"cells_per_s\": %.2f, \"link_failures\": %" G_GUINT64_FORMAT
        ", \"stalled_frames\": %" G_GUINT64_FORMAT ", \"cpu_s\": %.3f}\n",
        endpoint_seconds > 0 ? bytes / endpoint_seconds : 0.0,
        endpoint_seconds > 0 ? messages / endpoint_seconds : 0.0,
        failures, stalled, info->cpu_s);
  } else {
    g_string_append_printf (out,
        "%s, %s security: %u call(s) of %.0f s, seed %" G_GUINT64_FORMAT "\n"
        "  successful calls (99 %% of frames within 360 ms): %u (%.1f %%)\n"
        "  dropped calls (25 frames missing in a row):      %u (%.1f %%)\n"
        "  frames lost: %.4f %%   latency p50 / p99 / p99.9: ",
        info->policy, info->security, info->calls, info->duration_s,
        info->seed, successful,
        info->calls ? 100.0 * successful / info->calls : 0.0, dropped,
        info->calls ? 100.0 * dropped / info->calls : 0.0,
        frames ? 100.0 * lost / frames : 0.0);
    append_ms (out, p50);
    g_string_append (out, " / ");
    append_ms (out, p99);
    g_string_append (out, " / ");
    append_ms (out, p999);
    g_string_append (out, " / max ");
    append_ms (out, max);
    g_string_append (out, " ms\n");
    if (info->late_after_cut_us > 0)
      g_string_append_printf (out, "  the cut: %" G_GUINT64_FORMAT
          " frames later than %" G_GINT64_FORMAT " ms (its length and the "
          "deadline); %" G_GUINT64_FORMAT " records lost to a full stream "
          "window\n", after_cut, info->late_after_cut_us / 1000, over_window);
    g_string_append_printf (out,
        "  on the wire per endpoint: %.0f bytes/s, %.1f cells/s; "
        "link failures: %" G_GUINT64_FORMAT "; CPU %.2f s\n",
        endpoint_seconds > 0 ? bytes / endpoint_seconds : 0.0,
        endpoint_seconds > 0 ? messages / endpoint_seconds : 0.0,
        failures, info->cpu_s);
  }
  g_free (histogram);
  return out;
}

gboolean
sim_write_histogram (const char *path, const SimCallSummary * calls,
    guint n_calls, GError ** error)
{
  GString *csv = g_string_new ("latency_ms,frames\n");
  gboolean ok;

  for (guint bin = 0; bin < SIM_HISTOGRAM_BINS; bin++) {
    guint64 frames = 0;

    for (guint c = 0; c < n_calls; c++)
      frames += calls[c].histogram[bin];
    if (frames)
      g_string_append_printf (csv, "%u,%" G_GUINT64_FORMAT "\n", bin, frames);
  }
  ok = g_file_set_contents (path, csv->str, csv->len, error);
  g_string_free (csv, TRUE);
  return ok;
}
