/* The pieces of the launcher that need no running tor: finding the binary,
 * writing the torrc, and the files of the data directory. */
#ifndef DONAR_TOR_LAUNCHER_PRIVATE_H
#define DONAR_TOR_LAUNCHER_PRIVATE_H

#include "donar-tor-launcher.h"

G_BEGIN_DECLS

/* A single onion service the launcher configured. */
typedef struct
{
  gchar *service_id;
  gchar *directory;
  guint16 virtual_port;
  guint16 target_port;
} DonarTorSingleOnion;

struct _DonarTorLauncher
{
  GSubprocess *process;
  GPid pid;
  DonarTorSecurity security;
  gchar *data_dir;
  gchar *cookie_file;
  gchar *stdout_log;
  gchar *notice_log;
  guint16 control_port;
  guint16 socks_port;
  GPtrArray *single_onions;     /* DonarTorSingleOnion */
  guint n_single_onions_made;   /* names their directories */
};

void donar_tor_single_onion_free (gpointer onion);

/* The tor to run: options->tor_binary (a path, or a name in PATH), else
 * "tor" in PATH, then /usr/sbin/tor and /usr/bin/tor. */
gchar *donar_tor_find_binary (const gchar * requested, GError ** error);

/* The torrc of a launched tor whose DataDirectory is data_dir; owner is
 * the PID tor watches (__OwningControllerProcess). */
gchar *donar_tor_torrc_build (const DonarTorLauncherOptions * options,
    const gchar * data_dir, GPid owner, GError ** error);

/* The port of the ControlPortWriteToFile file ("PORT=127.0.0.1:N"), or 0
 * while it is absent or incomplete. */
guint16 donar_tor_read_control_port_file (const gchar * path);

/* The last n_lines lines of a log file, each indented, or NULL when it is
 * absent or empty.  Reads at most its last 16 KiB.  With only_problems,
 * only the [warn] and [err] lines count. */
gchar *donar_tor_log_tail (const gchar * path, guint n_lines,
    gboolean only_problems);

/* Removes a directory tree of our own, without following symbolic
 * links. */
void donar_tor_remove_tree (const gchar * path);

G_END_DECLS

#endif /* DONAR_TOR_LAUNCHER_PRIVATE_H */
