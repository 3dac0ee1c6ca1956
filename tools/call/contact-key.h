/* donar-call contact-key NAME DIR: a contact's key pair for a lasting
 * address with client authorization (docs/security.md). */
#ifndef CONTACT_KEY_H
#define CONTACT_KEY_H

#include <glib.h>

G_BEGIN_DECLS

/* Writes DIR/NAME.auth (the public key, the callee's contacts directory)
 * and prints the secret key (52 base32 characters, the address's auth=)
 * on standard output; 0, or 1 with the reason on standard error. */
int contact_key_main (const gchar * name, const gchar * dir);

G_END_DECLS

#endif /* CONTACT_KEY_H */
