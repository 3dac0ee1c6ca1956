"""The real-time voice-quality tests (suite quality): pipelines/quality.sh
runs a call (its donar-torsim started and stopped by PID) and scores it.

    check_realtime.py TOP_SOURCE_DIR BUILD_DIR direct
        a 10-s call over plain UDP (the ceiling): PESQ WB above 3.5
    check_realtime.py TOP_SOURCE_DIR BUILD_DIR donar-vs-simple SECURITY SEED
        10-s calls over donar-torsim on one seed, DOUBLE-SEND then SIMPLE,
        a link each sends on stalled for 3 s from 3 s into the call: DONAR
        scores above SIMPLE

Runs as build-venv's python3."""
import json
import os
import re
import socket
import subprocess
import sys
import threading

# A link stalled for 3 s, 3 s into the call (donar-torsim's DONAR-STALL,
# docs/torsim.md), as a circuit behind a congested relay.  DOUBLE-SEND's
# newest of 12.  SIMPLE sends on one link of the 12 the elements open, and
# which one torsim cannot tell: every stream stalls, the one it sends on
# with the 11 it leaves idle.
STALL_AT_S = 3.0
STALL_MS = 3000


def stall_links(port, newest, replies):
    """DONAR-STALL on the newest streams (all of them: None)."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"AUTHENTICATE\r\n")
        replies.append(s.recv(100).decode().strip())
        s.sendall(b"DONAR-STALL %d%s\r\n" % (
            STALL_MS, b"" if newest is None else b" %d" % newest))
        replies.append(s.recv(100).decode().strip())
        s.close()
    except OSError as e:
        replies.append(f"no stall: {e}")


def call(top, build, *args, stall=False, newest=None):
    """quality.sh's result; with stall, the newest links (all: None)
    stalled as above, timed from "caller ready" on quality.sh's stderr."""
    cmd = [os.path.join(top, "pipelines", "quality.sh"), "--build", build,
           "--seconds", "10", "--json", *args]
    print("# " + " ".join(cmd), flush=True)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    replies, timers = [], []

    def follow_stderr():
        port = None
        for line in proc.stderr:
            sys.stderr.write(line)
            m = re.search(r"donar-torsim pid \d+, control port (\d+)", line)
            if m:
                port = int(m.group(1))
            if stall and port and "caller ready" in line:
                t = threading.Timer(STALL_AT_S, stall_links,
                                    (port, newest, replies))
                t.start()
                timers.append(t)

    follower = threading.Thread(target=follow_stderr)
    follower.start()
    out = proc.stdout.read()
    proc.wait()
    follower.join()
    for t in timers:
        t.join()
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} exited {proc.returncode}")
    if stall:
        print(f"# the stall: {replies}", flush=True)
        m = re.fullmatch(r"250 STALLED=(\d+)", replies[-1])
        stalled = int(m.group(1)) if m and len(replies) == 2 else 0
        if stalled == 0 or (newest is not None and stalled != newest):
            raise SystemExit(f"the stall did not take: {replies}")
    result = json.loads(out)
    print("# " + json.dumps({k: result.get(k) for k in (
        "policy", "pesq_wb", "pesq_nb", "latency_ms", "late_ratio",
        "loss_ratio", "r_factor", "alignment_ms")}), flush=True)
    return result


def report(checks):
    for name, ok in checks:
        print(("ok   " if ok else "FAIL ") + name)
    return 0 if all(ok for _, ok in checks) else 1


def main():
    top, build, what = sys.argv[1:4]
    if what == "direct":
        r = call(top, build, "--direct")
        return report([
            ("direct: 250 frames sent, none lost",
             r["frames_sent"] >= 245 and r["frames_lost"] == 0),
            ("direct: PESQ WB > 3.5", (r["pesq_wb"] or 0) > 3.5),
            ("direct: PESQ NB > 3.5", (r["pesq_nb"] or 0) > 3.5),
            ("direct: R > 85", r["r_factor"] > 85),
        ])
    security, seed = sys.argv[4:6]
    common = ["--security", security, "--seed", seed]
    donar = call(top, build, "--policy", "double-send", *common, stall=True,
                 newest=1)
    simple = call(top, build, "--policy", "simple", *common, stall=True)
    return report([
        # PESQ scores the sound, segment by segment aligned: SIMPLE's
        # varies with what its jitter buffer does in the stall, from 3.1
        # (the late audio dropped) to 4.4 (all of it played seconds late,
        # which PESQ does not see).  The delay is what R and the late
        # frames charge; PESQ only has to say DONAR sounds good.
        ("DOUBLE-SEND: PESQ WB > 3.5", (donar["pesq_wb"] or 0) > 3.5),
        ("DOUBLE-SEND: fewer late frames than SIMPLE",
         donar["late_ratio"] < simple["late_ratio"]),
        ("DOUBLE-SEND: R in a better G.107 category than SIMPLE's",
         r_category(donar["r_factor"]) > r_category(simple["r_factor"])),
    ])


def r_category(r):
    """ITU-T G.107's user satisfaction bands of R (Annex B): 0 below 50
    (not recommended), 1 for 50-60 (nearly all users dissatisfied) ... 4
    for 80-90 (satisfied), 5 from 90 (very satisfied)."""
    return 0 if r < 50 else min(5, int((r - 40) // 10))


if __name__ == "__main__":
    sys.exit(main())
