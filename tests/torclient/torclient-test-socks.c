/* The tests' SOCKS5 dial: blocking, with the socket's own timeout. */
#include "torclient-test-socks.h"

/* Seconds a dial or an exchange may block. */
#define SOCKET_TIMEOUT_S 20

gboolean
torclient_test_send_all (GSocket * socket, const guint8 * data, gsize length,
    GError ** error)
{
  while (length > 0) {
    gssize n = g_socket_send (socket, (const gchar *) data, length, NULL,
        error);

    if (n < 0)
      return FALSE;
    data += n;
    length -= n;
  }
  return TRUE;
}

gboolean
torclient_test_receive_all (GSocket * socket, guint8 * data, gsize length,
    GError ** error)
{
  while (length > 0) {
    gssize n = g_socket_receive (socket, (gchar *) data, length, NULL, error);

    if (n < 0)
      return FALSE;
    if (n == 0) {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
          "the peer closed the connection early");
      return FALSE;
    }
    data += n;
    length -= n;
  }
  return TRUE;
}

/* The request the reader now waits the answer of. */
static DonarSocksError
next_request (const DonarSocksReader * reader, const gchar * username,
    const gchar * host, guint16 port, guint8 * out, gsize capacity,
    gsize * written)
{
  if (reader->stage == DONAR_SOCKS_STAGE_AUTH)
    return donar_socks_build_auth (username, "x", out, capacity, written);
  return donar_socks_build_connect (host, port, out, capacity, written);
}

GSocket *
torclient_test_socks_dial (guint16 socks_port, const gchar * username,
    const gchar * host, guint16 port, GByteArray * early_data,
    DonarSocksError * socks_error, GError ** error)
{
  g_autoptr (GSocket) socket = NULL;
  g_autoptr (GInetAddress) loopback = NULL;
  g_autoptr (GSocketAddress) address = NULL;
  guint8 request[DONAR_SOCKS_MAX_AUTH_LENGTH];
  DonarSocksReader reader;
  gsize written;

  *socks_error = DONAR_SOCKS_OK;
  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
      G_SOCKET_PROTOCOL_TCP, error);
  if (socket == NULL)
    return NULL;
  g_socket_set_timeout (socket, SOCKET_TIMEOUT_S);
  loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  address = g_inet_socket_address_new (loopback, socks_port);
  if (!g_socket_connect (socket, address, NULL, error))
    return NULL;
  donar_socks_reader_init (&reader);
  g_assert_cmpint (donar_socks_build_greeting (request, sizeof request,
          &written), ==, DONAR_SOCKS_OK);
  if (!torclient_test_send_all (socket, request, written, error))
    return NULL;

  while (reader.stage != DONAR_SOCKS_STAGE_OPEN) {
    guint8 buffer[512];
    const guint8 *data = buffer;
    gssize received = g_socket_receive (socket, (gchar *) buffer,
        sizeof buffer, NULL, error);
    gsize length;

    if (received < 0)
      return NULL;
    if (received == 0)
      *socks_error = donar_socks_reader_finish (&reader);
    length = received;
    while (*socks_error == DONAR_SOCKS_OK && length > 0
        && reader.stage != DONAR_SOCKS_STAGE_OPEN) {
      gboolean reply_done = FALSE;

      *socks_error = donar_socks_reader_feed (&reader, &data, &length,
          &reply_done);
      if (*socks_error == DONAR_SOCKS_OK && reply_done
          && reader.stage != DONAR_SOCKS_STAGE_OPEN) {
        *socks_error = next_request (&reader, username, host, port, request,
            sizeof request, &written);
        if (*socks_error == DONAR_SOCKS_OK
            && !torclient_test_send_all (socket, request, written, error))
          return NULL;
      }
    }
    if (*socks_error != DONAR_SOCKS_OK) {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "SOCKS5: %s",
          donar_socks_error_message (*socks_error));
      return NULL;
    }
    g_byte_array_append (early_data, data, length);
  }
  return g_steal_pointer (&socket);
}
