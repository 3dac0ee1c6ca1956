/* The contacts' public keys (donar-call-contacts.h). */
#include "donar-call-contacts.h"
#include "donar-call.h"
#include "donar-client-auth.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PREFIX "descriptor:x25519:"
/* One line of a few dozen bytes; more is not a contact file. */
#define MAX_FILE_BYTES 1024

static gboolean
fail (GError ** error, const gchar * path, const gchar * why)
{
  g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_CONTACTS,
      "contact key %s: %s", path, why);
  return FALSE;
}

/* The key of one file, normalized to lowercase; NULL and the error. */
static gchar *
load_one (const gchar * path, GError ** error)
{
  g_autofree gchar *text = NULL;
  guint8 key[DONAR_CLIENT_AUTH_KEY_BYTES];
  GStatBuf st;
  gsize length;
  gchar *end;

  /* Not a FIFO or a device, which g_file_get_contents would read
   * forever. */
  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode)
      || st.st_size > MAX_FILE_BYTES) {
    fail (error, path, "not a regular file of at most 1 KiB");
    return NULL;
  }
  if (!g_file_get_contents (path, &text, &length, NULL)) {
    fail (error, path, "cannot be read");
    return NULL;
  }
  /* The first line: tor's files hold one. */
  end = strchr (text, '\n');
  if (end != NULL)
    *end = '\0';
  g_strstrip (text);
  if (!g_str_has_prefix (text, PREFIX)
      || !donar_client_auth_from_base32 (text + strlen (PREFIX), key)) {
    fail (error, path, "not descriptor:x25519:<52 base32 characters, "
        "an x25519 public key>");
    return NULL;
  }
  return donar_client_auth_to_base32 (key);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar * const *) a, *(const gchar * const *) b);
}

gchar **
donar_call_contacts_load (const gchar * dir, GError ** error)
{
  g_autoptr (GDir) d = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *keys;
  GError *local = NULL;
  const gchar *name;

  g_return_val_if_fail (dir != NULL, NULL);
  d = g_dir_open (dir, 0, &local);
  if (d == NULL) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_CONTACTS,
        "contacts directory %s: %s", dir, local->message);
    g_error_free (local);
    return NULL;
  }
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".auth") && name[0] != '.')
      g_ptr_array_add (names, g_strdup (name));
  if (names->len == 0 || names->len > DONAR_CALL_CONTACTS_MAX) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_CONTACTS,
        "contacts directory %s: %u contact files (NAME.auth), not 1 to %d",
        dir, names->len, DONAR_CALL_CONTACTS_MAX);
    return NULL;
  }
  g_ptr_array_sort (names, compare_names);
  keys = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < names->len; i++) {
    g_autofree gchar *path = g_build_filename (dir, names->pdata[i], NULL);
    gchar *key = load_one (path, error);

    if (key == NULL) {
      g_ptr_array_free (keys, TRUE);
      return NULL;
    }
    g_ptr_array_add (keys, key);
  }
  g_ptr_array_add (keys, NULL);
  return (gchar **) g_ptr_array_free (keys, FALSE);
}

gboolean
donar_call_contacts_name_is_valid (const gchar * name)
{
  gsize length;

  g_return_val_if_fail (name != NULL, FALSE);
  length = strlen (name);
  if (length == 0 || length > 64 || name[0] == '.')
    return FALSE;
  for (const gchar * p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_' && *p != '.')
      return FALSE;
  return TRUE;
}

gboolean
donar_call_contacts_write (const gchar * dir, const gchar * name,
    const guint8 * public_key, GError ** error)
{
  g_autofree gchar *file = NULL;
  g_autofree gchar *path = NULL;
  g_autofree gchar *key = NULL;
  g_autofree gchar *line = NULL;
  gsize length;
  gint fd;

  g_return_val_if_fail (dir != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (public_key != NULL, FALSE);
  file = g_strconcat (name, ".auth", NULL);
  path = g_build_filename (dir, file, NULL);
  if (!donar_call_contacts_name_is_valid (name)) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_CONTACTS,
        "contact name \"%s\": 1 to 64 letters, digits, '-', '_' or '.', "
        "not '.' first", name);
    return FALSE;
  }
  /* The first contact makes the directory, as docs/elements.md's example
   * of a lasting address expects (`donar-call contact-key alice contacts/`
   * in a directory without one). */
  if (g_mkdir_with_parents (dir, 0755) != 0) {
    g_autofree gchar *why = g_strdup_printf ("cannot be created: %s",
        g_strerror (errno));

    return fail (error, dir, why);
  }
  key = donar_client_auth_to_base32 (public_key);
  line = g_strconcat (PREFIX, key, "\n", NULL);
  length = strlen (line);
  /* O_EXCL: never over another contact's key.  A public key: others may
   * read it, as tor's own .auth files. */
  fd = g_open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    g_autofree gchar *why = g_strdup_printf ("cannot be created: %s",
        g_strerror (errno));

    return fail (error, path, why);
  }
  if (write (fd, line, length) != (gssize) length) {
    close (fd);
    g_unlink (path);
    return fail (error, path, "cannot be written");
  }
  if (close (fd) != 0) {
    g_unlink (path);
    return fail (error, path, "cannot be written");
  }
  return TRUE;
}
