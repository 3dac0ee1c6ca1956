/* Splits the byte stream of one link into messages: each record is a
 * 16-bit big-endian length and that many bytes of message. */
#ifndef DONAR_FRAMER_H
#define DONAR_FRAMER_H

#include "donar-wire.h"

G_BEGIN_DECLS

typedef struct
{
  guint8 buffer[DONAR_CELL_PAYLOAD];
  gsize filled;
  DonarError error;
} DonarFramer;

void donar_framer_reset (DonarFramer * framer);

/* Consumes bytes from *data until one message is whole, and returns it in
 * *message (valid until the next call, and while the input is: a record
 * that came whole is not copied); *message is NULL once the input is used
 * up.  A record whose length is out of bounds breaks the stream: that
 * error is returned, and DONAR_ERROR_STREAM_BROKEN after it, until reset. */
DonarError donar_framer_next (DonarFramer * framer, const guint8 ** data,
    gsize * length, const guint8 ** message, gsize * message_length);

G_END_DECLS

#endif /* DONAR_FRAMER_H */
