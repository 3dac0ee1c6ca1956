/* The percent of a call's setup.  lib/call reports its steps by name, and
 * tor's bootstrap with tor's own percent; the setup's share of each is
 * fixed here, by the order of the steps and the time they take: a tor we
 * launch spends most of the setup bootstrapping, a callee's descriptor
 * upload takes seconds, a caller's dialing little.  The setup's end (the
 * progress COMPLETE) is 100. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonarprogress.h"

/* A launched tor's bootstrap takes the percents from BOOTSTRAP_FIRST to
 * BOOTSTRAP_LAST. */
#define BOOTSTRAP_FIRST 5
#define BOOTSTRAP_LAST 70

/* The steps of lib/call (donar-call.c), in their order, and the percent
 * each starts at. */
static const struct
{
  const gchar *step;
  gint percent;
} steps[] = {
  {"connecting to tor's control port", 5},
  {"starting tor", BOOTSTRAP_FIRST},
  {"tor's entry guards set for the call", BOOTSTRAP_LAST},
  {"publishing the onion service", 75},
  {"waiting for the descriptor upload", 80},
  {"dialing the callee", 90},
};

gint
gst_donar_progress_percent (const gchar * step, gint step_percent, gint last)
{
  gint percent = last;

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    if (g_str_equal (step, steps[i].step))
      return MAX (steps[i].percent, last);
  /* Any other step with a percent is tor's bootstrap (its summary). */
  if (step_percent >= 0)
    percent = BOOTSTRAP_FIRST + (BOOTSTRAP_LAST - BOOTSTRAP_FIRST) *
        CLAMP (step_percent, 0, 100) / 100;
  return MAX (percent, last);
}

GstMessage *
gst_donar_progress_message_new (GstElement * element, GstProgressType type,
    const gchar * text, gint percent)
{
  GstMessage *msg = gst_message_new_progress (GST_OBJECT (element), type,
      "donar-call", text);

  gst_structure_set (gst_message_writable_structure (msg), "percent",
      G_TYPE_INT, CLAMP (percent, 0, 100), NULL);
  return msg;
}
