/* Helpers of the torsim suite: donar-torsim as a subprocess, blocking
 * sockets with timeouts on 127.0.0.1, a control-port client over lib/tor's
 * reply reader and a SOCKS5 client over lib/tor's codec. */
#ifndef TORSIM_TEST_UTIL_H
#define TORSIM_TEST_UTIL_H

#include <gio/gio.h>

#include "donar-netmodel.h"
#include "donar-socks.h"
#include "donar-torctl.h"
#include "test-spawn.h"

G_BEGIN_DECLS
#define TIMEOUT_MS 5000
    typedef struct
{
  GSubprocess *process;
  GPid pid;
  gchar *dir;                   /* a temporary directory of its own */
  guint16 socks_port;
  guint16 control_port;
  gint64 started_us;            /* just before the spawn */
} TorsimProcess;

/* Starts donar-torsim (path in $DONAR_TORSIM) on free ports with the
 * NULL-terminated extra arguments, and waits for its port file. */
TorsimProcess *torsim_process_start (const gchar * const *args);
/* SIGTERM by PID; asserts that it exits with status 0 within seconds. */
void torsim_process_stop (TorsimProcess * p);
/* Waits for the process to exit by itself; its exit status, or -1. */
gint torsim_process_wait (TorsimProcess * p, guint timeout_ms);
gchar *torsim_process_path (TorsimProcess * p, const gchar * name);

/* The model donar-torsim runs with --seed and these --set NAME=VALUE
 * assignments (NULL-terminated), for the delays a test expects. */
DonarNetModel *model_like (DonarSecurity security, guint n_links,
    guint64 seed, const gchar * const *sets);

gint tcp_connect (guint16 port);
/* From `source` (an address of 127.0.0.0/8; NULL: the kernel's choice). */
gint tcp_connect_from (const gchar * source, guint16 port);
gint tcp_listen (guint16 * port);
/* On `address` (NULL: 127.0.0.1) and *port (0: a free one); -1 when that
 * port is taken there. */
gint tcp_listen_on (const gchar * address, guint16 * port);
/* -1 on timeout. */
gint tcp_accept (gint listener, guint timeout_ms);
gboolean read_exact (gint fd, gpointer buffer, gsize length, guint timeout_ms);
void write_all (gint fd, gconstpointer buffer, gsize length);
/* TRUE once the peer has closed (EOF or reset) within the timeout; what
 * comes before is dropped. */
gboolean wait_closed (gint fd, guint timeout_ms);

/* A control connection. */
typedef struct
{
  gint fd;
  DonarTorctlReader *reader;
  GQueue replies;               /* read, not yet taken */
  gboolean eof;
} Ctl;

Ctl *ctl_open (guint16 port);
void ctl_free (Ctl * c);
/* Sends the line (CRLF added) and returns the next reply that is not an
 * event; events are kept for ctl_wait_event.  NULL if the connection
 * closed first. */
DonarTorctlReply *ctl_command (Ctl * c, const gchar * line);
/* The same with the command's bytes as they are (CRLF included). */
DonarTorctlReply *ctl_command_raw (Ctl * c, const gchar * bytes, gsize length);
/* Asserts a single-line reply with this code; returns its text. */
void ctl_expect (Ctl * c, const gchar * line, guint code);
void ctl_authenticate (Ctl * c);
DonarTorctlReply *ctl_wait_event (Ctl * c, const gchar * name,
    guint timeout_ms);
/* TRUE once the server has closed the connection. */
gboolean ctl_wait_closed (Ctl * c, guint timeout_ms);
/* GETINFO of one key: its value (asserts 250). */
gchar *ctl_getinfo (Ctl * c, const gchar * key);
/* The value of `field` on the "LINK <link> ..." line of DONAR-STATS. */
gchar *ctl_link_stat (Ctl * c, guint link, const gchar * field);
/* ADD_ONION NEW:ED25519-V3 with these arguments: the service id. */
gchar *ctl_add_onion (Ctl * c, const gchar * arguments);

/* A SOCKS5 CONNECT with username/password (username NULL: no auth).
 * Returns the open socket, or -1 with the reply code in *code (0xFF when
 * the server closed without one).  *elapsed_us: from the request to the
 * reply, when not NULL. */
gint socks_open (guint16 socks_port, const gchar * username,
    const gchar * host, guint16 port, guint8 * code, gint64 * elapsed_us);
/* The same from the client address `source` (NULL: 127.0.0.1). */
gint socks_open_from (const gchar * source, guint16 socks_port,
    const gchar * username, const gchar * host, guint16 port, guint8 * code,
    gint64 * elapsed_us);

G_END_DECLS
#endif
