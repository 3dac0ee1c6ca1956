/* The Tor control-port protocol (control-spec.txt) as sans-I/O codecs: a
 * reply reader fed with bytes, builders of the commands DONAR sends, the
 * SAFECOOKIE hashes and parsers of the replies.  No socket, thread, clock
 * or file: the I/O layer moves the bytes, reads the cookie file and draws
 * the client nonce.  docs/tor-control.md says what is covered. */
#ifndef DONAR_TORCTL_H
#define DONAR_TORCTL_H

#include "donar-torctl-error.h"
#include "donar-torctl-reader.h"
#include "donar-torctl-arguments.h"
#include "donar-torctl-hex.h"
#include "donar-torctl-safecookie.h"
#include "donar-torctl-command.h"
#include "donar-torctl-parse.h"
#include "donar-torctl-status.h"
#include "donar-torctl-relay.h"

#endif /* DONAR_TORCTL_H */
