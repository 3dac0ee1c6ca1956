/* Bus messages queued under a call's lock, posted after it
 * (gstdonarcallposts.h). */
#include "gstdonarcallposts.h"

typedef struct
{
  GstElement *element;
  GstMessage *message;
} GstDonarCallPost;

void
gst_donar_call_posts_init (GstDonarCallPosts * posts)
{
  g_queue_init (&posts->queue);
  posts->posting = FALSE;
  posts->current = NULL;
  posts->poster = NULL;
  g_cond_init (&posts->posted);
}

static void
post_free (gpointer data)
{
  GstDonarCallPost *post = data;

  gst_message_unref (post->message);
  gst_object_unref (post->element);
  g_free (post);
}

void
gst_donar_call_posts_clear (GstDonarCallPosts * posts)
{
  g_queue_clear_full (&posts->queue, post_free);
  g_cond_clear (&posts->posted);
}

void
gst_donar_call_posts_forget (GstDonarCallPosts * posts, GstElement * element,
    GMutex * lock)
{
  for (GList * l = posts->queue.head; l;) {
    GList *next = l->next;
    GstDonarCallPost *post = l->data;

    if (post->element == element) {
      g_queue_delete_link (&posts->queue, l);
      post_free (post);
    }
    l = next;
  }
  while (posts->current == element && posts->poster != g_thread_self ())
    g_cond_wait (&posts->posted, lock);
}

void
gst_donar_call_posts_add (GstDonarCallPosts * posts, GstElement * element,
    GstMessage * message)
{
  GstDonarCallPost *post = g_new (GstDonarCallPost, 1);

  post->element = gst_object_ref (element);
  post->message = message;
  g_queue_push_tail (&posts->queue, post);
}

void
gst_donar_call_posts_add_resource_full (GstDonarCallPosts * posts,
    GstElement * element, GstMessageType type, GstResourceError code,
    gchar * text, gchar * debug, GstStructure * details, const gchar * file,
    const gchar * function, gint line)
{
  GError *error = g_error_new_literal (GST_RESOURCE_ERROR, code, text);
  gchar *path = gst_object_get_path_string (GST_OBJECT (element));
  gchar *where = debug ? g_strdup_printf ("%s(%d): %s (): %s:\n%s", file,
      line, function, path, debug) : NULL;
  GstMessage *message;

  g_return_if_fail (type == GST_MESSAGE_WARNING || type == GST_MESSAGE_ERROR);
  if (type == GST_MESSAGE_WARNING)
    message = gst_message_new_warning_with_details (GST_OBJECT (element),
        error, where, details);
  else
    message = gst_message_new_error_with_details (GST_OBJECT (element),
        error, where, details);
  gst_donar_call_posts_add (posts, element, message);
  g_error_free (error);
  g_free (where);
  g_free (path);
  g_free (text);
  g_free (debug);
}

void
gst_donar_call_posts_unlock (GstDonarCallPosts * posts, GMutex * lock)
{
  GstDonarCallPost *post;

  if (posts->posting) {
    g_mutex_unlock (lock);
    return;
  }
  posts->posting = TRUE;
  posts->poster = g_thread_self ();
  while ((post = g_queue_pop_head (&posts->queue))) {
    posts->current = post->element;
    g_mutex_unlock (lock);
    gst_element_post_message (post->element, post->message);
    g_mutex_lock (lock);
    posts->current = NULL;
    g_cond_broadcast (&posts->posted);
    g_mutex_unlock (lock);
    /* Perhaps the element's last reference, once its stop has returned:
     * not under the lock. */
    gst_object_unref (post->element);
    g_free (post);
    g_mutex_lock (lock);
  }
  posts->poster = NULL;
  posts->posting = FALSE;
  g_mutex_unlock (lock);
}
