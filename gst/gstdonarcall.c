/* What donarsink and donarsrc share: one call, set up on a thread of its
 * own and joined by the elements that want it (the other files of the
 * call object: gstdonarcall-private.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonarcall-private.h"
#include "gstdonarprogress.h"
#include "donar-secret.h"

/* donar-ready promises that frames will be carried.  A callee is ready
 * once it can be called (its address posted): its caller needs nothing
 * more to dial.  A caller is ready once a link is up: before, whatever it
 * sends is lost, and over Tor the links take seconds to open. */
static gboolean
call_is_ready (GstDonarCall * call)
{
  return call->call && (call->options.role == DONAR_ROLE_CALLEE ||
      call->links_up > 0);
}

/* Under call->lock: the setup ended without a call.  A cancelled setup is
 * no failure: it was stopped because no element wants the call any more. */
static gboolean
setup_failed (GstDonarCall * call)
{
  return call->done && call->call == NULL && call->error &&
      !g_error_matches (call->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* Under call->lock: the reason why the call cannot go on (its setup
 * failed, or the callee refused it), or NULL. */
static const gchar *
call_failure (GstDonarCall * call)
{
  if (setup_failed (call))
    return call->error->message;
  if (call->done && call->refusal)
    return call->refusal->message;
  return NULL;
}

static void
client_ready (GstDonarCall * call, GstDonarCallClient * client)
{
  GstElement *element = client->element;
  const gchar *failure = call_failure (call);

  if (failure) {
    /* The error before the end of the progress: gst-launch-1.0 takes that
     * end as its cue to go to PLAYING, and quits on the error only if the
     * error came first (else PLAYING posts it again).  A refused call
     * says so to an element that joins it, never "call set up". */
    gst_donar_call_post_setup_error (call, element, failure);
    gst_donar_call_post_progress (call, client, GST_PROGRESS_TYPE_ERROR,
        failure, call->percent);
  } else if (call->call) {
    const gchar *address = donar_call_get_address (call->call);

    gst_donar_call_post_progress (call, client, GST_PROGRESS_TYPE_COMPLETE,
        "call set up", 100);
    /* Only the callee has an address to give; the caller's would only put
     * its secret in the hands of whoever watches the bus.  The file before
     * the message, so that whoever waits for the message finds it. */
    if (call->options.role == DONAR_ROLE_CALLEE) {
      gst_donar_call_write_address_file (call, client, address);
      gst_donar_call_posts_add (&call->posts, element,
          gst_message_new_element (GST_OBJECT (element),
              gst_structure_new ("donar-call-address", "address",
                  G_TYPE_STRING, address, "callee", G_TYPE_BOOLEAN, TRUE,
                  NULL)));
    }
    if (call_is_ready (call))
      gst_donar_call_post_ready (call, client);
  } else {
    /* Every start has its end, or an application that waits for the
     * progress to end waits for ever. */
    gst_donar_call_post_progress (call, client, GST_PROGRESS_TYPE_CANCELED,
        "call setup canceled", call->percent);
  }
}

static void
on_progress (const gchar * step, gint percent, gpointer user_data)
{
  GstDonarCall *call = user_data;
  g_autofree gchar *text = percent >= 0 ?
      g_strdup_printf ("%s (%d %%)", step, percent) : g_strdup (step);

  g_mutex_lock (&call->lock);
  call->percent = gst_donar_progress_percent (step, percent, call->percent);
  for (GList * l = call->clients; l; l = l->next)
    gst_donar_call_post_progress (call, l->data, GST_PROGRESS_TYPE_CONTINUE,
        text, call->percent);
  gst_donar_call_posts_unlock (&call->posts, &call->lock);
}

/* Under call->lock; events may come before setup_thread sets call->call. */
static DonarLinkEnd
call_end (GstDonarCall * call, DonarByeReason * reason)
{
  *reason = DONAR_BYE_UNKNOWN;
  if (call->call == NULL)
    return DONAR_LINK_END_NONE;
  return donar_link_engine_get_end (donar_call_get_engine (call->call), reason);
}

static const gchar *
peer_end_reason (GstDonarCall * call)
{
  DonarByeReason reason;

  call_end (call, &reason);
  return donar_link_end_peer_reason (reason);
}

/* Under call->lock: a warning or an error about the links, the engine's
 * message as its debug text. */
#define queue_resource(call, element, type, code, text, debug) \
  gst_donar_call_posts_add_resource (&(call)->posts, (element), (type), \
      (code), (text), g_strdup (debug), NULL)

static void
on_event (const DonarLinkEvent * event, gpointer user_data)
{
  GstDonarCall *call = user_data;
  gboolean links_changed, now_ready, now_ended, refused;
  DonarByeReason reason;
  const gchar *failure, *explanation = "no dial has said why yet";

  g_mutex_lock (&call->lock);
  /* An event tells the number after every change of its batch: two
   * events may say the same number, which is then posted once. */
  links_changed = (guint) call->links_up != event->links_up;
  /* An unreachable peer reported early (a refusal) ends nothing yet. */
  now_ended = !call->ended && (event->type == DONAR_LINK_EVENT_PEER_ENDED ||
      (event->type == DONAR_LINK_EVENT_PEER_UNREACHABLE &&
          call_end (call, &reason) != DONAR_LINK_END_NONE));
  call->ended |= now_ended;
  refused = event->type == DONAR_LINK_EVENT_PEER_UNREACHABLE && !now_ended;
  if (refused && call->refusal == NULL)
    call->refusal = g_error_new_literal (G_IO_ERROR,
        G_IO_ERROR_CONNECTION_REFUSED, event->message);
  failure = event->type == DONAR_LINK_EVENT_NO_LINK_YET && call->call ?
      donar_link_engine_get_failure (donar_call_get_engine (call->call),
      &explanation) : "unknown";
  g_atomic_int_set (&call->links_up, event->links_up);
  call->incoming |= event->type == DONAR_LINK_EVENT_INCOMING_CALL;
  /* Before the call is set up the elements have no engine yet: setup_thread
   * posts donar-ready then. */
  now_ready = !call->ready && call_is_ready (call);
  call->ready |= now_ready;
  for (GList * l = call->clients; l; l = l->next) {
    GstDonarCallClient *client = l->data;
    GstElement *element = client->element;

    GST_DEBUG_OBJECT (element, "%s: link %d, %u up: %s",
        donar_link_event_type_to_string (event->type), (gint) event->link,
        event->links_up, event->message);
    switch (event->type) {
      case DONAR_LINK_EVENT_LINK_DOWN:
        queue_resource (call, element, GST_MESSAGE_WARNING,
            GST_RESOURCE_ERROR_WRITE,
            g_strdup_printf ("Link %u of the call is down.", event->link),
            event->message);
        break;
      case DONAR_LINK_EVENT_NO_LINK_LEFT:
        /* Only a caller dials; a callee's onion waits to be dialed. */
        if (call->options.role == DONAR_ROLE_CALLER)
          queue_resource (call, element, GST_MESSAGE_WARNING,
              GST_RESOURCE_ERROR_WRITE,
              g_strdup ("No link of the call is left open; dialing again."),
              event->message);
        else
          queue_resource (call, element, GST_MESSAGE_WARNING,
              GST_RESOURCE_ERROR_WRITE,
              g_strdup ("No link of the call is left open; waiting for the "
                  "caller to reconnect."), event->message);
        break;
      case DONAR_LINK_EVENT_PEER_UNREACHABLE:
        if (now_ended) {
          gst_donar_call_post_ended (call, client, "peer-unreachable",
              event->message);
          queue_resource (call, element, GST_MESSAGE_ERROR,
              GST_RESOURCE_ERROR_WRITE,
              g_strdup_printf ("The other end of the call is unreachable: no "
                  "link to it for peer-timeout (%u s).",
                  client->settings.peer_timeout), event->message);
        } else if (call->done) {
          queue_resource (call, element, GST_MESSAGE_ERROR,
              GST_RESOURCE_ERROR_WRITE,
              g_strdup ("The other end of the call cannot be reached."),
              event->message);
        }
        /* Else the setup thread fails the setup with it. */
        break;
      case DONAR_LINK_EVENT_NO_LINK_YET:
        gst_donar_call_post_no_link_yet (call, element, failure, explanation,
            event->message);
        break;
      case DONAR_LINK_EVENT_PEER_ENDED:
        gst_donar_call_post_ended (call, client, peer_end_reason (call),
            event->message);
        call_end (call, &reason);
        /* A gst-launch caller exits with the reason, not as after a
         * hang-up. */
        if (reason == DONAR_BYE_REJECTED)
          queue_resource (call, element, GST_MESSAGE_ERROR,
              GST_RESOURCE_ERROR_OPEN_WRITE,
              g_strdup ("The other end rejected the call."), event->message);
        break;
      case DONAR_LINK_EVENT_INCOMING_CALL:
        gst_donar_call_post_incoming_call (call, client, event->link,
            g_atomic_int_get (&call->answered));
        break;
      case DONAR_LINK_EVENT_PEER_RESTARTED:
        gst_donar_call_post_peer_restarted (call, client, event->link);
        break;
      case DONAR_LINK_EVENT_NO_LINK_IN_TIME:
        queue_resource (call, element, GST_MESSAGE_WARNING,
            GST_RESOURCE_ERROR_WRITE,
            g_strdup ("No link of the call delivers in time: the path is "
                "stalled."), event->message);
        break;
      default:
        break;
    }
    if (client->on_event)
      client->on_event (client, event);
    if (links_changed)
      gst_donar_call_post_links (call, client);
    if (now_ready)
      gst_donar_call_post_ready (call, client);
  }
  gst_donar_call_posts_unlock (&call->posts, &call->lock);
}

static gpointer
setup_thread (gpointer user_data)
{
  GstDonarCall *call = user_data;
  GError *error = NULL;
  DonarCall *c;

  c = donar_call_start (&call->options, on_progress, on_event, call,
      call->cancellable, &error);
  g_mutex_lock (&call->lock);
  /* Refused while the setup ended (the first dials go out before
   * donar_call_start () returns): the setup failed, and says so once,
   * rather than "set up" after the refusal's error.  The call is freed
   * without the lock: its engine's thread may wait for it in on_event. */
  if (c && call->refusal) {
    error = g_steal_pointer (&call->refusal);
    g_mutex_unlock (&call->lock);
    donar_call_free (g_steal_pointer (&c));
    g_mutex_lock (&call->lock);
  }
  call->call = c;
  call->error = error;
  call->done = TRUE;
  call->ready = call_is_ready (call);
  for (GList * l = call->clients; l; l = l->next)
    client_ready (call, l->data);
  gst_donar_call_posts_unlock (&call->posts, &call->lock);
  return NULL;
}

/* A call of no name yet, its one reference its creator's. */
GstDonarCall *
gst_donar_call_new (void)
{
  GstDonarCall *call = g_new0 (GstDonarCall, 1);

  call->refcount = 1;
  g_mutex_init (&call->lock);
  gst_donar_call_posts_init (&call->posts);
  call->cancellable = g_cancellable_new ();
  return call;
}

void
gst_donar_call_free (GstDonarCall * call)
{
  g_cancellable_cancel (call->cancellable);
  if (call->thread)
    g_thread_join (call->thread);
  /* Stopping is hanging up: the peer is told, not left to time out. */
  if (call->call)
    donar_link_engine_end (donar_call_get_engine (call->call),
        DONAR_BYE_HUNG_UP, HANG_UP_FLUSH_US);
  donar_call_free (call->call);
  g_clear_error (&call->error);
  g_clear_error (&call->refusal);
  g_object_unref (call->cancellable);
  donar_call_options_clear (&call->options);
  donar_secret_free (call->address);
  g_free (call->key_file);
  g_free (call->client_auth_dir);
  g_free (call->tor_control_path);
  g_free (call->tor_socks_path);
  donar_secret_free (call->tor_password);
  g_free (call->tor_cookie_file);
  g_free (call->name);
  gst_donar_call_posts_clear (&call->posts);
  g_mutex_clear (&call->lock);
  g_free (call);
}

gboolean
gst_donar_call_client_start (GstDonarCallClient * client)
{
  GstElement *element = client->element;
  GstDonarCallSettings *s = &client->settings;
  GstDonarCall *call = NULL;
  GError *error = NULL;
  gboolean created = FALSE;
  gchar *key;
  guint interval;

  GST_OBJECT_LOCK (element);
  key = g_strdup (s->call);
  GST_OBJECT_UNLOCK (element);
  /* Not under the element's lock: its parents are looked up. */
  if (key[0] != '\0') {
    gchar *scoped = gst_donar_call_registry_key (element, key);

    g_free (key);
    key = scoped;
  }

  GST_OBJECT_LOCK (element);
  call = gst_donar_call_registry_join (client, &key, &created, &error);
  interval = s->stats_interval;
  g_free (client->address_file);
  client->address_file = g_strdup (s->address_file);
  GST_OBJECT_UNLOCK (element);
  g_free (key);

  if (error) {
    /* The setting and why, never a secret (the address parser names the
     * part that is wrong). */
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("Invalid call settings: %s.", error->message), ("%s", error->message));
    g_error_free (error);
    if (call)
      gst_donar_call_free (call);
    return FALSE;
  }

  g_mutex_lock (&call->lock);
  /* A call whose setup failed, or that the callee refused, is joined all
   * the same, and the element posts its error (client_ready ()): failing
   * the state change instead
   * made gst-launch-1.0 exit 255 rather than 1 when the setup failed before
   * the second element of a duplex call started (gst_donar_call_client_play
   * ()). */
  call->clients = g_list_append (call->clients, client);
  /* A late element hears what the others heard: the links up now. */
  if (call->links_up > 0)
    gst_donar_call_post_links (call, client);
  if (call->done)
    client_ready (call, client);
  else {
    /* Each element's progress starts at 0; one that joins a setup already
     * under way then hears where it is. */
    gst_donar_call_post_progress (call, client, GST_PROGRESS_TYPE_START,
        "setting up the call", 0);
    if (call->percent > 0)
      gst_donar_call_post_progress (call, client, GST_PROGRESS_TYPE_CONTINUE,
          "joined the call's setup", call->percent);
  }
  gst_donar_call_posts_unlock (&call->posts, &call->lock);

  if (created)
    call->thread = g_thread_new ("donar-call-setup", setup_thread, call);

  GST_OBJECT_LOCK (element);
  client->call = call;
  GST_OBJECT_UNLOCK (element);

  if (interval > 0) {
    client->stats_interval_ms = interval;
    client->stats_stop = FALSE;
    client->stats_thread =
        g_thread_new ("donar-stats", gst_donar_call_stats_thread, client);
  }
  return TRUE;
}

void
gst_donar_call_client_stop (GstDonarCallClient * client)
{
  GstDonarCall *call;
  gboolean canceled;
  gint percent;

  if (client->stats_thread) {
    g_mutex_lock (&client->stats_lock);
    client->stats_stop = TRUE;
    g_cond_signal (&client->stats_cond);
    g_mutex_unlock (&client->stats_lock);
    g_thread_join (client->stats_thread);
    client->stats_thread = NULL;
  }
  GST_OBJECT_LOCK (client->element);
  call = client->call;
  client->call = NULL;
  GST_OBJECT_UNLOCK (client->element);
  if (call == NULL)
    return;
  g_mutex_lock (&call->lock);
  call->clients = g_list_remove (call->clients, client);
  /* Nothing of this element's is posted once it has stopped: its
   * application may free what its bus handler reads. */
  gst_donar_call_posts_forget (&call->posts, client->element, &call->lock);
  canceled = !call->done;
  percent = call->percent;
  g_mutex_unlock (&call->lock);
  /* This element's start of the progress gets its end, the last of its
   * messages: the setup thread no longer posts it to this element. */
  if (canceled)
    gst_element_post_message (client->element,
        gst_donar_progress_message_new (client->element,
            GST_PROGRESS_TYPE_CANCELED, "call setup canceled", percent));
  gst_donar_call_unref (call);
}

/* gst-launch-1.0 (1.22) quits on an error from its bus sync handler, with
 * g_main_loop_quit (), which is lost when it comes before
 * g_main_loop_run (): an error the setup thread posts while the state
 * change to PAUSED returns is printed and then ignored, and the end of the
 * progress takes the pipeline to PLAYING, for ever.  That end is handled in
 * the running loop, and so is the state change to PLAYING it starts: the
 * error posted again then is heard.  The state change does not fail: a
 * failed one makes gst-launch-1.0 exit 255 where an error it heard the
 * first time makes it exit 1, and which of the two comes first is a race
 * (about a third of the runs were 255); so it exits 1 every time.
 * Applications that listen earlier hear the first error and need not go
 * to PLAYING. */
gboolean
gst_donar_call_client_play (GstDonarCallClient * client)
{
  /* Not under the element's lock: state changes do not overlap, and only
   * they set client->call. */
  GstDonarCall *call = client->call;
  gchar *reason = NULL;

  if (call == NULL)
    return TRUE;
  g_mutex_lock (&call->lock);
  reason = g_strdup (call_failure (call));
  if (reason)
    gst_donar_call_post_setup_error (call, client->element, reason);
  gst_donar_call_posts_unlock (&call->posts, &call->lock);
  if (reason == NULL)
    return TRUE;
  g_free (reason);
  return FALSE;
}

DonarLinkEngine *
gst_donar_call_get_engine (GstDonarCall * call)
{
  DonarLinkEngine *engine = NULL;

  g_mutex_lock (&call->lock);
  if (call->call)
    engine = donar_call_get_engine (call->call);
  g_mutex_unlock (&call->lock);
  return engine;
}

/* The streaming threads: the call does not change while they run. */
DonarLinkEngine *
gst_donar_call_client_get_engine (GstDonarCallClient * client)
{
  return client->call ? gst_donar_call_get_engine (client->call) : NULL;
}

guint
gst_donar_call_client_get_links_up (GstDonarCallClient * client)
{
  return client->call ? (guint) g_atomic_int_get (&client->call->links_up) : 0;
}

gboolean
gst_donar_call_client_is_ready (GstDonarCallClient * client)
{
  gboolean ready;

  if (client->call == NULL)
    return FALSE;
  g_mutex_lock (&client->call->lock);
  ready = client->call->ready;
  g_mutex_unlock (&client->call->lock);
  return ready;
}

gboolean
gst_donar_call_client_is_answered (GstDonarCallClient * client)
{
  GstDonarCall *call = client->call;

  return call != NULL && g_atomic_int_get (&call->answered);
}

gboolean
gst_donar_call_client_has_ended (GstDonarCallClient * client)
{
  DonarLinkEngine *engine = gst_donar_call_client_get_engine (client);

  return engine != NULL &&
      donar_link_engine_get_end (engine, NULL) != DONAR_LINK_END_NONE;
}
