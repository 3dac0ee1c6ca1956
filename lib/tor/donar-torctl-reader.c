/* The reply reader: a byte-at-a-time state machine, since control replies
 * are few and short and each byte must be checked anyway. */
#include "donar-torctl-reader.h"

#include <string.h>

struct _DonarTorctlReader
{
  DonarTorctlError error;
  gchar line[DONAR_TORCTL_MAX_LINE_LENGTH + 1];
  gsize line_length;
  gboolean after_cr;
  gboolean in_data;
  guint code;
  GArray *lines;                /* DonarTorctlLine of the reply being read */
  GString *data;                /* the data block being read */
  gsize data_bytes;
};

static void
line_clear (DonarTorctlLine * line)
{
  g_free (line->text);
  g_free (line->data);
}

void
donar_torctl_reply_free (DonarTorctlReply * reply)
{
  if (reply == NULL)
    return;
  for (guint i = 0; i < reply->n_lines; i++)
    line_clear (&reply->lines[i]);
  g_free (reply->lines);
  g_free (reply);
}

gboolean
donar_torctl_reply_is_event (const DonarTorctlReply * reply, const gchar * name)
{
  const gchar *text;
  gsize name_length;

  if (reply->code / 100 != 6 || reply->n_lines == 0)
    return FALSE;
  if (name == NULL)
    return TRUE;
  text = reply->lines[0].text;
  name_length = strlen (name);
  return strncmp (text, name, name_length) == 0
      && (text[name_length] == ' ' || text[name_length] == '\0');
}

static GArray *
lines_new (void)
{
  return g_array_new (FALSE, TRUE, sizeof (DonarTorctlLine));
}

DonarTorctlReader *
donar_torctl_reader_new (void)
{
  DonarTorctlReader *reader = g_new0 (DonarTorctlReader, 1);

  reader->lines = lines_new ();
  return reader;
}

void
donar_torctl_reader_free (DonarTorctlReader * reader)
{
  if (reader == NULL)
    return;
  for (guint i = 0; i < reader->lines->len; i++)
    line_clear (&g_array_index (reader->lines, DonarTorctlLine, i));
  g_array_free (reader->lines, TRUE);
  if (reader->data != NULL)
    g_string_free (reader->data, TRUE);
  g_free (reader);
}

static DonarTorctlError
end_data_line (DonarTorctlReader * reader)
{
  const gchar *start = reader->line;
  gsize length = reader->line_length;
  DonarTorctlLine *owner;

  if (length == 1 && start[0] == '.') {
    owner = &g_array_index (reader->lines, DonarTorctlLine,
        reader->lines->len - 1);
    owner->data_length = reader->data->len;
    owner->data = g_string_free (reader->data, FALSE);
    reader->data = NULL;
    reader->in_data = FALSE;
    return DONAR_TORCTL_OK;
  }
  /* Dot-stuffing: a data line that starts with '.' was sent with another
   * '.' in front of it. */
  if (length > 0 && start[0] == '.') {
    start++;
    length--;
  }
  if (length + 1 > DONAR_TORCTL_MAX_DATA_BYTES - reader->data_bytes)
    return DONAR_TORCTL_ERROR_DATA_TOO_LONG;
  g_string_append_len (reader->data, start, length);
  g_string_append_c (reader->data, '\n');
  reader->data_bytes += length + 1;
  return DONAR_TORCTL_OK;
}

static DonarTorctlReply *
take_reply (DonarTorctlReader * reader)
{
  DonarTorctlReply *reply = g_new0 (DonarTorctlReply, 1);

  reply->code = reader->code;
  reply->n_lines = reader->lines->len;
  reply->lines = (DonarTorctlLine *) g_array_free (reader->lines, FALSE);
  reader->lines = lines_new ();
  reader->data_bytes = 0;
  return reply;
}

static DonarTorctlError
end_reply_line (DonarTorctlReader * reader, DonarTorctlReply ** reply)
{
  const gchar *line = reader->line;
  DonarTorctlLine parsed = { 0 };
  guint code;
  gchar separator;

  if (reader->line_length < 3 || line[0] < '2' || line[0] > '6'
      || !g_ascii_isdigit (line[1]) || !g_ascii_isdigit (line[2]))
    return DONAR_TORCTL_ERROR_BAD_STATUS_CODE;
  code = (line[0] - '0') * 100 + (line[1] - '0') * 10 + (line[2] - '0');
  separator = reader->line_length > 3 ? line[3] : '\0';
  if (separator != '-' && separator != '+' && separator != ' ')
    return DONAR_TORCTL_ERROR_BAD_SEPARATOR;
  if (reader->lines->len > 0 && code != reader->code)
    return DONAR_TORCTL_ERROR_MIXED_STATUS_CODES;
  if (reader->lines->len == DONAR_TORCTL_MAX_LINES)
    return DONAR_TORCTL_ERROR_TOO_MANY_LINES;

  reader->code = code;
  parsed.text = g_strndup (line + 4, reader->line_length - 4);
  g_array_append_val (reader->lines, parsed);
  if (separator == '+') {
    reader->in_data = TRUE;
    reader->data = g_string_new (NULL);
  } else if (separator == ' ') {
    *reply = take_reply (reader);
  }
  return DONAR_TORCTL_OK;
}

static DonarTorctlError
take_byte (DonarTorctlReader * reader, guint8 byte, DonarTorctlReply ** reply)
{
  DonarTorctlError error;

  if (reader->after_cr) {
    if (byte != '\n')
      return DONAR_TORCTL_ERROR_BARE_CR;
    reader->after_cr = FALSE;
    reader->line[reader->line_length] = '\0';
    if (reader->in_data)
      error = end_data_line (reader);
    else
      error = end_reply_line (reader, reply);
    reader->line_length = 0;
    return error;
  }
  switch (byte) {
    case '\r':
      reader->after_cr = TRUE;
      return DONAR_TORCTL_OK;
    case '\n':
      return DONAR_TORCTL_ERROR_BARE_LF;
    case '\0':
      return DONAR_TORCTL_ERROR_NUL_BYTE;
    default:
      break;
  }
  if (reader->line_length == DONAR_TORCTL_MAX_LINE_LENGTH)
    return DONAR_TORCTL_ERROR_LINE_TOO_LONG;
  reader->line[reader->line_length++] = byte;
  return DONAR_TORCTL_OK;
}

DonarTorctlError
donar_torctl_reader_next (DonarTorctlReader * reader, const guint8 ** data,
    gsize * length, DonarTorctlReply ** reply)
{
  *reply = NULL;
  while (reader->error == DONAR_TORCTL_OK && *length > 0) {
    guint8 byte = **data;

    (*data)++;
    (*length)--;
    reader->error = take_byte (reader, byte, reply);
    if (*reply != NULL)
      break;
  }
  return reader->error;
}

DonarTorctlError
donar_torctl_reader_finish (DonarTorctlReader * reader)
{
  if (reader->error == DONAR_TORCTL_OK && (reader->line_length > 0
          || reader->after_cr || reader->in_data || reader->lines->len > 0))
    reader->error = DONAR_TORCTL_ERROR_TRUNCATED;
  return reader->error;
}
