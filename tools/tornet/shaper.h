/* donar-shaper: the I/O layer over lib/shaper's schedules.  One libevent
 * loop, no thread.  docs/tornet.md, "The shaper". */
#ifndef SHAPER_H
#define SHAPER_H

#include <stdio.h>

#include <glib.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "donar-ev-linger.h"
#include "donar-shaper-schedule.h"

G_BEGIN_DECLS

typedef struct _Shaper Shaper;
typedef struct _ShaperConn ShaperConn;

/* One listen → target pair, with its delay schedule. */
typedef struct
{
  Shaper *shaper;
  guint index;
  guint16 listen_port;          /* the bound port (0 asks for any) */
  guint16 target_port;
  DonarShaperSchedule *schedule;
  struct evconnlistener *listener;
} ShaperRelay;

struct _Shaper
{
  struct event_base *base;
  gint64 origin_us;             /* monotonic; schedules count from here */
  GPtrArray *relays;            /* ShaperRelay */
  GList *conns;                 /* ShaperConn, open */
  DonarLinger *lingering;       /* connections flushing before they close */
  guint next_conn_id;
  gsize max_pending;            /* per direction, before reading pauses */
  FILE *log;                    /* one line per event, or NULL */
};

/* µs since the origin. */
gint64 shaper_now (Shaper * s);
void shaper_log (Shaper * s, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* "LISTEN_PORT,TARGET_PORT,BASE_MS"; with a model (not NULL), relay
 * `index` of its seed, and BASE_MS may be left out (the model's). */
ShaperRelay *shaper_relay_parse (Shaper * s, const char *text, guint index,
    const DonarNetModelParams * model, guint64 seed, GError ** error);
gboolean shaper_relay_listen (ShaperRelay * r, GError ** error);
void shaper_relay_free (ShaperRelay * r);

void shaper_conn_accept (ShaperRelay * r, evutil_socket_t fd);
void shaper_conns_close_all (Shaper * s);

G_END_DECLS

#endif /* SHAPER_H */
