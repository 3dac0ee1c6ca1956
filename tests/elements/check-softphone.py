#!/usr/bin/python3
"""The test of pipelines/softphone.py (suite elements): a callee and a caller
softphone, two processes, over donar-torsim (or with `direct`, over
tor-control=direct), each sending a WAV file (a tone of its own) and writing
what it hears to a WAV file.  Checks that both ends heard the other's tone
for about the call's length, that each read the per-link stats (the `links`
list) into its --json summary, and that the RTCP of each
end's rtpbin, carried over the call with the RTP, reached the other: each
summary has the peer's report (a round trip, the loss).

Usage: check-softphone.py BUILD_DIR SOURCE_DIR [direct]

Every process it starts (donar-torsim, the two softphones) is stopped by its
PID, whatever happens."""

import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import wave

SECONDS = 4           # of call at each end, from its first audio
LINKS = 12            # softphone.py's default
INPUT_SECONDS = 30    # the inputs outlast the setup and the call
RATE = 48000
TONES = {"callee": 440.0, "caller": 660.0}
# rtpbin's least RTCP interval, s: reports within the call's SECONDS (RFC
# 3550's 5 s would leave too few).
RTCP_INTERVAL = 1


def write_tone(path, freq):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        period = [int(8000 * math.sin(2 * math.pi * freq * i / RATE))
                  for i in range(RATE)]
        chunk = b"".join(s.to_bytes(2, "little", signed=True) for s in period)
        for _ in range(INPUT_SECONDS):
            w.writeframes(chunk)


def analyse(path):
    """(seconds, RMS of the loud part, frequency from zero crossings)."""
    with wave.open(path, "rb") as w:
        assert w.getsampwidth() == 2, "16-bit output expected"
        channels, rate = w.getnchannels(), w.getframerate()
        data = w.readframes(w.getnframes())
    samples = [int.from_bytes(data[i:i + 2], "little", signed=True)
               for i in range(0, len(data), 2 * channels)]
    seconds = len(samples) / rate
    # The last second: well inside the call, past the jitter buffer's start.
    tail = samples[-rate:] if len(samples) >= 2 * rate else samples
    rms = math.sqrt(sum(s * s for s in tail) / max(1, len(tail)))
    crossings = sum(1 for a, b in zip(tail, tail[1:]) if (a < 0) != (b < 0))
    freq = crossings / 2 / (len(tail) / rate) if tail else 0
    return seconds, rms, freq


def check_rtcp(role, summary):
    """The peer's RTCP reached this end's rtpbin: round trip and loss."""
    rtcp = summary.get("rtcp") or {}
    rtt = rtcp.get("round_trip_ms", -1)
    print("# %s RTCP: %s" % (role, json.dumps(rtcp)))
    checks = [
        ("%s: RTCP from the other end (%d packets)" % (role, rtcp.get("received", 0)),
         rtcp.get("received", 0) >= 1 and rtcp.get("sent", 0) >= 1),
        ("%s: the RTCP round trip known (0 < %.1f ms < 5000)" % (role, rtt),
         0 < rtt < 5000),
        # Nothing is lost on these links; rtpsession counts one packet more
        # than it expects after its probation, so -1 is no loss too.
        ("%s: the loss reported (%s of ours, %s of theirs)"
         % (role, rtcp.get("peer_lost"), rtcp.get("lost")),
         isinstance(rtcp.get("peer_lost"), int) and isinstance(rtcp.get("lost"), int)),
    ]
    for name, good in checks:
        print(("ok   " if good else "FAIL ") + name)
    return all(good for _, good in checks)


def start_torsim(torsim, tmp, procs):
    """donar-torsim, in procs; its control port."""
    ports = os.path.join(tmp, "ports")
    procs["donar-torsim"] = subprocess.Popen(
        [torsim, "--port-file", ports, "--publish-ms", "500"],
        stdout=subprocess.DEVNULL)
    control = None
    deadline = time.monotonic() + 10
    while control is None and time.monotonic() < deadline:
        if os.path.exists(ports):
            for line in open(ports):
                if line.startswith("CONTROL_PORT="):
                    control = line.strip().split("=", 1)[1]
        time.sleep(0.05)
    assert control, "donar-torsim did not start"
    print("# donar-torsim pid %d, control port %s"
          % (procs["donar-torsim"].pid, control), flush=True)
    return control


def main():
    build, source = sys.argv[1], sys.argv[2]
    direct = len(sys.argv) > 3 and sys.argv[3] == "direct"
    torsim = os.path.join(build, "tools", "donar-torsim")
    softphone = os.path.join(source, "pipelines", "softphone.py")
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, "gst"))
    procs = {}
    ok = True
    with tempfile.TemporaryDirectory(prefix="softphone-") as tmp:
        try:
            control = "direct" if direct else start_torsim(torsim, tmp, procs)

            files = {}
            for role in ("callee", "caller"):
                files[role] = (os.path.join(tmp, role + "-in.wav"),
                               os.path.join(tmp, role + "-out.wav"),
                               os.path.join(tmp, role + ".log"))
                write_tone(files[role][0], TONES[role])

            def start(role, extra):
                log = open(files[role][2], "w")
                p = subprocess.Popen(
                    ["/usr/bin/python3", softphone, role] + extra +
                    ["--tor-control", control, "--input", files[role][0],
                     "--output", files[role][1], "--seconds", str(SECONDS),
                     "--rtcp-interval", str(RTCP_INTERVAL),
                     "--setup-timeout", "40", "--json"],
                    env=env, stdout=subprocess.PIPE, stderr=log, text=True)
                procs[role] = p
                print("# %s pid %d" % (role, p.pid), flush=True)
                return p

            address_file = os.path.join(tmp, "address")
            callee = start("callee", ["--address-file", address_file])
            deadline = time.monotonic() + 30
            while not os.path.exists(address_file) and time.monotonic() < deadline:
                assert callee.poll() is None, "the callee ended early"
                time.sleep(0.05)
            assert os.path.exists(address_file), "no address from the callee"
            address = open(address_file).read().strip()
            caller = start("caller", [address])

            outs = {}
            for role, p in (("caller", caller), ("callee", callee)):
                out, _ = p.communicate(timeout=60)
                outs[role] = out
                print("# %s exit %d: %s" % (role, p.returncode, out.strip().splitlines()[-1:]),
                      flush=True)
                if p.returncode != 0:
                    ok = False
                    print("FAIL %s exited %d" % (role, p.returncode))
                    sys.stdout.write(open(files[role][2]).read())

            for role in ("callee", "caller"):
                lines = outs[role].strip().splitlines()
                try:
                    summary = json.loads(lines[-1])
                    links = summary["links"]
                except (IndexError, ValueError, KeyError) as e:
                    summary, links = {}, []
                    print("# %s: no links in the JSON summary (%s)" % (role, e))
                ok = check_rtcp(role, summary) and ok
                good = (len(links) == LINKS and
                        [l["index"] for l in links] == list(range(LINKS)) and
                        all(l["state"] in ("up", "down") for l in links))
                print(("ok   " if good else "FAIL ") +
                      "%s: %d per-link stats entries read (%s up)"
                      % (role, len(links),
                         sum(1 for l in links if l.get("state") == "up")))
                ok = ok and good

            for role, other in (("callee", "caller"), ("caller", "callee")):
                out = files[role][1]
                if not os.path.exists(out):
                    print("FAIL %s wrote no output" % role)
                    ok = False
                    continue
                seconds, rms, freq = analyse(out)
                print("# %s heard %.2f s, RMS %.0f, %.0f Hz" % (role, seconds, rms, freq))
                checks = [
                    ("%s: %.1f <= seconds heard <= %.1f" % (role, SECONDS - 1, SECONDS + 3),
                     SECONDS - 1 <= seconds <= SECONDS + 3),
                    ("%s: not silent (RMS >= 1000)" % role, rms >= 1000),
                    ("%s: the %s's tone (%.0f Hz +- 5 %%)" % (role, other, TONES[other]),
                     abs(freq - TONES[other]) <= 0.05 * TONES[other]),
                ]
                for name, good in checks:
                    print(("ok   " if good else "FAIL ") + name)
                    ok = ok and good
        finally:
            for name, p in procs.items():
                if p.poll() is None:
                    print("# stopping %s (pid %d)" % (name, p.pid))
                    p.send_signal(signal.SIGTERM)
                    try:
                        p.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        p.kill()
                        p.wait()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
