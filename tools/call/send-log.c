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
  SendLog *log = g_new0 (SendLog, 1);

  log->n_links = MIN (n_links, DONAR_MAX_LINKS);
  log->origin_us = G_MININT64;
  log->rows = g_string_new ("seq,sent_ms,links,no_link_in_time\n");
  return log;
}

void
send_log_note (SendLog * log, DonarLinkEngine * engine, guint32 seq,
    gint64 sent_us)
{
  DonarLinkEngineStats stats;
  const gchar *space = "";

  if (log->origin_us == G_MININT64)
    log->origin_us = sent_us;
  donar_link_engine_get_stats (engine, &stats);
  g_string_append_printf (log->rows, "%u,%.3f,", seq,
      (sent_us - log->origin_us) / 1000.0);
  for (guint l = 0; l < log->n_links; l++) {
    DonarLinkEngineLinkStats link;

    if (!donar_link_engine_get_link_stats (engine, l, &link))
      continue;
    if (link.session.messages_sent > log->sent[l]) {
      g_string_append_printf (log->rows, "%s%u", space, l);
      space = " ";
    }
    log->sent[l] = link.session.messages_sent;
  }
  g_string_append_printf (log->rows, ",%d\n",
      stats.session.no_link_in_time ? 1 : 0);
}

gboolean
send_log_write (const SendLog * log, const gchar * path, GError ** error)
{
  return g_file_set_contents (path, log->rows->str, log->rows->len, error);
}

void
send_log_free (SendLog * log)
{
  if (log == NULL)
    return;
  g_string_free (log->rows, TRUE);
  g_free (log);
}
