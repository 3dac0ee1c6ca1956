/* Secrets from the kernel, and the made-up names of onions and relays. */
#include "torsim.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

void
torsim_random_bytes (guint8 * out, gsize length)
{
  gsize done = 0;

  while (done < length) {
    ssize_t got = getrandom (out + done, length - done, 0);

    if (got < 0) {
      if (errno == EINTR)
        continue;
      g_error ("getrandom: %s", g_strerror (errno));
    }
    done += got;
  }
}

gchar *
torsim_base32 (const guint8 * data, gsize length)
{
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  GString *out = g_string_sized_new ((length * 8 + 4) / 5 + 1);
  guint32 buffer = 0;
  guint bits = 0;

  for (gsize i = 0; i < length; i++) {
    buffer = (buffer << 8) | data[i];
    bits += 8;
    while (bits >= 5) {
      g_string_append_c (out, alphabet[(buffer >> (bits - 5)) & 31]);
      bits -= 5;
    }
  }
  if (bits > 0)
    g_string_append_c (out, alphabet[(buffer << (5 - bits)) & 31]);
  return g_string_free (out, FALSE);
}

gchar *
torsim_fingerprint (guint64 seed, const char *identity)
{
  g_autofree gchar *text = g_strdup_printf ("torsim relay %" G_GUINT64_FORMAT
      " %s", seed, identity);
  gchar *hex = g_compute_checksum_for_string (G_CHECKSUM_SHA1, text, -1);

  for (gchar * p = hex; *p != '\0'; p++)
    *p = g_ascii_toupper (*p);
  return hex;
}

void
torsim_append_quoted (GString * out, const char *text)
{
  g_string_append_c (out, '"');
  for (const guchar * p = (const guchar *)text; *p != '\0'; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_printf (out, "\\%c", *p);
    else if (*p < 0x20 || *p >= 0x7f)
      g_string_append_printf (out, "\\%03o", *p);
    else
      g_string_append_c (out, *p);
  }
  g_string_append_c (out, '"');
}
