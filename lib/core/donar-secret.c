/* Secrets in strings. */
#include "donar-secret.h"

#include <string.h>

void
donar_secret_free (gchar * text)
{
  if (text == NULL)
    return;
  explicit_bzero (text, strlen (text));
  g_free (text);
}
