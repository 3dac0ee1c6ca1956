/* Reads the replies of a Tor control port (control-spec section 2.3) from
 * a byte stream split anyhow: each reply comes out whole, asynchronous
 * events (6xx) as replies of their own.
 *
 * Strict: every line ends with CRLF, starts with a three-digit status code
 * and a separator ('-' mid-reply, '+' before a data block, ' ' for the end
 * line), and every line of a reply has the same code.  Bounded by the
 * limits below.  The first violation is returned and then returned again
 * by every call: the connection must be closed. */
#ifndef DONAR_TORCTL_READER_H
#define DONAR_TORCTL_READER_H

#include "donar-torctl-error.h"

G_BEGIN_DECLS

/* Longest line, CRLF excluded; it holds a circuit-status line with a long
 * path and every optional field with room to spare. */
#define DONAR_TORCTL_MAX_LINE_LENGTH 4096
/* Most lines in one reply, the lines inside data blocks excluded. */
#define DONAR_TORCTL_MAX_LINES 256
/* Most data bytes in one reply, all its data blocks together, after
 * dot-unstuffing, counting one byte for each line end. */
#define DONAR_TORCTL_MAX_DATA_BYTES (256 * 1024)

typedef struct
{
  gchar *text;                  /* the ReplyText, after code and separator */
  gchar *data;                  /* a '+' line's data block, else NULL */
  gsize data_length;
} DonarTorctlLine;

/* The data of a block is its lines dot-unstuffed, each ended by "\n", with
 * a NUL after the last; neither text nor data can hold a NUL of its own. */
typedef struct
{
  guint code;
  guint n_lines;
  DonarTorctlLine *lines;       /* at least one; the end line last */
} DonarTorctlReply;

void donar_torctl_reply_free (DonarTorctlReply * reply);

/* TRUE for an asynchronous event; with name, only for that event (the first
 * word of the first line, e.g. "CIRC" or "STATUS_CLIENT"). */
gboolean donar_torctl_reply_is_event (const DonarTorctlReply * reply,
    const gchar * name);

typedef struct _DonarTorctlReader DonarTorctlReader;

DonarTorctlReader *donar_torctl_reader_new (void);
void donar_torctl_reader_free (DonarTorctlReader * reader);

/* Consumes bytes from *data until a reply is whole and returns it in *reply
 * (the caller frees it); *reply is NULL once the input is used up.  Call
 * again with the rest of the input until it is. */
DonarTorctlError donar_torctl_reader_next (DonarTorctlReader * reader,
    const guint8 ** data, gsize * length, DonarTorctlReply ** reply);

/* The connection ended: DONAR_TORCTL_ERROR_TRUNCATED unless it ended
 * between two replies. */
DonarTorctlError donar_torctl_reader_finish (DonarTorctlReader * reader);

G_END_DECLS

#endif /* DONAR_TORCTL_READER_H */
