/* What the files of the call object (gst/README.md) share, kept from the
 * elements, which see only gstdonarcall.h: the call itself, whose fields
 * are under its lock or registry_lock, and the functions one file gives
 * the others. */
#ifndef __GST_DONAR_CALL_PRIVATE_H__
#define __GST_DONAR_CALL_PRIVATE_H__

#include "gstdonarcall.h"
#include "gstdonarcallposts.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_donar_call_debug);
#define GST_CAT_DEFAULT gst_donar_call_debug

/* How long a hang-up waits for the BYE to leave: at once on a link that
 * takes writes; a stalled one is not worth more. */
#define HANG_UP_FLUSH_US G_USEC_PER_SEC

struct _GstDonarCall
{
  gint refcount;                /* under registry_lock */
  gchar *name;                  /* the registry key; NULL: of one element */

  /* Taken by the setup thread, the engine's thread (on_event), the
   * elements' state changes, their stats and their action signals; never
   * held while the application is called: the messages are queued in
   * posts under it and posted once it is released
   * (gst_donar_call_posts_unlock ()).  The elements' callbacks
   * (GstDonarCallClient's on_event, on_ready) run under it: they only set
   * an atomic.  After registry_lock and the element's object lock when
   * taken with them (gst_donar_call_client_start ()). */
  GMutex lock;
  /* Under lock. */
  GstDonarCallPosts posts;
  GList *clients;
  DonarCall *call;
  gboolean done;
  GError *error;
  /* A refusal that no retry changes (a wrong client key, a bad onion),
   * from the engine.  Before the setup ends it is the setup's failure, so
   * that nothing says "set up" after its error; after, it fails what
   * would go on: PLAYING, an element that joins. */
  GError *refusal;

  DonarCallOptions options;
  gchar *address;
  /* What options->key_file and client_auth_dir point to. */
  gchar *key_file;
  gchar *client_auth_dir;
  /* Tor's Unix sockets, for options. */
  gchar *tor_control_path;
  /* What options->tor_password (a secret) and tor_cookie_file point to. */
  gchar *tor_password;
  gchar *tor_cookie_file;
  gchar *tor_socks_path;
  guint n_links;
  /* Under lock, from the engine's events; also read atomically by the
   * streaming threads. */
  gint links_up;
  /* donar-ready, donar-call-ended were posted (under lock). */
  gboolean ready;
  gboolean ended;
  /* Callee: whether the call came in (under lock) and is answered, so
   * that frames go either way (also read atomically by the streaming
   * threads); a caller's, and an auto-answering callee's, is answered
   * from the start. */
  gboolean incoming;
  gint answered;
  /* How far the setup is, for the progress messages (under lock). */
  gint percent;
  GCancellable *cancellable;
  GThread *thread;
};

/* gstdonarcall.c */
G_GNUC_INTERNAL GstDonarCall *gst_donar_call_new (void);
/* Joins the call's threads: never from one of them. */
G_GNUC_INTERNAL void gst_donar_call_free (GstDonarCall * call);
G_GNUC_INTERNAL DonarLinkEngine *gst_donar_call_get_engine (GstDonarCall *
    call);

/* gstdonarcallsettings.c */
G_GNUC_INTERNAL gboolean gst_donar_call_fill_options (GstDonarCall * call,
    const GstDonarCallSettings * s, GError ** error);

/* gstdonarcallregistry.c */
G_GNUC_INTERNAL gchar *gst_donar_call_registry_key (GstElement * element,
    const gchar * name);
G_GNUC_INTERNAL GstDonarCall *gst_donar_call_registry_join (GstDonarCallClient
    * client, gchar ** key, gboolean * created, GError ** error);
G_GNUC_INTERNAL GstDonarCall *gst_donar_call_ref (GstDonarCall * call);
G_GNUC_INTERNAL void gst_donar_call_unref (GstDonarCall * call);
G_GNUC_INTERNAL void gst_donar_call_unref_from_app (GstDonarCall * call);

/* gstdonarcallmessages.c: under call->lock. */
G_GNUC_INTERNAL void gst_donar_call_post_progress (GstDonarCall * call,
    GstDonarCallClient * client, GstProgressType type, const gchar * text,
    gint percent);
G_GNUC_INTERNAL void gst_donar_call_write_address_file (GstDonarCall * call,
    GstDonarCallClient * client, const gchar * address);
G_GNUC_INTERNAL void gst_donar_call_post_links (GstDonarCall * call,
    GstDonarCallClient * client);
G_GNUC_INTERNAL void gst_donar_call_post_ready (GstDonarCall * call,
    GstDonarCallClient * client);
G_GNUC_INTERNAL void gst_donar_call_post_setup_error (GstDonarCall * call,
    GstElement * element, const gchar * reason);
G_GNUC_INTERNAL void gst_donar_call_post_ended (GstDonarCall * call,
    GstDonarCallClient * client, const gchar * reason, const gchar * message);
G_GNUC_INTERNAL void gst_donar_call_post_peer_restarted (GstDonarCall * call,
    GstDonarCallClient * client, guint link);
G_GNUC_INTERNAL void gst_donar_call_post_incoming_call (GstDonarCall * call,
    GstDonarCallClient * client, guint link, gboolean answered);
G_GNUC_INTERNAL void gst_donar_call_post_no_link_yet (GstDonarCall * call,
    GstElement * element, const gchar * failure, const gchar * explanation,
    const gchar * message);
/* DonarCallOptions' on_tor_lost and on_warning: they take the lock. */
G_GNUC_INTERNAL void gst_donar_call_on_tor_lost (const GError * error,
    gpointer user_data);
G_GNUC_INTERNAL void gst_donar_call_on_warning (const gchar * message,
    gpointer user_data);

/* gstdonarcallstats.c */
G_GNUC_INTERNAL gpointer gst_donar_call_stats_thread (gpointer user_data);

G_END_DECLS
#endif /* __GST_DONAR_CALL_PRIVATE_H__ */
