#include "tool-json.h"

void
tool_json_append_string (GString * out, const gchar * text)
{
  if (text == NULL) {
    g_string_append (out, "null");
    return;
  }
  g_string_append_c (out, '"');
  for (const gchar * p = text; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_printf (out, "\\%c", *p);
    else if ((guchar) * p < 0x20)
      g_string_append_printf (out, "\\u%04x", (guchar) * p);
    else
      g_string_append_c (out, *p);
  }
  g_string_append_c (out, '"');
}
