/* The adaptive playout of donarjitterbuffer (lib/playout) replayed on a
 * frame log: when each frame is played. */
#ifndef FRAME_LOG_PLAYOUT_H
#define FRAME_LOG_PLAYOUT_H

#include "donar-playout.h"
#include "frame-log.h"

G_BEGIN_DECLS

/* The estimator is fed the frames in arrival order (with base_known, told
 * the base delay it measures, as with one clock at both ends); frame i is
 * due[i], the first time t >= send_i + O(t), O(t) the offset in force at
 * t.  *estimator_late (if not NULL): the frames the estimator itself
 * counted late.  FALSE, due[] untouched, if no frame arrived. */
gboolean frame_log_playout_adaptive (const FrameLog * log,
    const DonarPlayoutConfig * config, gboolean base_known, gint64 * due,
    guint64 * estimator_late);

G_END_DECLS

#endif /* FRAME_LOG_PLAYOUT_H */
