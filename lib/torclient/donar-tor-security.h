/* The security configurations of a call's tor, apart from the launcher
 * that applies them: a call's options (donar-call.h) name one, and an
 * application that asks for it has no use for the launcher itself, which
 * is not installed. */
#ifndef DONAR_TOR_SECURITY_H
#define DONAR_TOR_SECURITY_H

#include "donar-api.h"

#include <glib.h>

G_BEGIN_DECLS

/* The security configurations of seed 000 section 5 (docs/security.md). */
typedef enum
{
  /* Stock tor: 3 relays on each side of the rendezvous point. */
  DONAR_TOR_SECURITY_DEFAULT,
  /* 2 relays on the client side: needs a patched tor, always refused. */
  DONAR_TOR_SECURITY_TWO_HOP,
  /* Single onion: the callee's tor goes straight to the rendezvous and
   * introduction points (one-hop circuits, with
   * donar_tor_launcher_add_single_onion), so the callee is not anonymous;
   * no SocksPort (tor forbids one in this mode). */
  DONAR_TOR_SECURITY_ONE_WAY,
} DonarTorSecurity;

/* "default", "2hop", "1way" ("unknown" for a value it does not know);
 * from_string: FALSE for any other text (or NULL), *security left as it
 * was.  Any thread. */
DONAR_API
const gchar *donar_tor_security_to_string (DonarTorSecurity security);
DONAR_API
gboolean donar_tor_security_from_string (const gchar * text,
    DonarTorSecurity * security);

G_END_DECLS

#endif /* DONAR_TOR_SECURITY_H */
