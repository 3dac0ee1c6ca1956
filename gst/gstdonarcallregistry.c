/* The registry of calls shared by name, as srt's gstsrtlistenerconnection.c
 * keeps its shared listeners: a donarsink and a donarsrc with the same
 * #GstDonarSink:call name in one pipeline use one call, refcounted; the
 * last to leave frees it. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonarcall-private.h"

/* registry_lock guards the registry and every call's refcount: the
 * elements' references and those an application's stats, accept or
 * reject take.  Second in the lock order (docs/elements.md, "Threads and
 * locks"): after the element's object lock, which start, the stats and
 * the action signals hold when they take a reference, and before a call's
 * lock, which nothing takes under it.  The application is never called
 * under it, and a call whose last reference it dropped is freed once it
 * is released: freeing joins the call's threads, and a sync bus handler
 * on one of them may be waiting for registry_lock. */
static GMutex registry_lock;
static GHashTable *registry;    /* registry key -> GstDonarCall */

/* Call names are scoped to the top-level bin: two pipelines of one
 * process that both say call=c make two calls, not one. */
gchar *
gst_donar_call_registry_key (GstElement * element, const gchar * name)
{
  GstObject *top = gst_object_ref (GST_OBJECT (element)), *parent;
  gchar *key;

  while ((parent = gst_object_get_parent (top))) {
    gst_object_unref (top);
    top = parent;
  }
  key = g_strdup_printf ("%p/%s", (gpointer) top, name);
  gst_object_unref (top);
  return key;
}

/* An element joining a call must want the same call: the first element of
 * the name decides whether it dials or answers, and a later one that
 * disagrees would silently be made the other. */
static gboolean
check_join (GstDonarCall * call, const GstDonarCallSettings * s,
    GError ** error)
{
  const gchar *why = NULL;

  if (s->address[0] != '\0' && call->options.role == DONAR_ROLE_CALLEE)
    why = "this element dials an address, the call is a callee (set the "
        "address on every element of the call, or on none)";
  else if (s->address[0] != '\0' && g_strcmp0 (s->address, call->address))
    why = "the elements of the call dial different addresses";
  else if (s->callee && call->options.role == DONAR_ROLE_CALLER)
    why = "this element is a callee, the call dials an address";
  if (why)
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "call \"%s\": %s", s->call, why);
  return why == NULL;
}

/* Under the element's object lock: the call named key, joined, or a new
 * one, put in the registry when it has a name (which then takes key).
 * NULL when the element may not join; a new call whose options are
 * refused comes back with the error, for the caller to free. */
GstDonarCall *
gst_donar_call_registry_join (GstDonarCallClient * client, gchar ** key,
    gboolean * created, GError ** error)
{
  GstElement *element = client->element;
  const GstDonarCallSettings *s = &client->settings;
  GstDonarCall *call = NULL;

  g_mutex_lock (&registry_lock);
  if (registry == NULL)
    registry = g_hash_table_new (g_str_hash, g_str_equal);
  if ((*key)[0] != '\0')
    call = g_hash_table_lookup (registry, *key);
  if (client->uri_error) {
    /* Not the settings the user meant: no call at all. */
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_OPTIONS,
        "uri: %s", client->uri_error);
    call = NULL;
  } else if (call) {
    if (check_join (call, s, error)) {
      call->refcount++;
      GST_INFO_OBJECT (element, "joining call \"%s\"", s->call);
    } else {
      call = NULL;
    }
  } else {
    call = gst_donar_call_new ();
    if (gst_donar_call_fill_options (call, s, error)) {
      if ((*key)[0] != '\0') {
        call->name = g_steal_pointer (key);
        g_hash_table_insert (registry, call->name, call);
      }
      *created = TRUE;
    }
  }
  g_mutex_unlock (&registry_lock);
  return call;
}

GstDonarCall *
gst_donar_call_ref (GstDonarCall * call)
{
  g_mutex_lock (&registry_lock);
  call->refcount++;
  g_mutex_unlock (&registry_lock);
  return call;
}

/* Whether this was the last reference: the call is then out of the
 * registry, and the caller frees it. */
static gboolean
call_release (GstDonarCall * call)
{
  gboolean last;

  g_mutex_lock (&registry_lock);
  last = --call->refcount == 0;
  if (last && call->name)
    g_hash_table_remove (registry, call->name);
  g_mutex_unlock (&registry_lock);
  return last;
}

void
gst_donar_call_unref (GstDonarCall * call)
{
  if (call_release (call))
    gst_donar_call_free (call);
}

static gpointer
free_thread (gpointer user_data)
{
  gst_donar_call_free (user_data);
  return NULL;
}

/* The reference an application's call took (stats, accept, reject): it
 * may come from a sync bus handler on one of the call's own threads (its
 * setup thread, its engine's), and the elements may have stopped
 * meanwhile, this reference the last.  Freeing the call joins those
 * threads, and a thread cannot join itself: the last one is dropped on a
 * thread of its own. */
void
gst_donar_call_unref_from_app (GstDonarCall * call)
{
  if (call_release (call))
    g_thread_unref (g_thread_new ("donar-call-free", free_thread, call));
}
