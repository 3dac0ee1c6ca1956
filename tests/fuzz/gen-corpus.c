/* Writes the seed corpora of the fuzz targets: valid inputs of each, made
 * here with the project's own encoders (DONAR messages) or by hand (the
 * control-port and SOCKS5 replies), never copied from elsewhere.
 *
 *   gen-corpus OUTDIR     writes OUTDIR/<target>/<name> for each target
 *
 * The committed corpus/ came from it: rerun it from the source root as
 * `build-fuzz/tests/fuzz/gen-corpus tests/fuzz/corpus` after a change of
 * the wire format. */
#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>

#include "donar-wire.h"
#include "fuzz-common.h"

static const gchar *outdir;

static void
write_seed (const gchar * target, const gchar * name, const guint8 * bytes,
    gsize length)
{
  gchar *dir = g_build_filename (outdir, target, NULL);
  gchar *path = g_build_filename (dir, name, NULL);
  GError *error = NULL;

  if (g_mkdir_with_parents (dir, 0755) != 0) {
    g_printerr ("%s: %s\n", dir, g_strerror (errno));
    exit (1);
  }
  if (!g_file_set_contents (path, (const gchar *) bytes, length, &error)) {
    g_printerr ("%s\n", error->message);
    exit (1);
  }
  g_free (path);
  g_free (dir);
}

/* A seed whose first byte is a header byte of the target. */
static void
write_with_header (const gchar * target, const gchar * name, guint8 header,
    const guint8 * bytes, gsize length)
{
  guint8 *buffer = g_malloc (length + 1);

  buffer[0] = header;
  memcpy (buffer + 1, bytes, length);
  write_seed (target, name, buffer, length + 1);
  g_free (buffer);
}

static void
write_text (const gchar * target, const gchar * name, guint8 header,
    const gchar * text)
{
  write_with_header (target, name, header, (const guint8 *) text,
      strlen (text));
}

/* A DATA message as the caller of the paper's settings sends it on link 0:
 * 12 links described (the scores of the paper's policies when no frame is
 * piggybacked, ADAPTIVE's delays, paths and acknowledgements otherwise),
 * the recent links of 6 frames, the current frame and `n_old` piggybacked
 * ones. */
static gsize
make_data (guint32 seq, guint n_old, guint16 current_length, guint8 * out,
    gsize capacity)
{
  static guint8 payload[9][172];
  DonarWireMessage message;

  memset (&message, 0, sizeof message);
  message.link = 0;
  message.seq = seq;
  message.time_ms = 0xfffffff0 + seq;
  message.ack = seq - 3;
  message.parts = n_old == 0 ? DONAR_WIRE_PART_SCORES :
      DONAR_WIRE_PART_ADAPTIVE;
  message.n_scores = 12;
  for (guint i = 0; i < message.n_scores; i++) {
    message.scores[i] = i == 5 ? DONAR_WIRE_SCORE_UNKNOWN : 25 * i;
    message.delays[i] = i == 3 ? DONAR_WIRE_DELAY_GROWING | 400 : 10 * i;
    message.paths[i] = 1u << (i % 2);
    message.acked[i] = i == 7 ? DONAR_WIRE_ACK_NONE : i;
  }
  message.n_recent = 6;
  for (guint i = 0; i < message.n_recent; i++) {
    message.recent[i].age = i;
    message.recent[i].link = i == 0 ? 0 : (i * 5) % 12;
  }
  message.n_frames = 1 + n_old;
  for (guint i = 0; i < message.n_frames; i++) {
    memset (payload[i], 0x80 + i, sizeof payload[i]);
    payload[i][0] = 0x80;       /* RTP version 2 */
    message.frames[i].age = i;
    message.frames[i].length = i == 0 ? current_length : 40;
    message.frames[i].data = payload[i];
  }
  return donar_wire_encode_data (&message, out, capacity);
}

static void
wire_and_session (void)
{
  DonarWireKey to_callee, to_caller;
  DonarWireHello hello = { 0, 0x12345678, "a caller nonce!", {0} };
  guint8 stream[4096];
  gsize hello_size, data_size, data2_size, n = 0;
  guint8 record[DONAR_CELL_PAYLOAD];
  /* Chunk-size headers of fuzz-session: one chunk; 7-byte chunks; three
   * sizes in turn. */
  static const guint8 one_chunk[] = { 0 };
  static const guint8 small_chunks[] = { 1, 6 };
  static const guint8 mixed_chunks[] = { 3, 24, 0, 199 };

  donar_wire_key_derive (FUZZ_SECRET, FUZZ_SECRET_LENGTH,
      DONAR_WIRE_CALLER_TO_CALLEE, &to_callee);
  donar_wire_key_derive (FUZZ_SECRET, FUZZ_SECRET_LENGTH,
      DONAR_WIRE_CALLEE_TO_CALLER, &to_caller);
  memcpy (hello.echo, FUZZ_NONCE, DONAR_WIRE_NONCE);

  /* fuzz-wire: messages without their length prefix. */
  hello_size = donar_wire_encode_hello (&hello, &to_callee, record,
      sizeof record);
  FUZZ_CHECK (hello_size > 0);
  write_seed ("fuzz-wire", "hello-to-callee", record + DONAR_WIRE_PREFIX,
      hello_size - DONAR_WIRE_PREFIX);
  hello.link = 11;
  donar_wire_encode_hello (&hello, &to_caller, record, sizeof record);
  write_seed ("fuzz-wire", "hello-to-caller", record + DONAR_WIRE_PREFIX,
      hello_size - DONAR_WIRE_PREFIX);
  data_size = donar_wire_encode_challenge (FUZZ_NONCE, record, sizeof record);
  write_seed ("fuzz-wire", "challenge", record + DONAR_WIRE_PREFIX,
      data_size - DONAR_WIRE_PREFIX);
  {
    DonarWireBye bye = { 3, DONAR_BYE_HUNG_UP };

    data_size = donar_wire_encode_bye (&bye, record, sizeof record);
    write_seed ("fuzz-wire", "bye", record + DONAR_WIRE_PREFIX,
        data_size - DONAR_WIRE_PREFIX);
  }
  data_size = donar_wire_encode_rendezvous (3, G_GUINT64_CONSTANT
      (0x8f5e6a1f2c2e9c8d), record, sizeof record);
  write_seed ("fuzz-wire", "rendezvous", record + DONAR_WIRE_PREFIX,
      data_size - DONAR_WIRE_PREFIX);
  data_size = make_data (0xfffffffe, 0, 172, record, sizeof record);
  FUZZ_CHECK (data_size > 0);
  write_seed ("fuzz-wire", "data-one-frame", record + DONAR_WIRE_PREFIX,
      data_size - DONAR_WIRE_PREFIX);
  data_size = make_data (7, 2, 172, record, sizeof record);
  FUZZ_CHECK (data_size > 0);
  write_seed ("fuzz-wire", "data-three-frames", record + DONAR_WIRE_PREFIX,
      data_size - DONAR_WIRE_PREFIX);

  /* fuzz-session: the caller's HELLO on link 0, then DATA records of
   * consecutive frames, each piggybacking its predecessor. */
  hello.link = 0;
  n += donar_wire_encode_hello (&hello, &to_callee, stream + n,
      sizeof stream - n);
  for (guint32 seq = 0xfffffffd; seq != 3; seq++) {
    data2_size = make_data (seq, seq == 0xfffffffd ? 0 : 1, 60,
        stream + n, sizeof stream - n);
    FUZZ_CHECK (data2_size > 0);
    n += data2_size;
  }
  write_with_header ("fuzz-session", "hello-data-one-chunk", one_chunk[0],
      stream, n);
  {
    guint8 buffer[sizeof stream + 8];

    memcpy (buffer, small_chunks, sizeof small_chunks);
    memcpy (buffer + sizeof small_chunks, stream, n);
    write_seed ("fuzz-session", "hello-data-small-chunks", buffer,
        n + sizeof small_chunks);
    memcpy (buffer, mixed_chunks, sizeof mixed_chunks);
    memcpy (buffer + sizeof mixed_chunks, stream, n);
    write_seed ("fuzz-session", "hello-data-mixed-chunks", buffer,
        n + sizeof mixed_chunks);
  }
}

static void
torctl (void)
{
  /* Header byte: the reader is fed chunks of byte + 1 bytes. */
  write_text ("fuzz-torctl", "protocolinfo", 0xff,
      "250-PROTOCOLINFO 1\r\n"
      "250-AUTH METHODS=COOKIE,SAFECOOKIE,HASHEDPASSWORD "
      "COOKIEFILE=\"/var/run/tor/control.authcookie\"\r\n"
      "250-VERSION Tor=\"0.4.7.16\"\r\n" "250 OK\r\n");
  write_text ("fuzz-torctl", "protocolinfo-split", 4,
      "250-PROTOCOLINFO 1\r\n"
      "250-AUTH METHODS=NULL\r\n" "250-VERSION Tor=\"0.4.8.9\"\r\n"
      "250 OK\r\n");
  write_text ("fuzz-torctl", "authchallenge", 0xff,
      "250 AUTHCHALLENGE SERVERHASH="
      "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF "
      "SERVERNONCE="
      "FEDCBA9876543210FEDCBA9876543210FEDCBA9876543210FEDCBA9876543210\r\n");
  write_text ("fuzz-torctl", "add-onion", 0xff,
      "250-ServiceID=abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrstuvwx\r\n"
      "250-PrivateKey=ED25519-V3:aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ=\r\n"
      "250-ClientAuthV3=ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRST\r\n"
      "250 OK\r\n");
  write_text ("fuzz-torctl", "getinfo-circuit-status", 0xff,
      "250+circuit-status=\r\n"
      "1 BUILT $AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA~alpha,"
      "$BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB~beta BUILD_FLAGS=NEED_CAPACITY "
      "PURPOSE=GENERAL TIME_CREATED=2024-01-01T00:00:00.000000\r\n"
      "2 LAUNCHED BUILD_FLAGS=IS_INTERNAL PURPOSE=HS_CLIENT_REND "
      "REND_QUERY=abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrstuvwx "
      "SOCKS_USERNAME=\"link-3\" SOCKS_PASSWORD=\"x\"\r\n"
      ".\r\n"
      "250+config-text=\r\n" "..a dot-stuffed line\r\n" "ControlPort 9051\r\n"
      ".\r\n"
      "250-status/bootstrap-phase=NOTICE BOOTSTRAP PROGRESS=100 TAG=done "
      "SUMMARY=\"Done\"\r\n" "250 OK\r\n");
  write_text ("fuzz-torctl", "events", 0xff,
      "650 STATUS_CLIENT NOTICE BOOTSTRAP PROGRESS=75 TAG=enough_dirinfo "
      "SUMMARY=\"Loaded enough directory info to build circuits\"\r\n"
      "650 STATUS_CLIENT WARN BOOTSTRAP PROGRESS=10 TAG=conn_done "
      "SUMMARY=\"Connected\" WARNING=\"Connection refused\" "
      "REASON=CONNECTREFUSED COUNT=3 RECOMMENDATION=warn\r\n"
      "650 CIRC 5 EXTENDED $CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC=gamma "
      "BUILD_FLAGS=NEED_UPTIME PURPOSE=GENERAL\r\n"
      "650 CIRC 5 CLOSED REASON=FINISHED\r\n");
  write_text ("fuzz-torctl", "refused", 0xff,
      "515 Authentication failed: Wrong length on authentication cookie.\r\n"
      "552 Unrecognized key \"foo\"\r\n");
}

static void
socks (void)
{
  /* Method selection (username/password), authentication succeeded, CONNECT
   * succeeded with each address type; header byte: the split. */
  static const guint8 ipv4[] = {
    0x05, 0x02,
    0x01, 0x00,
    0x05, 0x00, 0x00, 0x01, 127, 0, 0, 1, 0x23, 0x28,
  };
  static const guint8 domain[] = {
    0x05, 0x02,
    0x01, 0x00,
    0x05, 0x00, 0x00, 0x03, 9, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't',
    0x00, 0x50,
    'p', 'e', 'e', 'r', ' ', 'd', 'a', 't', 'a',
  };
  static const guint8 ipv6[] = {
    0x05, 0x02,
    0x01, 0x00,
    0x05, 0x00, 0x00, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
    0x01, 0xbb,
  };
  static const guint8 refused[] = {
    0x05, 0x02,
    0x01, 0x00,
    0x05, 0xf2, 0x00, 0x01, 0, 0, 0, 0, 0, 0,
  };

  write_with_header ("fuzz-socks", "connect-ipv4", 3, ipv4, sizeof ipv4);
  write_with_header ("fuzz-socks", "connect-domain-then-data", 9, domain,
      sizeof domain);
  write_with_header ("fuzz-socks", "connect-ipv6", 0, ipv6, sizeof ipv6);
  write_with_header ("fuzz-socks", "connect-refused-onion", 1, refused,
      sizeof refused);
}

int
main (int argc, char **argv)
{
  if (argc != 2) {
    g_printerr ("usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  outdir = argv[1];
  wire_and_session ();
  torctl ();
  socks ();
  return 0;
}
