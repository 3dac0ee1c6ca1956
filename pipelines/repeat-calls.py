#!/usr/bin/env python3
"""Calls in a row over one donar-torsim: a callee and a caller softphone.py
for each call, tones from WAV files, and each end's --json summary printed
(frames late and lost at playout, the jitter buffer's latency and the base
delay it took from donarsrc).  A donar-torsim that outlives calls is where
a base delay measured at the links' opening came out at seconds
(docs/jitterbuffer.md, "The base delay").

Usage: repeat-calls.py BUILD_DIR [--calls N] [--seconds S] [--policy P]

Every process it starts is stopped by its PID, whatever happens."""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import wave

RATE = 48000
# Debian's python3, where python3-gi is (another python3 may come first in
# PATH), as the softphone test runs it.
SOFTPHONE_PYTHON = "/usr/bin/python3"
TONES = {"callee": 440.0, "caller": 660.0}


def write_tone(path, freq, seconds):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        period = b"".join(
            int(8000 * math.sin(2 * math.pi * freq * i / RATE)).to_bytes(
                2, "little", signed=True) for i in range(RATE))
        for _ in range(seconds):
            w.writeframes(period)


def wait_for(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit("repeat-calls: no %s in %d s" % (what, seconds))
        time.sleep(0.05)


def control_port(ports_file):
    if not os.path.exists(ports_file):
        return None
    for line in open(ports_file):
        if line.startswith("CONTROL_PORT="):
            return line.strip().split("=", 1)[1]
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("build", help="the build directory (donar-torsim, the plugin)")
    p.add_argument("--calls", type=int, default=3, help="calls in a row (3)")
    p.add_argument("--seconds", type=int, default=8,
                   help="seconds of each call from its first audio (8)")
    p.add_argument("--policy", default="adaptive", help="both ends' policy (adaptive)")
    p.add_argument("--torsim-set", metavar="NAME=VALUE", action="append", default=[],
                   help="a donar-torsim model parameter (docs/netmodel.md), repeatable")
    p.add_argument("--log-dir", metavar="DIR",
                   help="each softphone's stderr to DIR/ROLE<call>.log (e.g. with GST_DEBUG)")
    p.add_argument("--json", action="store_true",
                   help="each end's softphone.py --json summary, with its call's number")
    a = p.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(a.build, "gst"))
    procs = []
    status = 0
    with tempfile.TemporaryDirectory(prefix="repeat-calls-") as tmp:
        try:
            ports = os.path.join(tmp, "ports")
            procs.append(subprocess.Popen(
                [os.path.join(a.build, "tools", "donar-torsim"), "--port-file", ports,
                 "--publish-ms", "500"] +
                [arg for kv in a.torsim_set for arg in ("--set", kv)],
                stdout=subprocess.DEVNULL))
            wait_for(lambda: control_port(ports), 10, "donar-torsim")
            control = control_port(ports)
            for role, freq in TONES.items():
                write_tone(os.path.join(tmp, role + ".wav"), freq, a.seconds + 30)

            for n in range(a.calls):
                address_file = os.path.join(tmp, "address%d" % n)

                def start(role, extra):
                    log = subprocess.DEVNULL
                    if a.log_dir:
                        log = open(os.path.join(a.log_dir, "%s%d.log" % (role, n)), "w")
                    proc = subprocess.Popen(
                        [SOFTPHONE_PYTHON, os.path.join(here, "softphone.py"), role] + extra +
                        ["--tor-control", control, "--policy", a.policy,
                         "--input", os.path.join(tmp, role + ".wav"),
                         "--output", os.path.join(tmp, "%s%d.wav" % (role, n)),
                         "--seconds", str(a.seconds), "--setup-timeout", "40",
                         "--json", "--quiet"],
                        env=env, stdout=subprocess.PIPE, stderr=log,
                        text=True)
                    procs.append(proc)
                    return proc

                callee = start("callee", ["--address-file", address_file])
                wait_for(lambda: os.path.exists(address_file), 40, "callee address")
                caller = start("caller", [open(address_file).read().strip()])
                for role, proc in (("caller", caller), ("callee", callee)):
                    out, _ = proc.communicate(timeout=a.seconds + 90)
                    lines = out.strip().splitlines()
                    if proc.returncode != 0 or not lines:
                        print("call %d %s: exit %d" % (n, role, proc.returncode))
                        status = 1
                        continue
                    r = json.loads(lines[-1])
                    if a.json:
                        r["call"] = n
                        print(json.dumps(r), flush=True)
                        continue
                    print("call %d %s: base delay %.1f ms (donarsrc's %.1f ms%s), "
                          "jitter buffer latency %d ms, %d of %d frames late, %d lost"
                          % (n, role, r["base_delay_ms"], r["base_delay_upstream_ms"],
                             ", rejected" if r["base_delay_rejected"] else "",
                             r["jitterbuffer_latency_ms"], r["frames_late"],
                             r["jitterbuffer_frames"], r["frames_lost"]),
                          flush=True)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.terminate()
            for proc in procs:
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    return status


if __name__ == "__main__":
    sys.exit(main())
