/* What the application does to a call while it runs: the action signals
 * accept and reject, and the hang-up of an EOS. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonarcall-private.h"

/* Ends the call from this end, the BYE saying why; every element posts
 * donar-call-ended once.  Whether this end ended it. */
static gboolean
end_here (GstDonarCall * call, DonarLinkEngine * engine,
    DonarByeReason reason, const gchar * name, const gchar * message)
{
  gboolean now_ended;

  donar_link_engine_end (engine, reason, HANG_UP_FLUSH_US);
  g_mutex_lock (&call->lock);
  now_ended = !call->ended &&
      donar_link_engine_get_end (engine, NULL) == DONAR_LINK_END_HERE;
  call->ended |= now_ended;
  for (GList * l = call->clients; now_ended && l; l = l->next)
    gst_donar_call_post_ended (call, l->data, name, message);
  gst_donar_call_posts_unlock (&call->posts, &call->lock);
  return now_ended;
}

void
gst_donar_call_client_hang_up (GstDonarCallClient * client)
{
  DonarLinkEngine *engine = gst_donar_call_client_get_engine (client);

  if (engine)
    end_here (client->call, engine, DONAR_BYE_HUNG_UP, "hung-up",
        "this end hung up");
}

/* The element's call, ref'd, for an application's thread: the element
 * may stop meanwhile (the streaming threads need no ref). */
static GstDonarCall *
client_ref_call (GstDonarCallClient * client)
{
  GstDonarCall *call;

  GST_OBJECT_LOCK (client->element);
  call = client->call ? gst_donar_call_ref (client->call) : NULL;
  GST_OBJECT_UNLOCK (client->element);
  return call;
}

/* Callee: answers the call, or the next one to come in; FALSE for a
 * caller or a call that has ended. */
gboolean
gst_donar_call_client_accept (GstDonarCallClient * client)
{
  GstDonarCall *call = client_ref_call (client);
  gboolean taken;

  if (call == NULL || call->options.role != DONAR_ROLE_CALLEE) {
    GST_WARNING_OBJECT (client->element, "accept: not a callee in a call");
    if (call)
      gst_donar_call_unref_from_app (call);
    return FALSE;
  }
  g_mutex_lock (&call->lock);
  taken = !call->ended;
  if (taken)
    g_atomic_int_set (&call->answered, TRUE);
  g_mutex_unlock (&call->lock);
  GST_INFO_OBJECT (client->element, "accept: %s", taken ? "answered" :
      "the call has ended");
  gst_donar_call_unref_from_app (call);
  return taken;
}

/* Callee: ends a call that came in and is not answered, the caller told
 * why (BYE "rejected"); FALSE if there is none. */
gboolean
gst_donar_call_client_reject (GstDonarCallClient * client)
{
  GstDonarCall *call = client_ref_call (client);
  DonarLinkEngine *engine = call ? gst_donar_call_get_engine (call) : NULL;
  gboolean pending = FALSE, now_ended = FALSE;

  if (engine && call->options.role == DONAR_ROLE_CALLEE) {
    g_mutex_lock (&call->lock);
    pending = call->incoming && !call->ended &&
        !g_atomic_int_get (&call->answered);
    g_mutex_unlock (&call->lock);
  }
  if (!pending) {
    GST_WARNING_OBJECT (client->element, "reject: no call waits for an "
        "answer here (not a callee, none came in, or it is answered: end "
        "it with EOS)");
  } else {
    now_ended = end_here (call, engine, DONAR_BYE_REJECTED, "rejected",
        "this end rejected the call");
  }
  if (call)
    gst_donar_call_unref_from_app (call);
  return now_ended;
}

static gboolean
accept_signal (GstElement * element)
{
  return gst_donar_call_client_accept (gst_donar_call_client_get (element));
}

static gboolean
reject_signal (GstElement * element)
{
  return gst_donar_call_client_reject (gst_donar_call_client_get (element));
}

/* Action signals, as srtsink's are emitted by name: an application calls
 * element.emit ("accept") when it has the user's answer. */
void
gst_donar_call_install_signals (GType type)
{
  g_signal_new_class_handler ("accept", type,
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (accept_signal), NULL,
      NULL, NULL, G_TYPE_BOOLEAN, 0);
  g_signal_new_class_handler ("reject", type,
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (reject_signal), NULL,
      NULL, NULL, G_TYPE_BOOLEAN, 0);
}
