#!/usr/bin/python3
"""The echo canceller of pipelines/softphone.py (suite elements, test
echo-cancel; issue 36): the echo return loss enhancement (ERLE) of a call
with --echo-cancel and of the same call with --no-echo-cancel.

With speakers and a microphone, each end of a call would hear itself back
a round trip late: what it says, played at the other end, comes back
through that end's microphone.  There is no sound card here, so the echo
path is built in GStreamer, at one end (softphone.py --echo-path, the
callee here, the near end): what it plays (after the canceller's probe,
webrtcechoprobe) comes back times 0.5, 20 ms after its time to play (the
pipeline's latency after its timestamp), added by audiomixer to its input
(the near-end talker) before the echo canceller (webrtcdsp):

    far end (caller):  speech.wav ---------------------> call --> near end plays it
    near end (callee): near.wav + 0.5 x what it plays --> [webrtcdsp] --> call
                                                           --> far.wav at the far end

The far end sends speech (Debian's codec2 sample speech_orig_16k.wav, 10.8
s, looped); the near-end talker is silent for NEAR_SILENCE s, then a 440-Hz
tone.  The near end writes what goes into its canceller (--mic-output: the
echo alone while the near end is silent), the far end what it hears (its
--output, far.wav: what is left of the echo after the canceller, and Opus).

    ERLE = 10 log10 (power of the echo at the canceller's input /
                     power of what the far end hears of it)

over WINDOW s of far-end talk only (the near end silent), SKIP s after the
echo began (the canceller's convergence).  The two recordings are of two
processes and are not aligned to the sample, nor need to be: the far end's
speech is a loop of one period and WINDOW is that period, so that the mean
power over a window is the same wherever the window starts.  Then, once
the near-end tone has begun (both ends talk), the tone must still reach
the far end: its power at 440 Hz with the canceller on, against the call
without it, may fall by DOUBLE_TALK_LOSS_DB at most (a canceller that
muted the near end would have a large ERLE too).

Usage: check-echo-cancel.py BUILD_DIR SOURCE_DIR [--torsim] [--json] [--keep DIR]
  --torsim:   the calls over donar-torsim (default: tor-control=direct)
  --json:     the figures as one JSON line at the end
  --keep DIR: the WAV files and logs there (default: a temporary directory)
Exit 77 (skipped) without the speech sample or webrtcdsp.

Every process it starts (donar-torsim, the softphones) is stopped by its
PID, whatever happens."""

import array
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from torsim_fixture import start_torsim, stop, wait_file  # noqa: E402

SPEECH = "/usr/share/codec2/raw/speech_orig_16k.wav"
SKIP = 77
RATE = 48000               # softphone.py's echo canceller's rate
ECHO_GAIN = 0.5            # the echo path: -6 dB, a loud room
SKIP_S = 3.0               # after the echo began: the canceller converges
                           # within 1 s here; 3 s leave a loaded machine room
NEAR_TONE_HZ = 440.0
NEAR_TONE_AMPLITUDE = 4000 # 69 dB, the echo of the speech's 64 dB about
# The near end's input is silent this long from its start (its pipeline's,
# before the call is set up); the ERLE window must end before it: the
# echo begins about 0.5 s after the start over tor-control=direct, 1 to 3 s
# over donar-torsim (the jitter buffer's start and the links' setup).
NEAR_SILENCE = {"direct": 17.0, "torsim": 20.0}
# Each end's call, from its first audio: the near-end tone is heard for
# the last DOUBLE_TALK_S of it (far.wav's last DOUBLE_TALK_S, less 0.5 s).
CALL_S = {"direct": 21.0, "torsim": 24.0}
DOUBLE_TALK_S = 2.0
# Limits, from the figures in docs/elements.md ("Echo cancellation": about
# 30 dB on, 0.1 dB off, over direct and over donar-torsim): with the
# canceller, 10 dB at least, a third of what it does, so that a loaded
# machine (a late buffer, a canceller that converged later) passes; without
# it, what is heard is the echo itself (less Opus's coding): under 3 dB.
ERLE_ON_MIN_DB = 10.0
ERLE_OFF_MAX_DB = 3.0
# In double talk the canceller's suppressor takes some of the near end too
# (measured: 6 dB of the tone with softphone.py's echo-suppression-level=low,
# 10 dB with moderate); a canceller that muted the near end would take 30 dB
# or more: 15 dB at most.
DOUBLE_TALK_LOSS_DB = 15.0


def read_wav(path):
    """(the first channel's samples as an array of int16, the rate)."""
    with wave.open(path, "rb") as w:
        assert w.getsampwidth() == 2, "16-bit WAV expected: " + path
        channels, rate = w.getnchannels(), w.getframerate()
        data = array.array("h", w.readframes(w.getnframes()))
    if sys.byteorder == "big":
        data.byteswap()
    return data[::channels] if channels > 1 else data, rate


def write_wav(path, samples, rate):
    data = array.array("h", samples)
    if sys.byteorder == "big":
        data.byteswap()
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(data.tobytes())


def write_speech(path, seconds):
    """The speech sample looped to at least seconds; its period in s."""
    samples, rate = read_wav(SPEECH)
    loops = int(seconds * rate / len(samples)) + 1
    write_wav(path, samples * loops, rate)
    return len(samples) / rate


def write_near(path, silence, seconds):
    """silence s of silence, then the near-end tone, seconds in all."""
    n = int(seconds * RATE)
    start = int(silence * RATE)
    w = 2 * math.pi * NEAR_TONE_HZ / RATE
    samples = [0] * start + [int(NEAR_TONE_AMPLITUDE * math.sin(w * i))
                             for i in range(n - start)]
    write_wav(path, samples, RATE)


def power_db(samples):
    """The mean power, dB (of int16 units: 0 dB is a sample of 1)."""
    if not samples:
        return float("nan")
    return 10 * math.log10(max(1e-9, sum(s * s for s in samples) / len(samples)))


def tone_power_db(samples, rate, freq):
    """The power at freq (Goertzel over all of samples), dB as power_db."""
    k = 2 * math.cos(2 * math.pi * freq / rate)
    s1 = s2 = 0.0
    for x in samples:
        s1, s2 = x + k * s1 - s2, s1
    magnitude = s1 * s1 + s2 * s2 - k * s1 * s2
    # A sine of amplitude A over N samples: magnitude (A N / 2)^2, power A^2 / 2.
    return 10 * math.log10(max(1e-9, 2 * magnitude / len(samples) ** 2))


def echo_onset(samples, rate):
    """When the echo begins at the canceller's input, s: the first 10 ms
    above 40 dB (the input is digital silence until then)."""
    block = rate // 100
    for i in range(0, len(samples) - block, block):
        if power_db(samples[i:i + block]) > 40:
            return i / rate
    return None


def run_call(name, softphone, env, control, tmp, speech, near, mode, echo_cancel, procs):
    """One call, the near end (callee) with the echo path: the paths of
    (what its canceller got, what the far end heard), or None."""
    files = {role: os.path.join(tmp, "%s-%s" % (name, role)) for role in
             ("mic.wav", "near-out.wav", "far.wav", "address", "callee.log", "caller.log")}
    common = ["--tor-control", control, "--seconds", str(CALL_S[mode]),
              "--setup-timeout", "40", "--json"]

    def start(role, extra):
        log = open(files[role + ".log"], "w")
        p = subprocess.Popen(["/usr/bin/python3", softphone, role] + extra + common,
                             env=env, stdout=subprocess.PIPE, stderr=log, text=True)
        procs["%s %s" % (name, role)] = p
        print("# %s: %s pid %d" % (name, role, p.pid), flush=True)
        return p

    callee = start("callee", [
        "--input", near, "--output", files["near-out.wav"],
        "--echo-path", str(ECHO_GAIN), "--mic-output", files["mic.wav"],
        "--echo-cancel" if echo_cancel else "--no-echo-cancel",
        "--address-file", files["address"]])
    address = wait_file(files["address"]).strip()
    caller = start("caller", [address, "--input", speech, "--output", files["far.wav"]])
    ok = True
    for role, p in (("caller", caller), ("callee", callee)):
        p.communicate(timeout=CALL_S[mode] + 60)
        print("# %s: %s exit %d" % (name, role, p.returncode), flush=True)
        if p.returncode != 0:
            ok = False
            print("FAIL %s: the %s exited %d" % (name, role, p.returncode))
            sys.stdout.write(open(files[role + ".log"]).read())
    return (files["mic.wav"], files["far.wav"]) if ok else None


def measure(name, mic_path, far_path, window, silence):
    """(ERLE dB, the far end's power at the near-end tone's frequency dB,
    an error or None); silence: s of the near end's input before its tone."""
    mic, rate = read_wav(mic_path)
    far, far_rate = read_wav(far_path)
    onset = echo_onset(mic, rate)
    if onset is None:
        return None, None, "no echo at the canceller's input"
    start, end = onset + SKIP_S, onset + SKIP_S + window
    print("# %s: the echo began %.2f s into the near end's input; window %.2f-%.2f s"
          % (name, onset, start, end))
    if end > silence:
        return None, None, ("the window (to %.1f s) runs into the near-end tone (from %.1f s): "
                            "the call came up late" % (end, silence))
    echo_db = power_db(mic[int(start * rate):int(end * rate)])
    heard = far[int(SKIP_S * far_rate):int((SKIP_S + window) * far_rate)]
    if len(heard) < int(window * far_rate) * 0.99:
        return None, None, "the far end heard %.1f s only" % (len(far) / far_rate)
    heard_db = power_db(heard)
    erle = echo_db - heard_db
    print("# %s: echo at the canceller's input %.1f dB, heard at the far end %.1f dB: "
          "ERLE %.1f dB" % (name, echo_db, heard_db, erle))
    tail = far[-int((DOUBLE_TALK_S + 0.5) * far_rate):-int(0.5 * far_rate)]
    tone_db = tone_power_db(tail, far_rate, NEAR_TONE_HZ)
    print("# %s: the near-end tone at the far end (double talk, its last %.1f s): %.1f dB"
          % (name, DOUBLE_TALK_S, tone_db))
    return erle, tone_db, None


def main():
    argv = sys.argv[1:]
    keep = None
    if "--keep" in argv:
        i = argv.index("--keep")
        keep = argv[i + 1]
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    build, source = args[0], args[1]
    mode = "torsim" if "--torsim" in sys.argv else "direct"
    as_json = "--json" in sys.argv
    if not os.path.exists(SPEECH):
        print("# %s is missing (codec2-examples): skipped" % SPEECH)
        return SKIP
    softphone = os.path.join(source, "pipelines", "softphone.py")
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, "gst"))
    if subprocess.run(["gst-inspect-1.0", "--exists", "webrtcdsp"], env=env).returncode != 0:
        print("# no webrtcdsp (gstreamer1.0-plugins-bad): skipped")
        return SKIP
    procs = {}
    ok = True
    figures = {"mode": mode, "echo_gain": ECHO_GAIN}
    with tempfile.TemporaryDirectory(prefix="echo-cancel-") as tmp:
        if keep:
            os.makedirs(keep, exist_ok=True)
            tmp = keep
        try:
            if mode == "torsim":
                procs["donar-torsim"], control = start_torsim(build, tmp, 1)
                print("# donar-torsim pid %d, control port %s"
                      % (procs["donar-torsim"].pid, control), flush=True)
            else:
                control = "direct"
            speech = os.path.join(tmp, "speech.wav")
            period = write_speech(speech, CALL_S[mode] + 40)
            near = os.path.join(tmp, "near.wav")
            write_near(near, NEAR_SILENCE[mode], CALL_S[mode] + 40)
            # One period of the loop: the mean power is that of the loop,
            # wherever the window starts (10.8 s for the codec2 sample).
            window = period
            results = {}
            for name, on in (("on", True), ("off", False)):
                paths = run_call(name, softphone, env, control, tmp, speech, near, mode,
                                 on, procs)
                if paths is None:
                    ok = False
                    continue
                erle, tone_db, error = measure(name, paths[0], paths[1], window,
                                               NEAR_SILENCE[mode])
                if error:
                    print("FAIL %s: %s" % (name, error))
                    ok = False
                    continue
                results[name] = (erle, tone_db)
                figures["erle_%s_db" % name] = round(erle, 1)
                figures["near_tone_%s_db" % name] = round(tone_db, 1)
            checks = []
            if "on" in results:
                checks.append(("with the echo canceller: ERLE %.1f dB >= %.0f dB"
                               % (results["on"][0], ERLE_ON_MIN_DB),
                               results["on"][0] >= ERLE_ON_MIN_DB))
            if "off" in results:
                checks.append(("without it: ERLE %.1f dB < %.0f dB (the echo is heard)"
                               % (results["off"][0], ERLE_OFF_MAX_DB),
                               abs(results["off"][0]) < ERLE_OFF_MAX_DB))
            if "on" in results and "off" in results:
                loss = results["off"][1] - results["on"][1]
                figures["double_talk_loss_db"] = round(loss, 1)
                checks.append(("double talk: the near end's tone %.1f dB lower with the "
                               "canceller than without, <= %.0f dB"
                               % (loss, DOUBLE_TALK_LOSS_DB), loss <= DOUBLE_TALK_LOSS_DB))
            for text, good in checks:
                print(("ok   " if good else "FAIL ") + text)
                ok = ok and good
            ok = ok and len(results) == 2
        finally:
            for name, p in procs.items():
                if p.poll() is None:
                    print("# stopping %s (pid %d)" % (name, p.pid))
                    if name == "donar-torsim":
                        stop(p)
                        continue
                    p.send_signal(signal.SIGTERM)
                    try:
                        p.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        p.kill()
                        p.wait()
    if as_json:
        print(json.dumps(figures), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
