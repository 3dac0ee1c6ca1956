/* Stream framing of the records a link carries. */
#include "donar-framer.h"

#include <string.h>

void
donar_framer_reset (DonarFramer * framer)
{
  framer->filled = 0;
  framer->error = DONAR_OK;
}

/* Moves up to `wanted` bytes of input into the buffer; TRUE once it holds
 * them all. */
static gboolean
fill_to (DonarFramer * framer, gsize wanted, const guint8 ** data,
    gsize * length)
{
  gsize take;

  if (framer->filled >= wanted)
    return TRUE;
  take = MIN (wanted - framer->filled, *length);
  memcpy (framer->buffer + framer->filled, *data, take);
  framer->filled += take;
  *data += take;
  *length -= take;
  return framer->filled == wanted;
}

DonarError
donar_framer_next (DonarFramer * framer, const guint8 ** data,
    gsize * length, const guint8 ** message, gsize * message_length)
{
  gsize message_size;

  *message = NULL;
  *message_length = 0;
  if (framer->error != DONAR_OK)
    return DONAR_ERROR_STREAM_BROKEN;

  /* A complete message was handed out by the previous call. */
  if (framer->filled >= DONAR_WIRE_PREFIX) {
    message_size = (framer->buffer[0] << 8) | framer->buffer[1];
    if (framer->filled == DONAR_WIRE_PREFIX + message_size)
      framer->filled = 0;
  }

  /* A whole, valid record at the start of the input, nothing buffered: it
   * is handed out where it lies.  Records mostly come whole (one per read,
   * one per cell), and copying each would cost more than reading it. */
  if (framer->filled == 0 && *length >= DONAR_WIRE_PREFIX) {
    message_size = ((*data)[0] << 8) | (*data)[1];
    if (message_size > 0 && message_size <= DONAR_WIRE_MAX_MESSAGE &&
        *length >= DONAR_WIRE_PREFIX + message_size) {
      *message = *data + DONAR_WIRE_PREFIX;
      *message_length = message_size;
      *data += DONAR_WIRE_PREFIX + message_size;
      *length -= DONAR_WIRE_PREFIX + message_size;
      return DONAR_OK;
    }
  }

  if (!fill_to (framer, DONAR_WIRE_PREFIX, data, length))
    return DONAR_OK;
  message_size = (framer->buffer[0] << 8) | framer->buffer[1];
  if (message_size > DONAR_WIRE_MAX_MESSAGE) {
    framer->error = DONAR_ERROR_OVERSIZE;
    return framer->error;
  }
  if (message_size == 0) {
    framer->error = DONAR_ERROR_TRUNCATED;
    return framer->error;
  }
  if (!fill_to (framer, DONAR_WIRE_PREFIX + message_size, data, length))
    return DONAR_OK;

  *message = framer->buffer + DONAR_WIRE_PREFIX;
  *message_length = message_size;
  return DONAR_OK;
}
