/* Onion client authorization keys: the x25519 public key of a secret
 * (RFC 7748, section 6.1, Alice's pair), and the base32 spelling tor
 * uses, checked against Python's base64.b32encode. */
#include "donar-client-auth.h"
#include "donar-tor-security.h"
#include "../donar-test-critical.h"

#include <string.h>

static void
hex_to_bytes (const gchar * hex, guint8 * bytes)
{
  for (guint i = 0; i < DONAR_CLIENT_AUTH_KEY_BYTES; i++)
    bytes[i] = g_ascii_xdigit_value (hex[2 * i]) << 4 |
        g_ascii_xdigit_value (hex[2 * i + 1]);
}

static void
test_public_key_of_secret (void)
{
  guint8 secret[DONAR_CLIENT_AUTH_KEY_BYTES], expected[32];
  DonarClientAuthKey key;
  g_autoptr (GError) error = NULL;

  hex_to_bytes ("77076d0a7318a57d3c16c17251b26645"
      "df4c2f87ebc0992ab177fba51db92c2a", secret);
  hex_to_bytes ("8520f0098930a754748b7ddcb43ef75a"
      "0dbf3a0d26381af4eba4a98eaa9b4e6a", expected);
  g_assert_true (donar_client_auth_key_from_secret (&key, secret, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (key.public_key, 32, expected, 32);
  g_assert_cmpmem (key.secret, 32, secret, 32);
  donar_client_auth_key_clear (&key);
  for (guint i = 0; i < sizeof key.secret; i++)
    g_assert_cmpuint (key.secret[i], ==, 0);
}

static void
test_generated_keys_differ (void)
{
  DonarClientAuthKey a, b, again;
  g_autoptr (GError) error = NULL;

  g_assert_true (donar_client_auth_key_generate (&a, &error));
  g_assert_true (donar_client_auth_key_generate (&b, &error));
  g_assert_no_error (error);
  g_assert_true (memcmp (a.secret, b.secret, 32) != 0);
  g_assert_true (memcmp (a.public_key, b.public_key, 32) != 0);
  g_assert_true (donar_client_auth_key_from_secret (&again, a.secret, &error));
  g_assert_cmpmem (again.public_key, 32, a.public_key, 32);
}

static void
test_base32 (void)
{
  guint8 bytes[32], back[32];
  gchar *text;

  for (guint i = 0; i < 32; i++)
    bytes[i] = i;
  text = donar_client_auth_to_base32 (bytes);
  g_assert_cmpstr (text, ==,
      "aaaqeayeaudaocajbifqydiob4ibceqtcqkrmfyydenbwha5dypq");
  g_assert_true (donar_client_auth_from_base32 (text, back));
  g_assert_cmpmem (back, 32, bytes, 32);
  donar_secret_free (text);

  memset (bytes, 0xff, sizeof bytes);
  text = donar_client_auth_to_base32 (bytes);
  g_assert_cmpstr (text, ==,
      "777777777777777777777777777777777777777777777777777q");
  donar_secret_free (text);
  /* Upper case as the call address keeps it. */
  g_assert_true (donar_client_auth_from_base32
      ("777777777777777777777777777777777777777777777777777Q", back));
  g_assert_cmpmem (back, 32, bytes, 32);

  /* Too short, too long, a bad character, bits set past the key. */
  g_assert_false (donar_client_auth_from_base32
      ("777777777777777777777777777777777777777777777777777", back));
  g_assert_false (donar_client_auth_from_base32
      ("777777777777777777777777777777777777777777777777777qa", back));
  g_assert_false (donar_client_auth_from_base32
      ("77777777777777777777777777777777777777777777777777 q", back));
  g_assert_false (donar_client_auth_from_base32
      ("7777777777777777777777777777777777777777777777777777", back));
  g_assert_false (donar_client_auth_from_base32 (NULL, back));
}

/* Misuse is a critical that does nothing (docs/api.md, "Contracts"). */
static void
test_misuse_is_refused (void)
{
  DonarClientAuthKey key;
  DonarTorSecurity security = DONAR_TOR_SECURITY_ONE_WAY;

  EXPECT_CRITICAL ("*key != NULL*",
      g_assert_false (donar_client_auth_key_generate (NULL, NULL)));
  EXPECT_CRITICAL ("*secret != NULL*",
      g_assert_false (donar_client_auth_key_from_secret (&key, NULL, NULL)));
  EXPECT_CRITICAL ("*bytes != NULL*",
      g_assert_null (donar_client_auth_to_base32 (NULL)));
  EXPECT_CRITICAL ("*bytes != NULL*",
      g_assert_false (donar_client_auth_from_base32 ("a", NULL)));
  EXPECT_CRITICAL ("*security != NULL*",
      g_assert_false (donar_tor_security_from_string ("1way", NULL)));
  g_assert_false (donar_tor_security_from_string ("3hop", &security));
  g_assert_cmpint (security, ==, DONAR_TOR_SECURITY_ONE_WAY);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/client-auth/public-key-of-secret",
      test_public_key_of_secret);
  g_test_add_func ("/client-auth/generated-keys-differ",
      test_generated_keys_differ);
  g_test_add_func ("/client-auth/base32", test_base32);
  g_test_add_func ("/client-auth/misuse-is-refused", test_misuse_is_refused);
  return g_test_run ();
}
