/* donar-sim --frame-log DIR: DIR/call<N>-dir<D>.csv (D 0: caller to callee),
 * header seq,sent_ms,arrival_ms, one row per frame in send order, the
 * arrival empty for a frame that never came. */
#ifndef SIM_FRAME_LOG_H
#define SIM_FRAME_LOG_H

#include "sim-call.h"

G_BEGIN_DECLS

gboolean sim_write_frame_log (const char *dir, guint index,
    const SimCallResult * result, gint64 frame_period_us, GError ** error);

/* donar-sim --send-log DIR: DIR/call<N>-sends.csv, the rows of
 * SimCallResult.sends. */
gboolean sim_write_send_log (const char *dir, guint index,
    const SimCallResult * result, GError ** error);

G_END_DECLS

#endif /* SIM_FRAME_LOG_H */
