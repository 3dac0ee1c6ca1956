/* The Tor control-port client and the tor launcher: the I/O layer over the
 * codecs of lib/tor (docs/tor-control.md). */
#ifndef DONAR_TORCLIENT_H
#define DONAR_TORCLIENT_H

#include "donar-tor-control.h"
#include "donar-tor-launcher.h"
#include "donar-tor-unix.h"

#endif /* DONAR_TORCLIENT_H */
