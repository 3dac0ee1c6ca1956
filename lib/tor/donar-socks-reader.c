/* The reader of a SOCKS5 server's replies: it buffers at most one reply and
 * consumes exactly its bytes, since the peer's data may follow the CONNECT
 * reply in the same read. */
#include "donar-socks.h"

#include <string.h>

#define CONNECT_HEADER 4

void
donar_socks_reader_init (DonarSocksReader * reader)
{
  memset (reader, 0, sizeof *reader);
  reader->stage = DONAR_SOCKS_STAGE_METHOD;
}

/* Moves input into the buffer until it holds `wanted` bytes; TRUE once it
 * does. */
static gboolean
fill_to (DonarSocksReader * reader, gsize wanted, const guint8 ** data,
    gsize * length)
{
  gsize take;

  if (reader->filled >= wanted)
    return TRUE;
  take = MIN (wanted - reader->filled, *length);
  memcpy (reader->buffer + reader->filled, *data, take);
  reader->filled += take;
  *data += take;
  *length -= take;
  return reader->filled == wanted;
}

static DonarSocksError
read_method (DonarSocksReader * reader, const guint8 ** data, gsize * length,
    gboolean * reply_done)
{
  if (!fill_to (reader, 2, data, length))
    return DONAR_SOCKS_OK;
  if (reader->buffer[0] != DONAR_SOCKS_VERSION)
    return DONAR_SOCKS_ERROR_BAD_VERSION;
  if (reader->buffer[1] == DONAR_SOCKS_METHOD_NONE_ACCEPTABLE)
    return DONAR_SOCKS_ERROR_NO_ACCEPTABLE_METHOD;
  if (reader->buffer[1] != DONAR_SOCKS_METHOD_USERNAME_PASSWORD)
    return DONAR_SOCKS_ERROR_UNEXPECTED_METHOD;
  reader->stage = DONAR_SOCKS_STAGE_AUTH;
  *reply_done = TRUE;
  return DONAR_SOCKS_OK;
}

static DonarSocksError
read_auth (DonarSocksReader * reader, const guint8 ** data, gsize * length,
    gboolean * reply_done)
{
  if (!fill_to (reader, 2, data, length))
    return DONAR_SOCKS_OK;
  if (reader->buffer[0] != DONAR_SOCKS_AUTH_VERSION)
    return DONAR_SOCKS_ERROR_BAD_VERSION;
  if (reader->buffer[1] != 0x00)
    return DONAR_SOCKS_ERROR_AUTH_FAILED;
  reader->stage = DONAR_SOCKS_STAGE_CONNECT;
  *reply_done = TRUE;
  return DONAR_SOCKS_OK;
}

/* The size of the CONNECT reply, known once its header (and, for a domain
 * name, the length byte) is in; 0 while it is not. */
static DonarSocksError
connect_reply_size (DonarSocksReader * reader, gsize * size)
{
  const guint8 *header = reader->buffer;

  *size = 0;
  if (header[0] != DONAR_SOCKS_VERSION)
    return DONAR_SOCKS_ERROR_BAD_VERSION;
  if (header[2] != 0x00)
    return DONAR_SOCKS_ERROR_BAD_RESERVED;
  switch (header[3]) {
    case DONAR_SOCKS_ATYP_IPV4:
      *size = CONNECT_HEADER + 4 + 2;
      break;
    case DONAR_SOCKS_ATYP_IPV6:
      *size = CONNECT_HEADER + 16 + 2;
      break;
    case DONAR_SOCKS_ATYP_DOMAINNAME:
      if (reader->filled > CONNECT_HEADER)
        *size = CONNECT_HEADER + 1 + header[CONNECT_HEADER] + 2;
      break;
    default:
      return DONAR_SOCKS_ERROR_BAD_ADDRESS_TYPE;
  }
  return DONAR_SOCKS_OK;
}

static DonarSocksError
read_connect (DonarSocksReader * reader, const guint8 ** data,
    gsize * length, gboolean * reply_done)
{
  const guint8 *reply = reader->buffer;
  gsize size, address_start = CONNECT_HEADER;
  DonarSocksError error;

  if (!fill_to (reader, CONNECT_HEADER, data, length))
    return DONAR_SOCKS_OK;
  error = connect_reply_size (reader, &size);
  if (error != DONAR_SOCKS_OK)
    return error;
  if (size == 0) {
    if (!fill_to (reader, CONNECT_HEADER + 1, data, length))
      return DONAR_SOCKS_OK;
    connect_reply_size (reader, &size);
  }
  if (!fill_to (reader, size, data, length))
    return DONAR_SOCKS_OK;

  if (reply[3] == DONAR_SOCKS_ATYP_DOMAINNAME)
    address_start++;
  reader->reply_code = reply[1];
  reader->bound_type = reply[3];
  reader->bound_address_length = size - 2 - address_start;
  memcpy (reader->bound_address, reply + address_start,
      reader->bound_address_length);
  reader->bound_port = (reply[size - 2] << 8) | reply[size - 1];
  *reply_done = TRUE;
  if (reply[1] != 0x00)
    return donar_socks_error_from_reply_code (reply[1]);
  reader->stage = DONAR_SOCKS_STAGE_OPEN;
  return DONAR_SOCKS_OK;
}

DonarSocksError
donar_socks_reader_feed (DonarSocksReader * reader, const guint8 ** data,
    gsize * length, gboolean * reply_done)
{
  DonarSocksError error = DONAR_SOCKS_OK;
  DonarSocksStage stage = reader->stage;

  *reply_done = FALSE;
  if (reader->error != DONAR_SOCKS_OK)
    return reader->error;
  switch (stage) {
    case DONAR_SOCKS_STAGE_METHOD:
      error = read_method (reader, data, length, reply_done);
      break;
    case DONAR_SOCKS_STAGE_AUTH:
      error = read_auth (reader, data, length, reply_done);
      break;
    case DONAR_SOCKS_STAGE_CONNECT:
      error = read_connect (reader, data, length, reply_done);
      break;
    case DONAR_SOCKS_STAGE_OPEN:
      break;
  }
  if (*reply_done)
    reader->filled = 0;
  reader->error = error;
  return error;
}

DonarSocksError
donar_socks_reader_finish (DonarSocksReader * reader)
{
  if (reader->error == DONAR_SOCKS_OK
      && reader->stage != DONAR_SOCKS_STAGE_OPEN)
    reader->error = DONAR_SOCKS_ERROR_TRUNCATED;
  return reader->error;
}
