/* The DONAR message format, version 5 (docs/protocol.md, byte by byte).
 *
 * Five messages.  CHALLENGE, the callee's first on each link: a fresh
 * nonce.  HELLO opens each direction of each link and proves, with an HMAC
 * keyed from the call secret over both ends' nonces of this link, that the
 * link belongs to the call and is not a replay of another; DATA carries
 * frames and monitoring, or monitoring alone (an acknowledgement from a
 * side that has no frame of its own to send); BYE ends the call, with a reason; RENDEZVOUS tells the
 * callee the relay where the caller's circuit of the link meets its own,
 * the one thing by which the callee can tell its circuits apart.  Tor protects
 * the integrity of a stream end to end, so once its HELLO is checked
 * nobody else can write into it: DATA, BYE and RENDEZVOUS need no tag. */
#ifndef DONAR_WIRE_H
#define DONAR_WIRE_H

#include "donar.h"

G_BEGIN_DECLS

#define DONAR_WIRE_VERSION 5
#define DONAR_WIRE_TYPE_DATA 1
#define DONAR_WIRE_TYPE_HELLO 2
#define DONAR_WIRE_TYPE_BYE 3
#define DONAR_WIRE_TYPE_CHALLENGE 4
#define DONAR_WIRE_TYPE_RENDEZVOUS 5
#define DONAR_WIRE_PREFIX 2
#define DONAR_WIRE_DATA_HEADER 19
#define DONAR_WIRE_HELLO_FIELDS (7 + 2 * DONAR_WIRE_NONCE)
#define DONAR_WIRE_TAG 16
#define DONAR_WIRE_HELLO (DONAR_WIRE_HELLO_FIELDS + DONAR_WIRE_TAG)
#define DONAR_WIRE_BYE 4
#define DONAR_WIRE_CHALLENGE (2 + DONAR_WIRE_NONCE)
#define DONAR_WIRE_RENDEZVOUS 11
#define DONAR_WIRE_KEY 32
#define DONAR_WIRE_FRAME_HEADER 3
#define DONAR_WIRE_RECENT_ENTRY 2
#define DONAR_WIRE_MAX_RECENT 64
#define DONAR_WIRE_MAX_FRAMES (1 + DONAR_MAX_REDUNDANCY)
#define DONAR_WIRE_SCORE_UNKNOWN 0xffff
/* A delay report: milliseconds in the low 15 bits; the top bit says the
 * value is a bound that still grows (a frame on the link is overdue). */
#define DONAR_WIRE_DELAY_UNKNOWN 0xffff
#define DONAR_WIRE_DELAY_GROWING 0x8000
#define DONAR_WIRE_DELAY_MAX_MS 0x7ffe
/* No frame came out of the link within the last 254 before `ack`. */
#define DONAR_WIRE_ACK_NONE 0xff
/* The per-link parts a DATA message carries: the paper's scores, and what
 * ADAPTIVE measures with (delays, paths, acknowledgements).  A sender
 * sends the parts its policy uses: at 2 or 4 bytes a link rather than 6,
 * a frame and its copy still fit one cell with 20 links. */
#define DONAR_WIRE_PART_SCORES 0x01
#define DONAR_WIRE_PART_ADAPTIVE 0x02
#define DONAR_WIRE_PARTS (DONAR_WIRE_PART_SCORES | DONAR_WIRE_PART_ADAPTIVE)
/* The longest message the framer accepts: a record fills one cell. */
#define DONAR_WIRE_MAX_MESSAGE (DONAR_CELL_PAYLOAD - DONAR_WIRE_PREFIX)
/* An acknowledgement: no frame, no per-link part. */
#define DONAR_WIRE_MIN_DATA DONAR_WIRE_DATA_HEADER

typedef struct
{
  guint8 bytes[DONAR_WIRE_KEY];
} DonarWireKey;

/* As on the wire, byte for byte: the codec copies the list whole. */
typedef struct
{
  guint8 age;                   /* frames before the message's seq */
  guint8 link;
} DonarWireRecent;

G_STATIC_ASSERT (sizeof (DonarWireRecent) == DONAR_WIRE_RECENT_ENTRY);

typedef struct
{
  guint8 age;                   /* 0: the current frame */
  guint16 length;
  const guint8 *data;
} DonarWireFrame;

typedef struct
{
  guint8 link;
  guint32 seq;
  guint32 time_ms;              /* the sender's clock, wrapping */
  guint32 ack;                  /* the newest frame of the receiver's */
  guint8 parts;                 /* DONAR_WIRE_PART_*: what follows */
  guint n_scores;
  guint16 scores[DONAR_MAX_LINKS];
  /* One per score: the delay report of each link toward the sender. */
  guint16 delays[DONAR_MAX_LINKS];
  /* One per score: which relays of the sender's half each link crosses
   * that other links cross too (lib/core/donar-paths.h). */
  guint8 paths[DONAR_MAX_LINKS];
  /* One per score: the receiver's newest frame that came out of each link
   * is ack - acked[i] (DONAR_WIRE_ACK_NONE: none). */
  guint8 acked[DONAR_MAX_LINKS];
  guint n_recent;
  DonarWireRecent recent[DONAR_WIRE_MAX_RECENT];
  guint n_frames;
  DonarWireFrame frames[DONAR_WIRE_MAX_FRAMES];
} DonarWireMessage;

typedef struct
{
  guint8 link;
  guint32 epoch;
  /* The sender's fresh nonce for this link (the callee's: its CHALLENGE),
   * and the peer's that it answers: the caller answers the CHALLENGE, the
   * callee the caller's HELLO. */
  guint8 nonce[DONAR_WIRE_NONCE];
  guint8 echo[DONAR_WIRE_NONCE];
} DonarWireHello;

typedef struct
{
  guint8 link;
  guint8 reason;                /* DonarByeReason; others read as unknown */
} DonarWireBye;

typedef enum
{
  DONAR_WIRE_CALLER_TO_CALLEE,
  DONAR_WIRE_CALLEE_TO_CALLER,
} DonarWireDirection;

void donar_wire_key_derive (const guint8 * secret, gsize secret_length,
    DonarWireDirection direction, DonarWireKey * key);

gsize donar_wire_record_size (const DonarWireMessage * message);
gsize donar_wire_overhead (guint8 parts, guint n_scores, guint n_recent,
    guint n_frames);

/* Write the whole record (length prefix and message) into out and return
 * its size, or 0 when it would not fit in `capacity` or the message breaks
 * a limit of the format. */
gsize donar_wire_encode_data (const DonarWireMessage * message, guint8 * out,
    gsize capacity);
gsize donar_wire_encode_hello (const DonarWireHello * hello,
    const DonarWireKey * key, guint8 * out, gsize capacity);
gsize donar_wire_encode_bye (const DonarWireBye * bye, guint8 * out,
    gsize capacity);
gsize donar_wire_encode_challenge (const guint8 * nonce, guint8 * out,
    gsize capacity);
/* `relay`: the rendezvous point's id, the first 8 bytes of its identity
 * fingerprint read big-endian (as a path's relay ids are). */
gsize donar_wire_encode_rendezvous (guint8 link, guint64 relay, guint8 * out,
    gsize capacity);

/* The type of a message (the bytes after the length prefix), once its
 * version is known. */
DonarError donar_wire_peek_type (const guint8 * data, gsize length,
    guint8 * type);

/* Decode one message.  Frame data point into `data`.  Neither reads
 * outside data[0 .. length). */
DonarError donar_wire_decode_data (const guint8 * data, gsize length,
    DonarWireMessage * message);
DonarError donar_wire_decode_hello (const guint8 * data, gsize length,
    const DonarWireKey * key, DonarWireHello * hello);
DonarError donar_wire_decode_bye (const guint8 * data, gsize length,
    DonarWireBye * bye);
DonarError donar_wire_decode_challenge (const guint8 * data, gsize length,
    guint8 * nonce);
DonarError donar_wire_decode_rendezvous (const guint8 * data, gsize length,
    guint8 * link, guint64 * relay);

G_END_DECLS

#endif /* DONAR_WIRE_H */
