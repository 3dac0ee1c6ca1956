/* The callee's key file (donar-call-keyfile.h).
 *
 * Read by hand rather than with GKeyFile or g_file_get_contents: the mode
 * and owner are checked on the descriptor that is then read (no window
 * for a swap between the check and the read), the size is bounded, and
 * every byte read lives in one buffer of ours that is wiped; GKeyFile
 * keeps its own copies of the values and frees them unwiped. */
#include "donar-call-keyfile.h"
#include "donar-call.h"
#include "donar-secret.h"
#include "donar-torctl-hex.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A key file is about 300 bytes; a larger one is not ours. */
#define MAX_FILE_BYTES 4096

static const gchar header[] =
    "# DONAR key file: the onion's private key and the call secret of a\n"
    "# lasting call address.  Whoever holds this file can answer calls to\n"
    "# the address: keep it mode 0600, never share it.\n";

static gboolean
fail (GError ** error, const gchar * path, const gchar * why)
{
  g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_KEY_FILE,
      "key file %s: %s", path, why);
  return FALSE;
}

/* Reads the whole file into buffer (NUL-terminated), checking on the open
 * descriptor that it is a regular file of ours closed to others. */
static gboolean
read_private_file (const gchar * path, gchar * buffer, gboolean * exists,
    GError ** error)
{
  struct stat st;
  gsize length = 0;
  gboolean ok = FALSE;
  gint fd;

  *exists = FALSE;
  /* O_NONBLOCK: a FIFO put in its place cannot hang the open. */
  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  if (fd < 0 && errno == ENOENT)
    return TRUE;
  *exists = TRUE;
  if (fd < 0) {
    g_autofree gchar *why = g_strdup_printf ("cannot be opened: %s",
        g_strerror (errno));

    return fail (error, path, why);
  }
  if (fstat (fd, &st) != 0) {
    fail (error, path, "cannot be examined");
  } else if (!S_ISREG (st.st_mode)) {
    fail (error, path, "not a regular file");
  } else if (st.st_uid != geteuid ()) {
    fail (error, path, "belongs to another user: refused, since whoever "
        "holds it can answer calls to the address");
  } else if ((st.st_mode & 077) != 0) {
    g_autofree gchar *why = g_strdup_printf ("mode %04o lets other users "
        "read or change it: refused, since whoever holds it can answer "
        "calls to the address; chmod 600 it (and make a new one if "
        "others may have read it)", (guint) (st.st_mode & 07777));

    fail (error, path, why);
  } else if (st.st_size > MAX_FILE_BYTES) {
    fail (error, path, "too large for a key file");
  } else {
    ok = TRUE;
    while (ok) {
      gssize n = read (fd, buffer + length, MAX_FILE_BYTES + 1 - length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        ok = fail (error, path, "cannot be read");
      else if (n == 0)
        break;
      else if ((length += n) > MAX_FILE_BYTES)
        ok = fail (error, path, "too large for a key file");
    }
  }
  close (fd);
  buffer[MIN (length, MAX_FILE_BYTES)] = '\0';
  return ok;
}

static gboolean
is_onion_key (const gchar * blob)
{
  if (strlen (blob) != DONAR_CALL_KEYFILE_ONION_KEY_LENGTH
      || strcmp (blob + DONAR_CALL_KEYFILE_ONION_KEY_LENGTH - 2, "==") != 0)
    return FALSE;
  for (guint i = 0; i < DONAR_CALL_KEYFILE_ONION_KEY_LENGTH - 2; i++)
    if (!g_ascii_isalnum (blob[i]) && blob[i] != '+' && blob[i] != '/')
      return FALSE;
  return TRUE;
}

/* One "name=value" line into keys; the reason why not, or NULL. */
static const gchar *
parse_line (gchar * line, DonarCallKeyFile * keys, guint * seen)
{
  gchar *value = strchr (line, '=');

  if (value == NULL)
    return "a line is not name=value";
  *value++ = '\0';
  if (strcmp (line, "onion-key") == 0) {
    if (*seen & 1)
      return "onion-key is there twice";
    *seen |= 1;
    if (!g_str_has_prefix (value, "ED25519-V3:")
        || !is_onion_key (value + strlen ("ED25519-V3:")))
      return "onion-key is not ED25519-V3: and 88 characters of base64";
    strcpy (keys->onion_key, value + strlen ("ED25519-V3:"));
  } else if (strcmp (line, "secret") == 0) {
    if (*seen & 2)
      return "secret is there twice";
    *seen |= 2;
    if (!donar_torctl_hex_decode (value, keys->secret, sizeof keys->secret))
      return "secret is not 64 hexadecimal digits";
  } else if (strcmp (line, "client-auth") == 0) {
    if (keys->has_client_auth)
      return "client-auth is there twice";
    keys->has_client_auth = TRUE;
    if (!donar_client_auth_from_base32 (value, keys->client_auth_secret))
      return "client-auth is not an x25519 key in base32";
  } else {
    return "a line names neither onion-key, secret nor client-auth";
  }
  return NULL;
}

static gboolean
parse (gchar * text, const gchar * path, DonarCallKeyFile * keys,
    GError ** error)
{
  const gchar *why = NULL;
  guint seen = 0;
  gchar *line = text;

  while (why == NULL && line != NULL && *line != '\0') {
    gchar *end = strchr (line, '\n');

    if (end != NULL)
      *end = '\0';
    g_strchomp (line);
    if (line[0] != '#' && line[0] != '\0')
      why = parse_line (line, keys, &seen);
    line = end != NULL ? end + 1 : NULL;
  }
  if (why == NULL && seen != 3)
    why = "onion-key or secret is missing";
  if (why != NULL) {
    g_autofree gchar *message = g_strdup_printf ("corrupt (%s): not a "
        "DONAR key file, or damaged", why);

    donar_call_keyfile_clear (keys);
    return fail (error, path, message);
  }
  return TRUE;
}

gboolean
donar_call_keyfile_load (const gchar * path, DonarCallKeyFile * keys,
    gboolean * exists, GError ** error)
{
  gchar buffer[MAX_FILE_BYTES + 1];
  gboolean ok;

  memset (keys, 0, sizeof *keys);
  ok = read_private_file (path, buffer, exists, error)
      && (!*exists || parse (buffer, path, keys, error));
  explicit_bzero (buffer, sizeof buffer);
  return ok;
}

gboolean
donar_call_keyfile_check (const gchar * path, GError ** error)
{
  DonarCallKeyFile keys;
  gboolean exists;
  g_autofree gchar *dir = NULL;

  if (!donar_call_keyfile_load (path, &keys, &exists, error))
    return FALSE;
  donar_call_keyfile_clear (&keys);
  if (exists)
    return TRUE;
  dir = g_path_get_dirname (path);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR) || g_access (dir, W_OK) != 0)
    return fail (error, path, "does not exist, and it cannot be created: "
        "its directory is missing or not writable");
  return TRUE;
}

gboolean
donar_call_keyfile_save (const gchar * path, const DonarCallKeyFile * keys,
    GError ** error)
{
  /* Sized for the whole file, so that no growth leaves a copy behind. */
  GString *text = g_string_sized_new (1024);
  GError *local = NULL;
  gboolean ok;

  g_string_append (text, header);
  g_string_append (text, "onion-key=ED25519-V3:");
  g_string_append (text, keys->onion_key);
  g_string_append (text, "\nsecret=");
  donar_torctl_hex_append (text, keys->secret, sizeof keys->secret);
  g_string_append_c (text, '\n');
  if (keys->has_client_auth) {
    gchar *key = donar_client_auth_to_base32 (keys->client_auth_secret);

    g_string_append (text, "client-auth=");
    g_string_append (text, key);
    g_string_append_c (text, '\n');
    donar_secret_free (key);
  }
  ok = g_file_set_contents_full (path, text->str, text->len,
      G_FILE_SET_CONTENTS_CONSISTENT, 0600, &local);
  explicit_bzero (text->str, text->allocated_len);
  g_string_free (text, TRUE);
  if (!ok) {
    g_set_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_KEY_FILE,
        "key file %s not written: %s", path, local->message);
    g_error_free (local);
  }
  return ok;
}

void
donar_call_keyfile_clear (DonarCallKeyFile * keys)
{
  explicit_bzero (keys, sizeof *keys);
}
