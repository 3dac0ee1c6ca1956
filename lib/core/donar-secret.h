/* Secrets in strings: the call address (which holds the call secret and the
 * client key), a control password. */
#ifndef DONAR_SECRET_H
#define DONAR_SECRET_H

#include "donar-api.h"

#include <glib.h>

G_BEGIN_DECLS

/* Wipes the string, then frees it; NULL is fine.  Any thread. */
DONAR_API
void donar_secret_free (gchar * text);

G_END_DECLS

#endif /* DONAR_SECRET_H */
