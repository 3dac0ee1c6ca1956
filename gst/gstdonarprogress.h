/* The percent of a call's setup in its progress messages (docs/elements.md,
 * "Caller and callee"). */
#ifndef __GST_DONAR_PROGRESS_H__
#define __GST_DONAR_PROGRESS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* How far the setup is after lib/call's step (its text and, for tor's
 * bootstrap, its percent; -1 for the other steps), never below last. */
gint gst_donar_progress_percent (const gchar * step, gint step_percent,
    gint last);

/* A GST_MESSAGE_PROGRESS of code donar-call from element, with percent
 * (gst_message_new_progress () gives 0). */
GstMessage *gst_donar_progress_message_new (GstElement * element,
    GstProgressType type, const gchar * text, gint percent);

G_END_DECLS

#endif /* __GST_DONAR_PROGRESS_H__ */
