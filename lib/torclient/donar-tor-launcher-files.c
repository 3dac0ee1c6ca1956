/* The files of a launched tor's data directory: the control-port file, the
 * logs shown when tor fails, and the removal of the whole directory. */
#include "donar-tor-launcher-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Enough of the end of a log for a few lines, and no more however big the
 * log grew. */
#define LOG_TAIL_BYTES (16 * 1024)

guint16
donar_tor_read_control_port_file (const gchar * path)
{
  g_autofree gchar *contents = NULL;
  guint64 port;
  gsize length;

  /* tor writes it whole (to a temporary file, then renamed) and it is
   * one short line. */
  if (!g_file_get_contents (path, &contents, &length, NULL) || length > 64
      || !g_str_has_prefix (contents, "PORT=127.0.0.1:"))
    return 0;
  g_strchomp (contents);
  if (!g_ascii_string_to_unsigned (contents + strlen ("PORT=127.0.0.1:"),
          10, 1, G_MAXUINT16, &port, NULL))
    return 0;
  return port;
}

static gchar *
read_end (const gchar * path)
{
  FILE *file = fopen (path, "rb");
  gchar *text;
  long size;
  size_t n;

  if (file == NULL)
    return NULL;
  if (fseek (file, 0, SEEK_END) != 0 || (size = ftell (file)) < 0
      || fseek (file, size > LOG_TAIL_BYTES ? size - LOG_TAIL_BYTES : 0,
          SEEK_SET) != 0) {
    fclose (file);
    return NULL;
  }
  text = g_malloc (LOG_TAIL_BYTES + 1);
  n = fread (text, 1, LOG_TAIL_BYTES, file);
  text[n] = '\0';
  fclose (file);
  return text;
}

static gboolean
is_problem (const gchar * line)
{
  return strstr (line, "[warn]") != NULL || strstr (line, "[err]") != NULL;
}

gchar *
donar_tor_log_tail (const gchar * path, guint n_lines, gboolean only_problems)
{
  g_autofree gchar *text = read_end (path);
  g_auto (GStrv) lines = NULL;
  GString *tail;
  guint count = 0, first;

  if (text == NULL)
    return NULL;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++) {
    g_strchomp (lines[i]);
    if (lines[i][0] != '\0' && (!only_problems || is_problem (lines[i])))
      count++;
  }
  if (count == 0)
    return NULL;
  first = count > n_lines ? count - n_lines : 0;
  tail = g_string_new (NULL);
  count = 0;
  for (guint i = 0; lines[i] != NULL; i++) {
    if (lines[i][0] == '\0' || (only_problems && !is_problem (lines[i])))
      continue;
    if (count++ >= first)
      g_string_append_printf (tail, "\n  %s", lines[i]);
  }
  return g_string_free (tail, FALSE);
}

void
donar_tor_remove_tree (const gchar * path)
{
  GStatBuf status;
  GDir *dir;
  const gchar *name;

  if (g_lstat (path, &status) != 0)
    return;
  if (!S_ISDIR (status.st_mode)) {
    if (g_unlink (path) != 0)
      g_warning ("cannot remove %s: %s", path, g_strerror (errno));
    return;
  }
  dir = g_dir_open (path, 0, NULL);
  if (dir != NULL) {
    while ((name = g_dir_read_name (dir)) != NULL) {
      g_autofree gchar *child = g_build_filename (path, name, NULL);

      donar_tor_remove_tree (child);
    }
    g_dir_close (dir);
  }
  if (g_rmdir (path) != 0)
    g_warning ("cannot remove %s: %s", path, g_strerror (errno));
}
