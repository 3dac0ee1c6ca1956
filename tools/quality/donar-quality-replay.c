/* donar-quality-replay: the voice of a call replayed offline from its frame
 * log (donar-sim --frame-log), for PESQ (tools/quality/trace_quality.py,
 * docs/quality.md).
 *
 * A frame log is one direction of one call: header seq,sent_ms,arrival_ms,
 * one row per 40-ms frame in send order, arrival_ms empty if the frame never
 * came.  The tool
 *
 *   1. encodes a reference speech WAV as the pipelines do (opusenc
 *      audio-type=voice bitrate=32000 frame-size=40 inband-fec=false:
 *      OPUS_APPLICATION_VOIP, 32 kbit/s, 40-ms frames, no FEC, constrained
 *      VBR, complexity 10), looped to cover the longest call: frame k of a
 *      call carries frame k mod L of the reference (L frames a loop);
 *   2. decides for each frame whether it is played: a frame that never came
 *      is concealed, and so is one that came after its playout time, given
 *      by the playout policy (adaptive: lib/playout as donarjitterbuffer
 *      runs it; ideal: the call's own 99th percentile; static:MS);
 *   3. decodes the call in order at 16 kHz, concealing with Opus's PLC
 *      (opus_decode with no data, as opusdec plc=true does);
 *   4. writes, per log, a JSON summary and the audio of its damaged
 *      segments only.  A segment is one loop of the reference; it is clean
 *      when its frames, the 2 frames before it and the first frame after it
 *      (the encoder's lookahead reaches into it) were all played, and then
 *      it sounds like every other clean segment (up to the codec's state),
 *      which --clean writes once.  The output is shifted by the encoder's
 *      lookahead so that its sample i is the reference's sample i.
 */
#include "donar-playout.h"
#include "frame-log-playout.h"
#include "tool-json.h"

#include <errno.h>
#include <math.h>
#include <opus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOST FRAME_LOG_LOST
#define FRAME_MS 40
#define OUT_RATE 16000
#define OUT_FRAME (OUT_RATE * FRAME_MS / 1000)
#define BITRATE 32000
#define MAX_PACKET 4000
/* Frames before a segment whose loss still colours it (the decoder's
 * memory, as the segment rule counts it). */
#define GUARD_BEFORE 2
#define DEFAULT_REFERENCE "/usr/share/codec2/raw/speech_orig_16k.wav"

typedef struct
{
  gint rate;                    /* of the reference */
  guint frame;                  /* samples a frame at that rate */
  guint loop_frames;            /* L */
  gint16 *pcm;                  /* one loop, padded to whole frames */
} Reference;

typedef struct
{
  guint n;                      /* frames encoded */
  guint8 *data;
  guint *offset;                /* n + 1 offsets into data */
  gint lookahead;               /* at OUT_RATE */
  guint loop_frames;
  /* If the encoder became periodic (a whole loop came out byte for byte
   * as the one before), frames past n repeat the last loop encoded. */
  gboolean periodic;
  /* Or gave up waiting for it after MAX_ENCODE_LOOPS (then the last loop
   * stands for the later ones, an approximation). */
  gboolean capped;
} Packets;

/* Frames decoded before a damaged segment, from a fresh decoder, to bring
 * its state where it would be in the call (1 s). */
#define WARMUP_FRAMES 25
/* Beyond this many loops the encoder is not run any further. */
#define MAX_ENCODE_LOOPS 32

typedef enum
{
  PLAYOUT_ADAPTIVE,
  PLAYOUT_IDEAL,
  PLAYOUT_STATIC
} PlayoutKind;

static guint32
le32 (const guint8 * p)
{
  return p[0] | p[1] << 8 | p[2] << 16 | (guint32) p[3] << 24;
}

static guint16
le16 (const guint8 * p)
{
  return p[0] | p[1] << 8;
}

/* 16-bit PCM mono at 8, 16 or 48 kHz; one loop padded with silence to
 * whole frames. */
static gboolean
reference_load (const char *path, Reference * ref, GError ** error)
{
  g_autofree gchar *contents = NULL;
  const guint8 *p, *end, *data = NULL;
  gsize len;
  guint32 data_len = 0;
  gboolean have_fmt = FALSE;
  guint n;

  if (!g_file_get_contents (path, &contents, &len, error))
    return FALSE;
  p = (const guint8 *) contents;
  end = p + len;
  if (len < 12 || memcmp (p, "RIFF", 4) != 0 || memcmp (p + 8, "WAVE", 4)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: not a WAV file (no RIFF/WAVE header)", path);
    return FALSE;
  }
  for (p += 12; end - p >= 8;) {
    guint32 size = le32 (p + 4);
    const guint8 *body = p + 8;

    if (size > (gsize) (end - body))
      size = end - body;        /* a truncated last chunk */
    if (memcmp (p, "fmt ", 4) == 0) {
      guint16 format, channels, bits;
      guint32 rate;

      if (size < 16) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
            "%s: fmt chunk too short", path);
        return FALSE;
      }
      format = le16 (body);
      channels = le16 (body + 2);
      rate = le32 (body + 4);
      bits = le16 (body + 14);
      /* WAVE_FORMAT_EXTENSIBLE: the format is the sub-format's first two
       * bytes. */
      if (format == 0xfffe && size >= 26)
        format = le16 (body + 24);
      if (format != 1 || bits != 16 || channels != 1 ||
          (rate != 8000 && rate != 16000 && rate != 48000)) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
            "%s: format %u, %u channel(s), %u bits, %u Hz: the reference "
            "must be 16-bit PCM (format 1), mono, at 8000, 16000 or 48000 Hz",
            path, format, channels, bits, rate);
        return FALSE;
      }
      ref->rate = rate;
      have_fmt = TRUE;
    } else if (memcmp (p, "data", 4) == 0) {
      data = body;
      data_len = size;
    }
    p = body + size + (size & 1);
  }
  if (!have_fmt || data == NULL) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: no %s chunk", path, have_fmt ? "data" : "fmt");
    return FALSE;
  }
  ref->frame = ref->rate * FRAME_MS / 1000;
  n = data_len / 2;
  if (n < ref->frame) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: shorter than one %d-ms frame", path, FRAME_MS);
    return FALSE;
  }
  ref->loop_frames = (n + ref->frame - 1) / ref->frame;
  ref->pcm = g_new0 (gint16, (gsize) ref->loop_frames * ref->frame);
  for (guint i = 0; i < n; i++)
    ref->pcm[i] = (gint16) le16 (data + 2 * i);
  return TRUE;
}

/* ---- the codec ---- */

static const char *
opus_what (int err)
{
  return opus_strerror (err);
}

/* Frame k of the call as encoded: itself, or its place in the last loop
 * encoded when the encoder turned periodic. */
static guint
packet_index (const Packets * packets, guint k)
{
  guint L = packets->loop_frames;

  if (k < packets->n)
    return k;
  g_assert (packets->periodic || packets->capped);
  return packets->n - L + k % L;
}

/* The looped reference encoded as opusenc audio-type=voice bitrate=32000
 * frame-size=40 inband-fec=false does, with its other defaults
 * (constrained VBR, complexity 10, full band, no DTX, 0 % loss). */
static gboolean
encode (const Reference * ref, guint n_frames, Packets * out, GError ** error)
{
  OpusEncoder *enc;
  int err;
  opus_int32 lookahead;
  GByteArray *data;
  guint L, k;

  enc = opus_encoder_create (ref->rate, 1, OPUS_APPLICATION_VOIP, &err);
  if (enc == NULL) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
        "opus_encoder_create: %s", opus_what (err));
    return FALSE;
  }
  opus_encoder_ctl (enc, OPUS_SET_BITRATE (BITRATE));
  opus_encoder_ctl (enc, OPUS_SET_BANDWIDTH (OPUS_BANDWIDTH_FULLBAND));
  opus_encoder_ctl (enc, OPUS_SET_VBR (1));
  opus_encoder_ctl (enc, OPUS_SET_VBR_CONSTRAINT (1));
  opus_encoder_ctl (enc, OPUS_SET_COMPLEXITY (10));
  opus_encoder_ctl (enc, OPUS_SET_INBAND_FEC (0));
  opus_encoder_ctl (enc, OPUS_SET_DTX (0));
  opus_encoder_ctl (enc, OPUS_SET_PACKET_LOSS_PERC (0));
  opus_encoder_ctl (enc, OPUS_GET_LOOKAHEAD (&lookahead));
  out->lookahead = (gint) ((gint64) lookahead * OUT_RATE / ref->rate);

  /* A 90-minute call is 500 loops of a 10.8-s reference, and the encoder
   * runs at about 50 times real time: it runs until its output repeats (a
   * few loops in), and the packets of the last loop stand for the later
   * loops.  The encoder is deterministic, so once its state repeats at a
   * loop's start, every later loop is the same; a whole loop of identical
   * packets is taken as the sign of it. */
  L = ref->loop_frames;
  n_frames = MIN (n_frames, MAX_ENCODE_LOOPS * L);
  data = g_byte_array_sized_new (n_frames * 200);
  out->loop_frames = L;
  out->periodic = out->capped = FALSE;
  out->offset = g_new (guint, n_frames + 1);
  for (k = 0; k < n_frames; k++) {
    guint8 packet[MAX_PACKET];
    const gint16 *pcm = ref->pcm + (gsize) (k % L) * ref->frame;
    opus_int32 len = opus_encode (enc, pcm, ref->frame, packet, MAX_PACKET);

    if (len < 0) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
          "opus_encode: %s", opus_what (len));
      opus_encoder_destroy (enc);
      g_byte_array_free (data, TRUE);
      g_free (out->offset);
      return FALSE;
    }
    out->offset[k] = data->len;
    g_byte_array_append (data, packet, len);
    if (k % L == L - 1 && k >= 2 * L) {
      /* A loop done: the same as the one before? */
      guint start = k + 1 - L, prev = start - L;
      guint len_now = data->len - out->offset[start];

      if (len_now == out->offset[start] - out->offset[prev] &&
          memcmp (data->data + out->offset[start],
              data->data + out->offset[prev], len_now) == 0) {
        gboolean same = TRUE;

        for (guint j = 0; j < L && same; j++)
          same = out->offset[start + j] - out->offset[prev + j] ==
              out->offset[start] - out->offset[prev];
        if (same) {
          out->periodic = TRUE;
          k++;
          break;
        }
      }
    }
  }
  out->capped = !out->periodic && k == MAX_ENCODE_LOOPS * L;
  out->n = k;
  out->offset[k] = data->len;
  out->data = g_byte_array_free (data, FALSE);
  opus_encoder_destroy (enc);
  return TRUE;
}

static gboolean
decode_frame (OpusDecoder * dec, const Packets * packets, guint k,
    gboolean played, gint16 * pcm, GError ** error)
{
  int got;

  if (played) {
    guint p = packet_index (packets, k);

    got = opus_decode (dec, packets->data + packets->offset[p],
        packets->offset[p + 1] - packets->offset[p], pcm, OUT_FRAME, 0);
  } else {
    got = opus_decode (dec, NULL, 0, pcm, OUT_FRAME, 0);
  }
  if (got != OUT_FRAME) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
        "opus_decode, frame %u: %s", k, got < 0 ? opus_what (got) :
        "short frame");
    return FALSE;
  }
  return TRUE;
}

/* Decodes in order what the wanted segments need (played[k] FALSE: frame k
 * concealed) and fills them, on the reference's timeline: segment s is
 * reference samples [s * seg_len, s * seg_len + lens[s]) at OUT_RATE, i.e.
 * the decoded samples shifted back by the lookahead.  segments[s] NULL: not
 * wanted.  The decoder starts afresh `warmup` frames before a wanted segment
 * unless it is already decoding there (G_MAXUINT: the whole call from its
 * start, in one run). */
static gboolean
decode (const Packets * packets, const gboolean * played, guint n_frames,
    guint seg_len, gint16 ** segments, const guint * lens, guint n_segments,
    guint warmup, GError ** error)
{
  OpusDecoder *dec;
  int err;
  gint16 pcm[OUT_FRAME];
  guint next = 0, L = seg_len / OUT_FRAME;
  gboolean started = FALSE;

  dec = opus_decoder_create (OUT_RATE, 1, &err);
  if (dec == NULL) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
        "opus_decoder_create: %s", opus_what (err));
    return FALSE;
  }
  for (guint s = 0; s < n_segments; s++) {
    guint first = s * L, start = first > warmup ? first - warmup : 0;
    /* The lookahead reaches into the first frame after the segment. */
    guint stop = MIN (first + lens[s] / OUT_FRAME + 1, n_frames);

    if (segments[s] == NULL)
      continue;
    if (!started || next < start) {
      if (started)
        opus_decoder_ctl (dec, OPUS_RESET_STATE);
      next = start;
      started = TRUE;
    }
    for (guint k = next; k < stop; k++) {
      gint64 a = (gint64) k * OUT_FRAME - packets->lookahead;

      if (!decode_frame (dec, packets, k, played[k], pcm, error)) {
        opus_decoder_destroy (dec);
        return FALSE;
      }
      /* The frame covers reference samples [a, a + OUT_FRAME): at most two
       * segments. */
      for (gint64 t = MAX (a, 0) / seg_len;
          t < n_segments && t * seg_len < a + OUT_FRAME; t++) {
        gint64 from = MAX (a, t * seg_len), to = MIN (a + OUT_FRAME,
            t * seg_len + lens[t]);

        if (segments[t] != NULL && from < to)
          memcpy (segments[t] + (from - t * seg_len), pcm + (from - a),
              (to - from) * sizeof (gint16));
      }
    }
    next = MAX (next, stop);
  }
  opus_decoder_destroy (dec);
  return TRUE;
}

/* ---- output ---- */

static gboolean
write_wav (const char *path, const gint16 * pcm, guint n, gint rate,
    GError ** error)
{
  guint8 *buf = g_malloc (44 + 2 * (gsize) n);
  guint32 data_len = 2 * n;
  gboolean ok;

#define PUT32(o, v) G_STMT_START { guint32 _v = (v); buf[o] = _v; \
    buf[o + 1] = _v >> 8; buf[o + 2] = _v >> 16; buf[o + 3] = _v >> 24; \
  } G_STMT_END
#define PUT16(o, v) G_STMT_START { buf[o] = (v) & 0xff; \
    buf[o + 1] = ((v) >> 8) & 0xff; } G_STMT_END
  memcpy (buf, "RIFF", 4);
  PUT32 (4, 36 + data_len);
  memcpy (buf + 8, "WAVEfmt ", 8);
  PUT32 (16, 16);
  PUT16 (20, 1);
  PUT16 (22, 1);
  PUT32 (24, rate);
  PUT32 (28, rate * 2);
  PUT16 (32, 2);
  PUT16 (34, 16);
  memcpy (buf + 36, "data", 4);
  PUT32 (40, data_len);
  for (guint i = 0; i < n; i++)
    PUT16 (44 + 2 * i, (guint16) pcm[i]);
#undef PUT32
#undef PUT16
  ok = g_file_set_contents (path, (const gchar *) buf, 44 + data_len, error);
  g_free (buf);
  return ok;
}

/* ---- playout ---- */

static int
cmp_int64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* The k-th smallest, k = ceil (q * n) (nearest rank); 0 if n is 0. */
static gint64
percentile (const gint64 * sorted, guint n, gdouble q)
{
  guint64 k = (guint64) ceil (q * n - 1e-9);

  if (n == 0)
    return 0;
  k = CLAMP (k, 1, n);
  return sorted[k - 1];
}

/* due[i]: when frame i is played (send + delay).  Adaptive: lib/playout
 * with donarjitterbuffer's defaults (absolute delay unknown), as
 * donar-playout-eval replays it.  Returns FALSE if no frame arrived (then
 * no frame is played). */
static gboolean
playout_adaptive (const FrameLog * log, gint64 * due)
{
  DonarPlayoutConfig config;

  donar_playout_config_init (&config);
  return frame_log_playout_adaptive (log, &config, FALSE, due, NULL);
}

/* Played or concealed, frame by frame; the delays for the summary. */
typedef struct
{
  gboolean *played;
  guint lost, late;
  gint64 *playout_delay;        /* sorted, n */
  gint64 *one_way;              /* sorted, n_arrived */
  guint n_arrived;
  gint64 fixed_delay_us;        /* ideal or static; -1 adaptive */
} Fates;

static void
fates_compute (const FrameLog * log, PlayoutKind kind, gint64 static_us,
    Fates * f)
{
  gint64 *due = g_new (gint64, log->n);
  gboolean any = TRUE;

  memset (f, 0, sizeof *f);
  f->played = g_new0 (gboolean, log->n);
  f->one_way = g_new (gint64, log->n);
  f->playout_delay = g_new (gint64, log->n);
  for (guint i = 0; i < log->n; i++)
    if (log->arrival_us[i] != LOST)
      f->one_way[f->n_arrived++] = log->arrival_us[i] - log->send_us[i];
  qsort (f->one_way, f->n_arrived, sizeof (gint64), cmp_int64);

  f->fixed_delay_us = -1;
  if (kind == PLAYOUT_ADAPTIVE) {
    any = playout_adaptive (log, due);
  } else {
    /* Ideal: the least constant delay that plays 99 % of the frames, those
     * that never came counting as infinitely late (the k-th smallest delay,
     * k = ceil (0.99 n), or the largest if fewer arrived). */
    f->fixed_delay_us = kind == PLAYOUT_STATIC ? static_us :
        (f->n_arrived ? f->one_way[MIN ((guint64) ceil (0.99 * log->n - 1e-9),
                f->n_arrived) - 1] : 0);
    for (guint i = 0; i < log->n; i++)
      due[i] = log->send_us[i] + f->fixed_delay_us;
  }

  for (guint i = 0; i < log->n; i++) {
    if (log->arrival_us[i] == LOST)
      f->lost++;
    else if (!any || log->arrival_us[i] > due[i])
      f->late++;
    else
      f->played[i] = TRUE;
    f->playout_delay[i] = any ? due[i] - log->send_us[i] : 0;
  }
  qsort (f->playout_delay, log->n, sizeof (gint64), cmp_int64);
  g_free (due);
}

static void
fates_clear (Fates * f)
{
  g_free (f->played);
  g_free (f->playout_delay);
  g_free (f->one_way);
}

/* G.107's BurstR of the frames not played (lost or late), as
 * tools/quality/qscore.py's burst_ratio () computes it: the mean length of
 * their runs over that of random loss at the same rate, 1 / (1 - p).  1
 * when none or all were played. */
static double
unplayed_burst_ratio (const gboolean * played, guint n)
{
  guint unplayed = 0, runs = 0;

  for (guint k = 0; k < n; k++)
    if (!played[k]) {
      unplayed++;
      runs += k == 0 || played[k - 1];
    }
  if (unplayed == 0 || unplayed == n)
    return 1.0;
  return (double) unplayed / runs * (1.0 - (double) unplayed / n);
}

/* ---- a call ---- */

/* A call cut into segments of one loop of the reference each. */
typedef struct
{
  guint frames;                 /* a segment's (L); the last may have fewer */
  guint n;
  guint n_damaged;
  gint16 **pcm;                 /* NULL: not decoded */
  gboolean *damaged;
  guint *lens;                  /* samples at OUT_RATE */
} Segments;

/* Which segments are damaged, and which are to be decoded: the damaged
 * ones, or all of them with all_segments.  played has log->n + 1 frames. */
static void
segments_mark (Segments * segs, const FrameLog * log, const Packets * packets,
    const gboolean * played, guint L, gboolean all_segments)
{
  segs->frames = L;
  segs->n = (log->n + L - 1) / L;
  segs->n_damaged = 0;
  segs->pcm = g_new0 (gint16 *, segs->n);
  segs->damaged = g_new0 (gboolean, segs->n);
  segs->lens = g_new (guint, segs->n);
  for (guint s = 0; s < segs->n; s++) {
    guint first = s * L, end = MIN (first + L, log->n);
    guint from = first >= GUARD_BEFORE ? first - GUARD_BEFORE : 0;
    guint to = packets->lookahead > 0 ? end + 1 : end;
    gboolean clean = TRUE;

    segs->lens[s] = (end - first) * OUT_FRAME;
    for (guint k = from; k < to && clean; k++)
      clean = played[k];
    if (!clean)
      segs->n_damaged++;
    if (!clean || all_segments)
      segs->pcm[s] = g_new0 (gint16, segs->lens[s]);
    segs->damaged[s] = !clean;
  }
}

static void
segments_clear (Segments * segs)
{
  for (guint s = 0; s < segs->n; s++)
    g_free (segs->pcm[s]);
  g_free (segs->pcm);
  g_free (segs->damaged);
  g_free (segs->lens);
}

/* In ms, or null when there is no delay. */
static gchar *
percentile_ms_or_null (const gint64 * sorted, guint n, gdouble q)
{
  if (n == 0)
    return g_strdup ("null");
  return g_strdup_printf ("%.3f", percentile (sorted, n, q) / 1e3);
}

/* The log's JSON summary up to the list of its damaged segments. */
static GString *
log_summary_json (const FrameLog * log, const Packets * packets,
    const Fates * f, const Segments * segs, const char *playout_name)
{
  g_autofree gchar *one_way_p50 =
      percentile_ms_or_null (f->one_way, f->n_arrived, 0.5);
  g_autofree gchar *one_way_p99 =
      percentile_ms_or_null (f->one_way, f->n_arrived, 0.99);
  GString *json = g_string_new ("{\"log\": ");
  gboolean first = TRUE;

  tool_json_append_string (json, log->path);
  g_string_append (json, ", \"name\": ");
  tool_json_append_string (json, log->name);
  g_string_append (json, ", \"playout\": ");
  tool_json_append_string (json, playout_name);
  if (f->fixed_delay_us >= 0)
    g_string_append_printf (json, ", \"playout_fixed_ms\": %.3f",
        f->fixed_delay_us / 1e3);
  g_string_append_printf (json, ", \"frames\": %u, \"lost\": %u, "
      "\"late\": %u, \"played\": %u, \"frame_ms\": %d, "
      "\"frames_per_segment\": %u, \"segments\": %u, "
      "\"last_segment_frames\": %u, \"sample_rate\": %d, "
      "\"lookahead_samples\": %d, \"encoder\": {\"frames_encoded\": %u, "
      "\"periodic\": %s, \"capped\": %s}, "
      "\"playout_delay_ms\": {\"p50\": %.3f, \"p99\": %.3f}, "
      "\"one_way_delay_ms\": {\"p50\": %s, \"p99\": %s}, "
      "\"burst_ratio\": %.4f, "
      "\"damaged_segments\": [", log->n, f->lost, f->late,
      log->n - f->lost - f->late, FRAME_MS, segs->frames, segs->n,
      log->n - (segs->n - 1) * segs->frames, OUT_RATE, packets->lookahead,
      packets->n, packets->periodic ? "true" : "false",
      packets->capped ? "true" : "false",
      percentile (f->playout_delay, log->n, 0.5) / 1e3,
      percentile (f->playout_delay, log->n, 0.99) / 1e3,
      one_way_p50, one_way_p99, unplayed_burst_ratio (f->played, log->n));
  for (guint s = 0; s < segs->n; s++)
    if (segs->damaged[s]) {
      g_string_append_printf (json, first ? "%u" : ", %u", s);
      first = FALSE;
    }
  g_string_append_c (json, ']');
  return json;
}

/* The decoded segments' audio, NAME-segS.wav, and the damaged ones listed
 * in json, which this closes. */
static gboolean
write_segments (GString * json, const FrameLog * log, const Segments * segs,
    const gboolean * played, const char *out_dir, GError ** error)
{
  gboolean ok = TRUE;

  g_string_append (json, ", \"damaged\": [");
  for (guint s = 0, d = 0; s < segs->n && ok; s++) {
    guint first = s * segs->frames;
    guint end = MIN (first + segs->frames, log->n), lost = 0, late = 0;
    g_autofree gchar *wav = NULL;
    g_autofree gchar *wav_path = NULL;

    if (segs->pcm[s] == NULL)
      continue;
    for (guint k = first; k < end; k++) {
      lost += log->arrival_us[k] == LOST;
      late += log->arrival_us[k] != LOST && !played[k];
    }
    wav = g_strdup_printf ("%s-seg%u.wav", log->name, s);
    wav_path = g_build_filename (out_dir, wav, NULL);
    ok = write_wav (wav_path, segs->pcm[s], segs->lens[s], OUT_RATE, error);
    if (!segs->damaged[s])
      continue;
    g_string_append_printf (json, "%s{\"index\": %u, \"frames\": %u, "
        "\"lost\": %u, \"late\": %u, \"file\": ", d++ ? ", " : "", s,
        end - first, lost, late);
    tool_json_append_string (json, wav);
    g_string_append_c (json, '}');
  }
  g_string_append (json, "]}\n");
  return ok;
}

static gboolean
replay_log (const FrameLog * log, const Packets * packets,
    const Reference * ref, PlayoutKind kind, gint64 static_us,
    const char *playout_name, guint warmup, gboolean all_segments,
    const char *out_dir, GString * report, GError ** error)
{
  guint L = ref->loop_frames;
  gboolean *played;
  Segments segs;
  Fates f;
  GString *json;
  gboolean ok = TRUE;
  g_autofree gchar *json_name = g_strdup_printf ("%s.json", log->name);
  g_autofree gchar *json_path = g_build_filename (out_dir, json_name, NULL);

  fates_compute (log, kind, static_us, &f);
  /* Frame n (after the last) is decoded for the lookahead's tail of the
   * last segment: as if played. */
  played = g_new (gboolean, log->n + 1);
  memcpy (played, f.played, log->n * sizeof (gboolean));
  played[log->n] = TRUE;
  segments_mark (&segs, log, packets, played, L, all_segments);
  if (segs.n_damaged > 0 || all_segments)
    ok = decode (packets, played, log->n + 1, L * OUT_FRAME, segs.pcm,
        segs.lens, segs.n, warmup, error);

  json = log_summary_json (log, packets, &f, &segs, playout_name);
  ok = ok && write_segments (json, log, &segs, played, out_dir, error);
  if (ok)
    ok = g_file_set_contents (json_path, json->str, json->len, error);
  if (ok)
    g_string_append_printf (report, "%s: %u frames, %u lost, %u late, "
        "%u of %u segments damaged\n", log->name, log->n, f.lost, f.late,
        segs.n_damaged, segs.n);

  g_string_free (json, TRUE);
  segments_clear (&segs);
  g_free (played);
  fates_clear (&f);
  return ok;
}

/* The codec alone: loop 1 (the encoder past its start) of a call where
 * every frame is played. */
static gboolean
write_clean (const Packets * packets, const Reference * ref,
    const char *out_dir, GError ** error)
{
  guint L = ref->loop_frames, n = 2 * L + 1;
  guint lens[2] = { L * OUT_FRAME, L * OUT_FRAME };
  gint16 *segments[2] = { NULL, g_new0 (gint16, L * OUT_FRAME) };
  gboolean *played = g_new (gboolean, n);
  g_autofree gchar *path = g_build_filename (out_dir, "clean.wav", NULL);
  gboolean ok;

  for (guint k = 0; k < n; k++)
    played[k] = TRUE;
  ok = decode (packets, played, n, L * OUT_FRAME, segments, lens, 2,
      G_MAXUINT, error)
      && write_wav (path, segments[1], lens[1], OUT_RATE, error);
  g_free (segments[1]);
  g_free (played);
  return ok;
}

static gboolean
parse_playout (const char *s, PlayoutKind * kind, gint64 * static_us)
{
  if (strcmp (s, "adaptive") == 0) {
    *kind = PLAYOUT_ADAPTIVE;
  } else if (strcmp (s, "ideal") == 0) {
    *kind = PLAYOUT_IDEAL;
  } else if (g_str_has_prefix (s, "static:")) {
    *kind = PLAYOUT_STATIC;
    if (!frame_log_parse_ms (s + 7, static_us) || *static_us < 0)
      return FALSE;
  } else {
    return FALSE;
  }
  return TRUE;
}

typedef struct
{
  gchar *reference_path, *out_dir, *playout;
  gboolean clean, full_decode, all_segments;
  gchar **paths;
  PlayoutKind kind;
  gint64 static_us;
} Options;

static void
options_clear (Options * o)
{
  g_free (o->reference_path);
  g_free (o->out_dir);
  g_free (o->playout);
  g_strfreev (o->paths);
}

/* 0, or the exit status. */
static int
parse_options (Options * o, int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) context = NULL;
  GOptionEntry entries[] = {
    {"reference", 'r', 0, G_OPTION_ARG_FILENAME, &o->reference_path,
        "reference speech: WAV, 16-bit PCM mono at 8, 16 or 48 kHz "
          "(" DEFAULT_REFERENCE ")", "FILE"},
    {"out-dir", 'o', 0, G_OPTION_ARG_FILENAME, &o->out_dir,
        "where the summaries and the damaged segments go (created)", "DIR"},
    {"playout", 'p', 0, G_OPTION_ARG_STRING, &o->playout,
        "adaptive (lib/playout, the default), ideal (the call's own p99) "
          "or static:MS", "POLICY"},
    {"clean", 0, 0, G_OPTION_ARG_NONE, &o->clean,
        "also write clean.wav: one loop through the codec alone", NULL},
    {"full-decode", 0, 0, G_OPTION_ARG_NONE, &o->full_decode,
        "decode each call whole, from its first frame (slower; the default "
          "starts the decoder 1 s before each damaged segment)", NULL},
    {"all-segments", 0, 0, G_OPTION_ARG_NONE, &o->all_segments,
        "write the clean segments' audio too (to check the shortcut)", NULL},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->paths, NULL,
        NULL},
    G_OPTION_ENTRY_NULL
  };

  context = g_option_context_new ("[LOG.csv|DIR...] - replay frame logs "
      "through Opus for offline voice quality");
  g_option_context_set_description (context,
      "Per LOG (donar-sim --frame-log's callN-dirD.csv), writes DIR/NAME.json "
      "(frames, lost, late, played,\ndamaged segments, delays) and "
      "DIR/NAME-segS.wav for each damaged segment S (one loop of\nthe "
      "reference, 16 kHz, aligned on it).  Always writes DIR/reference.wav "
      "(one loop of the\nreference, padded to whole frames, at its own rate)."
      "  docs/quality.md.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error)) {
    fprintf (stderr, "donar-quality-replay: %s\n", error->message);
    return 2;
  }
  o->kind = PLAYOUT_ADAPTIVE;
  if (o->out_dir == NULL || (o->paths == NULL && !o->clean) ||
      !parse_playout (o->playout ? o->playout : "adaptive", &o->kind,
          &o->static_us)) {
    fprintf (stderr, "donar-quality-replay: give --out-dir DIR and frame "
        "logs (or --clean); --playout is adaptive, ideal or static:MS "
        "(MS >= 0)\n");
    return 2;
  }
  return 0;
}

/* The logs given, their names told apart, and the output directory made. */
static GPtrArray *
load_logs (const Options * o, GError ** error)
{
  GPtrArray *logs =
      g_ptr_array_new_with_free_func ((GDestroyNotify) frame_log_free);
  GHashTable *names = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; o->paths && o->paths[i] && *error == NULL; i++)
    frame_log_add_path (logs, o->paths[i], error);
  for (guint i = 0; i < logs->len && *error == NULL; i++) {
    const FrameLog *log = g_ptr_array_index (logs, i);
    const FrameLog *other = g_hash_table_lookup (names, log->name);

    if (other)
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
          "%s and %s have the same name: their outputs would collide "
          "(one run per directory)", other->path, log->path);
    g_hash_table_insert (names, log->name, (gpointer) log);
  }
  if (*error == NULL && g_mkdir_with_parents (o->out_dir, 0755) != 0)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "%s: %s", o->out_dir, g_strerror (errno));
  g_hash_table_destroy (names);
  return logs;
}

/* Encodes the reference, then writes reference.wav, clean.wav and each
 * log's summary and segments; the report a line a log. */
static void
replay_logs (const Options * o, GPtrArray * logs, const Reference * ref,
    Packets * packets, GString * report, GError ** error)
{
  /* Encode once, as far as the longest call (and the clean loops) need,
   * one frame more for the lookahead's tail. */
  guint n_frames = o->clean ? 2 * ref->loop_frames + 1 : 0;

  for (guint i = 0; i < logs->len; i++)
    n_frames = MAX (n_frames,
        ((FrameLog *) g_ptr_array_index (logs, i))->n + 1);
  if (*error == NULL)
    encode (ref, n_frames, packets, error);

  if (*error == NULL) {
    g_autofree gchar *path = g_build_filename (o->out_dir, "reference.wav",
        NULL);

    write_wav (path, ref->pcm, ref->loop_frames * ref->frame, ref->rate, error);
  }
  if (*error == NULL && o->clean)
    write_clean (packets, ref, o->out_dir, error);
  for (guint i = 0; i < logs->len && *error == NULL; i++)
    replay_log (g_ptr_array_index (logs, i), packets, ref, o->kind,
        o->static_us, o->playout ? o->playout : "adaptive",
        o->full_decode ? G_MAXUINT : WARMUP_FRAMES, o->all_segments,
        o->out_dir, report, error);
}

int
main (int argc, char **argv)
{
  Options o = { 0 };
  g_autoptr (GError) error = NULL;
  GPtrArray *logs;
  Reference ref = { 0 };
  Packets packets = { 0 };
  GString *report;
  int status = parse_options (&o, argc, argv);

  if (status != 0)
    goto out;
  if (!reference_load (o.reference_path ? o.reference_path :
          DEFAULT_REFERENCE, &ref, &error)) {
    fprintf (stderr, "donar-quality-replay: %s\n", error->message);
    status = 1;
    goto out;
  }
  logs = load_logs (&o, &error);
  report = g_string_new (NULL);
  replay_logs (&o, logs, &ref, &packets, report, &error);
  if (error != NULL) {
    fprintf (stderr, "donar-quality-replay: %s\n", error->message);
    status = 1;
  } else {
    fputs (report->str, stdout);
  }
  g_string_free (report, TRUE);
  g_ptr_array_free (logs, TRUE);
  g_free (packets.data);
  g_free (packets.offset);
  g_free (ref.pcm);
out:
  options_clear (&o);
  return status;
}
