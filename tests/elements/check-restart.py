#!/usr/bin/python3
"""The other end restarts mid-call (suite elements, test restart; issue 25):
over donar-torsim, a callee softphone with a lasting address (--key-file)
and a caller softphone (rtpbin, pipelines/softphone.py).  Once the caller
has heard the callee for about 2 s, the callee is killed with SIGKILL and
started again with the same key file (the same address, a tone of its own).
At the caller: the `donar-peer-restarted` message came (`peer_restarts` >= 1
in its --json summary), the new session's audio was decoded within 10 s of
the callee's restart (softphone.py moves its depayloader to rtpbin's new
pad), and the last second of its output WAV is the new callee's tone.

Usage: check-restart.py BUILD_DIR SOURCE_DIR

Every process it starts (donar-torsim, the softphones) is stopped by its
PID, whatever happens."""

import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from torsim_fixture import start_torsim, stop, wait_file  # noqa: E402

# check-softphone.py's tone files and their analysis.
_spec = importlib.util.spec_from_file_location(
    "check_softphone", os.path.join(HERE, "check-softphone.py"))
check_softphone = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_softphone)
write_tone, analyse = check_softphone.write_tone, check_softphone.analyse

HEARD_BEFORE = 2.0    # s of the first callee heard before it is killed
RESUME_LIMIT = 10.0   # s from the callee's restart to the new session's audio
HEARD_AFTER = 3.0     # s of the new session heard before the caller hangs up
TONES = {"callee": 440.0, "callee-again": 880.0, "caller": 660.0}
RESUMED = "audio from the other end's new session, "


def wait_log(path, text, seconds, procs):
    """The monotonic time at which text is in the log, or None."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if text in open(path, errors="replace").read():
            return time.monotonic()
        for name, p in procs.items():
            if name.startswith("caller") and p.poll() is not None:
                return None
        time.sleep(0.05)
    return None


def main():
    build, source = sys.argv[1], sys.argv[2]
    softphone = os.path.join(source, "pipelines", "softphone.py")
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, "gst"))
    procs = {}
    checks = []
    ok = False
    with tempfile.TemporaryDirectory(prefix="restart-") as tmp:
        try:
            torsim, control = start_torsim(build, tmp, 25, ["--publish-ms", "500"])
            procs["donar-torsim"] = torsim
            print("# donar-torsim pid %d, control port %s" % (torsim.pid, control),
                  flush=True)
            key = os.path.join(tmp, "callee.key")

            def start(name, role, extra):
                tone = os.path.join(tmp, name + "-in.wav")
                write_tone(tone, TONES[name])
                log = os.path.join(tmp, name + ".log")
                p = subprocess.Popen(
                    ["/usr/bin/python3", softphone, role] + extra +
                    ["--tor-control", control, "--input", tone,
                     "--output", os.path.join(tmp, name + "-out.wav"),
                     "--seconds", "100", "--setup-timeout", "40", "--json"],
                    env=env, stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
                procs[name] = p
                print("# %s pid %d" % (name, p.pid), flush=True)
                return p, log

            def callee(name):
                address_file = os.path.join(tmp, name + ".address")
                p, _ = start(name, "callee", ["--key-file", key,
                                              "--address-file", address_file])
                return wait_file(address_file).strip()

            address = callee("callee")
            caller, caller_log = start("caller", "caller", [address])
            heard = wait_log(caller_log, "the call is on", 40, procs)
            assert heard, "the caller heard nothing from the callee"
            time.sleep(HEARD_BEFORE)

            procs["callee"].kill()
            procs["callee"].wait()
            print("# callee killed (SIGKILL) %.2f s after the caller's first audio"
                  % (time.monotonic() - heard), flush=True)
            restarted = time.monotonic()
            again = callee("callee-again")
            checks.append(("the restarted callee has the same address (key file)",
                           again == address))
            resumed = wait_log(caller_log, RESUMED, RESUME_LIMIT + 5, procs)
            if resumed is not None:
                time.sleep(HEARD_AFTER)
            print("# caller: the new session's audio %s"
                  % ("%.2f s after the callee's restart" % (resumed - restarted)
                     if resumed is not None else "never came"), flush=True)

            caller.send_signal(signal.SIGINT)   # hangs up: a complete WAV
            out, _ = caller.communicate(timeout=20)
            print("# caller exit %d" % caller.returncode, flush=True)
            for line in open(caller_log, errors="replace"):
                if any(w in line for w in ("restarted", "moves", "new session", "EOS")):
                    print("# caller: " + line.strip())
            try:
                summary = json.loads(out.strip().splitlines()[-1])
            except (IndexError, ValueError):
                summary = {}
            restarts = summary.get("peer_restarts", 0)
            after = summary.get("audio_resumed_after_s")
            print("# caller: peer_restarts %s, audio_resumed_after_s %s"
                  % (restarts, after))
            checks.append(("caller: donar-peer-restarted came (peer_restarts %s >= 1)"
                           % restarts, restarts >= 1))
            checks.append(("caller: the new session's audio within %.0f s of the "
                           "callee's restart (%s)"
                           % (RESUME_LIMIT, "%.2f s" % (resumed - restarted)
                              if resumed is not None else "never"),
                           resumed is not None and resumed - restarted <= RESUME_LIMIT))
            checks.append(("caller: audio_resumed_after_s %s in its summary" % after,
                           isinstance(after, float) and 0 < after <= RESUME_LIMIT))
            output = os.path.join(tmp, "caller-out.wav")
            if os.path.exists(output):
                seconds, rms, freq = analyse(output)
            else:
                seconds, rms, freq = 0, 0, 0
            print("# caller heard %.2f s; its last second: RMS %.0f, %.0f Hz"
                  % (seconds, rms, freq))
            want = TONES["callee-again"]
            checks.append(("caller: its last second is not silent (RMS %.0f >= 1000)"
                           % rms, rms >= 1000))
            checks.append(("caller: its last second is the restarted callee's tone "
                           "(%.0f Hz, %.0f Hz +- 5 %%)" % (freq, want),
                           abs(freq - want) <= 0.05 * want))
            ok = all(good for _, good in checks)
            for name, good in checks:
                print(("ok   " if good else "FAIL ") + name)
            if not ok:
                for name in ("caller", "callee", "callee-again"):
                    print("# --- %s's stderr" % name)
                    sys.stdout.write(open(os.path.join(tmp, name + ".log"),
                                          errors="replace").read())
        finally:
            for name, p in procs.items():
                if p.poll() is None:
                    print("# stopping %s (pid %d)" % (name, p.pid))
                    stop(p)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
