/* Splits the text of a reply line into its arguments: bare words and
 * keyword=value pairs, a value either raw (up to the next space) or a
 * QuotedString.  Every reply parser stands on it. */
#ifndef DONAR_TORCTL_ARGUMENTS_H
#define DONAR_TORCTL_ARGUMENTS_H

#include "donar-torctl-error.h"

G_BEGIN_DECLS

/* Most arguments on one line; tor sends about a dozen at most. */
#define DONAR_TORCTL_MAX_ARGUMENTS 64

typedef struct
{
  gchar *key;                   /* NULL for a bare word */
  gchar *value;                 /* the word, or the value with quotes undone */
} DonarTorctlArgument;

typedef struct
{
  guint n_arguments;
  DonarTorctlArgument *arguments;
} DonarTorctlArguments;

/* The first n_words space-separated words are taken as bare words whatever
 * they hold (a circuit path may hold '='); after them, a word with '=' is
 * a keyword=value pair and one without is a bare word.  Runs of spaces
 * separate like one.  A quote that does not open a value, a value quote
 * left open or not followed by a space or the end, or more arguments
 * than the bound: DONAR_TORCTL_ERROR_MALFORMED. */
DonarTorctlError donar_torctl_arguments_parse (const gchar * text,
    guint n_words, DonarTorctlArguments ** arguments);

void donar_torctl_arguments_free (DonarTorctlArguments * arguments);

/* The value of the first pair with that keyword (case-sensitive), or
 * NULL. */
const gchar *donar_torctl_arguments_lookup (const DonarTorctlArguments *
    arguments, const gchar * key);

/* The index-th bare word, or NULL. */
const gchar *donar_torctl_arguments_word (const DonarTorctlArguments *
    arguments, guint index);

/* Reads the QuotedString that starts at text (on its opening quote) as
 * control-spec section 2.1.1 advises, since tor writes many of them as C
 * strings: \n, \t, \r and octal \0 to \377 are C escapes, a backslash
 * before any other character stands for that character.  An escape that
 * gives a NUL, an unterminated string or a lone quote:
 * DONAR_TORCTL_ERROR_MALFORMED.  *consumed counts both quotes. */
DonarTorctlError donar_torctl_unquote (const gchar * text, gsize * consumed,
    gchar ** value);

G_END_DECLS

#endif /* DONAR_TORCTL_ARGUMENTS_H */
