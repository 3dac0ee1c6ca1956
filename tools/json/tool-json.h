/* What the tools' JSON reports share. */
#ifndef TOOL_JSON_H
#define TOOL_JSON_H

#include <glib.h>

G_BEGIN_DECLS

/* `text` as a JSON string, or null when NULL. */
void tool_json_append_string (GString * out, const gchar * text);

G_END_DECLS

#endif /* TOOL_JSON_H */
