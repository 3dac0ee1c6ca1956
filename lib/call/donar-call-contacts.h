/* The contacts of a lasting address (issue 16): the callers let through
 * onion client authorization, one file per contact in a directory the
 * user manages, in the form of tor's authorized_clients directory
 * (rend-spec, "Managing authorized client data"):
 *
 *   <dir>/<name>.auth     descriptor:x25519:<52 base32, the public key>
 *
 * The callee gives tor every key (ADD_ONION ClientAuthV3=); each contact
 * keeps the matching secret key and puts it in the address it dials
 * (&auth=), so that only the contacts can even reach the onion.  A
 * contact removed from the directory is out from the next call on. */
#ifndef DONAR_CALL_CONTACTS_H
#define DONAR_CALL_CONTACTS_H

#include "donar-api.h"

#include <glib.h>

G_BEGIN_DECLS

/* Any thread; a NULL directory, name or key is a g_critical, and the call
 * does nothing (docs/api.md, "Contracts"). */

/* Most contacts: each adds a client entry (about 90 bytes) to the
 * onion's descriptor, whose size tor limits to 50,000 bytes. */
#define DONAR_CALL_CONTACTS_MAX 256

/* The public keys of dir's *.auth files (52 lowercase base32 characters
 * each, NULL-terminated, sorted by file name); other files are ignored, as
 * tor does.  A directory that cannot be read, holds no *.auth file, or one
 * whose first line is not descriptor:x25519:<key> is an error
 * (DONAR_CALL_ERROR_CONTACTS) naming it: a contact silently left out would
 * find the onion shut. */
DONAR_API
gchar **donar_call_contacts_load (const gchar * dir, GError ** error);

/* A contact name makes a file name: letters, digits, '-', '_' and '.',
 * not first, 1 to 64 of them. */
DONAR_API
gboolean donar_call_contacts_name_is_valid (const gchar * name);

/* Writes <dir>/<name>.auth for public_key (32 bytes), refusing to replace
 * an existing one (another contact's key would be lost): FALSE and
 * DONAR_CALL_ERROR_CONTACTS for that, an invalid name or a directory or
 * file that cannot be written. */
DONAR_API
gboolean donar_call_contacts_write (const gchar * dir, const gchar * name,
    const guint8 * public_key, GError ** error);

G_END_DECLS

#endif /* DONAR_CALL_CONTACTS_H */
