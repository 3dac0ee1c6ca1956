/* The DONAR message format, version 5.  docs/protocol.md is
 * its reference; keep the two in step. */
#include "donar-wire.h"

#include <string.h>

static void
put_u16 (guint8 * p, guint16 v)
{
  p[0] = v >> 8;
  p[1] = v & 0xff;
}

static void
put_u32 (guint8 * p, guint32 v)
{
  p[0] = v >> 24;
  p[1] = (v >> 16) & 0xff;
  p[2] = (v >> 8) & 0xff;
  p[3] = v & 0xff;
}

static guint16
get_u16 (const guint8 * p)
{
  return (guint16) ((p[0] << 8) | p[1]);
}

static guint32
get_u32 (const guint8 * p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) |
      ((guint32) p[2] << 8) | p[3];
}

static void
compute_tag (const DonarWireKey * key, const guint8 * data, gsize length,
    guint8 tag[DONAR_WIRE_TAG])
{
  GHmac *hmac;
  guint8 digest[32];
  gsize digest_length = sizeof digest;

  hmac = g_hmac_new (G_CHECKSUM_SHA256, key->bytes, DONAR_WIRE_KEY);
  g_hmac_update (hmac, data, length);
  g_hmac_get_digest (hmac, digest, &digest_length);
  g_hmac_unref (hmac);
  memcpy (tag, digest, DONAR_WIRE_TAG);
}

/* Constant time, so that the time to reject a forged tag says nothing about
 * how many of its bytes were right. */
static gboolean
tags_equal (const guint8 * a, const guint8 * b)
{
  guint8 diff = 0;

  for (guint i = 0; i < DONAR_WIRE_TAG; i++)
    diff |= a[i] ^ b[i];
  return diff == 0;
}

void
donar_wire_key_derive (const guint8 * secret, gsize secret_length,
    DonarWireDirection direction, DonarWireKey * key)
{
  static const char *labels[] = {
    "DONAR v1 caller to callee",
    "DONAR v1 callee to caller",
  };
  GHmac *hmac;
  gsize length = DONAR_WIRE_KEY;

  hmac = g_hmac_new (G_CHECKSUM_SHA256, secret, secret_length);
  g_hmac_update (hmac, (const guchar *) labels[direction],
      strlen (labels[direction]));
  g_hmac_get_digest (hmac, key->bytes, &length);
  g_hmac_unref (hmac);
}

/* Bytes a link of each part takes. */
static gsize
link_bytes (guint8 parts)
{
  return ((parts & DONAR_WIRE_PART_SCORES) ? 2 : 0) +
      ((parts & DONAR_WIRE_PART_ADAPTIVE) ? 2 + 1 + 1 : 0);
}

gsize
donar_wire_overhead (guint8 parts, guint n_scores, guint n_recent,
    guint n_frames)
{
  return DONAR_WIRE_PREFIX + DONAR_WIRE_DATA_HEADER +
      link_bytes (parts) * n_scores + DONAR_WIRE_RECENT_ENTRY * n_recent +
      DONAR_WIRE_FRAME_HEADER * n_frames;
}

gsize
donar_wire_record_size (const DonarWireMessage * message)
{
  gsize size = donar_wire_overhead (message->parts, message->n_scores,
      message->n_recent, message->n_frames);

  for (guint i = 0; i < message->n_frames; i++)
    size += message->frames[i].length;
  return size;
}

static gboolean
message_within_limits (const DonarWireMessage * message)
{
  if (message->n_scores > DONAR_MAX_LINKS ||
      message->n_recent > DONAR_WIRE_MAX_RECENT ||
      message->n_frames > DONAR_WIRE_MAX_FRAMES ||
      (message->parts & ~DONAR_WIRE_PARTS) != 0)
    return FALSE;
  if (message->n_frames > 0 && message->frames[0].age != 0)
    return FALSE;
  for (guint i = 0; i < message->n_frames; i++) {
    if (message->frames[i].length == 0)
      return FALSE;
    if (i > 0 && message->frames[i].age <= message->frames[i - 1].age)
      return FALSE;
  }
  return TRUE;
}

gsize
donar_wire_encode_data (const DonarWireMessage * message, guint8 * out,
    gsize capacity)
{
  gsize size = donar_wire_record_size (message);
  guint8 *p;

  if (!message_within_limits (message) || size > capacity ||
      size > DONAR_CELL_PAYLOAD)
    return 0;

  put_u16 (out, size - DONAR_WIRE_PREFIX);
  p = out + DONAR_WIRE_PREFIX;
  p[0] = DONAR_WIRE_VERSION;
  p[1] = DONAR_WIRE_TYPE_DATA;
  p[2] = message->link;
  p[3] = message->n_scores;
  put_u32 (p + 4, message->seq);
  put_u32 (p + 8, message->time_ms);
  put_u32 (p + 12, message->ack);
  p[16] = message->n_recent;
  p[17] = message->n_frames;
  p[18] = message->parts;
  p += DONAR_WIRE_DATA_HEADER;

  if (message->parts & DONAR_WIRE_PART_SCORES)
    for (guint i = 0; i < message->n_scores; i++, p += 2)
      put_u16 (p, message->scores[i]);
  if (message->parts & DONAR_WIRE_PART_ADAPTIVE) {
    for (guint i = 0; i < message->n_scores; i++, p += 2)
      put_u16 (p, message->delays[i]);
    memcpy (p, message->paths, message->n_scores);
    p += message->n_scores;
    memcpy (p, message->acked, message->n_scores);
    p += message->n_scores;
  }
  /* The list is laid out in memory as on the wire: age, link. */
  memcpy (p, message->recent, DONAR_WIRE_RECENT_ENTRY * message->n_recent);
  p += DONAR_WIRE_RECENT_ENTRY * message->n_recent;
  for (guint i = 0; i < message->n_frames; i++) {
    const DonarWireFrame *frame = &message->frames[i];

    p[0] = frame->age;
    put_u16 (p + 1, frame->length);
    memcpy (p + DONAR_WIRE_FRAME_HEADER, frame->data, frame->length);
    p += DONAR_WIRE_FRAME_HEADER + frame->length;
  }
  return size;
}

gsize
donar_wire_encode_hello (const DonarWireHello * hello,
    const DonarWireKey * key, guint8 * out, gsize capacity)
{
  guint8 *p = out + DONAR_WIRE_PREFIX;

  if (capacity < DONAR_WIRE_PREFIX + DONAR_WIRE_HELLO)
    return 0;
  put_u16 (out, DONAR_WIRE_HELLO);
  p[0] = DONAR_WIRE_VERSION;
  p[1] = DONAR_WIRE_TYPE_HELLO;
  p[2] = hello->link;
  put_u32 (p + 3, hello->epoch);
  memcpy (p + 7, hello->nonce, DONAR_WIRE_NONCE);
  memcpy (p + 7 + DONAR_WIRE_NONCE, hello->echo, DONAR_WIRE_NONCE);
  compute_tag (key, p, DONAR_WIRE_HELLO_FIELDS, p + DONAR_WIRE_HELLO_FIELDS);
  return DONAR_WIRE_PREFIX + DONAR_WIRE_HELLO;
}

gsize
donar_wire_encode_bye (const DonarWireBye * bye, guint8 * out, gsize capacity)
{
  guint8 *p = out + DONAR_WIRE_PREFIX;

  if (capacity < DONAR_WIRE_PREFIX + DONAR_WIRE_BYE)
    return 0;
  put_u16 (out, DONAR_WIRE_BYE);
  p[0] = DONAR_WIRE_VERSION;
  p[1] = DONAR_WIRE_TYPE_BYE;
  p[2] = bye->link;
  p[3] = bye->reason;
  return DONAR_WIRE_PREFIX + DONAR_WIRE_BYE;
}

gsize
donar_wire_encode_challenge (const guint8 * nonce, guint8 * out, gsize capacity)
{
  guint8 *p = out + DONAR_WIRE_PREFIX;

  if (capacity < DONAR_WIRE_PREFIX + DONAR_WIRE_CHALLENGE)
    return 0;
  put_u16 (out, DONAR_WIRE_CHALLENGE);
  p[0] = DONAR_WIRE_VERSION;
  p[1] = DONAR_WIRE_TYPE_CHALLENGE;
  memcpy (p + 2, nonce, DONAR_WIRE_NONCE);
  return DONAR_WIRE_PREFIX + DONAR_WIRE_CHALLENGE;
}

gsize
donar_wire_encode_rendezvous (guint8 link, guint64 relay, guint8 * out,
    gsize capacity)
{
  guint8 *p = out + DONAR_WIRE_PREFIX;

  if (capacity < DONAR_WIRE_PREFIX + DONAR_WIRE_RENDEZVOUS)
    return 0;
  put_u16 (out, DONAR_WIRE_RENDEZVOUS);
  p[0] = DONAR_WIRE_VERSION;
  p[1] = DONAR_WIRE_TYPE_RENDEZVOUS;
  p[2] = link;
  put_u32 (p + 3, relay >> 32);
  put_u32 (p + 7, relay & 0xffffffff);
  return DONAR_WIRE_PREFIX + DONAR_WIRE_RENDEZVOUS;
}

DonarError
donar_wire_peek_type (const guint8 * data, gsize length, guint8 * type)
{
  if (length > DONAR_WIRE_MAX_MESSAGE)
    return DONAR_ERROR_OVERSIZE;
  if (length < 1)
    return DONAR_ERROR_TRUNCATED;
  /* The version comes first so that a later version may change all the
   * rest. */
  if (data[0] != DONAR_WIRE_VERSION)
    return DONAR_ERROR_UNKNOWN_VERSION;
  if (length < 2)
    return DONAR_ERROR_TRUNCATED;
  if (data[1] < DONAR_WIRE_TYPE_DATA || data[1] > DONAR_WIRE_TYPE_RENDEZVOUS)
    return DONAR_ERROR_UNKNOWN_TYPE;
  *type = data[1];
  return DONAR_OK;
}

DonarError
donar_wire_decode_hello (const guint8 * data, gsize length,
    const DonarWireKey * key, DonarWireHello * hello)
{
  guint8 type, expected[DONAR_WIRE_TAG];
  DonarError error = donar_wire_peek_type (data, length, &type);

  if (error != DONAR_OK)
    return error;
  if (type != DONAR_WIRE_TYPE_HELLO)
    return DONAR_ERROR_UNKNOWN_TYPE;
  if (length < DONAR_WIRE_HELLO)
    return DONAR_ERROR_TRUNCATED;
  if (length > DONAR_WIRE_HELLO)
    return DONAR_ERROR_BAD_LENGTH;
  compute_tag (key, data, DONAR_WIRE_HELLO_FIELDS, expected);
  if (!tags_equal (expected, data + DONAR_WIRE_HELLO_FIELDS))
    return DONAR_ERROR_BAD_AUTHENTICATOR;
  hello->link = data[2];
  hello->epoch = get_u32 (data + 3);
  memcpy (hello->nonce, data + 7, DONAR_WIRE_NONCE);
  memcpy (hello->echo, data + 7 + DONAR_WIRE_NONCE, DONAR_WIRE_NONCE);
  return DONAR_OK;
}

DonarError
donar_wire_decode_bye (const guint8 * data, gsize length, DonarWireBye * bye)
{
  guint8 type;
  DonarError error = donar_wire_peek_type (data, length, &type);

  if (error != DONAR_OK)
    return error;
  if (type != DONAR_WIRE_TYPE_BYE)
    return DONAR_ERROR_UNKNOWN_TYPE;
  if (length < DONAR_WIRE_BYE)
    return DONAR_ERROR_TRUNCATED;
  if (length > DONAR_WIRE_BYE)
    return DONAR_ERROR_BAD_LENGTH;
  bye->link = data[2];
  bye->reason = data[3];
  return DONAR_OK;
}

DonarError
donar_wire_decode_challenge (const guint8 * data, gsize length, guint8 * nonce)
{
  guint8 type;
  DonarError error = donar_wire_peek_type (data, length, &type);

  if (error != DONAR_OK)
    return error;
  if (type != DONAR_WIRE_TYPE_CHALLENGE)
    return DONAR_ERROR_UNKNOWN_TYPE;
  if (length < DONAR_WIRE_CHALLENGE)
    return DONAR_ERROR_TRUNCATED;
  if (length > DONAR_WIRE_CHALLENGE)
    return DONAR_ERROR_BAD_LENGTH;
  memcpy (nonce, data + 2, DONAR_WIRE_NONCE);
  return DONAR_OK;
}

DonarError
donar_wire_decode_rendezvous (const guint8 * data, gsize length,
    guint8 * link, guint64 * relay)
{
  guint8 type;
  DonarError error = donar_wire_peek_type (data, length, &type);

  if (error != DONAR_OK)
    return error;
  if (type != DONAR_WIRE_TYPE_RENDEZVOUS)
    return DONAR_ERROR_UNKNOWN_TYPE;
  if (length < DONAR_WIRE_RENDEZVOUS)
    return DONAR_ERROR_TRUNCATED;
  if (length > DONAR_WIRE_RENDEZVOUS)
    return DONAR_ERROR_BAD_LENGTH;
  *link = data[2];
  *relay = ((guint64) get_u32 (data + 3) << 32) | get_u32 (data + 7);
  return DONAR_OK;
}

DonarError
donar_wire_decode_data (const guint8 * data, gsize length,
    DonarWireMessage * message)
{
  const guint8 *p, *end = data + length;
  guint8 type;
  DonarError error = donar_wire_peek_type (data, length, &type);

  if (error != DONAR_OK)
    return error;
  if (type != DONAR_WIRE_TYPE_DATA)
    return DONAR_ERROR_UNKNOWN_TYPE;
  if (length < DONAR_WIRE_MIN_DATA)
    return DONAR_ERROR_TRUNCATED;

  message->link = data[2];
  message->n_scores = data[3];
  message->seq = get_u32 (data + 4);
  message->time_ms = get_u32 (data + 8);
  message->ack = get_u32 (data + 12);
  message->n_recent = data[16];
  message->n_frames = data[17];
  message->parts = data[18];
  if ((message->parts & ~DONAR_WIRE_PARTS) != 0)
    return DONAR_ERROR_MALFORMED;
  if (message->n_scores > DONAR_MAX_LINKS ||
      message->n_recent > DONAR_WIRE_MAX_RECENT ||
      message->n_frames > DONAR_WIRE_MAX_FRAMES)
    return DONAR_ERROR_BAD_LENGTH;

  p = data + DONAR_WIRE_DATA_HEADER;
  if ((gsize) (end - p) < link_bytes (message->parts) * message->n_scores +
      DONAR_WIRE_RECENT_ENTRY * message->n_recent)
    return DONAR_ERROR_BAD_LENGTH;
  /* A part not sent is unknown, as a link the sender knows nothing of. */
  if (message->parts & DONAR_WIRE_PART_SCORES)
    for (guint i = 0; i < message->n_scores; i++, p += 2)
      message->scores[i] = get_u16 (p);
  else
    for (guint i = 0; i < message->n_scores; i++)
      message->scores[i] = DONAR_WIRE_SCORE_UNKNOWN;
  if (message->parts & DONAR_WIRE_PART_ADAPTIVE) {
    for (guint i = 0; i < message->n_scores; i++, p += 2)
      message->delays[i] = get_u16 (p);
    memcpy (message->paths, p, message->n_scores);
    p += message->n_scores;
    memcpy (message->acked, p, message->n_scores);
    p += message->n_scores;
  } else {
    for (guint i = 0; i < message->n_scores; i++)
      message->delays[i] = DONAR_WIRE_DELAY_UNKNOWN;
    memset (message->paths, 0, message->n_scores);
    memset (message->acked, DONAR_WIRE_ACK_NONE, message->n_scores);
  }
  memcpy (message->recent, p, DONAR_WIRE_RECENT_ENTRY * message->n_recent);
  p += DONAR_WIRE_RECENT_ENTRY * message->n_recent;

  for (guint i = 0; i < message->n_frames; i++) {
    DonarWireFrame *frame = &message->frames[i];

    if (end - p < DONAR_WIRE_FRAME_HEADER)
      return DONAR_ERROR_BAD_LENGTH;
    frame->age = p[0];
    frame->length = get_u16 (p + 1);
    p += DONAR_WIRE_FRAME_HEADER;
    if (frame->length == 0)
      return DONAR_ERROR_EMPTY_FRAME;
    if ((gsize) (end - p) < frame->length)
      return DONAR_ERROR_BAD_LENGTH;
    if ((i == 0 && frame->age != 0) ||
        (i > 0 && frame->age <= message->frames[i - 1].age))
      return DONAR_ERROR_MALFORMED;
    frame->data = p;
    p += frame->length;
  }
  if (p != end)
    return DONAR_ERROR_BAD_LENGTH;
  return DONAR_OK;
}
