/* The delay schedule of one relay in donar-shaper: a base delay plus spikes,
 * given by hand or drawn by lib/netmodel.
 *
 * Sans-I/O: no socket, no clock.  Times are µs from the shaper's origin (its
 * start), so the same schedule gives the same delays in a test without any
 * socket.  docs/tornet.md, "The shaper". */
#ifndef DONAR_SHAPER_SCHEDULE_H
#define DONAR_SHAPER_SCHEDULE_H

#include <glib.h>

#include "donar-netmodel.h"

G_BEGIN_DECLS

typedef struct _DonarShaperSchedule DonarShaperSchedule;

DonarShaperSchedule *donar_shaper_schedule_new (gint64 base_us);
/* Relay `index` of lib/netmodel's `seed` (donar_net_relay_new): its base
 * delay, or base_us when that is >= 0, and its spikes in calm and flaky
 * periods.  Spikes added by hand come on top. */
DonarShaperSchedule *donar_shaper_schedule_new_from_model (const
    DonarNetModelParams * params, guint64 seed, guint index, gint64 base_us);
void donar_shaper_schedule_free (DonarShaperSchedule * s);

/* Multiplies the relay's delay: its base and the extra of every spike (the
 * model's and those by hand) by scale (>= 0; 1 until set), each rounded to
 * the µs.  The shaped network's calibration (docs/tornet.md): a link there
 * crosses more shaped hops than the model's path has relays. */
void donar_shaper_schedule_set_scale (DonarShaperSchedule * s, gdouble scale);
gdouble donar_shaper_schedule_scale (const DonarShaperSchedule * s);

/* The base delay, scaled. */
gint64 donar_shaper_schedule_base (const DonarShaperSchedule * s);
/* extra_us is added to the delay of bytes received in [start_us, start_us +
 * duration_us).  Spikes may overlap: their extras add up (a relay's own
 * spike on top of a flaky period, say). */
void donar_shaper_schedule_add_spike (DonarShaperSchedule * s,
    gint64 start_us, gint64 duration_us, gint64 extra_us);
/* A hold: bytes received in [start_us, start_us + duration_us) are all due
 * at its end (plus the rest of the delay), as if the relay forwarded nothing
 * for duration_us and then let everything go at once: a spike whose extra
 * is end - t.  Counted in n_spikes. */
void donar_shaper_schedule_add_hold (DonarShaperSchedule * s,
    gint64 start_us, gint64 duration_us);
guint donar_shaper_schedule_n_spikes (const DonarShaperSchedule * s);

/* The one-way delay of bytes received at t: scale × base + scale × the
 * extras of the spikes at t.  With a model, t does not
 * decrease from one call to the next (the model forgets the past). */
gint64 donar_shaper_schedule_delay (DonarShaperSchedule * s, gint64 t);

/* When bytes received at t with this delay are written, given when the
 * previous chunk of the same direction of the same connection is written
 * (*last_release_us, G_MININT64 before the first): t + delay, but never
 * before the chunk ahead, since a TCP stream is never reordered.  Updates
 * *last_release_us. */
gint64 donar_shaper_release_time (gint64 * last_release_us, gint64 t,
    gint64 delay_us);

/* "START_MS,DURATION_MS,EXTRA_MS" (decimals allowed) added as a spike. */
gboolean donar_shaper_schedule_parse_spike (DonarShaperSchedule * s,
    const char *text, GError ** error);

G_END_DECLS

#endif /* DONAR_SHAPER_SCHEDULE_H */
