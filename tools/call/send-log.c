/* The sender's side of a call, frame by frame (send-log.h).  The engine
 * sends a frame from the calling thread (donar_link_engine_send_frame), so
 * the per-link message counts read right after it hold its copies. */
#include "send-log.h"

struct _SendLog
{
  guint n_links;
  guint64 sent[DONAR_MAX_LINKS];
  gint64 origin_us;
  GString *rows;
};

SendLog *
send_log_new (guint n_links)
{
  SendLog *sends = g_new0 (SendLog, 1);

  sends->n_links = MIN (n_links, DONAR_MAX_LINKS);
  sends->origin_us = G_MININT64;
  sends->rows = g_string_new ("seq,sent_ms,links,no_link_in_time\n");
  return sends;
}

void
send_log_note (SendLog * sends, DonarLinkEngine * engine, guint32 seq,
    gint64 sent_us)
{
  DonarLinkEngineStats stats;
  const gchar *space = "";

  if (sends->origin_us == G_MININT64)
    sends->origin_us = sent_us;
  donar_link_engine_get_stats (engine, &stats);
  g_string_append_printf (sends->rows, "%u,%.3f,", seq,
      (sent_us - sends->origin_us) / 1000.0);
  for (guint l = 0; l < sends->n_links; l++) {
    DonarLinkEngineLinkStats link;

    if (!donar_link_engine_get_link_stats (engine, l, &link))
      continue;
    if (link.session.messages_sent > sends->sent[l]) {
      g_string_append_printf (sends->rows, "%s%u", space, l);
      space = " ";
    }
    sends->sent[l] = link.session.messages_sent;
  }
  g_string_append_printf (sends->rows, ",%d\n",
      stats.session.no_link_in_time ? 1 : 0);
}

gboolean
send_log_write (const SendLog * sends, const gchar * path, GError ** error)
{
  return g_file_set_contents (path, sends->rows->str, sends->rows->len, error);
}

void
send_log_free (SendLog * sends)
{
  if (sends == NULL)
    return;
  g_string_free (sends->rows, TRUE);
  g_free (sends);
}
