/* Test helpers: a blocking SOCKS5 dial through tor (lib/tor's codec over a
 * GSocket) and byte exchange, so a test can reach an onion service the
 * way a caller does. */
#ifndef TORCLIENT_TEST_SOCKS_H
#define TORCLIENT_TEST_SOCKS_H

#include <gio/gio.h>

#include "donar-socks.h"

G_BEGIN_DECLS

/* CONNECT to host:port through the SocksPort 127.0.0.1:socks_port, with
 * username (password "x") for a circuit of its own.  On success the peer's
 * bytes that came with the reply are appended to early_data.  A refusal
 * sets *socks_error (a DonarSocksError) and error. */
GSocket *torclient_test_socks_dial (guint16 socks_port,
    const gchar * username, const gchar * host, guint16 port,
    GByteArray * early_data, DonarSocksError * socks_error, GError ** error);

gboolean torclient_test_send_all (GSocket * socket, const guint8 * data,
    gsize length, GError ** error);

/* Reads exactly length bytes; FALSE at an early end. */
gboolean torclient_test_receive_all (GSocket * socket, guint8 * data,
    gsize length, GError ** error);

G_END_DECLS

#endif /* TORCLIENT_TEST_SOCKS_H */
