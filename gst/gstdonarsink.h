/* donarsink: sends RTP packets over a DONAR call. */
#ifndef __GST_DONAR_SINK_H__
#define __GST_DONAR_SINK_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS
#define GST_TYPE_DONAR_SINK (gst_donar_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstDonarSink, gst_donar_sink, GST, DONAR_SINK,
    GstBaseSink);

G_END_DECLS
#endif /* __GST_DONAR_SINK_H__ */
