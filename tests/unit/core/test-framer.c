/* Stream framing: records split anyhow by TCP come out whole. */
#include "donar-framer.h"

#include <string.h>

/* Three records of 1, 5 and 496 message bytes back to back. */
static gsize
make_stream (guint8 * stream)
{
  static const gsize sizes[] = { 1, 5, DONAR_WIRE_MAX_MESSAGE };
  gsize n = 0;

  for (guint r = 0; r < G_N_ELEMENTS (sizes); r++) {
    stream[n++] = sizes[r] >> 8;
    stream[n++] = sizes[r] & 0xff;
    for (gsize i = 0; i < sizes[r]; i++)
      stream[n++] = r * 50 + i % 50;
  }
  return n;
}

static void
check_split (gsize chunk)
{
  guint8 stream[1024];
  gsize total = make_stream (stream), offset = 0;
  DonarFramer framer;
  gsize got_sizes[4];
  guint got = 0;

  donar_framer_reset (&framer);
  while (offset < total) {
    const guint8 *data = stream + offset;
    gsize length = MIN (chunk, total - offset);
    const guint8 *message;
    gsize message_length;

    offset += length;
    while (TRUE) {
      g_assert_cmpint (donar_framer_next (&framer, &data, &length, &message,
              &message_length), ==, DONAR_OK);
      if (message == NULL)
        break;
      g_assert_cmpuint (got, <, 3);
      g_assert_cmpuint (message[0], ==, got * 50);
      got_sizes[got++] = message_length;
    }
    g_assert_cmpuint (length, ==, 0);
  }
  g_assert_cmpuint (got, ==, 3);
  g_assert_cmpuint (got_sizes[0], ==, 1);
  g_assert_cmpuint (got_sizes[1], ==, 5);
  g_assert_cmpuint (got_sizes[2], ==, 496);
}

static void
test_any_split (void)
{
  for (gsize chunk = 1; chunk <= 600; chunk++)
    check_split (chunk);
}

static void
check_broken (guint8 high, guint8 low, DonarError expected)
{
  guint8 bytes[] = { high, low, 1, 2, 3 };
  const guint8 *data = bytes, *message;
  gsize length = sizeof bytes, message_length;
  DonarFramer framer;

  donar_framer_reset (&framer);
  g_assert_cmpint (donar_framer_next (&framer, &data, &length, &message,
          &message_length), ==, expected);
  g_assert_null (message);
  /* Nothing after a lying length can be trusted. */
  data = bytes;
  length = sizeof bytes;
  g_assert_cmpint (donar_framer_next (&framer, &data, &length, &message,
          &message_length), ==, DONAR_ERROR_STREAM_BROKEN);
  donar_framer_reset (&framer);
  g_assert_cmpint (framer.error, ==, DONAR_OK);
}

static void
test_lengths_out_of_bounds (void)
{
  /* 497 bytes would make a 499-byte record: more than one cell. */
  check_broken (0x01, 0xf1, DONAR_ERROR_OVERSIZE);
  check_broken (0xff, 0xff, DONAR_ERROR_OVERSIZE);
  check_broken (0x00, 0x00, DONAR_ERROR_TRUNCATED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/framer/any-split", test_any_split);
  g_test_add_func ("/framer/lengths-out-of-bounds", test_lengths_out_of_bounds);
  return g_test_run ();
}
