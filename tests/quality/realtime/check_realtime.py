"""The real-time voice-quality tests (suite quality): pipelines/quality.sh
runs a call (its donar-torsim started and stopped by PID) and scores it.

    check_realtime.py TOP_SOURCE_DIR BUILD_DIR direct
        a 10-s call over plain UDP (the ceiling): PESQ WB above 3.5
    check_realtime.py TOP_SOURCE_DIR BUILD_DIR donar-vs-simple SECURITY SEED
        10-s calls over donar-torsim on one seed, DOUBLE-SEND then SIMPLE:
        DONAR scores above SIMPLE

Runs as build-venv's python3."""
import json
import os
import subprocess
import sys


def call(top, build, *args):
    cmd = [os.path.join(top, "pipelines", "quality.sh"), "--build", build,
           "--seconds", "10", "--json", *args]
    print("# " + " ".join(cmd), flush=True)
    out = subprocess.run(cmd, stdout=subprocess.PIPE, check=True, text=True)
    result = json.loads(out.stdout)
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
    donar = call(top, build, "--policy", "double-send", *common)
    simple = call(top, build, "--policy", "simple", *common)
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
