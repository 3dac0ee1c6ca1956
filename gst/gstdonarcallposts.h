/* The bus messages of a call, made under the call's lock and posted once
 * it is released, as the udp elements emit their signals and srt its
 * callbacks.  A sync bus handler runs inside gst_element_post_message (),
 * on the posting thread: one that answers the call, reads its stats or
 * sets a property takes the call's lock again, and a GMutex taken twice
 * by one thread waits for ever.
 *
 * One thread posts at a time, in the order the messages were queued
 * under the lock: a message queued while another thread posts (or while
 * a sync handler of this thread runs) is posted by that thread after
 * those before it, so the bus sees the order the call's lock saw. */
#ifndef GST_DONAR_CALL_POSTS_H
#define GST_DONAR_CALL_POSTS_H

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct
{
  /* Under the lock given to gst_donar_call_posts_unlock (). */
  GQueue queue;                 /* of GstDonarCallPost */
  gboolean posting;
  /* The element whose message is being posted, and by which thread. */
  GstElement *current;
  GThread *poster;
  GCond posted;
} GstDonarCallPosts;

void gst_donar_call_posts_init (GstDonarCallPosts * posts);
/* Drops what was not posted: only when no thread can post any more. */
void gst_donar_call_posts_clear (GstDonarCallPosts * posts);

/* Under the lock: `message` (taken) for `element` (referenced until it is
 * posted). */
void gst_donar_call_posts_add (GstDonarCallPosts * posts,
    GstElement * element, GstMessage * message);

/* Under the lock: a warning or an error of GST_RESOURCE_ERROR's domain,
 * as GST_ELEMENT_WARNING and GST_ELEMENT_ERROR would post it (the debug
 * text after where it comes from and the element's path).  text, debug
 * (may be NULL) and details (may be NULL) are taken. */
void gst_donar_call_posts_add_resource_full (GstDonarCallPosts * posts,
    GstElement * element, GstMessageType type, GstResourceError code,
    gchar * text, gchar * debug, GstStructure * details, const gchar * file,
    const gchar * function, gint line);
#define gst_donar_call_posts_add_resource(posts, element, type, code, text, \
    debug, details) \
  gst_donar_call_posts_add_resource_full ((posts), (element), (type), \
      (code), (text), (debug), (details), __FILE__, GST_FUNCTION, __LINE__)

/* Under the lock: drops what is queued for `element`, and waits until no
 * other thread posts one of its messages, so that none is posted once the
 * element has left the call (its stop; a bus handler's data may be gone
 * after it).  Not from a sync handler of one of its own messages: that
 * one is being posted. */
void gst_donar_call_posts_forget (GstDonarCallPosts * posts,
    GstElement * element, GMutex * lock);

/* Releases `lock`, held, and posts what was queued, unless another
 * thread is posting (it posts them).  Returns with `lock` released. */
void gst_donar_call_posts_unlock (GstDonarCallPosts * posts, GMutex * lock);

G_END_DECLS

#endif
