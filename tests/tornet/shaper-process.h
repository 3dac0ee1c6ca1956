/* donar-shaper as a subprocess of a test, and what its log says. */
#ifndef SHAPER_PROCESS_H
#define SHAPER_PROCESS_H

#include <gio/gio.h>

G_BEGIN_DECLS

#define SHAPER_MAX_RELAYS 8

typedef struct
{
  GSubprocess *process;
  gchar *dir;                   /* a temporary directory, for the log */
  gchar *log_path;
  gint64 origin_us;             /* monotonic time 0 of its schedules */
  guint n_relays;
  guint16 ports[SHAPER_MAX_RELAYS];
} ShaperProcess;

/* One line of the log: "chunk" (bytes received), "end" (a side closed),
 * "write" (bytes written), "close" (a close passed on), and others.
 * Fields a line does not have are -1. */
typedef struct
{
  gchar kind[16];
  gint64 relay, conn, dir, bytes;
  gint64 recv_us, delay_us, release_us, written_us;
  gint64 start_us, end_us;      /* "spike" (--spike-file) */
} ShaperEvent;

/* Starts donar-shaper ($DONAR_SHAPER) with these arguments (NULL-
 * terminated) and --log, and waits for its ready line. */
ShaperProcess *shaper_process_start (const gchar * const *args);
/* SIGTERM by PID; asserts exit status 0.  Returns the log's events
 * (ShaperEvent), read once the process is gone. */
GArray *shaper_process_stop (ShaperProcess * p);

G_END_DECLS

#endif /* SHAPER_PROCESS_H */
