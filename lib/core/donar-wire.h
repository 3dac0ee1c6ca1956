/* The DONAR message format, version 1 (docs/protocol.md, byte by byte). */
#ifndef DONAR_WIRE_H
#define DONAR_WIRE_H

#include "donar.h"

G_BEGIN_DECLS

#define DONAR_WIRE_VERSION 1
#define DONAR_WIRE_TYPE_DATA 1
#define DONAR_WIRE_PREFIX 2
#define DONAR_WIRE_HEADER 14
#define DONAR_WIRE_TAG 16
#define DONAR_WIRE_KEY 32
#define DONAR_WIRE_FRAME_HEADER 3
#define DONAR_WIRE_RECENT_ENTRY 2
#define DONAR_WIRE_MAX_RECENT 64
#define DONAR_WIRE_MAX_FRAMES (1 + DONAR_MAX_REDUNDANCY)
#define DONAR_WIRE_SCORE_UNKNOWN 0xffff
/* The longest message the framer accepts: a record fills one cell. */
#define DONAR_WIRE_MAX_MESSAGE (DONAR_CELL_PAYLOAD - DONAR_WIRE_PREFIX)
#define DONAR_WIRE_MIN_MESSAGE \
  (DONAR_WIRE_HEADER + DONAR_WIRE_FRAME_HEADER + 1 + DONAR_WIRE_TAG)

typedef struct
{
  guint8 bytes[DONAR_WIRE_KEY];
} DonarWireKey;

typedef struct
{
  guint8 age;                   /* frames before the message's seq */
  guint8 link;
} DonarWireRecent;

typedef struct
{
  guint8 age;                   /* 0: the current frame */
  guint16 length;
  const guint8 *data;
} DonarWireFrame;

typedef struct
{
  guint8 link;
  guint32 epoch;
  guint32 seq;
  guint n_scores;
  guint16 scores[DONAR_MAX_LINKS];
  guint n_recent;
  DonarWireRecent recent[DONAR_WIRE_MAX_RECENT];
  guint n_frames;
  DonarWireFrame frames[DONAR_WIRE_MAX_FRAMES];
} DonarWireMessage;

typedef enum
{
  DONAR_WIRE_CALLER_TO_CALLEE,
  DONAR_WIRE_CALLEE_TO_CALLER,
} DonarWireDirection;

void donar_wire_key_derive (const guint8 * secret, gsize secret_length,
    DonarWireDirection direction, DonarWireKey * key);

gsize donar_wire_record_size (const DonarWireMessage * message);
gsize donar_wire_overhead (guint n_scores, guint n_recent, guint n_frames);

/* Writes the whole record (length prefix, message, authenticator) into out;
 * returns its size, or 0 when it would not fit in `capacity` or the message
 * breaks a limit of the format. */
gsize donar_wire_encode (const DonarWireMessage * message,
    const DonarWireKey * key, guint8 * out, gsize capacity);

/* Decodes one message (the bytes after the length prefix).  Frame data
 * points into `data`.  Never reads outside data[0 .. length). */
DonarError donar_wire_decode (const guint8 * data, gsize length,
    const DonarWireKey * key, DonarWireMessage * message);

G_END_DECLS

#endif /* DONAR_WIRE_H */
