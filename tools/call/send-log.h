/* donar-call --send-log FILE: for each of our frames, the links its
 * messages went on and whether the session knew no link to deliver in time
 * (docs/findings/tornet-evaluation.md): with the peer's frame log, which of
 * a policy's choices came late. */
#ifndef SEND_LOG_H
#define SEND_LOG_H

#include "donar-link-engine.h"

G_BEGIN_DECLS

typedef struct _SendLog SendLog;

SendLog *send_log_new (guint n_links);
/* After frame seq was handed to the engine at sent_us (monotonic): the
 * messages each link took since the frame before (this frame's copies,
 * and any probe or keepalive the timers sent meanwhile). */
void send_log_note (SendLog * sends, DonarLinkEngine * engine, guint32 seq,
    gint64 sent_us);
/* CSV rows seq,sent_ms,links,no_link_in_time; links as "3 7". */
gboolean send_log_write (const SendLog * sends, const gchar * path,
    GError ** error);
void send_log_free (SendLog * sends);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SendLog, send_log_free)

G_END_DECLS

#endif /* SEND_LOG_H */
