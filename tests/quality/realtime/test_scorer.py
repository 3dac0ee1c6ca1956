"""quality-scorer: tools/quality/qscore.py on files whose score is known.

- the reference against itself scores near PESQ's maximum (WB 4.64,
  NB 4.55 for speech_orig_16k.wav);
- the reference with 10 % of its 40-ms frames removed (zeroed, seed 1)
  scores clearly lower;
- a copy delayed by 250 ms, at 48 kHz stereo (what opusdec and wavenc
  write), whose delay grows by 60 ms at 4.4 s (a jitter buffer growing
  inserts a gap), is aligned per segment and scores near the maximum;
- the E-model (ITU-T G.107): R = 93.2 with every default, Id = 0 below
  100 ms of delay, R falling with delay, loss and burstiness.

Usage: test_scorer.py TOP_SOURCE_DIR (build-venv's python3)."""
import os
import subprocess
import sys
import tempfile

import numpy as np

top = sys.argv[1]
sys.path.insert(0, os.path.join(top, "tools", "quality"))
import qscore  # noqa: E402

failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + (f"  ({detail})" if detail else ""))
    if not ok:
        failures.append(name)


tmp = tempfile.mkdtemp(prefix="quality-scorer.")
reference = "/usr/share/codec2/raw/speech_orig_16k.wav"
if not os.path.exists(reference):
    print("# codec2-examples missing: espeak-ng speech", file=sys.stderr)
    reference = os.path.join(tmp, "espeak.wav")
    subprocess.run(["espeak-ng", "-w", reference,
                    "The quick brown fox jumps over the lazy dog. Please call "
                    "me back tomorrow morning at half past nine."], check=True)
sent = os.path.join(tmp, "sent.wav")
x = qscore.prepare_reference(reference, 10, sent)
check("prepare: 10 s at 16 kHz", len(x) == 160000, len(x))

# The reference against itself.
same = qscore.score_call(sent, sent)
check("itself: PESQ WB > 4.5", same["pesq_wb"] > 4.5, same["pesq_wb"])
check("itself: PESQ NB > 4.4", same["pesq_nb"] > 4.4, same["pesq_nb"])

# 10 % of the frames removed, by a fixed seed.
degraded = os.path.join(tmp, "degraded.wav")
qscore.write_wav(degraded, qscore.degrade(x, 16000, 0.10, seed=1), 16000)
deg = qscore.score_call(sent, degraded)
check("10 % of frames removed: PESQ WB < 3.0, 1.5 below itself",
      deg["pesq_wb"] < 3.0 and deg["pesq_wb"] < same["pesq_wb"] - 1.5,
      deg["pesq_wb"])
check("10 % of frames removed: PESQ NB < 3.2", deg["pesq_nb"] < 3.2,
      deg["pesq_nb"])
light = qscore.score_audio(x, 16000, qscore.degrade(x, 16000, 0.02, seed=1),
                           16000)
check("2 % removed scores between 10 % and none",
      deg["pesq_wb"] < light["pesq_wb"] < same["pesq_wb"], light["pesq_wb"])

# Delayed, then a step of the delay: at 48 kHz stereo.
up = qscore.resample(x, 16000, 48000)
half = int(4.4 * 48000)  # not on a segment boundary
moved = np.concatenate([np.zeros(int(0.250 * 48000)), up[:half],
                        np.zeros(int(0.060 * 48000)), up[half:],
                        np.zeros(48000)])
received = os.path.join(tmp, "received.wav")
from scipy.io import wavfile  # noqa: E402
stereo = np.stack([moved, moved], axis=1)
wavfile.write(received, 48000, np.round(stereo * 32767).astype(np.int16))
al = qscore.score_call(sent, received)
lags = al["alignment_ms"]
check("alignment: 250 ms first", abs(lags[0] - 250) <= 2, lags)
check("alignment: 310 ms last", abs(lags[-1] - 310) <= 2, lags)
check("aligned: PESQ WB > 4.0", al["pesq_wb"] > 4.0, al["pesq_wb"])

# The E-model.
r0 = qscore.e_model_parts(0, 0)
check("G.107 defaults: R = 93.2", abs(r0["R"] - 93.2) < 0.1, round(r0["R"], 2))
check("Idd = 0 up to 100 ms", qscore.e_model_parts(100, 0)["Idd"] == 0)
rs = [qscore.r_factor(d, 0) for d in (50, 150, 250, 400)]
check("R falls with delay", all(a > b for a, b in zip(rs, rs[1:])), rs)
check("R falls with loss", qscore.r_factor(150, 1) > qscore.r_factor(150, 3))
check("bursty loss is worse",
      qscore.r_factor(150, 2, burst_r=1) > qscore.r_factor(150, 2, burst_r=3))
check("Ie,eff = Ie + (95 - Ie) Ppl / (Ppl / BurstR + Bpl)",
      abs(qscore.e_model_parts(0, 2, ie=10, bpl=20, burst_r=2)["Ie_eff"]
          - (10 + 85 * 2 / (1 + 20))) < 1e-9)
check("BurstR: random 1, one burst more",
      qscore.burst_ratio([False] * 9 + [True]) == 1.0 * 0.9 and
      qscore.burst_ratio([True] * 5 + [False] * 95) > 4)

sys.exit(1 if failures else 0)
