/* What the parser tests of lib/tor share: a reply from its text. */
#ifndef TORCTL_TEST_REPLY_H
#define TORCTL_TEST_REPLY_H

#include "donar-torctl.h"

G_BEGIN_DECLS

/* The one reply in text, which must be whole and well formed. */
DonarTorctlReply *reply_of (const gchar * text);

G_END_DECLS

#endif /* TORCTL_TEST_REPLY_H */
