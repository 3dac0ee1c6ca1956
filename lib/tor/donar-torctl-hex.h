/* Hexadecimal, as AUTHENTICATE, AUTHCHALLENGE and their replies carry
 * cookies, nonces and hashes. */
#ifndef DONAR_TORCTL_HEX_H
#define DONAR_TORCTL_HEX_H

#include <glib.h>

G_BEGIN_DECLS

/* Appends the bytes as upper-case hex digits, as tor writes them. */
void donar_torctl_hex_append (GString * out, const guint8 * bytes,
    gsize length);

/* TRUE if text holds exactly 2 * length hex digits (either case); then
 * out holds their bytes, else it is left unspecified. */
gboolean donar_torctl_hex_decode (const gchar * text, guint8 * out,
    gsize length);

G_END_DECLS

#endif /* DONAR_TORCTL_HEX_H */
