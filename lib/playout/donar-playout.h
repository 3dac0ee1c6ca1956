/* The playout-delay estimator of donarjitterbuffer (docs/jitterbuffer.md).
 *
 * Sans-I/O like the protocol core: no clock, no thread, no GStreamer.  It is
 * fed, for each frame that arrives, the frame's send time (from its RTP
 * timestamp, on the sender's clock) and its arrival time (on the receiver's
 * clock), both in microseconds, in arrival order.  Their difference is the
 * frame's relative one-way delay: the true delay plus an unknown clock
 * offset.  The estimator answers with the playout offset O: frame i is
 * played at send_i + O on the receiver's clock.  O is chosen so that a
 * target share (99 %) of the recent frames would have been on time, plus a
 * safety margin; it grows at once and shrinks slowly, stays within
 * [base + min, base + max] where the base is the smallest recent relative
 * delay, and never aims past the deadline (see donar_playout_set_base_delay
 * for what it knows of absolute delays).
 *
 * Times are microseconds; any origin, as long as send times share one and
 * arrival times another.
 */
#ifndef DONAR_PLAYOUT_H
#define DONAR_PLAYOUT_H

#include "donar-api.h"

#include <glib.h>

G_BEGIN_DECLS

/* Defaults; docs/jitterbuffer.md says why each has its value. */
#define DONAR_PLAYOUT_DEFAULT_SHARE 0.99
#define DONAR_PLAYOUT_DEFAULT_WINDOW_US (10 * G_USEC_PER_SEC)
#define DONAR_PLAYOUT_DEFAULT_MARGIN_US (10 * 1000)
#define DONAR_PLAYOUT_DEFAULT_SHRINK_US_PER_S (2 * 1000)
#define DONAR_PLAYOUT_DEFAULT_MIN_US (20 * 1000)
#define DONAR_PLAYOUT_DEFAULT_MAX_US (1000 * 1000)
#define DONAR_PLAYOUT_DEFAULT_DEADLINE_US (360 * 1000)
#define DONAR_PLAYOUT_DEFAULT_BASE_WINDOW_US (120 * G_USEC_PER_SEC)
#define DONAR_PLAYOUT_DEFAULT_MAX_SAMPLES 16384

/* An estimator has no lock: its functions are called from one thread at
 * a time, under the caller's lock if it has more (donarjitterbuffer's
 * object lock).  The config functions may be called from any thread.  A
 * NULL estimator or out-pointer is a g_critical, and the call does
 * nothing (docs/api.md, "Contracts"). */

/* Unknown absolute delay (donar_playout_set_base_delay). */
#define DONAR_PLAYOUT_UNKNOWN (-1)
/* Playout changes remembered for the late-frame accounting. */
#define DONAR_PLAYOUT_HISTORY 1024
/* The base is the minimum of this many buckets spanning base_window_us. */
#define DONAR_PLAYOUT_BASE_BUCKETS 12

typedef struct
{
  /* Share of the window's frames that the target would have played on
   * time, in (0, 1]. */
  gdouble share;
  /* The sliding window of recent frames (by arrival time). */
  gint64 window_us;
  /* Added to the delay that plays `share` of the window. */
  gint64 margin_us;
  /* How fast the playout offset may come down (µs per s of arrival time);
   * it goes up at once. */
  gint64 shrink_us_per_s;
  /* Bounds of the target (the playout delay above the base). */
  gint64 min_us;
  gint64 max_us;
  /* One-way delay budget (0: none).  With a known base delay, the target
   * never exceeds deadline - base delay; without, it never exceeds the
   * deadline itself. */
  gint64 deadline_us;
  /* The base is the smallest relative delay over this span (0: since the
   * start), so that it follows clock drift and route changes. */
  gint64 base_window_us;
  /* Most frames the window keeps, whatever their rate. */
  guint max_samples;
} DonarPlayoutConfig;

typedef struct
{
  guint64 frames;               /* frames pushed */
  guint64 late;                 /* of which arrived after their playout */
  gint64 target_us;             /* offset - base: the playout delay */
  gint64 offset_us;             /* O: playout = send + O */
  gint64 base_us;               /* smallest recent relative delay */
  gint64 quantile_us;           /* the window's `share` delay - base */
  guint window_frames;          /* frames in the window */
  gboolean limited;             /* the target is held down by max/deadline */
} DonarPlayoutStats;

typedef struct _DonarPlayout DonarPlayout;

/* The versions of the structs a program allocates (donar.h,
 * DONAR_CONFIG_VERSION, says how they grow). */
#define DONAR_PLAYOUT_CONFIG_VERSION 1
#define DONAR_PLAYOUT_STATS_VERSION 1

DONAR_API
void donar_playout_config_init_versioned (gint config_version,
    DonarPlayoutConfig * config);
#define donar_playout_config_init(config) \
  donar_playout_config_init_versioned (DONAR_PLAYOUT_CONFIG_VERSION, \
      (config))
/* FALSE if a field is out of range (share outside (0, 1], negative times,
 * min > max, no samples), or the version is unknown. */
DONAR_API
gboolean donar_playout_config_is_valid_versioned (gint config_version,
    const DonarPlayoutConfig * config);
#define donar_playout_config_is_valid(config) \
  donar_playout_config_is_valid_versioned (DONAR_PLAYOUT_CONFIG_VERSION, \
      (config))

/* An invalid config (or NULL, or an unknown version) is a g_critical, and
 * NULL. */
DONAR_API
DonarPlayout *donar_playout_new_versioned (gint config_version,
    const DonarPlayoutConfig * config);
#define donar_playout_new(config) \
  donar_playout_new_versioned (DONAR_PLAYOUT_CONFIG_VERSION, (config))
DONAR_API
void donar_playout_free (DonarPlayout * playout);
/* Forget every frame (a new stream); keeps the config and base delay. */
DONAR_API
void donar_playout_reset (DonarPlayout * playout);
/* Takes effect at the next frame; the frames in the window are kept.  An
 * invalid config is a g_critical, and the old one stays. */
DONAR_API
void donar_playout_set_config_versioned (DonarPlayout * playout,
    gint config_version, const DonarPlayoutConfig * config);
#define donar_playout_set_config(playout, config) \
  donar_playout_set_config_versioned ((playout), \
      DONAR_PLAYOUT_CONFIG_VERSION, (config))
DONAR_API
void donar_playout_get_config_versioned (const DonarPlayout * playout,
    gint config_version, DonarPlayoutConfig * config);
#define donar_playout_get_config(playout, config) \
  donar_playout_get_config_versioned ((playout), \
      DONAR_PLAYOUT_CONFIG_VERSION, (config))

/* The absolute one-way delay of the base (the fastest recent frames), if the
 * caller knows it, e.g. half the round-trip time of the path, or 0 when
 * sender and receiver share one clock; DONAR_PLAYOUT_UNKNOWN if not.  With
 * it, the deadline bounds the mouth-to-ear share of the network: the
 * target never exceeds deadline - base delay.  Without it, the estimator
 * cannot tell the clock offset from the delay, and the deadline bounds the
 * target itself (as if the base delay were 0): a bound that never drops a
 * frame the deadline would have kept, but lets the playout exceed the
 * deadline by the unknown base delay. */
DONAR_API
void donar_playout_set_base_delay (DonarPlayout * playout,
    gint64 base_delay_us);

/* A frame sent at send_us arrived at arrival_us.  Arrival times must not go
 * back (an earlier one counts as the latest so far).  Returns TRUE if the
 * frame was late: its playout time (send_us + the offset in force then)
 * passed before it arrived. */
DONAR_API
gboolean donar_playout_push (DonarPlayout * playout, gint64 send_us,
    gint64 arrival_us);

/* FALSE before the first frame (then *offset_us is untouched). */
DONAR_API
gboolean donar_playout_get_offset (const DonarPlayout * playout,
    gint64 * offset_us);
/* The target playout delay above the base; min_us before the first
 * frame. */
DONAR_API
gint64 donar_playout_get_target (const DonarPlayout * playout);
DONAR_API
void donar_playout_get_stats_versioned (const DonarPlayout * playout,
    gint stats_version, DonarPlayoutStats * stats);
#define donar_playout_get_stats(playout, stats) \
  donar_playout_get_stats_versioned ((playout), \
      DONAR_PLAYOUT_STATS_VERSION, (stats))
/* How many frames of the window were more than above_base_us slower than
 * the base (their delay - base > above_base_us); 0 before the first. */
DONAR_API
guint donar_playout_count_above (const DonarPlayout * playout,
    gint64 above_base_us);

G_END_DECLS

#endif /* DONAR_PLAYOUT_H */
