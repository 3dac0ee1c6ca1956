/* donarjitterbuffer: rtpjitterbuffer with a playout delay tuned while the
 * call runs (lib/playout).  docs/jitterbuffer.md. */
#ifndef __GST_DONAR_JITTER_BUFFER_H__
#define __GST_DONAR_JITTER_BUFFER_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_DONAR_JITTER_BUFFER (gst_donar_jitter_buffer_get_type ())
G_DECLARE_FINAL_TYPE (GstDonarJitterBuffer, gst_donar_jitter_buffer, GST,
    DONAR_JITTER_BUFFER, GstBin);

G_END_DECLS

#endif /* __GST_DONAR_JITTER_BUFFER_H__ */
