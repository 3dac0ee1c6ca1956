/* The callee's key file and contacts directory (lib/call): a round trip
 * at mode 0600, and each refusal with its reason, none of which hangs
 * (a FIFO in the key file's place). */
#include "donar-call.h"
#include "donar-call-contacts.h"
#include "donar-call-keyfile.h"
#include "donar-call-tor-control.h"
#include "../donar-test-critical.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#define KEY "ED25519-V3:" \
  "dogUTRcDriI6rovtG5xj5dNTahqp2hBQ6B+NCFvvZGnl9xukKyMLAqIH9UmxQ2eFtcyLrfnpsDfApQIEK2qedw=="
#define SECRET "4f77964fab17dc1fc3c93f2cb1759d3b432cd6675c2c0fd3e657e3e2d4c77c00"
#define PUBLIC "OM7TGIVRYMY6PFX6GAC6ATRTA5U6WW6U7A4ZNHQDI6OVL52XVV2Q"

static gchar *dir;

static gchar *
write_file (const gchar * name, const gchar * text, gint mode)
{
  gchar *path = g_build_filename (dir, name, NULL);
  GError *error = NULL;

  g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_NONE, mode,
      &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
  return path;
}

/* Loading path fails with a KEY_FILE error that says why. */
static void
assert_refused (const gchar * path, const gchar * why)
{
  DonarCallKeyFile keys;
  GError *error = NULL;
  gboolean exists;

  g_assert_false (donar_call_keyfile_load (path, &keys, &exists, &error));
  g_assert_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_KEY_FILE);
  if (strstr (error->message, why) == NULL)
    g_error ("\"%s\" not in \"%s\"", why, error->message);
  g_test_message ("%s", error->message);
  g_error_free (error);
}

static void
test_round_trip (void)
{
  g_autofree gchar *path = g_build_filename (dir, "callee.key", NULL);
  DonarCallKeyFile keys = { 0 }, loaded;
  GError *error = NULL;
  gboolean exists = TRUE;
  GStatBuf st;

  g_assert_true (donar_call_keyfile_load (path, &loaded, &exists, &error));
  g_assert_no_error (error);
  g_assert_false (exists);
  g_assert_true (donar_call_keyfile_check (path, &error));
  g_assert_no_error (error);

  strcpy (keys.onion_key, &KEY[strlen ("ED25519-V3:")]);
  for (guint i = 0; i < sizeof keys.secret; i++)
    keys.secret[i] = (guint8) (i * 7);
  keys.has_client_auth = TRUE;
  memset (keys.client_auth_secret, 0x42, sizeof keys.client_auth_secret);
  g_assert_true (donar_call_keyfile_save (path, &keys, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);

  g_assert_true (donar_call_keyfile_load (path, &loaded, &exists, &error));
  g_assert_no_error (error);
  g_assert_true (exists);
  g_assert_cmpstr (loaded.onion_key, ==, keys.onion_key);
  g_assert_cmpmem (loaded.secret, sizeof loaded.secret, keys.secret,
      sizeof keys.secret);
  g_assert_true (loaded.has_client_auth);
  g_assert_cmpmem (loaded.client_auth_secret,
      sizeof loaded.client_auth_secret, keys.client_auth_secret,
      sizeof keys.client_auth_secret);
  donar_call_keyfile_clear (&loaded);
  g_assert_cmpint (g_unlink (path), ==, 0);
}

static void
test_refused (void)
{
  g_autofree gchar *fifo = g_build_filename (dir, "fifo", NULL);
  g_autofree gchar *large_text = g_strnfill (5000, '#');
  const struct
  {
    const gchar *text;
    gint mode;
    const gchar *why;
  } cases[] = {
    {"onion-key=" KEY "\nsecret=" SECRET "\n", 0640, "mode 0640 lets other"},
    {"onion-key=" KEY "\nsecret=" SECRET "\n", 0604, "mode 0604 lets other"},
    {"not a key file\n", 0600, "corrupt (a line is not name=value)"},
    {"onion-key=" KEY "\n", 0600, "onion-key or secret is missing"},
    {"onion-key=" KEY "\nsecret=" SECRET "\nsecret=" SECRET "\n", 0600,
        "secret is there twice"},
    {"onion-key=ED25519-V3:abc\nsecret=" SECRET "\n", 0600,
        "onion-key is not ED25519-V3:"},
    {"onion-key=" KEY "\nsecret=12\n", 0600, "secret is not 64"},
    {"onion-key=" KEY "\nsecret=" SECRET "\nclient-auth=xyz\n", 0600,
        "client-auth is not an x25519 key"},
    {"onion-key=" KEY "\nsecret=" SECRET "\ncolour=blue\n", 0600,
        "names neither"},
    {large_text, 0600, "too large"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree gchar *path = write_file ("bad.key", cases[i].text,
        cases[i].mode);

    assert_refused (path, cases[i].why);
    g_assert_cmpint (g_unlink (path), ==, 0);
  }
  /* Opened without blocking, then refused. */
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  assert_refused (fifo, "not a regular file");
  g_assert_cmpint (g_unlink (fifo), ==, 0);
  assert_refused (dir, "not a regular file");
}

static void
test_uncreatable (void)
{
  g_autofree gchar *path = g_build_filename (dir, "none", "callee.key", NULL);
  GError *error = NULL;

  g_assert_false (donar_call_keyfile_check (path, &error));
  g_assert_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_KEY_FILE);
  g_assert_nonnull (strstr (error->message, "cannot be created"));
  g_error_free (error);
}

static void
test_contacts (void)
{
  g_autofree gchar *contacts = g_build_filename (dir, "contacts", NULL);
  g_autofree gchar *auth = g_build_filename (contacts, "alice.auth", NULL);
  g_autofree gchar *note = g_build_filename (contacts, "README", NULL);
  g_autofree gchar *bad = g_build_filename (contacts, "bob.auth", NULL);
  g_autofree gchar *made = g_build_filename (contacts, "carol.auth", NULL);
  g_autofree gchar *lower = g_ascii_strdown (PUBLIC, -1);
  guint8 key[32] = { 0 };
  gchar **keys;
  GError *error = NULL;

  g_assert_cmpint (g_mkdir (contacts, 0700), ==, 0);
  g_assert_null (donar_call_contacts_load (contacts, &error));
  g_assert_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_CONTACTS);
  g_clear_error (&error);

  /* tor's own example, upper case; other files are not contacts. */
  g_assert_true (g_file_set_contents (auth, "descriptor:x25519:" PUBLIC
          "\n", -1, NULL));
  g_assert_true (g_file_set_contents (note, "not a key", -1, NULL));
  keys = donar_call_contacts_load (contacts, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (keys), ==, 1);
  g_assert_cmpstr (keys[0], ==, lower);
  g_strfreev (keys);

  g_assert_true (g_file_set_contents (bad, "descriptor:x25519:short", -1,
          NULL));
  g_assert_null (donar_call_contacts_load (contacts, &error));
  g_assert_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_CONTACTS);
  g_assert_nonnull (strstr (error->message, "bob.auth"));
  g_clear_error (&error);
  g_assert_cmpint (g_unlink (bad), ==, 0);

  g_assert_true (donar_call_contacts_write (contacts, "carol", key, &error));
  g_assert_no_error (error);
  keys = donar_call_contacts_load (contacts, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (keys), ==, 2);
  g_strfreev (keys);
  /* Never over another contact's key, never out of the directory. */
  g_assert_false (donar_call_contacts_write (contacts, "carol", key, &error));
  g_assert_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_CONTACTS);
  g_clear_error (&error);
  g_assert_false (donar_call_contacts_write (contacts, "../x", key, &error));
  g_assert_error (error, DONAR_CALL_ERROR, DONAR_CALL_ERROR_CONTACTS);
  g_clear_error (&error);

  g_assert_cmpint (g_unlink (auth), ==, 0);
  g_assert_cmpint (g_unlink (note), ==, 0);
  g_assert_cmpint (g_unlink (made), ==, 0);
  g_assert_cmpint (g_rmdir (contacts), ==, 0);
}

/* Misuse is a critical that does nothing (docs/api.md, "Contracts"). */
static void
test_misuse_is_refused (void)
{
  DonarCallOptions options;
  gchar *path = NULL;
  guint8 key[32] = { 0 };

  EXPECT_CRITICAL ("*options != NULL*",
      donar_call_options_init (NULL, DONAR_ROLE_CALLER));
  EXPECT_CRITICAL ("*role <=*",
      donar_call_options_init (&options, (DonarRole) 2));
  EXPECT_CRITICAL ("*options != NULL*",
      g_assert_false (donar_call_options_check (NULL, NULL)));
  EXPECT_CRITICAL ("*options != NULL*",
      g_assert_null (donar_call_start (NULL, NULL, NULL, NULL, NULL, NULL)));
  EXPECT_CRITICAL ("*call != NULL*",
      g_assert_null (donar_call_get_engine (NULL)));
  EXPECT_CRITICAL ("*address != NULL*",
      g_assert_false (donar_call_write_address_file (dir, NULL, NULL)));
  EXPECT_CRITICAL ("*name != NULL*",
      g_assert_false (donar_call_contacts_name_is_valid (NULL)));
  EXPECT_CRITICAL ("*name != NULL*",
      g_assert_false (donar_call_contacts_write (dir, NULL, key, NULL)));
  EXPECT_CRITICAL ("*dir != NULL*",
      g_assert_null (donar_call_contacts_load (NULL, NULL)));
  donar_call_options_init (&options, DONAR_ROLE_CALLER);
  EXPECT_CRITICAL ("*path != NULL*",
      g_assert_false (donar_call_parse_tor_control (&options, "tor-control",
              "9051", NULL, NULL)));
  g_assert_cmpuint (options.tor_control_port, ==, 0);
  g_assert_true (donar_call_parse_tor_control (&options, "tor-control", NULL,
          &path, NULL));
  g_assert_null (path);
  donar_call_options_clear (&options);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  dir = g_dir_make_tmp ("call-keyfile-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_test_add_func ("/call/keyfile/round-trip", test_round_trip);
  g_test_add_func ("/call/keyfile/refused", test_refused);
  g_test_add_func ("/call/keyfile/uncreatable", test_uncreatable);
  g_test_add_func ("/call/contacts", test_contacts);
  g_test_add_func ("/call/misuse-is-refused", test_misuse_is_refused);
  ret = g_test_run ();
  g_rmdir (dir);
  g_free (dir);
  return ret;
}
