/* A callee's DonarSession (lib/core/donar-session.c) fed the input as the
 * stream bytes of link 0, in chunks whose sizes the input's first bytes
 * give:
 *
 *   byte 0          k = byte 0 % 8, the number of chunk sizes (0: one chunk)
 *   bytes 1 to k    chunk sizes, each byte + 1, used in turn
 *   the rest        the stream
 *
 * Time moves 10 ms a chunk (the window timer runs), the session sends one
 * frame every 4 chunks (so that the scores and recent links the peer sent steer
 * the scheduler), and a stream the session rejects is closed and reopened,
 * as the I/O layer does.  Nothing may crash; each run frees its session. */
#include <string.h>

#include "donar.h"
#include "fuzz-common.h"

typedef struct
{
  gsize max_frame;
  guint64 sum;
} FuzzState;

static void
on_send (gpointer user_data, guint link, const guint8 * record, gsize length)
{
  FuzzState *state = user_data;

  FUZZ_CHECK (link == 0);
  FUZZ_CHECK (length > 0 && length <= DONAR_CELL_PAYLOAD);
  state->sum += record[0] + record[length - 1];
}

static void
on_deliver (gpointer user_data, guint32 seq, const guint8 * frame,
    gsize length, guint link, gboolean piggybacked)
{
  FuzzState *state = user_data;

  FUZZ_CHECK (link == 0);
  FUZZ_CHECK (length > 0 && length <= DONAR_CELL_PAYLOAD);
  /* Read the whole frame: the sanitizer checks it lies in the input. */
  for (gsize i = 0; i < length; i++)
    state->sum += frame[i];
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static const DonarCallbacks callbacks =
      { on_send, on_deliver, NULL, NULL, NULL };
  static guint8 frame[160];
  FuzzState state = { 0, 0 };
  DonarConfig config;
  DonarSession *session;
  DonarError error;
  const guint8 *sizes;
  guint n_sizes, chunk = 0;
  gint64 now = 1000000;

  if (size < 1)
    return 0;
  n_sizes = data[0] % 8;
  if (size < 1 + (gsize) n_sizes)
    return 0;
  sizes = data + 1;
  data += 1 + n_sizes;
  size -= 1 + n_sizes;

  donar_config_init (&config);
  /* The corpus's policy: donar_config_init ()'s before it took the
   * product's (DONAR_DEFAULT_POLICY). */
  config.policy = DONAR_POLICY_ALTERNATE;
  session = donar_session_new (&config, DONAR_ROLE_CALLEE, FUZZ_SECRET,
      FUZZ_SECRET_LENGTH, &callbacks, &state, now, &error);
  FUZZ_CHECK (session != NULL && error == DONAR_OK);
  state.max_frame = donar_session_get_max_frame (session);
  donar_session_link_up (session, 0, FUZZ_NONCE, now);

  while (size > 0) {
    gsize length = n_sizes == 0 ? size : MIN (size,
        (gsize) sizes[chunk % n_sizes] + 1);
    /* A heap copy of exactly the chunk: a read past it is seen. */
    guint8 *copy = g_memdup2 (data, length);

    error = donar_session_receive (session, 0, copy, length, now);
    g_free (copy);
    if (error != DONAR_OK) {
      donar_session_link_down (session, 0, now);
      donar_session_link_up (session, 0, FUZZ_NONCE, now);
    }
    data += length;
    size -= length;
    chunk++;

    now += 10000;
    if (now >= donar_session_get_expiry (session))
      donar_session_handle_expiry (session, now);
    if (chunk % 4 == 0) {
      frame[0] = chunk;
      donar_session_send_frame (session, frame, sizeof frame, now);
    }
  }

  donar_session_free (session);
  return 0;
}
