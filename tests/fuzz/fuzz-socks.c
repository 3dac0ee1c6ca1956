/* The SOCKS5 reply reader (lib/tor/donar-socks-reader.c) on the input, fed
 * in two parts:
 *
 *   byte 0     where the rest splits: at byte % (length of the rest + 1)
 *   the rest   the bytes the SOCKS server sent
 *
 * then finish.  The reader must consume only whole replies, stop at OPEN,
 * and keep its first error. */
#include <string.h>

#include "donar-socks.h"
#include "fuzz-common.h"

/* Feeds one part; returns the error the reader gave, if any. */
static DonarSocksError
feed_part (DonarSocksReader * reader, const guint8 * data, gsize size)
{
  guint8 *copy = g_memdup2 (data, size);
  const guint8 *p = copy;
  gsize left = size;
  DonarSocksError error = DONAR_SOCKS_OK;

  while (left > 0 && reader->stage != DONAR_SOCKS_STAGE_OPEN) {
    DonarSocksStage stage = reader->stage;
    gsize before = left;
    gboolean done = FALSE;

    error = donar_socks_reader_feed (reader, &p, &left, &done);
    FUZZ_CHECK (left <= before && p == copy + (size - left));
    FUZZ_CHECK (reader->filled <= sizeof reader->buffer);
    if (error != DONAR_SOCKS_OK)
      break;                    /* a refused CONNECT is done and an error */
    if (done) {
      FUZZ_CHECK (reader->stage > stage);
    } else {
      /* No reply finished: the reader must have used up the input. */
      FUZZ_CHECK (left == 0);
    }
  }
  if (error == DONAR_SOCKS_OK && reader->stage == DONAR_SOCKS_STAGE_OPEN) {
    FUZZ_CHECK (reader->bound_address_length <= DONAR_SOCKS_MAX_FIELD);
    FUZZ_CHECK (reader->bound_type == DONAR_SOCKS_ATYP_IPV4 ||
        reader->bound_type == DONAR_SOCKS_ATYP_DOMAINNAME ||
        reader->bound_type == DONAR_SOCKS_ATYP_IPV6);
  }
  g_free (copy);
  return error;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  DonarSocksReader reader;
  DonarSocksError error, finished;
  gsize split;

  if (size < 1)
    return 0;
  split = data[0] % size;       /* 0 to the length of the rest */
  data++;
  size--;

  donar_socks_reader_init (&reader);
  error = feed_part (&reader, data, split);
  if (error == DONAR_SOCKS_OK)
    error = feed_part (&reader, data + split, size - split);
  if (error != DONAR_SOCKS_OK) {
    /* The first error sticks. */
    const guint8 *p = data;
    gsize left = size;
    gboolean done = FALSE;

    FUZZ_CHECK (reader.error == error);
    FUZZ_CHECK (donar_socks_reader_feed (&reader, &p, &left, &done) == error);
  }
  finished = donar_socks_reader_finish (&reader);
  if (error != DONAR_SOCKS_OK)
    FUZZ_CHECK (finished == error);
  else if (reader.stage == DONAR_SOCKS_STAGE_OPEN)
    FUZZ_CHECK (finished == DONAR_SOCKS_OK);
  else
    FUZZ_CHECK (finished == DONAR_SOCKS_ERROR_TRUNCATED);
  return 0;
}
