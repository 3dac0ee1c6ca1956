/* The message decoders (lib/core/donar-wire.c) on the input as one message:
 * whatever they accept must point inside the input, and a DATA message must
 * encode back to the very same bytes. */
#include <string.h>

#include "donar-wire.h"
#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static DonarWireKey keys[2];
  static gboolean keys_ready = FALSE;
  DonarWireMessage message;
  DonarWireHello hello;
  guint8 *copy;

  if (!keys_ready) {
    donar_wire_key_derive (FUZZ_SECRET, FUZZ_SECRET_LENGTH,
        DONAR_WIRE_CALLER_TO_CALLEE, &keys[0]);
    donar_wire_key_derive (FUZZ_SECRET, FUZZ_SECRET_LENGTH,
        DONAR_WIRE_CALLEE_TO_CALLER, &keys[1]);
    keys_ready = TRUE;
  }

  /* A heap copy of exactly the input's size, so that a read one byte too
   * far is seen by the address sanitizer.  An empty input gets a 1-byte
   * block rather than NULL (malloc (0) may give NULL here), since no caller
   * passes NULL: the framer yields messages of 1 byte or more. */
  copy = g_malloc (MAX (size, 1));
  if (size > 0)
    memcpy (copy, data, size);

  memset (&message, 0xa5, sizeof message);
  if (donar_wire_decode_data (copy, size, &message) == DONAR_OK) {
    guint8 record[DONAR_CELL_PAYLOAD + 16];
    gsize written;

    FUZZ_CHECK (size >= DONAR_WIRE_MIN_DATA && size <= DONAR_WIRE_MAX_MESSAGE);
    FUZZ_CHECK (message.n_scores <= DONAR_MAX_LINKS);
    FUZZ_CHECK (message.n_recent <= DONAR_WIRE_MAX_RECENT);
    FUZZ_CHECK (message.n_frames >= 1 &&
        message.n_frames <= DONAR_WIRE_MAX_FRAMES);
    for (guint i = 0; i < message.n_frames; i++) {
      const DonarWireFrame *frame = &message.frames[i];

      FUZZ_CHECK (frame->length > 0);
      FUZZ_CHECK (frame->data >= copy);
      FUZZ_CHECK (frame->data + frame->length <= copy + size);
      FUZZ_CHECK (i == 0 ? frame->age == 0 :
          frame->age > message.frames[i - 1].age);
    }

    FUZZ_CHECK (donar_wire_record_size (&message) == DONAR_WIRE_PREFIX + size);
    written = donar_wire_encode_data (&message, record, sizeof record);
    FUZZ_CHECK (written == DONAR_WIRE_PREFIX + size);
    FUZZ_CHECK (record[0] == size >> 8 && record[1] == (size & 0xff));
    FUZZ_CHECK (memcmp (record + DONAR_WIRE_PREFIX, copy, size) == 0);
  }

  {
    guint8 nonce[DONAR_WIRE_NONCE];

    if (donar_wire_decode_challenge (copy, size, nonce) == DONAR_OK) {
      guint8 record[DONAR_WIRE_PREFIX + DONAR_WIRE_CHALLENGE];

      FUZZ_CHECK (size == DONAR_WIRE_CHALLENGE);
      FUZZ_CHECK (donar_wire_encode_challenge (nonce, record, sizeof record)
          == sizeof record);
      FUZZ_CHECK (memcmp (record + DONAR_WIRE_PREFIX, copy, size) == 0);
    }
  }
  {
    DonarWireBye bye;

    if (donar_wire_decode_bye (copy, size, &bye) == DONAR_OK) {
      guint8 record[DONAR_WIRE_PREFIX + DONAR_WIRE_BYE];

      FUZZ_CHECK (size == DONAR_WIRE_BYE);
      FUZZ_CHECK (donar_wire_encode_bye (&bye, record, sizeof record) ==
          sizeof record);
      FUZZ_CHECK (memcmp (record + DONAR_WIRE_PREFIX, copy, size) == 0);
    }
  }

  {
    guint8 link;
    guint64 relay;

    if (donar_wire_decode_rendezvous (copy, size, &link, &relay) == DONAR_OK) {
      guint8 record[DONAR_WIRE_PREFIX + DONAR_WIRE_RENDEZVOUS];

      FUZZ_CHECK (size == DONAR_WIRE_RENDEZVOUS);
      FUZZ_CHECK (donar_wire_encode_rendezvous (link, relay, record,
              sizeof record) == sizeof record);
      FUZZ_CHECK (memcmp (record + DONAR_WIRE_PREFIX, copy, size) == 0);
    }
  }

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++) {
    if (donar_wire_decode_hello (copy, size, &keys[k], &hello) == DONAR_OK) {
      guint8 record[DONAR_WIRE_PREFIX + DONAR_WIRE_HELLO];

      /* Only a genuine HELLO gets here: it must encode back to itself. */
      FUZZ_CHECK (size == DONAR_WIRE_HELLO);
      FUZZ_CHECK (donar_wire_encode_hello (&hello, &keys[k], record,
              sizeof record) == sizeof record);
      FUZZ_CHECK (memcmp (record + DONAR_WIRE_PREFIX, copy, size) == 0);
    }
  }

  g_free (copy);
  return 0;
}
