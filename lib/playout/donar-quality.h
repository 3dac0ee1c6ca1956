/* A live estimate of a call's voice quality at the receiving end: the
 * ITU-T G.107 E-model's rating R, its MOS and a word, over the last few
 * seconds (docs/elements.md, "donar-quality").
 *
 * Sans-I/O like the playout estimator: no clock, no thread, no GStreamer.
 * It is fed, for each frame, its fate after the jitter buffer (played in
 * time, lost, or late) and the mouth-to-ear delay in force when it was
 * played (or due), with the time (µs, any origin, not going back); it says
 * when it next wants to report (donar_quality_get_expiry) and reports then
 * (donar_quality_handle_expiry), as the protocol core's timers do.
 *
 * R is computed exactly as tools/quality/qscore.py's e_model_parts (every
 * G.107 parameter at its Table 1 default; the echo delays T = Ta and
 * Tr = 2 Ta; Ie and Bpl for Opus are assumptions, explained there), so the
 * live figure and the offline one of a call can be compared.
 */
#ifndef DONAR_QUALITY_H
#define DONAR_QUALITY_H

#include "donar-api.h"

#include <glib.h>

G_BEGIN_DECLS

/* 5 s: 125 frames of 40 ms, so that one frame lost is 0.8 % of the
 * window (3.7 points of R with Opus's Bpl), not enough alone to move the
 * rating by a band; short enough that a stall or a lasting spike shows
 * within seconds, which a whole-call figure (G.107's own use) would hide.
 * The jitter buffer's 10-s window is for the 99 % quantile, which needs
 * the frames; this one only counts them. */
#define DONAR_QUALITY_DEFAULT_WINDOW_US (5 * G_USEC_PER_SEC)
/* A report a second: as often as a person could read one. */
#define DONAR_QUALITY_DEFAULT_INTERVAL_US (G_USEC_PER_SEC)
/* Opus's equipment impairment and packet-loss robustness: G.113 has no
 * entry for Opus; tools/quality/qscore.py (OPUS_IE, OPUS_BPL) says why
 * these values. */
#define DONAR_QUALITY_OPUS_IE 0.0
#define DONAR_QUALITY_OPUS_BPL 20.0
/* Most frames the window keeps, whatever their rate (1600 a second). */
#define DONAR_QUALITY_MAX_FRAMES 8192

typedef enum
{
  DONAR_QUALITY_PLAYED,         /* came and was played in time */
  DONAR_QUALITY_LOST,           /* never came: concealed */
  DONAR_QUALITY_LATE,           /* came after its playout time: concealed */
} DonarQualityFate;

/* G.107 Annex B's bands of R (Table B.1) and G.109's categories, in
 * three: good R >= 80 (G.109 "high" and "best": users satisfied or very
 * satisfied), fair 60 <= R < 80 ("medium" and "low": some or many users
 * dissatisfied), poor R < 60 ("poor" and below: nearly all dissatisfied,
 * not recommended). */
typedef enum
{
  DONAR_QUALITY_GOOD,
  DONAR_QUALITY_FAIR,
  DONAR_QUALITY_POOR,
} DonarQualityRating;

#define DONAR_QUALITY_GOOD_R 80.0
#define DONAR_QUALITY_FAIR_R 60.0

typedef struct
{
  gint64 window_us;             /* the frames of the last this long */
  gint64 interval_us;           /* between reports */
  gdouble ie;                   /* G.107's Ie of the codec */
  gdouble bpl;                  /* its Bpl */
  gdouble burst_r;              /* G.107's BurstR, >= 1 (1: random loss) */
} DonarQualityConfig;

typedef struct
{
  gdouble r;                    /* G.107's R */
  gdouble mos;                  /* G.107 Annex B's MOS of R, in [1, 4.5] */
  DonarQualityRating rating;
  gdouble mouth_to_ear_ms;      /* the mean over the window's frames */
  gdouble loss_percent;         /* lost or late, of the window's frames */
  guint played, lost, late;     /* the window's frames */
  gint64 window_us;             /* what the window spans: less at first */
  gint64 time_us;               /* when the report was made */
} DonarQualityReport;

typedef struct _DonarQuality DonarQuality;

/* The E-model's functions (r_factor, mos, rating) and the config's may
 * be called from any thread.  A DonarQuality has no lock: one thread at
 * a time, under the caller's lock if it has more.  A NULL DonarQuality or
 * an unknown fate is a g_critical, and the call does nothing
 * (docs/api.md, "Contracts"). */

/* G.107's R of a mouth-to-ear delay ta_ms and ppl_percent of the packets
 * lost (or too late), as qscore.py's e_model_parts computes it. */
DONAR_API
gdouble donar_quality_r_factor (gdouble ta_ms, gdouble ppl_percent,
    gdouble ie, gdouble bpl, gdouble burst_r);
/* G.107 Annex B, held within [1, 4.5]. */
DONAR_API
gdouble donar_quality_mos (gdouble r);
DONAR_API
DonarQualityRating donar_quality_rating (gdouble r);
/* "good", "fair", "poor" (a value it does not know: "poor"). */
DONAR_API
const gchar *donar_quality_rating_name (DonarQualityRating rating);

/* The versions of the structs a program allocates (donar.h,
 * DONAR_CONFIG_VERSION, says how they grow). */
#define DONAR_QUALITY_CONFIG_VERSION 1
#define DONAR_QUALITY_REPORT_VERSION 1

DONAR_API
void donar_quality_config_init_versioned (gint config_version,
    DonarQualityConfig * config);
#define donar_quality_config_init(config) \
  donar_quality_config_init_versioned (DONAR_QUALITY_CONFIG_VERSION, \
      (config))
/* FALSE for a window or interval not above 0, Ie outside [0, 95], Bpl not
 * above 0, BurstR below 1, or an unknown version. */
DONAR_API
gboolean donar_quality_config_is_valid_versioned (gint config_version,
    const DonarQualityConfig * config);
#define donar_quality_config_is_valid(config) \
  donar_quality_config_is_valid_versioned (DONAR_QUALITY_CONFIG_VERSION, \
      (config))

/* An invalid config (or NULL, or an unknown version) is a g_critical, and
 * NULL. */
DONAR_API
DonarQuality *donar_quality_new_versioned (gint config_version,
    const DonarQualityConfig * config);
#define donar_quality_new(config) \
  donar_quality_new_versioned (DONAR_QUALITY_CONFIG_VERSION, (config))
DONAR_API
void donar_quality_free (DonarQuality * quality);
/* Forget every frame and report (a new stream). */
DONAR_API
void donar_quality_reset (DonarQuality * quality);

/* A frame's fate at now_us, with the mouth-to-ear delay in force. */
DONAR_API
void donar_quality_push (DonarQuality * quality, gint64 now_us,
    DonarQualityFate fate, gint64 mouth_to_ear_us);
/* A frame pushed as lost came after all, after its playout time: the
 * newest lost frame of the window becomes late.  FALSE if the window has
 * no lost frame. */
DONAR_API
gboolean donar_quality_lost_was_late (DonarQuality * quality);

/* When the next report is due; G_MAXINT64 before the first frame. */
DONAR_API
gint64 donar_quality_get_expiry (const DonarQuality * quality);
/* At or after the expiry: forgets the frames older than the window,
 * makes the report (TRUE, *report filled) and sets the next expiry an
 * interval later.  FALSE before the expiry, or if the window holds no
 * frame (then the next is an interval later too).  report may be NULL (the
 * report kept for get_last only); an unknown version is a g_critical and
 * FALSE, the window left as it was. */
DONAR_API
gboolean donar_quality_handle_expiry_versioned (DonarQuality * quality,
    gint64 now_us, gint report_version, DonarQualityReport * report);
#define donar_quality_handle_expiry(quality, now_us, report) \
  donar_quality_handle_expiry_versioned ((quality), (now_us), \
      DONAR_QUALITY_REPORT_VERSION, (report))
/* The latest report; FALSE if none yet. */
DONAR_API
gboolean donar_quality_get_last_versioned (const DonarQuality * quality,
    gint report_version, DonarQualityReport * report);
#define donar_quality_get_last(quality, report) \
  donar_quality_get_last_versioned ((quality), \
      DONAR_QUALITY_REPORT_VERSION, (report))

G_END_DECLS

#endif /* DONAR_QUALITY_H */
