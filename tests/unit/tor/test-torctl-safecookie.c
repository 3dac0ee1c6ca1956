/* SAFECOOKIE: both hashes against GHmac driven here with the strings of
 * control-spec 3.24, and against a vector computed outside GLib (Python's
 * hmac); the server-hash check refuses any change to the hash, the cookie
 * or a nonce.  Then a whole exchange through the builders and parsers. */
#include "donar-torctl.h"

#include <string.h>

/* HMAC-SHA256 over cookie 00..1F | client nonce 20..3F | server nonce
 * 40..5F, computed with Python's hmac module. */
#define VECTOR_SERVER_HASH \
  "3C8780AB52365C0D080750447E5F64DABC00428C6C434579C2043E18C1F85389"
#define VECTOR_CLIENT_HASH \
  "B47642DF2D5ABB84F69E6D02D41BED6B44AEE33E69562528A82166FC98BC0B1E"

typedef struct
{
  guint8 cookie[DONAR_TORCTL_COOKIE_LENGTH];
  guint8 client_nonce[DONAR_TORCTL_NONCE_LENGTH];
  guint8 server_nonce[DONAR_TORCTL_NONCE_LENGTH];
} Secrets;

static void
secrets_counting (Secrets * secrets)
{
  for (guint i = 0; i < 32; i++) {
    secrets->cookie[i] = i;
    secrets->client_nonce[i] = 32 + i;
    secrets->server_nonce[i] = 64 + i;
  }
}

static void
secrets_random (Secrets * secrets, GRand * rand)
{
  for (guint i = 0; i < 32; i++) {
    secrets->cookie[i] = g_rand_int (rand);
    secrets->client_nonce[i] = g_rand_int (rand);
    secrets->server_nonce[i] = g_rand_int (rand);
  }
}

static void
reference_hash (const gchar * key, const Secrets * secrets, guint8 * hash)
{
  GHmac *hmac = g_hmac_new (G_CHECKSUM_SHA256, (const guchar *) key,
      strlen (key));
  guint8 message[96];
  gsize length = 32;

  memcpy (message, secrets->cookie, 32);
  memcpy (message + 32, secrets->client_nonce, 32);
  memcpy (message + 64, secrets->server_nonce, 32);
  g_hmac_update (hmac, message, sizeof message);
  g_hmac_get_digest (hmac, hash, &length);
  g_hmac_unref (hmac);
  g_assert_cmpuint (length, ==, 32);
}

static void
test_fixed_vector (void)
{
  Secrets secrets;
  guint8 hash[32], expected[32];

  secrets_counting (&secrets);
  donar_torctl_safecookie_client_hash (secrets.cookie, secrets.client_nonce,
      secrets.server_nonce, hash);
  g_assert_true (donar_torctl_hex_decode (VECTOR_CLIENT_HASH, expected, 32));
  g_assert_cmpmem (hash, 32, expected, 32);
  g_assert_true (donar_torctl_hex_decode (VECTOR_SERVER_HASH, expected, 32));
  g_assert_cmpint (donar_torctl_safecookie_check_server_hash (secrets.cookie,
          secrets.client_nonce, secrets.server_nonce, expected), ==,
      DONAR_TORCTL_OK);
}

static void
test_against_ghmac (void)
{
  GRand *rand = g_rand_new_with_seed (2024);

  for (guint round = 0; round < 64; round++) {
    Secrets secrets;
    guint8 hash[32], reference[32];

    secrets_random (&secrets, rand);
    donar_torctl_safecookie_client_hash (secrets.cookie,
        secrets.client_nonce, secrets.server_nonce, hash);
    reference_hash ("Tor safe cookie authentication controller-to-server hash",
        &secrets, reference);
    g_assert_cmpmem (hash, 32, reference, 32);

    reference_hash ("Tor safe cookie authentication server-to-controller hash",
        &secrets, reference);
    g_assert_cmpint (donar_torctl_safecookie_check_server_hash
        (secrets.cookie, secrets.client_nonce, secrets.server_nonce,
            reference), ==, DONAR_TORCTL_OK);
    /* The client hash is not a valid server hash: the two keys differ. */
    g_assert_cmpint (donar_torctl_safecookie_check_server_hash
        (secrets.cookie, secrets.client_nonce, secrets.server_nonce, hash),
        ==, DONAR_TORCTL_ERROR_SERVER_HASH_MISMATCH);
  }
  g_rand_free (rand);
}

static void
test_any_change_refused (void)
{
  Secrets secrets, changed;
  guint8 server_hash[32];

  secrets_counting (&secrets);
  reference_hash ("Tor safe cookie authentication server-to-controller hash",
      &secrets, server_hash);
  for (guint byte = 0; byte < 32; byte++) {
    for (guint bit = 0; bit < 8; bit++) {
      guint8 flipped[32];

      memcpy (flipped, server_hash, 32);
      flipped[byte] ^= 1 << bit;
      g_assert_cmpint (donar_torctl_safecookie_check_server_hash
          (secrets.cookie, secrets.client_nonce, secrets.server_nonce,
              flipped), ==, DONAR_TORCTL_ERROR_SERVER_HASH_MISMATCH);
    }
    changed = secrets;
    changed.cookie[byte] ^= 0x80;
    g_assert_cmpint (donar_torctl_safecookie_check_server_hash
        (changed.cookie, changed.client_nonce, changed.server_nonce,
            server_hash), ==, DONAR_TORCTL_ERROR_SERVER_HASH_MISMATCH);
    changed = secrets;
    changed.client_nonce[byte] ^= 0x01;
    g_assert_cmpint (donar_torctl_safecookie_check_server_hash
        (changed.cookie, changed.client_nonce, changed.server_nonce,
            server_hash), ==, DONAR_TORCTL_ERROR_SERVER_HASH_MISMATCH);
    changed = secrets;
    changed.server_nonce[byte] ^= 0x01;
    g_assert_cmpint (donar_torctl_safecookie_check_server_hash
        (changed.cookie, changed.client_nonce, changed.server_nonce,
            server_hash), ==, DONAR_TORCTL_ERROR_SERVER_HASH_MISMATCH);
  }
}

/* Plays tor's side with GHmac: AUTHCHALLENGE is built, the reply parsed,
 * the server checked, AUTHENTICATE built with what tor would accept. */
static void
test_exchange (void)
{
  Secrets secrets;
  guint8 server_hash[32], client_hash[32], expected[32];
  DonarTorctlAuthChallenge challenge;
  DonarTorctlReader *reader = donar_torctl_reader_new ();
  DonarTorctlReply *reply;
  GString *text = g_string_new (NULL);
  const guint8 *data;
  gsize length;

  secrets_counting (&secrets);
  donar_torctl_command_authchallenge (text, secrets.client_nonce);
  g_assert_true (g_str_has_prefix (text->str,
          "AUTHCHALLENGE SAFECOOKIE 202122"));

  reference_hash ("Tor safe cookie authentication server-to-controller hash",
      &secrets, server_hash);
  g_string_assign (text, "250 AUTHCHALLENGE SERVERHASH=");
  donar_torctl_hex_append (text, server_hash, 32);
  g_string_append (text, " SERVERNONCE=");
  donar_torctl_hex_append (text, secrets.server_nonce, 32);
  g_string_append (text, "\r\n");
  data = (const guint8 *) text->str;
  length = text->len;
  g_assert_cmpint (donar_torctl_reader_next (reader, &data, &length, &reply),
      ==, DONAR_TORCTL_OK);
  g_assert_nonnull (reply);
  g_assert_cmpint (donar_torctl_parse_authchallenge (reply, &challenge), ==,
      DONAR_TORCTL_OK);
  g_assert_cmpmem (challenge.server_nonce, 32, secrets.server_nonce, 32);
  g_assert_cmpint (donar_torctl_safecookie_check_server_hash (secrets.cookie,
          secrets.client_nonce, challenge.server_nonce,
          challenge.server_hash), ==, DONAR_TORCTL_OK);

  donar_torctl_safecookie_client_hash (secrets.cookie, secrets.client_nonce,
      challenge.server_nonce, client_hash);
  reference_hash ("Tor safe cookie authentication controller-to-server hash",
      &secrets, expected);
  g_string_truncate (text, 0);
  donar_torctl_command_authenticate_safecookie (text, client_hash);
  g_assert_cmpstr (text->str, ==, "AUTHENTICATE " VECTOR_CLIENT_HASH "\r\n");
  g_assert_cmpmem (client_hash, 32, expected, 32);

  donar_torctl_reply_free (reply);
  donar_torctl_reader_free (reader);
  g_string_free (text, TRUE);
}

static void
test_hex (void)
{
  guint8 out[2];
  GString *text = g_string_new (NULL);
  const guint8 bytes[] = { 0x00, 0xab, 0xff };

  donar_torctl_hex_append (text, bytes, 3);
  g_assert_cmpstr (text->str, ==, "00ABFF");
  g_string_free (text, TRUE);
  g_assert_true (donar_torctl_hex_decode ("aBcD", out, 2));
  g_assert_cmpuint (out[0], ==, 0xab);
  g_assert_cmpuint (out[1], ==, 0xcd);
  g_assert_false (donar_torctl_hex_decode ("abc", out, 2));
  g_assert_false (donar_torctl_hex_decode ("abcde", out, 2));
  g_assert_false (donar_torctl_hex_decode ("abcg", out, 2));
  g_assert_false (donar_torctl_hex_decode ("", out, 2));
  g_assert_false (donar_torctl_hex_decode ("ab d", out, 2));
  g_assert_true (donar_torctl_hex_decode ("", out, 0));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/torctl/safecookie/fixed-vector", test_fixed_vector);
  g_test_add_func ("/torctl/safecookie/against-ghmac", test_against_ghmac);
  g_test_add_func ("/torctl/safecookie/any-change-refused",
      test_any_change_refused);
  g_test_add_func ("/torctl/safecookie/exchange", test_exchange);
  g_test_add_func ("/torctl/safecookie/hex", test_hex);
  return g_test_run ();
}
