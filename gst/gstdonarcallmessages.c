/* The messages of a call to its elements: made under call->lock and
 * queued, then posted once it is released (gstdonarcallposts.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonarcall-private.h"
#include "gstdonarprogress.h"

/* Messages to every element of the call, queued under call->lock and
 * posted when it is released (gstdonarcallposts.h). */
void
gst_donar_call_post_progress (GstDonarCall * call, GstDonarCallClient * client,
    GstProgressType type, const gchar * text, gint percent)
{
  gst_donar_call_posts_add (&call->posts, client->element,
      gst_donar_progress_message_new (client->element, type, text, percent));
}

/* A file that cannot be written does not stop the call: the address is
 * also in the donar-call-address message. */
void
gst_donar_call_write_address_file (GstDonarCall * call,
    GstDonarCallClient * client, const gchar * address)
{
  GError *error = NULL;

  if (client->address_file[0] == '\0')
    return;
  if (!donar_call_write_address_file (client->address_file, address, &error)) {
    gst_donar_call_posts_add_resource (&call->posts, client->element,
        GST_MESSAGE_WARNING, GST_RESOURCE_ERROR_OPEN_WRITE,
        g_strdup_printf ("Could not write the call address to \"%s\"; the "
            "call goes on.", client->address_file), g_strdup (error->message),
        NULL);
    g_error_free (error);
  }
}

void
gst_donar_call_post_links (GstDonarCall * call, GstDonarCallClient * client)
{
  gst_donar_call_posts_add (&call->posts, client->element,
      gst_message_new_element (GST_OBJECT (client->element),
          gst_structure_new ("donar-links", "links-up", G_TYPE_UINT,
              (guint) call->links_up, "links", G_TYPE_UINT, call->n_links,
              NULL)));
}

void
gst_donar_call_post_ready (GstDonarCall * call, GstDonarCallClient * client)
{
  gst_donar_call_posts_add (&call->posts, client->element,
      gst_message_new_element (GST_OBJECT (client->element),
          gst_structure_new ("donar-ready", "callee", G_TYPE_BOOLEAN,
              call->options.role == DONAR_ROLE_CALLEE, NULL)));
  if (client->on_ready)
    client->on_ready (client);
}

void
gst_donar_call_post_setup_error (GstDonarCall * call, GstElement * element,
    const gchar * reason)
{
  /* The reason in the message itself, where gst-launch-1.0 and most
   * applications show it, not only in the debug text. */
  gst_donar_call_posts_add_resource (&call->posts, element, GST_MESSAGE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ_WRITE,
      g_strdup_printf ("The DONAR call could not be set up: %s.", reason),
      g_strdup (reason), NULL);
}

/* donar-call-ended: why ("hung-up" here; "peer-hung-up", "peer-failed",
 * "peer-ended" with no reason, "peer-unreachable") and the details. */
void
gst_donar_call_post_ended (GstDonarCall * call, GstDonarCallClient * client,
    const gchar * reason, const gchar * message)
{
  gst_donar_call_posts_add (&call->posts, client->element,
      gst_message_new_element (GST_OBJECT (client->element),
          gst_structure_new ("donar-call-ended", "reason", G_TYPE_STRING,
              reason, "message", G_TYPE_STRING, message, NULL)));
}

/* donar-peer-restarted: the peer's session started over (a callee with
 * its key file, a caller dialing again): its RTP (SSRC, sequence,
 * timestamps) starts over too, and an rtpbin gives it a new pad. */
void
gst_donar_call_post_peer_restarted (GstDonarCall * call,
    GstDonarCallClient * client, guint link)
{
  gst_donar_call_posts_add (&call->posts, client->element,
      gst_message_new_element (GST_OBJECT (client->element),
          gst_structure_new ("donar-peer-restarted", "link", G_TYPE_UINT,
              link, NULL)));
}

/* donar-incoming-call (callee): the caller's first link is authenticated;
 * "answered" FALSE while the application must accept or reject it. */
void
gst_donar_call_post_incoming_call (GstDonarCall * call,
    GstDonarCallClient * client, guint link, gboolean answered)
{
  gst_donar_call_posts_add (&call->posts, client->element,
      gst_message_new_element (GST_OBJECT (client->element),
          gst_structure_new ("donar-incoming-call", "link", G_TYPE_UINT,
              link, "answered", G_TYPE_BOOLEAN, answered, NULL)));
}

/* A caller with no link yet is told why soon (the engine's
 * no_link_warning_us), not after peer-timeout: a warning naming the likely
 * cause, and its short name in the details' "reason" for applications. */
void
gst_donar_call_post_no_link_yet (GstDonarCall * call, GstElement * element,
    const gchar * failure, const gchar * explanation, const gchar * message)
{
  GstStructure *details = gst_structure_new ("details", "reason",
      G_TYPE_STRING, failure, NULL);

  gst_donar_call_posts_add_resource (&call->posts, element,
      GST_MESSAGE_WARNING, GST_RESOURCE_ERROR_OPEN_READ_WRITE,
      g_strdup_printf ("No link to the other end yet: %s.", explanation),
      g_strdup (message), details);
}

/* A warning or an error from every element of the call (lib/call's
 * threads). */
static void
post_to_clients (GstDonarCall * call, GstMessageType type,
    GstResourceError code, const gchar * text, const gchar * debug)
{
  g_mutex_lock (&call->lock);
  for (GList * l = call->clients; l; l = l->next)
    gst_donar_call_posts_add_resource (&call->posts,
        ((GstDonarCallClient *) l->data)->element, type, code,
        g_strdup (text), g_strdup (debug), NULL);
  gst_donar_call_posts_unlock (&call->posts, &call->lock);
}

static void
warn_clients (GstDonarCall * call, GstResourceError code, const gchar * text,
    const gchar * debug)
{
  post_to_clients (call, GST_MESSAGE_WARNING, code, text, debug);
}

/* On lib/call's watch thread: tor's control connection is gone (tor
 * stopped, or the port closed), and with it a callee's onion (no Detach,
 * docs/tor-control.md).  The links open now go on, so a warning.  With
 * none open, a caller dials again (through the SocksPort, which may still
 * work) until peer-timeout; a callee can never be reached again, and a
 * callee nobody has called yet would wait for ever: an error. */
void
gst_donar_call_on_tor_lost (const GError * error, gpointer user_data)
{
  GstDonarCall *call = user_data;
  g_autofree gchar *text = NULL;

  if (g_atomic_int_get (&call->links_up) > 0) {
    warn_clients (call, GST_RESOURCE_ERROR_READ, "Lost tor's control port: "
        "the call goes on over the open links.", error->message);
  } else if (call->options.role == DONAR_ROLE_CALLEE) {
    post_to_clients (call, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR_READ,
        "Lost tor's control port with no link open: the onion service is "
        "gone, and the caller cannot reach this end again.", error->message);
  } else {
    text = g_strdup_printf ("Lost tor's control port with no link open: "
        "dialing again through tor's SocksPort; the call ends if no link "
        "comes up within peer-timeout (%u s).",
        (guint) (call->options.engine.peer_timeout_us / G_USEC_PER_SEC));
    warn_clients (call, GST_RESOURCE_ERROR_READ, text, error->message);
  }
}

/* On the setup thread: a running tor's guards, not as the call would have
 * them (lib/call says what and why); the call goes on. */
void
gst_donar_call_on_warning (const gchar * message, gpointer user_data)
{
  warn_clients (user_data, GST_RESOURCE_ERROR_SETTINGS,
      "The running tor's entry guards are not the call's.", message);
}
