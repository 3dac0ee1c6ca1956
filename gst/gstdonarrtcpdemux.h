/* donarrtcpdemux: RTP and RTCP of one call, muxed (RFC 5761), apart. */
#ifndef __GST_DONAR_RTCP_DEMUX_H__
#define __GST_DONAR_RTCP_DEMUX_H__

#include <gst/gst.h>

G_BEGIN_DECLS
#define GST_TYPE_DONAR_RTCP_DEMUX (gst_donar_rtcp_demux_get_type ())
G_DECLARE_FINAL_TYPE (GstDonarRtcpDemux, gst_donar_rtcp_demux, GST,
    DONAR_RTCP_DEMUX, GstElement);

/* RFC 5761, 4: a packet whose second byte is 192 to 223 is RTCP (RTP
 * payload types 64 to 95 are not used where RTCP is muxed). */
gboolean gst_donar_is_rtcp (const guint8 * data, gsize size);

G_END_DECLS
#endif /* __GST_DONAR_RTCP_DEMUX_H__ */
