/* The message format: round trips and every class of malformed input. */
#include "donar-wire.h"

#include <string.h>

static DonarWireKey key;

static const guint8 frame_a[] = { 0x80, 0x60, 0x00, 0x01, 'a', 'b', 'c' };
static const guint8 frame_b[] = { 0x80, 0x60, 0x00, 0x00, 'x' };

/* Offsets in the sample DATA message: 19 header bytes, 3 links of scores
 * (2 bytes), delays (2), path masks (1) and acknowledgements (1), 2 recent
 * entries, then the frames. */
#define FRAME0 (19 + 3 * 6 + 2 * 2)
#define FRAME1 (FRAME0 + 3 + sizeof frame_a)

static void
sample_message (DonarWireMessage * m)
{
  memset (m, 0, sizeof *m);
  m->link = 5;
  m->seq = 0xfffffffe;
  m->time_ms = 0x01020304;
  m->ack = 0xa0b0c0d0;
  m->parts = DONAR_WIRE_PART_SCORES | DONAR_WIRE_PART_ADAPTIVE;
  m->n_scores = 3;
  m->scores[0] = 0;
  m->scores[1] = 250;
  m->scores[2] = DONAR_WIRE_SCORE_UNKNOWN;
  m->delays[0] = 12;
  m->delays[1] = DONAR_WIRE_DELAY_GROWING | 700;
  m->delays[2] = DONAR_WIRE_DELAY_UNKNOWN;
  m->paths[0] = 0x01;
  m->paths[1] = 0x02;
  m->paths[2] = 0x00;
  m->acked[0] = 0;
  m->acked[1] = 3;
  m->acked[2] = DONAR_WIRE_ACK_NONE;
  m->n_recent = 2;
  m->recent[0].age = 0;
  m->recent[0].link = 5;
  m->recent[1].age = 1;
  m->recent[1].link = 7;
  m->n_frames = 2;
  m->frames[0].age = 0;
  m->frames[0].length = sizeof frame_a;
  m->frames[0].data = frame_a;
  m->frames[1].age = 1;
  m->frames[1].length = sizeof frame_b;
  m->frames[1].data = frame_b;
}

static gsize
encode_sample (guint8 * out)
{
  DonarWireMessage m;
  gsize size;

  sample_message (&m);
  size = donar_wire_encode_data (&m, out, DONAR_CELL_PAYLOAD);
  g_assert_cmpuint (size, >, 0);
  return size;
}

static gsize
encode_hello (guint8 * out)
{
  DonarWireHello hello = { 9, 0xcafef00d, {0}, {0} };
  gsize size;

  /* The sender's nonce 0x10..0x1f, the peer's it answers 0x20..0x2f. */
  for (guint i = 0; i < DONAR_WIRE_NONCE; i++) {
    hello.nonce[i] = 0x10 + i;
    hello.echo[i] = 0x20 + i;
  }
  size = donar_wire_encode_hello (&hello, &key, out, DONAR_CELL_PAYLOAD);

  g_assert_cmpuint (size, ==, 2 + DONAR_WIRE_HELLO);
  return size;
}

static void
test_data_round_trip (void)
{
  guint8 record[DONAR_CELL_PAYLOAD];
  DonarWireMessage out;
  gsize size = encode_sample (record);

  /* 2 + 19 header + 3 links * (2 + 2 + 1 + 1) + 2 recent * 2 + 2 frames
   * * 3 + 7 + 5 */
  g_assert_cmpuint (size, ==, 2 + 19 + 18 + 4 + 6 + 7 + 5);
  g_assert_cmpuint ((record[0] << 8) | record[1], ==, size - 2);
  /* Network byte order, version first. */
  g_assert_cmpuint (record[2], ==, DONAR_WIRE_VERSION);
  g_assert_cmpuint (record[3], ==, DONAR_WIRE_TYPE_DATA);
  g_assert_cmpuint (record[4], ==, 5);
  g_assert_cmpuint (record[5], ==, 3);
  g_assert_cmpuint (record[6], ==, 0xff);
  g_assert_cmpuint (record[9], ==, 0xfe);
  g_assert_cmpuint (record[10], ==, 0x01);
  g_assert_cmpuint (record[13], ==, 0x04);
  g_assert_cmpuint (record[14], ==, 0xa0);
  g_assert_cmpuint (record[17], ==, 0xd0);
  g_assert_cmpuint (record[18], ==, 2);
  g_assert_cmpuint (record[19], ==, 2);
  g_assert_cmpuint (record[20], ==, 0x03);
  g_assert_cmpuint (record[2 + 19 + 2], ==, 250 >> 8);
  g_assert_cmpuint (record[2 + 19 + 3], ==, 250 & 0xff);
  /* The delays follow the scores: link 1's is growing, 700 ms. */
  g_assert_cmpuint (record[2 + 19 + 6 + 2], ==, 0x82);
  g_assert_cmpuint (record[2 + 19 + 6 + 3], ==, 0xbc);
  g_assert_cmpuint (record[2 + 19 + 12 + 1], ==, 0x02);
  g_assert_cmpuint (record[2 + 19 + 15 + 2], ==, 0xff);

  g_assert_cmpint (donar_wire_decode_data (record + 2, size - 2, &out), ==,
      DONAR_OK);
  g_assert_cmpuint (out.link, ==, 5);
  g_assert_cmpuint (out.seq, ==, 0xfffffffe);
  g_assert_cmpuint (out.time_ms, ==, 0x01020304);
  g_assert_cmpuint (out.ack, ==, 0xa0b0c0d0);
  g_assert_cmpuint (out.n_scores, ==, 3);
  g_assert_cmpuint (out.scores[1], ==, 250);
  g_assert_cmpuint (out.scores[2], ==, DONAR_WIRE_SCORE_UNKNOWN);
  g_assert_cmpuint (out.delays[0], ==, 12);
  g_assert_cmpuint (out.delays[1], ==, DONAR_WIRE_DELAY_GROWING | 700);
  g_assert_cmpuint (out.delays[2], ==, DONAR_WIRE_DELAY_UNKNOWN);
  g_assert_cmpuint (out.paths[0], ==, 0x01);
  g_assert_cmpuint (out.paths[1], ==, 0x02);
  g_assert_cmpuint (out.acked[1], ==, 3);
  g_assert_cmpuint (out.acked[2], ==, DONAR_WIRE_ACK_NONE);
  g_assert_cmpuint (out.n_recent, ==, 2);
  g_assert_cmpuint (out.recent[1].age, ==, 1);
  g_assert_cmpuint (out.recent[1].link, ==, 7);
  g_assert_cmpuint (out.n_frames, ==, 2);
  g_assert_cmpmem (out.frames[0].data, out.frames[0].length, frame_a,
      sizeof frame_a);
  g_assert_cmpuint (out.frames[1].age, ==, 1);
  g_assert_cmpmem (out.frames[1].data, out.frames[1].length, frame_b,
      sizeof frame_b);
}

/* A sender sends only the parts its policy uses; the others read as
 * unknown.  A part the format does not know is refused. */
static void
test_parts (void)
{
  guint8 record[DONAR_CELL_PAYLOAD];
  DonarWireMessage m, out;
  gsize size;

  sample_message (&m);
  m.parts = DONAR_WIRE_PART_SCORES;
  size = donar_wire_encode_data (&m, record, sizeof record);
  /* 2 + 19 + 3 scores * 2 + 2 recent * 2 + 2 frames * 3 + 7 + 5 */
  g_assert_cmpuint (size, ==, 2 + 19 + 6 + 4 + 6 + 7 + 5);
  g_assert_cmpint (donar_wire_decode_data (record + 2, size - 2, &out), ==,
      DONAR_OK);
  g_assert_cmpuint (out.scores[1], ==, 250);
  g_assert_cmpuint (out.delays[1], ==, DONAR_WIRE_DELAY_UNKNOWN);
  g_assert_cmpuint (out.paths[1], ==, 0);
  g_assert_cmpuint (out.acked[1], ==, DONAR_WIRE_ACK_NONE);

  m.parts = DONAR_WIRE_PART_ADAPTIVE;
  size = donar_wire_encode_data (&m, record, sizeof record);
  g_assert_cmpuint (size, ==, 2 + 19 + 12 + 4 + 6 + 7 + 5);
  g_assert_cmpint (donar_wire_decode_data (record + 2, size - 2, &out), ==,
      DONAR_OK);
  g_assert_cmpuint (out.scores[1], ==, DONAR_WIRE_SCORE_UNKNOWN);
  g_assert_cmpuint (out.delays[1], ==, DONAR_WIRE_DELAY_GROWING | 700);
  g_assert_cmpuint (out.paths[1], ==, 0x02);
  g_assert_cmpuint (out.acked[1], ==, 3);
  g_assert_cmpmem (out.frames[1].data, out.frames[1].length, frame_b,
      sizeof frame_b);

  record[2 + 18] = 0x04;
  g_assert_cmpint (donar_wire_decode_data (record + 2, size - 2, &out), ==,
      DONAR_ERROR_MALFORMED);
  m.parts = 0x80;
  g_assert_cmpuint (donar_wire_encode_data (&m, record, sizeof record), ==, 0);
}

/* An acknowledgement: the sample's monitoring with no frame and no
 * recent list, 2 + 19 + 3 links * 6 = 39 bytes, read back whole; a frame
 * count past the limit is still refused. */
static void
test_acknowledgement_round_trip (void)
{
  guint8 record[DONAR_CELL_PAYLOAD];
  DonarWireMessage m, out;
  gsize size;

  sample_message (&m);
  m.n_recent = 0;
  m.n_frames = 0;
  size = donar_wire_encode_data (&m, record, sizeof record);
  g_assert_cmpuint (size, ==, 39);
  g_assert_cmpuint (record[2 + 16], ==, 0);
  g_assert_cmpuint (record[2 + 17], ==, 0);
  g_assert_cmpint (donar_wire_decode_data (record + 2, size - 2, &out), ==,
      DONAR_OK);
  g_assert_cmpuint (out.n_frames, ==, 0);
  g_assert_cmpuint (out.n_recent, ==, 0);
  g_assert_cmpuint (out.seq, ==, 0xfffffffe);
  g_assert_cmpuint (out.ack, ==, 0xa0b0c0d0);
  g_assert_cmpuint (out.delays[1], ==, DONAR_WIRE_DELAY_GROWING | 700);
  g_assert_cmpuint (out.acked[1], ==, 3);
  /* One byte past it is not a frame. */
  record[2 + size - 2] = 0;
  g_assert_cmpint (donar_wire_decode_data (record + 2, size - 1, &out), ==,
      DONAR_ERROR_BAD_LENGTH);
  record[2 + 17] = DONAR_WIRE_MAX_FRAMES + 1;
  g_assert_cmpint (donar_wire_decode_data (record + 2, size - 2, &out), ==,
      DONAR_ERROR_BAD_LENGTH);
}

static void
test_hello_round_trip (void)
{
  guint8 record[DONAR_CELL_PAYLOAD];
  DonarWireHello out;
  gsize size = encode_hello (record);

  /* 55 bytes: version, type, link, epoch, nonce at 7, echo at 23, tag at
   * 39. */
  g_assert_cmpuint ((record[0] << 8) | record[1], ==, 55);
  g_assert_cmpuint (record[2], ==, 5);
  g_assert_cmpuint (record[3], ==, DONAR_WIRE_TYPE_HELLO);
  g_assert_cmpuint (record[4], ==, 9);
  g_assert_cmpuint (record[5], ==, 0xca);
  g_assert_cmpuint (record[8], ==, 0x0d);
  g_assert_cmpuint (record[2 + 7], ==, 0x10);
  g_assert_cmpuint (record[2 + 22], ==, 0x1f);
  g_assert_cmpuint (record[2 + 23], ==, 0x20);
  g_assert_cmpuint (record[2 + 38], ==, 0x2f);
  g_assert_cmpint (donar_wire_decode_hello (record + 2, size - 2, &key,
          &out), ==, DONAR_OK);
  g_assert_cmpuint (out.link, ==, 9);
  g_assert_cmpuint (out.epoch, ==, 0xcafef00d);
  g_assert_cmpuint (out.nonce[15], ==, 0x1f);
  g_assert_cmpuint (out.echo[0], ==, 0x20);
}

/* CHALLENGE: 18 bytes, the callee's nonce. */
static void
test_challenge_round_trip (void)
{
  guint8 record[DONAR_CELL_PAYLOAD], nonce[DONAR_WIRE_NONCE], out[16];
  DonarWireBye bye;
  gsize size;

  for (guint i = 0; i < DONAR_WIRE_NONCE; i++)
    nonce[i] = 0xa0 + i;
  size = donar_wire_encode_challenge (nonce, record, sizeof record);
  g_assert_cmpuint (size, ==, 20);
  g_assert_cmpuint ((record[0] << 8) | record[1], ==, 18);
  g_assert_cmpuint (record[2], ==, 5);
  g_assert_cmpuint (record[3], ==, 4);
  g_assert_cmpmem (record + 4, 16, nonce, 16);
  g_assert_cmpint (donar_wire_decode_challenge (record + 2, size - 2, out),
      ==, DONAR_OK);
  g_assert_cmpmem (out, 16, nonce, 16);
  g_assert_cmpint (donar_wire_decode_challenge (record + 2, size - 3, out),
      ==, DONAR_ERROR_TRUNCATED);
  g_assert_cmpint (donar_wire_decode_challenge (record + 2, size - 1, out),
      ==, DONAR_ERROR_BAD_LENGTH);
  g_assert_cmpint (donar_wire_decode_bye (record + 2, size - 2, &bye), ==,
      DONAR_ERROR_UNKNOWN_TYPE);
  g_assert_cmpuint (donar_wire_encode_challenge (nonce, record, 19), ==, 0);
}

/* RENDEZVOUS: 11 bytes, the link and the relay's id big-endian: the id of
 * fingerprint $0123456789ABCDEF... is 0x0123456789abcdef. */
static void
test_rendezvous_round_trip (void)
{
  guint8 record[DONAR_CELL_PAYLOAD];
  static const guint8 expected[] = { 0, 11, 5, 5, 9,
    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef
  };
  DonarWireBye bye;
  guint8 link;
  guint64 relay;
  gsize size = donar_wire_encode_rendezvous (9, G_GUINT64_CONSTANT
      (0x0123456789abcdef), record, sizeof record);

  g_assert_cmpmem (record, size, expected, sizeof expected);
  g_assert_cmpint (donar_wire_decode_rendezvous (record + 2, size - 2, &link,
          &relay), ==, DONAR_OK);
  g_assert_cmpuint (link, ==, 9);
  g_assert_cmpuint (relay, ==, G_GUINT64_CONSTANT (0x0123456789abcdef));
  g_assert_cmpint (donar_wire_decode_rendezvous (record + 2, size - 3, &link,
          &relay), ==, DONAR_ERROR_TRUNCATED);
  g_assert_cmpint (donar_wire_decode_rendezvous (record + 2, size - 1, &link,
          &relay), ==, DONAR_ERROR_BAD_LENGTH);
  g_assert_cmpint (donar_wire_decode_bye (record + 2, size - 2, &bye), ==,
      DONAR_ERROR_UNKNOWN_TYPE);
  g_assert_cmpuint (donar_wire_encode_rendezvous (9, 1, record, 12), ==, 0);
}

/* BYE: 4 bytes, the link and the reason, byte by byte as docs/protocol.md
 * gives them. */
static void
test_bye_round_trip (void)
{
  guint8 record[DONAR_CELL_PAYLOAD];
  static const guint8 expected[] = { 0, 4, 5, 3, 7, 1 };
  DonarWireBye bye = { 7, DONAR_BYE_HUNG_UP }, out;
  DonarWireHello hello;
  gsize size = donar_wire_encode_bye (&bye, record, sizeof record);

  g_assert_cmpmem (record, size, expected, sizeof expected);
  g_assert_cmpint (donar_wire_decode_bye (record + 2, size - 2, &out), ==,
      DONAR_OK);
  g_assert_cmpuint (out.link, ==, 7);
  g_assert_cmpuint (out.reason, ==, DONAR_BYE_HUNG_UP);
  g_assert_cmpint (donar_wire_decode_bye (record + 2, 3, &out), ==,
      DONAR_ERROR_TRUNCATED);
  g_assert_cmpint (donar_wire_decode_bye (record + 2, 5, &out), ==,
      DONAR_ERROR_BAD_LENGTH);
  g_assert_cmpint (donar_wire_decode_hello (record + 2, size - 2, &key,
          &hello), ==, DONAR_ERROR_UNKNOWN_TYPE);
  g_assert_cmpuint (donar_wire_encode_bye (&bye, record, 5), ==, 0);
}

static void
test_encode_refuses_what_does_not_fit (void)
{
  static guint8 big[DONAR_CELL_PAYLOAD];
  guint8 record[DONAR_CELL_PAYLOAD];
  DonarWireMessage m;

  sample_message (&m);
  m.n_frames = 1;
  m.frames[0].data = big;
  /* 2 + 19 + 18 + 4 + 3 = 46 bytes of overhead: 452 fill the cell. */
  m.frames[0].length = DONAR_CELL_PAYLOAD - 46;
  g_assert_cmpuint (donar_wire_encode_data (&m, record, sizeof record), ==,
      DONAR_CELL_PAYLOAD);
  m.frames[0].length++;
  g_assert_cmpuint (donar_wire_encode_data (&m, record, sizeof record), ==, 0);
  m.frames[0].length = 0;
  g_assert_cmpuint (donar_wire_encode_data (&m, record, sizeof record), ==, 0);
}

static void
test_truncated (void)
{
  guint8 record[DONAR_CELL_PAYLOAD];
  DonarWireMessage out;
  DonarWireHello hello;
  gsize size = encode_sample (record);

  g_assert_cmpint (donar_wire_decode_data (record + 2, 0, &out), ==,
      DONAR_ERROR_TRUNCATED);
  g_assert_cmpint (donar_wire_decode_data (record + 2, 1, &out), ==,
      DONAR_ERROR_TRUNCATED);
  g_assert_cmpint (donar_wire_decode_data (record + 2, DONAR_WIRE_MIN_DATA -
          1, &out), ==, DONAR_ERROR_TRUNCATED);
  /* Cut anywhere after the header, the counts promise more than there
   * is. */
  for (gsize cut = DONAR_WIRE_MIN_DATA; cut < size - 2; cut++)
    g_assert_cmpint (donar_wire_decode_data (record + 2, cut, &out), ==,
        DONAR_ERROR_BAD_LENGTH);

  size = encode_hello (record);
  for (gsize cut = 2; cut < size - 2; cut++)
    g_assert_cmpint (donar_wire_decode_hello (record + 2, cut, &key,
            &hello), ==, DONAR_ERROR_TRUNCATED);
  g_assert_cmpint (donar_wire_decode_hello (record + 2, size - 1, &key,
          &hello), ==, DONAR_ERROR_BAD_LENGTH);
}

static void
test_oversize (void)
{
  static guint8 message[DONAR_CELL_PAYLOAD + 10];
  DonarWireMessage out;
  DonarWireHello hello;

  message[0] = DONAR_WIRE_VERSION;
  message[1] = DONAR_WIRE_TYPE_DATA;
  g_assert_cmpint (donar_wire_decode_data (message,
          DONAR_WIRE_MAX_MESSAGE + 1, &out), ==, DONAR_ERROR_OVERSIZE);
  message[1] = DONAR_WIRE_TYPE_HELLO;
  g_assert_cmpint (donar_wire_decode_hello (message,
          DONAR_WIRE_MAX_MESSAGE + 1, &key, &hello), ==, DONAR_ERROR_OVERSIZE);
}

static void
test_unknown_version_and_type (void)
{
  guint8 record[DONAR_CELL_PAYLOAD];
  DonarWireMessage out;
  DonarWireHello hello;
  guint8 type;
  gsize size = encode_sample (record);

  /* The next version, and the one before: a version 1 peer (no clock,
   * delays, paths or acknowledgements) is refused, not misread. */
  record[2] = DONAR_WIRE_VERSION + 1;
  g_assert_cmpint (donar_wire_decode_data (record + 2, size - 2, &out), ==,
      DONAR_ERROR_UNKNOWN_VERSION);
  record[2] = DONAR_WIRE_VERSION - 1;
  g_assert_cmpint (donar_wire_decode_data (record + 2, size - 2, &out), ==,
      DONAR_ERROR_UNKNOWN_VERSION);
  record[2] = 0;
  g_assert_cmpint (donar_wire_peek_type (record + 2, size - 2, &type), ==,
      DONAR_ERROR_UNKNOWN_VERSION);
  record[2] = DONAR_WIRE_VERSION;
  record[3] = 9;
  g_assert_cmpint (donar_wire_decode_data (record + 2, size - 2, &out), ==,
      DONAR_ERROR_UNKNOWN_TYPE);
  /* Each decoder takes its own type only. */
  record[3] = DONAR_WIRE_TYPE_DATA;
  g_assert_cmpint (donar_wire_decode_hello (record + 2, size - 2, &key,
          &hello), ==, DONAR_ERROR_UNKNOWN_TYPE);
  size = encode_hello (record);
  g_assert_cmpint (donar_wire_decode_data (record + 2, size - 2, &out), ==,
      DONAR_ERROR_UNKNOWN_TYPE);
}

static void
test_bad_authenticator (void)
{
  guint8 record[DONAR_CELL_PAYLOAD];
  DonarWireHello out;
  DonarWireKey other;
  gsize size = encode_hello (record);
  static const guint8 secret[] = "another call";

  /* One flipped bit anywhere after the version and type: in the link, the
   * epoch, either nonce, the tag. */
  for (gsize pos = 4; pos < size; pos++)
    for (guint bit = 0; bit < 8; bit++) {
      record[pos] ^= 1 << bit;
      g_assert_cmpint (donar_wire_decode_hello (record + 2, size - 2, &key,
              &out), ==, DONAR_ERROR_BAD_AUTHENTICATOR);
      record[pos] ^= 1 << bit;
    }

  /* The key of another call, or of the other direction of this call. */
  donar_wire_key_derive (secret, sizeof secret, DONAR_WIRE_CALLER_TO_CALLEE,
      &other);
  g_assert_cmpint (donar_wire_decode_hello (record + 2, size - 2, &other,
          &out), ==, DONAR_ERROR_BAD_AUTHENTICATOR);
  donar_wire_key_derive ((const guint8 *) "test secret", 11,
      DONAR_WIRE_CALLEE_TO_CALLER, &other);
  g_assert_cmpint (donar_wire_decode_hello (record + 2, size - 2, &other,
          &out), ==, DONAR_ERROR_BAD_AUTHENTICATOR);
  g_assert_cmpint (donar_wire_decode_hello (record + 2, size - 2, &key,
          &out), ==, DONAR_OK);
}

static void
test_lengths_that_lie (void)
{
  guint8 record[DONAR_CELL_PAYLOAD];
  DonarWireMessage out;
  gsize size = encode_sample (record);
  guint8 *m = record + 2;

  /* More scores than there is room for in the message; more than the
   * format allows. */
  m[3] = 30;
  g_assert_cmpint (donar_wire_decode_data (m, size - 2, &out), ==,
      DONAR_ERROR_BAD_LENGTH);
  m[3] = DONAR_MAX_LINKS + 1;
  g_assert_cmpint (donar_wire_decode_data (m, size - 2, &out), ==,
      DONAR_ERROR_BAD_LENGTH);
  m[3] = 3;

  /* A frame longer than the rest of the message. */
  m[FRAME0 + 2] = 200;
  g_assert_cmpint (donar_wire_decode_data (m, size - 2, &out), ==,
      DONAR_ERROR_BAD_LENGTH);
  /* A frame shorter than it is: bytes left over at the end. */
  m[FRAME0 + 2] = sizeof frame_a - 1;
  g_assert_cmpint (donar_wire_decode_data (m, size - 2, &out), ==,
      DONAR_ERROR_BAD_LENGTH);
  m[FRAME0 + 2] = sizeof frame_a;

  /* More frames than the message holds; none; more than the format
   * allows. */
  m[17] = 3;
  g_assert_cmpint (donar_wire_decode_data (m, size - 2, &out), ==,
      DONAR_ERROR_BAD_LENGTH);
  m[17] = 0;
  g_assert_cmpint (donar_wire_decode_data (m, size - 2, &out), ==,
      DONAR_ERROR_BAD_LENGTH);
  m[17] = DONAR_WIRE_MAX_FRAMES + 1;
  g_assert_cmpint (donar_wire_decode_data (m, size - 2, &out), ==,
      DONAR_ERROR_BAD_LENGTH);
  m[17] = 2;

  /* Frames out of order: the piggybacked copy claims age 0. */
  m[FRAME1] = 0;
  g_assert_cmpint (donar_wire_decode_data (m, size - 2, &out), ==,
      DONAR_ERROR_MALFORMED);
  m[FRAME1] = 1;
  g_assert_cmpint (donar_wire_decode_data (m, size - 2, &out), ==, DONAR_OK);
}

static void
test_zero_length_frame (void)
{
  guint8 record[DONAR_CELL_PAYLOAD];
  DonarWireMessage out;
  gsize size = encode_sample (record);
  guint8 *m = record + 2;

  /* Frame b announced empty: its byte is then left over too, but the
   * decoder says what is wrong first. */
  m[FRAME1 + 2] = 0;
  g_assert_cmpint (donar_wire_decode_data (m, size - 2, &out), ==,
      DONAR_ERROR_EMPTY_FRAME);
}

/* Every single-byte change of a valid message: never a crash, never a read
 * outside the input (the message is copied to a heap block of exactly its
 * size, so that the sanitizer build catches a byte too far), and what is
 * accepted lies inside it. */
static void
test_every_mutation_is_safe (void)
{
  guint8 record[DONAR_CELL_PAYLOAD];
  gsize size = encode_sample (record);

  for (gsize pos = 0; pos < size - 2; pos++)
    for (guint value = 0; value < 256; value++) {
      guint8 *copy = g_memdup2 (record + 2, size - 2);
      DonarWireMessage out;

      copy[pos] = value;
      if (donar_wire_decode_data (copy, size - 2, &out) == DONAR_OK) {
        g_assert_cmpuint (out.n_frames, >=, 1);
        for (guint i = 0; i < out.n_frames; i++) {
          g_assert_cmpuint (out.frames[i].length, >, 0);
          g_assert_true (out.frames[i].data >= copy);
          g_assert_true (out.frames[i].data + out.frames[i].length <=
              copy + size - 2);
        }
      }
      g_free (copy);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  donar_wire_key_derive ((const guint8 *) "test secret", 11,
      DONAR_WIRE_CALLER_TO_CALLEE, &key);
  g_test_add_func ("/wire/data-round-trip", test_data_round_trip);
  g_test_add_func ("/wire/acknowledgement-round-trip",
      test_acknowledgement_round_trip);
  g_test_add_func ("/wire/hello-round-trip", test_hello_round_trip);
  g_test_add_func ("/wire/bye-round-trip", test_bye_round_trip);
  g_test_add_func ("/wire/challenge-round-trip", test_challenge_round_trip);
  g_test_add_func ("/wire/rendezvous-round-trip", test_rendezvous_round_trip);
  g_test_add_func ("/wire/encode-refuses-what-does-not-fit",
      test_encode_refuses_what_does_not_fit);
  g_test_add_func ("/wire/truncated", test_truncated);
  g_test_add_func ("/wire/oversize", test_oversize);
  g_test_add_func ("/wire/parts", test_parts);
  g_test_add_func ("/wire/unknown-version-and-type",
      test_unknown_version_and_type);
  g_test_add_func ("/wire/bad-authenticator", test_bad_authenticator);
  g_test_add_func ("/wire/lengths-that-lie", test_lengths_that_lie);
  g_test_add_func ("/wire/zero-length-frame", test_zero_length_frame);
  g_test_add_func ("/wire/every-mutation-is-safe", test_every_mutation_is_safe);
  return g_test_run ();
}
