/* The stats property of donarsink and donarsrc, and the thread that posts
 * it every stats-interval. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdonarcall-private.h"

void
gst_donar_call_client_count (GstDonarCallClient * client, const gchar * counter)
{
  guint64 n = 0;

  GST_OBJECT_LOCK (client->element);
  gst_structure_get_uint64 (client->counters, counter, &n);
  gst_structure_set (client->counters, counter, G_TYPE_UINT64, n + 1, NULL);
  GST_OBJECT_UNLOCK (client->element);
}

void
gst_donar_call_client_count_buffer (GstDonarCallClient * client)
{
  GST_OBJECT_LOCK (client->element);
  client->buffers++;
  GST_OBJECT_UNLOCK (client->element);
}

static gboolean
copy_counter (GQuark field, const GValue * value, gpointer user_data)
{
  gst_structure_id_set_value (user_data, field, value);
  return TRUE;
}

/* One structure per link, in a GValueArray: PyGObject reads a
 * G_TYPE_VALUE_ARRAY as a list (a GstValueArray it cannot read at all), as
 * srtsink's "callers" in gst-plugins-bad. */
static void
take_links (GstStructure * s, DonarLinkEngine * engine, guint n_links)
{
  GValue links = G_VALUE_INIT;
  GValueArray *array;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  array = g_value_array_new (n_links);
  for (guint i = 0; engine && i < n_links; i++) {
    DonarLinkEngineLinkStats ls;
    GValue v = G_VALUE_INIT;

    if (!donar_link_engine_get_link_stats (engine, i, &ls))
      continue;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, gst_structure_new ("link",
            "index", G_TYPE_UINT, i,
            "state", G_TYPE_STRING, ls.open ? "up" : "down",
            "group", G_TYPE_STRING, donar_group_to_string (ls.session.group),
            "score", G_TYPE_INT, ls.session.score,
            "bytes-sent", G_TYPE_UINT64, ls.session.bytes_sent,
            "bytes-received", G_TYPE_UINT64, ls.session.bytes_received,
            "frames-delivered", G_TYPE_UINT64, ls.session.frames_delivered,
            "failures", G_TYPE_UINT64, ls.session.failures,
            "silent-frames", G_TYPE_UINT, ls.session.silent_frames,
            "dials", G_TYPE_UINT64, ls.dials,
            "last-error", G_TYPE_STRING, ls.last_error, NULL));
    g_value_array_append (array, &v);
    g_value_unset (&v);
  }
  g_value_init (&links, g_value_array_get_type ());
  g_value_take_boxed (&links, array);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  gst_structure_take_value (s, "links", &links);
}

/* Every field from the first read on, 0 until it counts: an application
 * reads a field without asking first whether it is there. */
GstStructure *
gst_donar_call_client_get_stats (GstDonarCallClient * client)
{
  GstStructure *s = gst_structure_new_empty ("application/x-donar-stats");
  GstDonarCall *call;
  DonarLinkEngine *engine;
  DonarLinkEngineStats st = { 0 };
  gboolean ready = FALSE;
  guint n_links = 0;

  GST_OBJECT_LOCK (client->element);
  call = client->call ? gst_donar_call_ref (client->call) : NULL;
  gst_structure_foreach (client->counters, copy_counter, s);
  gst_structure_set (s, client->buffers_counter, G_TYPE_UINT64,
      client->buffers, NULL);
  GST_OBJECT_UNLOCK (client->element);

  engine = call ? gst_donar_call_get_engine (call) : NULL;
  if (engine) {
    g_mutex_lock (&call->lock);
    ready = call->ready;
    g_mutex_unlock (&call->lock);
    donar_link_engine_get_stats (engine, &st);
    n_links = call->n_links;
  }
  gst_structure_set (s, "ready", G_TYPE_BOOLEAN, ready,
      "links-up", G_TYPE_UINT, st.links_up,
      "frames-sent", G_TYPE_UINT64, st.session.frames_sent,
      "frames-unsent", G_TYPE_UINT64, st.session.frames_unsent,
      "frames-delivered", G_TYPE_UINT64, st.session.frames_delivered,
      "frames-piggyback-delivered", G_TYPE_UINT64,
      st.session.frames_piggyback_delivered,
      "duplicates", G_TYPE_UINT64, st.session.duplicates,
      "bytes-sent", G_TYPE_UINT64, st.session.bytes_sent,
      "windows", G_TYPE_UINT64, st.session.windows,
      "alarms", G_TYPE_UINT64, st.session.alarms,
      "no-link-in-time", G_TYPE_BOOLEAN, st.session.no_link_in_time,
      "in-time-stalls", G_TYPE_UINT64, st.session.stalls,
      "frames-withheld", G_TYPE_UINT64, st.session.frames_withheld,
      "keepalives", G_TYPE_UINT64, st.session.keepalives,
      "connections-opened", G_TYPE_UINT64, st.connections_opened,
      "connections-failed", G_TYPE_UINT64, st.connections_failed,
      "connections-rejected", G_TYPE_UINT64, st.connections_rejected,
      "records-dropped", G_TYPE_UINT64, st.records_dropped,
      "frames-dropped", G_TYPE_UINT64, st.frames_dropped,
      "stalls", G_TYPE_UINT64, st.stalls,
      "hello-timeouts", G_TYPE_UINT64, st.hello_timeouts,
      "silences", G_TYPE_UINT64, st.silences, NULL);
  take_links (s, engine, n_links);
  if (call)
    gst_donar_call_unref_from_app (call);
  return s;
}

/* Posts the stats every stats-interval ms until stop. */
gpointer
gst_donar_call_stats_thread (gpointer user_data)
{
  GstDonarCallClient *client = user_data;
  GstElement *element = client->element;
  gint64 next = g_get_monotonic_time ();

  g_mutex_lock (&client->stats_lock);
  for (;;) {
    GstStructure *stats;

    next += (gint64) client->stats_interval_ms * 1000;
    while (!client->stats_stop &&
        g_cond_wait_until (&client->stats_cond, &client->stats_lock, next));
    if (client->stats_stop)
      break;
    g_mutex_unlock (&client->stats_lock);
    stats = gst_donar_call_client_get_stats (client);
    gst_element_post_message (element,
        gst_message_new_element (GST_OBJECT (element),
            gst_structure_new ("donar-stats", "stats", GST_TYPE_STRUCTURE,
                stats, NULL)));
    gst_structure_free (stats);
    g_mutex_lock (&client->stats_lock);
  }
  g_mutex_unlock (&client->stats_lock);
  return NULL;
}
