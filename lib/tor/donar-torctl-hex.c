/* Hex encoding and strict decoding. */
#include "donar-torctl-hex.h"

void
donar_torctl_hex_append (GString * out, const guint8 * bytes, gsize length)
{
  static const gchar digits[] = "0123456789ABCDEF";

  for (gsize i = 0; i < length; i++) {
    g_string_append_c (out, digits[bytes[i] >> 4]);
    g_string_append_c (out, digits[bytes[i] & 0x0f]);
  }
}

gboolean
donar_torctl_hex_decode (const gchar * text, guint8 * out, gsize length)
{
  for (gsize i = 0; i < length; i++) {
    gint high, low;

    /* A NUL stops the walk here: g_ascii_xdigit_value rejects it. */
    high = g_ascii_xdigit_value (text[2 * i]);
    if (high < 0)
      return FALSE;
    low = g_ascii_xdigit_value (text[2 * i + 1]);
    if (low < 0)
      return FALSE;
    out[i] = (high << 4) | low;
  }
  return text[2 * length] == '\0';
}
