#include "donar-client-auth.h"

#include <openssl/evp.h>
#include <string.h>
#include <sys/random.h>

GQuark
donar_client_auth_error_quark (void)
{
  return g_quark_from_static_string ("donar-client-auth-error-quark");
}

static const gchar base32_alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";

gboolean
donar_client_auth_key_from_secret (DonarClientAuthKey * key,
    const guint8 * secret, GError ** error)
{
  EVP_PKEY *pkey;
  size_t length = sizeof key->public_key;
  gboolean ok;

  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (secret != NULL, FALSE);
  pkey = EVP_PKEY_new_raw_private_key (EVP_PKEY_X25519, NULL, secret,
      DONAR_CLIENT_AUTH_KEY_BYTES);
  ok = pkey != NULL && EVP_PKEY_get_raw_public_key (pkey, key->public_key,
      &length) == 1 && length == sizeof key->public_key;
  EVP_PKEY_free (pkey);
  if (!ok) {
    g_set_error (error, DONAR_CLIENT_AUTH_ERROR,
        DONAR_CLIENT_AUTH_ERROR_CRYPTO,
        "libcrypto could not derive the x25519 public key");
    donar_client_auth_key_clear (key);
    return FALSE;
  }
  if (key->secret != secret)
    memcpy (key->secret, secret, sizeof key->secret);
  return TRUE;
}

gboolean
donar_client_auth_key_generate (DonarClientAuthKey * key, GError ** error)
{
  guint8 secret[DONAR_CLIENT_AUTH_KEY_BYTES];
  gboolean ok;

  g_return_val_if_fail (key != NULL, FALSE);
  if (getrandom (secret, sizeof secret, 0) != sizeof secret) {
    g_set_error (error, DONAR_CLIENT_AUTH_ERROR,
        DONAR_CLIENT_AUTH_ERROR_RANDOM,
        "no random bytes for the client authorization key");
    return FALSE;
  }
  ok = donar_client_auth_key_from_secret (key, secret, error);
  explicit_bzero (secret, sizeof secret);
  return ok;
}

void
donar_client_auth_key_clear (DonarClientAuthKey * key)
{
  g_return_if_fail (key != NULL);
  explicit_bzero (key, sizeof *key);
}

gchar *
donar_client_auth_to_base32 (const guint8 * bytes)
{
  gchar *text;
  guint bit = 0;

  g_return_val_if_fail (bytes != NULL, NULL);
  text = g_malloc (DONAR_CLIENT_AUTH_BASE32_LENGTH + 1);
  for (guint i = 0; i < DONAR_CLIENT_AUTH_BASE32_LENGTH; i++, bit += 5) {
    guint byte = bit / 8, shift = bit % 8;
    guint window = bytes[byte] << 8;

    if (byte + 1 < DONAR_CLIENT_AUTH_KEY_BYTES)
      window |= bytes[byte + 1];
    text[i] = base32_alphabet[(window >> (11 - shift)) & 0x1f];
  }
  text[DONAR_CLIENT_AUTH_BASE32_LENGTH] = '\0';
  return text;
}

static gint
base32_value (gchar c)
{
  if (c >= 'a' && c <= 'z')
    return c - 'a';
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= '2' && c <= '7')
    return c - '2' + 26;
  return -1;
}

gboolean
donar_client_auth_from_base32 (const gchar * text, guint8 * bytes)
{
  guint8 out[DONAR_CLIENT_AUTH_KEY_BYTES + 1] = { 0 };
  guint bit = 0;

  g_return_val_if_fail (bytes != NULL, FALSE);
  if (text == NULL || strlen (text) != DONAR_CLIENT_AUTH_BASE32_LENGTH)
    return FALSE;
  for (guint i = 0; i < DONAR_CLIENT_AUTH_BASE32_LENGTH; i++, bit += 5) {
    gint value = base32_value (text[i]);
    guint byte = bit / 8, shift = bit % 8;
    guint window;

    if (value < 0) {
      explicit_bzero (out, sizeof out);
      return FALSE;
    }
    window = (guint) value << (11 - shift);
    out[byte] |= window >> 8;
    out[byte + 1] |= window & 0xff;
  }
  /* 52 characters hold 260 bits: the last 4 must be zero, or two texts
   * would spell one key. */
  if (out[DONAR_CLIENT_AUTH_KEY_BYTES] != 0) {
    explicit_bzero (out, sizeof out);
    return FALSE;
  }
  memcpy (bytes, out, DONAR_CLIENT_AUTH_KEY_BYTES);
  explicit_bzero (out, sizeof out);
  return TRUE;
}
