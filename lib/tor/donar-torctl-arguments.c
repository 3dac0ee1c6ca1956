/* The keyword=value / QuotedString splitter shared by the reply parsers. */
#include "donar-torctl-arguments.h"

#include <string.h>

static gboolean
is_octal (gchar c)
{
  return c >= '0' && c <= '7';
}

/* Reads the escape after a backslash at *cursor; returns the byte it
 * stands for, or -1. */
static gint
read_escape (const gchar ** cursor)
{
  const gchar *p = *cursor;
  gint value = 0;
  guint digits = 0;

  switch (*p) {
    case '\0':
      return -1;
    case 'n':
      *cursor = p + 1;
      return '\n';
    case 't':
      *cursor = p + 1;
      return '\t';
    case 'r':
      *cursor = p + 1;
      return '\r';
    default:
      break;
  }
  if (!is_octal (*p)) {
    *cursor = p + 1;
    return (guint8) * p;
  }
  while (digits < 3 && is_octal (p[digits])) {
    value = value * 8 + (p[digits] - '0');
    digits++;
  }
  if (value == 0 || value > 0xff)
    return -1;
  *cursor = p + digits;
  return value;
}

DonarTorctlError
donar_torctl_unquote (const gchar * text, gsize * consumed, gchar ** value)
{
  const gchar *p = text + 1;
  GString *out;

  *value = NULL;
  *consumed = 0;
  if (text[0] != '"')
    return DONAR_TORCTL_ERROR_MALFORMED;
  out = g_string_new (NULL);
  while (*p != '"') {
    if (*p == '\0') {
      g_string_free (out, TRUE);
      return DONAR_TORCTL_ERROR_MALFORMED;
    }
    if (*p == '\\') {
      gint byte;

      p++;
      byte = read_escape (&p);
      if (byte < 0) {
        g_string_free (out, TRUE);
        return DONAR_TORCTL_ERROR_MALFORMED;
      }
      g_string_append_c (out, (gchar) byte);
    } else {
      g_string_append_c (out, *p);
      p++;
    }
  }
  *consumed = p + 1 - text;
  *value = g_string_free (out, FALSE);
  return DONAR_TORCTL_OK;
}

static const gchar *
word_end (const gchar * p)
{
  while (*p != '\0' && *p != ' ')
    p++;
  return p;
}

/* Reads one keyword=value pair or bare word at p; returns where it ends. */
static DonarTorctlError
read_argument (const gchar * p, gboolean raw_word, DonarTorctlArgument * out,
    const gchar ** end)
{
  const gchar *stop = word_end (p);
  const gchar *equals = memchr (p, '=', stop - p);
  const gchar *quote = memchr (p, '"', stop - p);
  gsize consumed;
  DonarTorctlError error;

  if (raw_word || equals == NULL) {
    if (!raw_word && quote != NULL)
      return DONAR_TORCTL_ERROR_MALFORMED;
    out->value = g_strndup (p, stop - p);
    *end = stop;
    return DONAR_TORCTL_OK;
  }
  if (equals == p || (quote != NULL && quote < equals))
    return DONAR_TORCTL_ERROR_MALFORMED;
  if (equals[1] != '"') {
    if (quote != NULL)
      return DONAR_TORCTL_ERROR_MALFORMED;
    out->key = g_strndup (p, equals - p);
    out->value = g_strndup (equals + 1, stop - equals - 1);
    *end = stop;
    return DONAR_TORCTL_OK;
  }
  /* A quoted value may hold spaces: it ends at its closing quote. */
  error = donar_torctl_unquote (equals + 1, &consumed, &out->value);
  if (error != DONAR_TORCTL_OK)
    return error;
  stop = equals + 1 + consumed;
  if (*stop != '\0' && *stop != ' ') {
    g_free (out->value);
    out->value = NULL;
    return DONAR_TORCTL_ERROR_MALFORMED;
  }
  out->key = g_strndup (p, equals - p);
  *end = stop;
  return DONAR_TORCTL_OK;
}

static void
arguments_array_free (GArray * array)
{
  for (guint i = 0; i < array->len; i++) {
    DonarTorctlArgument *argument =
        &g_array_index (array, DonarTorctlArgument, i);

    g_free (argument->key);
    g_free (argument->value);
  }
  g_array_free (array, TRUE);
}

DonarTorctlError
donar_torctl_arguments_parse (const gchar * text, guint n_words,
    DonarTorctlArguments ** arguments)
{
  GArray *array = g_array_new (FALSE, TRUE, sizeof (DonarTorctlArgument));
  const gchar *p = text;

  *arguments = NULL;
  while (TRUE) {
    DonarTorctlArgument argument = { 0 };
    DonarTorctlError error;

    while (*p == ' ')
      p++;
    if (*p == '\0')
      break;
    if (array->len == DONAR_TORCTL_MAX_ARGUMENTS) {
      arguments_array_free (array);
      return DONAR_TORCTL_ERROR_MALFORMED;
    }
    error = read_argument (p, array->len < n_words, &argument, &p);
    if (error != DONAR_TORCTL_OK) {
      arguments_array_free (array);
      return error;
    }
    g_array_append_val (array, argument);
  }
  *arguments = g_new0 (DonarTorctlArguments, 1);
  (*arguments)->n_arguments = array->len;
  (*arguments)->arguments = (DonarTorctlArgument *) g_array_free (array, FALSE);
  return DONAR_TORCTL_OK;
}

void
donar_torctl_arguments_free (DonarTorctlArguments * arguments)
{
  if (arguments == NULL)
    return;
  for (guint i = 0; i < arguments->n_arguments; i++) {
    g_free (arguments->arguments[i].key);
    g_free (arguments->arguments[i].value);
  }
  g_free (arguments->arguments);
  g_free (arguments);
}

const gchar *
donar_torctl_arguments_lookup (const DonarTorctlArguments * arguments,
    const gchar * key)
{
  for (guint i = 0; i < arguments->n_arguments; i++) {
    const DonarTorctlArgument *argument = &arguments->arguments[i];

    if (argument->key != NULL && strcmp (argument->key, key) == 0)
      return argument->value;
  }
  return NULL;
}

const gchar *
donar_torctl_arguments_word (const DonarTorctlArguments * arguments,
    guint index)
{
  for (guint i = 0; i < arguments->n_arguments; i++) {
    if (arguments->arguments[i].key != NULL)
      continue;
    if (index == 0)
      return arguments->arguments[i].value;
    index--;
  }
  return NULL;
}
