/* donarsrc: receives RTP packets from a DONAR call. */
#ifndef __GST_DONAR_SRC_H__
#define __GST_DONAR_SRC_H__

#include <gst/gst.h>
#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS
#define GST_TYPE_DONAR_SRC (gst_donar_src_get_type ())
G_DECLARE_FINAL_TYPE (GstDonarSrc, gst_donar_src, GST, DONAR_SRC, GstPushSrc);

G_END_DECLS
#endif /* __GST_DONAR_SRC_H__ */
