"""Voice quality of a call: PESQ and the E-model (docs/quality.md).

Importable (tools/evaluate.py uses it) and a command line:

    qscore.py prepare REFERENCE SECONDS OUT.wav
        the speech to send: REFERENCE (any WAV) as 16-kHz mono, looped or
        cut to SECONDS
    qscore.py score --reference SENT.wav --received HEARD.wav
                    [--call CALL.json] [--frame-log FRAMES.csv] [--json]
        PESQ WB (ITU-T P.862.2) and NB (P.862, MOS-LQO of P.862.1) of what
        the callee played against what the caller sent, aligned here
        first; with the call's summary (donar-demo --json), its delay and
        loss figures and the E-model rating R (ITU-T G.107)
    qscore.py rate --delay MS --loss PERCENT [--burst-ratio B]
        the E-model rating R alone
    qscore.py degrade IN.wav OUT.wav --ratio R --seed N
        IN with 40-ms frames removed (zeroed) at random: a known degraded
        file for the scorer's tests

Runs as build-venv/bin/python3 (numpy, scipy from Debian; pesq 0.0.4 from
PyPI; scripts/setup.sh makes it).
"""

import argparse
import json
import math
import os
import struct
import sys
from math import gcd

import numpy as np
from scipy.io import wavfile
from scipy.signal import correlate, resample_poly

# The frame logs' one reader (tools/framelog/frame_log.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "framelog"))
from frame_log import read_frame_log  # noqa: E402

WB_RATE = 16000
NB_RATE = 8000

# ---------------------------------------------------------------- audio I/O


def _read_wav_raw(path):
    """A RIFF/WAVE file whose sizes may be wrong (a recording not closed
    by EOS has 0 or junk there): PCM 8/16/32-bit or float 32, the data
    chunk read to the end of the file."""
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:4] != b"RIFF" or blob[8:12] != b"WAVE":
        raise ValueError(f"{path}: not a RIFF/WAVE file")
    pos, fmt = 12, None
    while pos + 8 <= len(blob):
        cid, size = blob[pos:pos + 4], struct.unpack("<I", blob[pos + 4:pos + 8])[0]
        body = pos + 8
        if cid == b"fmt ":
            fmt = struct.unpack("<HHIIHH", blob[body:body + 16])
        elif cid == b"data":
            if fmt is None:
                raise ValueError(f"{path}: data before fmt")
            tag, channels, rate, _, _, bits = fmt
            end = len(blob) if size in (0, 0xFFFFFFFF) or body + size > len(blob) \
                else body + size
            raw = blob[body:end]
            if tag == 3 and bits == 32:
                dtype = np.float32
            elif bits == 8:
                dtype = np.uint8
            elif bits == 16:
                dtype = np.int16
            elif bits == 32:
                dtype = np.int32
            else:
                raise ValueError(f"{path}: {bits}-bit samples not supported")
            width = np.dtype(dtype).itemsize * channels
            raw = raw[:len(raw) - len(raw) % width]
            data = np.frombuffer(raw, dtype=dtype)
            return rate, data.reshape(-1, channels) if channels > 1 else data
        pos = body + size + (size & 1)
    raise ValueError(f"{path}: no data chunk")


def to_float(data):
    """Samples of any integer or float type as float64 in [-1, 1]."""
    if data.dtype == np.uint8:
        return (data.astype(np.float64) - 128.0) / 128.0
    if np.issubdtype(data.dtype, np.integer):
        return data.astype(np.float64) / float(-np.iinfo(data.dtype).min)
    return data.astype(np.float64)


def read_wav(path):
    """(samples, rate): mono float64 (channels averaged), any WAV."""
    try:
        rate, data = wavfile.read(path)
    except (ValueError, EOFError):
        rate, data = _read_wav_raw(path)
    x = to_float(np.asarray(data))
    if x.ndim > 1:
        x = x.mean(axis=1)
    return x, int(rate)


def write_wav(path, x, rate):
    """Mono 16-bit PCM."""
    pcm = np.clip(np.round(np.asarray(x) * 32767.0), -32768, 32767)
    wavfile.write(path, rate, pcm.astype(np.int16))


def resample(x, rate, to_rate):
    if rate == to_rate:
        return np.asarray(x, dtype=np.float64)
    g = gcd(int(rate), int(to_rate))
    return resample_poly(x, to_rate // g, rate // g)


def fit_length(x, n):
    """x looped (or cut) to n samples."""
    if len(x) == 0:
        raise ValueError("empty signal")
    reps = -(-n // len(x))
    return np.tile(x, reps)[:n]


def prepare_reference(path, seconds, out, rate=WB_RATE):
    """The speech to send: `path` at `rate`, mono, looped or cut to
    `seconds`, written to `out`.  Returns the samples."""
    x, r = read_wav(path)
    x = fit_length(resample(x, r, rate), int(round(seconds * rate)))
    write_wav(out, x, rate)
    return x


def degrade(x, rate, ratio, seed, frame_ms=40):
    """x with a share `ratio` of its frames of `frame_ms` zeroed, chosen by
    a fixed seed: frames lost with no concealment."""
    y = np.array(x, dtype=np.float64)
    n = int(rate * frame_ms / 1000)
    frames = len(y) // n
    rng = np.random.default_rng(seed)
    for f in np.flatnonzero(rng.random(frames) < ratio):
        y[f * n:(f + 1) * n] = 0.0
    return y

# ---------------------------------------------------------------- alignment


def _best_lag(ref, deg, lo, hi):
    """The lag L in [lo, hi] (samples) that maximises the correlation of
    ref[i] with deg[i + L]; (L, normalised correlation)."""
    start = max(0, lo)
    stop = min(len(deg), len(ref) + hi)
    if stop - start < len(ref) // 4 or not np.any(ref):
        return None, 0.0
    window = deg[start:stop]
    # c[k] = sum ref[i] * window[i + k - (len(ref) - 1)]
    c = correlate(window, ref, mode="full", method="fft")
    lags = np.arange(len(c)) - (len(ref) - 1) + start
    keep = (lags >= lo) & (lags <= hi)
    if not np.any(keep):
        return None, 0.0
    c, lags = c[keep], lags[keep]
    k = int(np.argmax(c))
    lag = int(lags[k])
    seg = deg[max(0, lag):max(0, lag) + len(ref)]
    norm = np.sqrt(np.sum(ref ** 2) * max(np.sum(seg ** 2), 1e-20))
    return lag, float(c[k] / norm)


def _shifted(deg, lag, a, b):
    """deg[a + lag : b + lag], zeros outside deg."""
    out = np.zeros(b - a)
    lo, hi = max(0, a + lag), min(len(deg), b + lag)
    if hi > lo:
        out[lo - a - lag:hi - a - lag] = deg[lo:hi]
    return out


def _cut(ref, deg, a, b, lag_a, lag_b):
    """Where in [a, b) the delay steps from lag_a to lag_b: the t that
    best matches ref[a:t] with lag_a and ref[t:b] with lag_b."""
    piece = ref[a:b]
    ca = np.concatenate([[0.0], np.cumsum(piece * _shifted(deg, lag_a, a, b))])
    cb = np.concatenate([[0.0], np.cumsum(piece * _shifted(deg, lag_b, a, b))])
    return a + int(np.argmax(ca + (cb[-1] - cb)))


def align(ref, deg, rate, segment_s=1.0, search_s=0.3, max_delay_s=5.0):
    """What the callee played (`deg`) aligned to the reference (`ref`).

    The received recording starts when the first frame is decoded and
    the adaptive jitter buffer moves the playout during the call
    (growing inserts a gap, shrinking drops audio), so the delay is not
    one number: a coarse lag over the whole call first (within
    `max_delay_s`), then per segment of `segment_s` of the reference the
    best lag within `search_s` of the previous one, or within
    `max_delay_s` if that matches poorly (a segment too quiet to
    correlate keeps the previous lag); where the lag changes between two segments,
    the step is placed at the sample that best matches both sides.
    Returns (aligned, lags_ms): `aligned` has the reference's length
    (zeros where nothing was received), `lags_ms` one lag per segment."""
    ref = np.asarray(ref, dtype=np.float64)
    deg = np.asarray(deg, dtype=np.float64)
    max_lag = int(max_delay_s * rate)
    coarse, _ = _best_lag(ref, deg, -max_lag, max_lag)
    if coarse is None:
        coarse = 0
    seg = int(segment_s * rate)
    search = int(search_s * rate)
    energy = np.mean(ref ** 2) if len(ref) else 0.0
    pieces = []                 # [a, b, lag]
    lag = coarse
    for a in range(0, len(ref), seg):
        b = min(len(ref), a + seg)
        piece = ref[a:b]
        if b - a >= rate // 4 and np.mean(piece ** 2) > 0.05 * energy:
            # Near the previous lag first; anywhere within max_delay_s if
            # that does not match well (a stall moves the playout by
            # seconds).
            found, corr = _best_lag(piece, deg, a + lag - search,
                                    a + lag + search)
            if found is None or corr < 0.7:
                far, far_corr = _best_lag(piece, deg, a - max_lag,
                                          a + max_lag)
                if far is not None and far_corr > max(corr, 0.5):
                    found, corr = far, far_corr
            if found is not None and corr > 0.2:
                lag = found - a
        pieces.append([a, b, lag])
    lags = [1000.0 * p[2] / rate for p in pieces]
    # Each step of the lag, placed within the two segments around it.
    for k in range(1, len(pieces)):
        prev, cur = pieces[k - 1], pieces[k]
        if prev[2] != cur[2]:
            t = _cut(ref, deg, prev[0], cur[1], prev[2], cur[2])
            t = min(max(t, prev[0]), cur[1])
            prev[1], cur[0] = t, t
    out = np.zeros_like(ref)
    for a, b, lag in pieces:
        if b > a:
            out[a:b] = _shifted(deg, lag, a, b)
    return out, lags

# --------------------------------------------------------------------- PESQ


def _segments(n, rate, target_s=9.0):
    """[a, b) pieces of about `target_s` (8 to 10 s for the usual calls):
    P.862 is specified for 8 to 12-s samples."""
    count = max(1, int(round(n / (target_s * rate))))
    bounds = np.linspace(0, n, count + 1).astype(int)
    return list(zip(bounds[:-1], bounds[1:]))


def pesq_score(ref, deg, rate, mode):
    """PESQ of `deg` against `ref` (same rate, same length, aligned):
    mode 'wb' (P.862.2, at 16 kHz) or 'nb' (P.862 with P.862.1's mapping,
    at 8 kHz).  Long signals are scored in pieces of about 9 s and the
    scores averaged.  None if PESQ finds no speech."""
    from pesq import pesq, PesqError
    to = WB_RATE if mode == "wb" else NB_RATE
    r = resample(ref, rate, to)
    d = resample(deg, rate, to)
    n = min(len(r), len(d))
    scores = []
    for a, b in _segments(n, to):
        try:
            scores.append(pesq(to, r[a:b].astype(np.float32),
                               d[a:b].astype(np.float32), mode))
        except (PesqError, ValueError):
            # No utterance found, or (pesq 0.0.4) a NaN inside on silence.
            pass
    return float(np.mean(scores)) if scores else None


def score_audio(ref, ref_rate, deg, deg_rate):
    """Both PESQ scores of a received signal against the reference, after
    alignment at 16 kHz.  A dict: pesq_wb, pesq_nb, alignment lags."""
    r = resample(ref, ref_rate, WB_RATE)
    d = resample(deg, deg_rate, WB_RATE)
    aligned, lags = align(r, d, WB_RATE)
    return {
        "pesq_wb": pesq_score(r, aligned, WB_RATE, "wb"),
        "pesq_nb": pesq_score(r, aligned, WB_RATE, "nb"),
        "alignment_ms": [round(x, 1) for x in lags],
    }

# ------------------------------------------------------------ the E-model
#
# ITU-T G.107 (06/2015), the E-model: R = Ro - Is - Id - Ie,eff + A, every
# parameter at its default (Table 1 of G.107: SLR 8, RLR 2, STMR 15,
# LSTR 18, Ds = Dr = 3, TELR 65 dB, WEPL 110, qdu 1, Nc -70 dBm0p,
# Nfor -64 dBmp, Ps = Pr = 35 dB(A), A 0) except the delays and the
# equipment impairment.  The echo-path delays follow the one-way delay
# as for a call without other echo sources: T = Ta, Tr = 2 Ta.
#
# Ie and Bpl for Opus: G.113 Appendix I has no entry for Opus, so these
# are ASSUMPTIONS, not ITU values:
# - Ie = 0: Opus at 32 kbit/s in its wideband voice mode is, on the
#   narrowband scale of G.107, at least as good as G.711 (Ie 0); our
#   own --direct calls score PESQ-NB about 4.3 for it, near what G.711
#   scores.
# - Bpl = 20: Opus's decoder conceals a lost frame by extrapolation
#   (opusdec plc=true), like G.729A's (Bpl 19.0 in G.113) and G.711 with
#   the PLC of G.711 Appendix I (25.1); a 40-ms frame is a longer gap
#   than those codecs' 10 or 20-ms packets, so we take the lower end of
#   that range.  Without FEC (in-band FEC is off in these calls).
# Both are parameters (--ie, --bpl); G.107's R only ranks calls here.

OPUS_IE = 0.0
OPUS_BPL = 20.0


def _g107_defaults():
    return dict(SLR=8.0, RLR=2.0, STMR=15.0, LSTR=18.0, Ds=3.0, Dr=3.0,
                TELR=65.0, WEPL=110.0, qdu=1.0, Nc=-70.0, Nfor=-64.0,
                Ps=35.0, Pr=35.0, A=0.0)


def _log10(x):
    return math.log10(x)


def e_model_parts(ta_ms, ppl_percent, ie=OPUS_IE, bpl=OPUS_BPL,
                  burst_r=1.0, t_ms=None, tr_ms=None):
    """G.107's R and its terms: a dict (R, Ro, Is, Idte, Idle, Idd, Id,
    Ie_eff).  ta_ms: absolute one-way (mouth-to-ear) delay; ppl_percent:
    packets lost or too late to play, in %; burst_r: G.107's BurstR
    (1: random loss)."""
    p = _g107_defaults()
    T = ta_ms if t_ms is None else t_ms
    Tr = 2.0 * ta_ms if tr_ms is None else tr_ms
    Ta = ta_ms
    SLR, RLR, STMR, LSTR = p["SLR"], p["RLR"], p["STMR"], p["LSTR"]
    Ds, TELR, WEPL = p["Ds"], p["TELR"], p["WEPL"]

    # Basic signal-to-noise ratio, Ro.
    OLR = SLR + RLR
    Nfo = p["Nfor"] + RLR
    Pre = p["Pr"] + 10 * _log10(1 + 10 ** ((10 - LSTR) / 10))
    Nor = RLR - 121 + Pre + 0.008 * (Pre - 35) ** 2
    Nos = p["Ps"] - SLR - Ds - 100 + 0.004 * (p["Ps"] - OLR - Ds - 14) ** 2
    No = 10 * _log10(10 ** (p["Nc"] / 10) + 10 ** (Nos / 10)
                     + 10 ** (Nor / 10) + 10 ** (Nfo / 10))
    Ro = 15 - 1.5 * (SLR + No)

    # Simultaneous impairments, Is = Iolr + Ist + Iq.
    Xolr = OLR + 0.2 * (64 + No - RLR)
    Iolr = 20 * ((1 + (Xolr / 8) ** 8) ** (1 / 8) - Xolr / 8)
    STMRo = -10 * _log10(10 ** (-STMR / 10)
                         + math.exp(-T / 4) * 10 ** (-TELR / 10))
    Ist = (12 * (1 + ((STMRo - 13) / 6) ** 8) ** (1 / 8)
           - 28 * (1 + ((STMRo + 1) / 19.4) ** 35) ** (1 / 35)
           - 13 * (1 + ((STMRo - 3) / 33) ** 13) ** (1 / 13) + 29)
    Q = 37 - 15 * _log10(p["qdu"])
    G = 1.07 + 0.258 * Q + 0.0602 * Q ** 2
    Z = 46 / 30 - G / 40
    Y = (Ro - 100) / 15 + 46 / 8.4 - G / 9
    Iq = 15 * _log10(1 + 10 ** Y + 10 ** Z)
    Is = Iolr + Ist + Iq

    # Delay impairments, Id = Idte + Idle + Idd.
    TERV = TELR - 40 * _log10((1 + T / 10) / (1 + T / 150)) \
        + 6 * math.exp(-0.3 * T ** 2)
    Roe = -1.5 * (No - RLR)
    Re = 80 + 2.5 * (TERV - 14)
    Idte = ((Roe - Re) / 2 + math.sqrt((Roe - Re) ** 2 / 4 + 100) - 1) \
        * (1 - math.exp(-T))
    Rle = 10.5 * (WEPL + 7) * (Tr + 1) ** (-0.25)
    Idle = (Ro - Rle) / 2 + math.sqrt((Ro - Rle) ** 2 / 4 + 169)
    if Ta <= 100:
        Idd = 0.0
    else:
        X = _log10(Ta / 100) / _log10(2)
        Idd = 25 * ((1 + X ** 6) ** (1 / 6) - 3 * (1 + (X / 3) ** 6) ** (1 / 6)
                    + 2)
    Id = Idte + Idle + Idd

    # Equipment impairment with packet loss, Ie,eff.
    Ie_eff = ie + (95 - ie) * ppl_percent / (ppl_percent / burst_r + bpl)
    # With BurstR > 1 the formula passes 95, what total random loss
    # gives; held there (a call that bad is unusable either way).
    Ie_eff = min(Ie_eff, 95.0)

    R = Ro - Is - Id - Ie_eff + p["A"]
    return dict(R=R, Ro=Ro, Is=Is, Idte=Idte, Idle=Idle, Idd=Idd, Id=Id,
                Ie_eff=Ie_eff)


def r_factor(ta_ms, ppl_percent, ie=OPUS_IE, bpl=OPUS_BPL, burst_r=1.0):
    """G.107's transmission rating R (93.2 with no delay and no loss)."""
    return e_model_parts(ta_ms, ppl_percent, ie, bpl, burst_r)["R"]


def r_to_mos(r):
    """G.107 Annex B: the estimated MOS (conversational quality) of R."""
    if r < 0:
        return 1.0
    if r > 100:
        return 4.5
    return 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6


def burst_ratio(lost):
    """G.107's BurstR from a sequence of booleans (True: lost): the mean
    length of the loss bursts over that of random loss at the same rate,
    1 / (1 - p).  1 without loss."""
    lost = np.asarray(lost, dtype=bool)
    n_lost = int(lost.sum())
    if n_lost == 0 or n_lost == len(lost):
        return 1.0
    bursts = int(np.sum(lost[1:] & ~lost[:-1]) + lost[0])
    mean_burst = n_lost / bursts
    p = n_lost / len(lost)
    return mean_burst * (1 - p)


# ------------------------------------------------------------------ a call


def score_call(reference, received, call=None, frame_log=None,
               ie=OPUS_IE, bpl=OPUS_BPL):
    """The figures of one call: PESQ WB and NB of `received` (a WAV path)
    against `reference` (the WAV sent); with `call` (donar-demo's JSON
    summary, a dict) its delay and loss and the E-model R; with
    `frame_log` (a path) the burstiness of the loss."""
    ref, ref_rate = read_wav(reference)
    deg, deg_rate = read_wav(received)
    out = score_audio(ref, ref_rate, deg, deg_rate)
    if call is None:
        return {"pesq_wb": out["pesq_wb"], "pesq_nb": out["pesq_nb"],
                "alignment_ms": out["alignment_ms"]}
    sent = max(1, call["frames_sent"])
    loss = call["frames_lost"] / sent
    late = call["frames_late"] / sent
    burst = 1.0
    if frame_log:
        burst = burst_ratio([a is None for _, _, a in read_frame_log(frame_log)])
    # Mouth to ear: the fastest frames' one-way delay (capture to arrival,
    # with the 40-ms frame and the encoder) plus the jitter buffer's mean
    # playout target above them.
    ta = call.get("mouth_to_ear_ms")
    if ta is None:
        ta = call["latency_ms"]["p99"]
    ppl = 100.0 * min(1.0, loss + late)
    r = r_factor(ta, ppl, ie, bpl, burst)
    result = {
        "mode": call.get("mode", "donar"),
        "policy": call.get("policy"),
        "security": call.get("security"),
        "seconds": call.get("seconds"),
        "pesq_wb": out["pesq_wb"],
        "pesq_nb": out["pesq_nb"],
        "latency_ms": {"p50": call["latency_ms"]["p50"],
                       "p99": call["latency_ms"]["p99"]},
        "late_ratio": round(late, 4),
        "loss_ratio": round(loss, 4),
        "r_factor": round(r, 1),
        "mos_cqe": round(r_to_mos(r), 2),
        "mouth_to_ear_ms": round(ta, 1),
        "burst_ratio": round(burst, 2),
        "frames_sent": call["frames_sent"],
        "frames_lost": call["frames_lost"],
        "frames_late": call["frames_late"],
        "jitterbuffer_latency_ms": call.get("jitterbuffer_latency_ms"),
        "links_up": call.get("links_up"),
        # donarjitterbuffer's own estimate during the call (its
        # donar-quality messages, donar-demo's summary), beside PESQ.
        "live_quality": call.get("live_quality"),
        "alignment_ms": out["alignment_ms"],
    }
    return result


def _fmt(x, spec):
    return "n/a" if x is None else format(x, spec)


def print_summary(r, file=sys.stdout):
    print(f"PESQ WB (P.862.2)   {_fmt(r['pesq_wb'], '.2f')}", file=file)
    print(f"PESQ NB (P.862)     {_fmt(r['pesq_nb'], '.2f')}", file=file)
    if "r_factor" in r:
        print(f"one-way latency     p50 {r['latency_ms']['p50']:.1f} ms, "
              f"p99 {r['latency_ms']['p99']:.1f} ms", file=file)
        print(f"mouth to ear        {r['mouth_to_ear_ms']:.1f} ms", file=file)
        print(f"lost frames         {r['loss_ratio'] * 100:.2f} % "
              f"({r['frames_lost']} of {r['frames_sent']})", file=file)
        print(f"late frames         {r['late_ratio'] * 100:.2f} % "
              f"({r['frames_late']})", file=file)
        print(f"E-model R (G.107)   {r['r_factor']:.1f} "
              f"(MOS-CQE {r['mos_cqe']:.2f}; Opus Ie {OPUS_IE:g}, "
              f"Bpl {OPUS_BPL:g} assumed)", file=file)
    print("alignment (ms)      " + " ".join(f"{x:.0f}" for x in r["alignment_ms"]),
          file=file)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="the speech to send")
    p.add_argument("reference")
    p.add_argument("seconds", type=float)
    p.add_argument("out")
    s = sub.add_parser("score", help="score a received recording")
    s.add_argument("--reference", required=True)
    s.add_argument("--received", required=True)
    s.add_argument("--call", help="donar-demo's JSON summary (a file)")
    s.add_argument("--frame-log")
    s.add_argument("--seed", type=int, help="recorded in the result only")
    s.add_argument("--ie", type=float, default=OPUS_IE)
    s.add_argument("--bpl", type=float, default=OPUS_BPL)
    s.add_argument("--json", action="store_true")
    r = sub.add_parser("rate", help="the E-model R")
    r.add_argument("--delay", type=float, required=True, help="ms, one way")
    r.add_argument("--loss", type=float, required=True, help="percent")
    r.add_argument("--burst-ratio", type=float, default=1.0)
    r.add_argument("--ie", type=float, default=OPUS_IE)
    r.add_argument("--bpl", type=float, default=OPUS_BPL)
    d = sub.add_parser("degrade", help="remove frames at random")
    d.add_argument("input")
    d.add_argument("output")
    d.add_argument("--ratio", type=float, required=True)
    d.add_argument("--seed", type=int, required=True)
    d.add_argument("--frame-ms", type=float, default=40)
    a = ap.parse_args(argv)

    if a.cmd == "prepare":
        prepare_reference(a.reference, a.seconds, a.out)
    elif a.cmd == "degrade":
        x, rate = read_wav(a.input)
        write_wav(a.output, degrade(x, rate, a.ratio, a.seed, a.frame_ms),
                  rate)
    elif a.cmd == "rate":
        parts = e_model_parts(a.delay, a.loss, a.ie, a.bpl, a.burst_ratio)
        print(json.dumps({k: round(v, 2) for k, v in parts.items()}))
    else:
        call = None
        if a.call:
            with open(a.call) as f:
                call = json.load(f)
        result = score_call(a.reference, a.received, call, a.frame_log,
                            a.ie, a.bpl)
        if a.seed is not None:
            result["seed"] = a.seed
        if a.json:
            print(json.dumps(result))
        else:
            print_summary(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
