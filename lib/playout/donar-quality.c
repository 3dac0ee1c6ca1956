/* The live quality estimate (donar-quality.h). */
#include "donar-quality.h"
#include "donar-versioned.h"

#include <math.h>
#include <string.h>

typedef struct
{
  gint64 time_us;
  gint64 mouth_to_ear_us;
  DonarQualityFate fate;
} Frame;

struct _DonarQuality
{
  DonarQualityConfig config;
  GQueue frames;                /* Frame *, oldest first */
  guint count[3];               /* by fate, over `frames` */
  gint64 mouth_to_ear_sum_us;   /* over `frames` */
  gint64 first_us;              /* the first frame's time since the reset */
  gint64 expiry_us;
  gboolean have_last;
  DonarQualityReport last;
};

/* ITU-T G.107 (06/2015), line by line as tools/quality/qscore.py's
 * e_model_parts, so that both give the same R: every parameter at its
 * Table 1 default but the delays and the equipment impairment, and the
 * echo-path delays following the one-way delay, T = Ta, Tr = 2 Ta. */
gdouble
donar_quality_r_factor (gdouble ta_ms, gdouble ppl_percent, gdouble ie,
    gdouble bpl, gdouble burst_r)
{
  const gdouble SLR = 8.0, RLR = 2.0, STMR = 15.0, LSTR = 18.0, Ds = 3.0;
  const gdouble TELR = 65.0, WEPL = 110.0, qdu = 1.0, Nc = -70.0;
  const gdouble Nfor = -64.0, Ps = 35.0, Pr = 35.0, A = 0.0;
  gdouble T = ta_ms, Tr = 2.0 * ta_ms, Ta = ta_ms;
  gdouble OLR, Nfo, Pre, Nor, Nos, No, Ro;
  gdouble Xolr, Iolr, STMRo, Ist, Q, G, Z, Y, Iq, Is;
  gdouble TERV, Roe, Re, Idte, Rle, Idle, Idd, Id, Ie_eff;

  /* Basic signal-to-noise ratio, Ro. */
  OLR = SLR + RLR;
  Nfo = Nfor + RLR;
  Pre = Pr + 10 * log10 (1 + pow (10, (10 - LSTR) / 10));
  Nor = RLR - 121 + Pre + 0.008 * pow (Pre - 35, 2);
  Nos = Ps - SLR - Ds - 100 + 0.004 * pow (Ps - OLR - Ds - 14, 2);
  No = 10 * log10 (pow (10, Nc / 10) + pow (10, Nos / 10) +
      pow (10, Nor / 10) + pow (10, Nfo / 10));
  Ro = 15 - 1.5 * (SLR + No);

  /* Simultaneous impairments, Is = Iolr + Ist + Iq. */
  Xolr = OLR + 0.2 * (64 + No - RLR);
  Iolr = 20 * (pow (1 + pow (Xolr / 8, 8), 1.0 / 8) - Xolr / 8);
  STMRo = -10 * log10 (pow (10, -STMR / 10) +
      exp (-T / 4) * pow (10, -TELR / 10));
  Ist = 12 * pow (1 + pow ((STMRo - 13) / 6, 8), 1.0 / 8)
      - 28 * pow (1 + pow ((STMRo + 1) / 19.4, 35), 1.0 / 35)
      - 13 * pow (1 + pow ((STMRo - 3) / 33, 13), 1.0 / 13) + 29;
  Q = 37 - 15 * log10 (qdu);
  G = 1.07 + 0.258 * Q + 0.0602 * Q * Q;
  Z = 46.0 / 30 - G / 40;
  Y = (Ro - 100) / 15 + 46 / 8.4 - G / 9;
  Iq = 15 * log10 (1 + pow (10, Y) + pow (10, Z));
  Is = Iolr + Ist + Iq;

  /* Delay impairments, Id = Idte + Idle + Idd. */
  TERV = TELR - 40 * log10 ((1 + T / 10) / (1 + T / 150))
      + 6 * exp (-0.3 * T * T);
  Roe = -1.5 * (No - RLR);
  Re = 80 + 2.5 * (TERV - 14);
  Idte = ((Roe - Re) / 2 + sqrt (pow (Roe - Re, 2) / 4 + 100) - 1)
      * (1 - exp (-T));
  Rle = 10.5 * (WEPL + 7) * pow (Tr + 1, -0.25);
  Idle = (Ro - Rle) / 2 + sqrt (pow (Ro - Rle, 2) / 4 + 169);
  if (Ta <= 100) {
    Idd = 0.0;
  } else {
    gdouble X = log10 (Ta / 100) / log10 (2);

    Idd = 25 * (pow (1 + pow (X, 6), 1.0 / 6) -
        3 * pow (1 + pow (X / 3, 6), 1.0 / 6) + 2);
  }
  Id = Idte + Idle + Idd;

  /* Equipment impairment with packet loss, Ie,eff.  With BurstR > 1 the
   * formula passes 95, what total random loss gives: held there. */
  Ie_eff = ie + (95 - ie) * ppl_percent / (ppl_percent / burst_r + bpl);
  Ie_eff = MIN (Ie_eff, 95.0);

  return Ro - Is - Id - Ie_eff + A;
}

/* G.107 Annex B (B-4).  Its cubic dips below 1 for 0 < R < 6.5 (0.99 at
 * R = 5), where the scale it maps to starts at 1: held at 1, as for
 * R < 0.  (qscore.py's r_to_mos does not hold it; the two agree from
 * R = 6.5 on.) */
gdouble
donar_quality_mos (gdouble r)
{
  if (r < 0)
    return 1.0;
  if (r > 100)
    return 4.5;
  return MAX (1.0, 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6);
}

DonarQualityRating
donar_quality_rating (gdouble r)
{
  if (r >= DONAR_QUALITY_GOOD_R)
    return DONAR_QUALITY_GOOD;
  if (r >= DONAR_QUALITY_FAIR_R)
    return DONAR_QUALITY_FAIR;
  return DONAR_QUALITY_POOR;
}

const gchar *
donar_quality_rating_name (DonarQualityRating rating)
{
  switch (rating) {
    case DONAR_QUALITY_GOOD:
      return "good";
    case DONAR_QUALITY_FAIR:
      return "fair";
    default:
      return "poor";
  }
}

DONAR_VERSIONED_DEFINE (config_versions, DonarQualityConfig,
    sizeof (DonarQualityConfig));
DONAR_VERSIONED_DEFINE (report_versions, DonarQualityReport,
    sizeof (DonarQualityReport));

static void
config_init (DonarQualityConfig * config)
{
  config->window_us = DONAR_QUALITY_DEFAULT_WINDOW_US;
  config->interval_us = DONAR_QUALITY_DEFAULT_INTERVAL_US;
  config->ie = DONAR_QUALITY_OPUS_IE;
  config->bpl = DONAR_QUALITY_OPUS_BPL;
  config->burst_r = 1.0;
}

void
donar_quality_config_init_versioned (gint config_version,
    DonarQualityConfig * config)
{
  donar_versioned_defaults (&config_versions, config_version, config,
      (DonarVersionedDefaults) config_init);
}

static gboolean
config_is_valid (const DonarQualityConfig * config)
{
  return config->window_us > 0 && config->interval_us > 0 &&
      config->ie >= 0 && config->ie <= 95 && config->bpl > 0 &&
      config->burst_r >= 1.0;
}

gboolean
donar_quality_config_is_valid_versioned (gint config_version,
    const DonarQualityConfig * config)
{
  return donar_versioned_is_valid (&config_versions, config_version, config,
      (DonarVersionedDefaults) config_init,
      (gboolean (*)(gconstpointer)) config_is_valid);
}

DonarQuality *
donar_quality_new_versioned (gint config_version,
    const DonarQualityConfig * config)
{
  DonarQualityConfig latest;
  DonarQuality *q;

  if (!donar_versioned_over_defaults (&config_versions, config_version,
          config, &latest, (DonarVersionedDefaults) config_init))
    return NULL;
  g_return_val_if_fail (config_is_valid (&latest), NULL);
  q = g_new0 (DonarQuality, 1);
  q->config = latest;
  g_queue_init (&q->frames);
  donar_quality_reset (q);
  return q;
}

void
donar_quality_free (DonarQuality * quality)
{
  if (quality == NULL)
    return;
  g_queue_clear_full (&quality->frames, g_free);
  g_free (quality);
}

void
donar_quality_reset (DonarQuality * quality)
{
  g_return_if_fail (quality != NULL);
  g_queue_clear_full (&quality->frames, g_free);
  memset (quality->count, 0, sizeof quality->count);
  quality->mouth_to_ear_sum_us = 0;
  quality->first_us = -1;
  quality->expiry_us = G_MAXINT64;
  quality->have_last = FALSE;
}

static void
drop_oldest (DonarQuality * quality)
{
  Frame *f = g_queue_pop_head (&quality->frames);

  quality->count[f->fate]--;
  quality->mouth_to_ear_sum_us -= f->mouth_to_ear_us;
  g_free (f);
}

void
donar_quality_push (DonarQuality * quality, gint64 now_us,
    DonarQualityFate fate, gint64 mouth_to_ear_us)
{
  Frame *f;

  g_return_if_fail (quality != NULL);
  g_return_if_fail (fate <= DONAR_QUALITY_LATE);
  if (quality->first_us < 0) {
    quality->first_us = now_us;
    quality->expiry_us = now_us + quality->config.interval_us;
  }
  if (g_queue_get_length (&quality->frames) >= DONAR_QUALITY_MAX_FRAMES)
    drop_oldest (quality);
  f = g_new (Frame, 1);
  f->time_us = now_us;
  f->mouth_to_ear_us = MAX (mouth_to_ear_us, 0);
  f->fate = fate;
  g_queue_push_tail (&quality->frames, f);
  quality->count[fate]++;
  quality->mouth_to_ear_sum_us += f->mouth_to_ear_us;
}

gboolean
donar_quality_lost_was_late (DonarQuality * quality)
{
  g_return_val_if_fail (quality != NULL, FALSE);
  for (GList * l = quality->frames.tail; l != NULL; l = l->prev) {
    Frame *f = l->data;

    if (f->fate == DONAR_QUALITY_LOST) {
      f->fate = DONAR_QUALITY_LATE;
      quality->count[DONAR_QUALITY_LOST]--;
      quality->count[DONAR_QUALITY_LATE]++;
      return TRUE;
    }
  }
  return FALSE;
}

gint64
donar_quality_get_expiry (const DonarQuality * quality)
{
  g_return_val_if_fail (quality != NULL, G_MAXINT64);
  return quality->expiry_us;
}

gboolean
donar_quality_handle_expiry_versioned (DonarQuality * quality,
    gint64 now_us, gint report_version, DonarQualityReport * report)
{
  const DonarQualityConfig *c;
  DonarQualityReport *r;
  guint n, unplayed;

  g_return_val_if_fail (quality != NULL, FALSE);
  c = &quality->config;
  r = &quality->last;
  /* Checked first: the window moves on only when the report can go out. */
  if (report && donar_versioned_size (&report_versions, report_version) == 0)
    return FALSE;
  if (now_us < quality->expiry_us)
    return FALSE;
  /* The next an interval on from the one due, on the same beat, without
   * the reports missed in a gap (the caller may wake late). */
  quality->expiry_us += ((now_us - quality->expiry_us) / c->interval_us + 1) *
      c->interval_us;

  while (!g_queue_is_empty (&quality->frames) &&
      ((Frame *) g_queue_peek_head (&quality->frames))->time_us <=
      now_us - c->window_us)
    drop_oldest (quality);
  n = g_queue_get_length (&quality->frames);
  if (n == 0)
    return FALSE;

  unplayed = quality->count[DONAR_QUALITY_LOST] +
      quality->count[DONAR_QUALITY_LATE];
  r->played = quality->count[DONAR_QUALITY_PLAYED];
  r->lost = quality->count[DONAR_QUALITY_LOST];
  r->late = quality->count[DONAR_QUALITY_LATE];
  r->loss_percent = 100.0 * unplayed / n;
  r->mouth_to_ear_ms = quality->mouth_to_ear_sum_us / 1000.0 / n;
  r->r = donar_quality_r_factor (r->mouth_to_ear_ms, r->loss_percent, c->ie,
      c->bpl, c->burst_r);
  r->mos = donar_quality_mos (r->r);
  r->rating = donar_quality_rating (r->r);
  r->window_us = MIN (c->window_us, now_us - quality->first_us);
  r->time_us = now_us;
  quality->have_last = TRUE;
  if (report)
    donar_versioned_copy (&report_versions, report_version, r, report);
  return TRUE;
}

gboolean
donar_quality_get_last_versioned (const DonarQuality * quality,
    gint report_version, DonarQualityReport * report)
{
  g_return_val_if_fail (quality != NULL, FALSE);
  return quality->have_last && donar_versioned_copy (&report_versions,
      report_version, &quality->last, report);
}
