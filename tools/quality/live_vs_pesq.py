"""The live quality estimate against PESQ (docs/elements.md, "donar-quality").

    live_vs_pesq.py [--seeds 1,2,3] [--policies adaptive,double-send,simple]
                    [--seconds 10] [--build DIR] [--log FILE] [--json]

For each seed and policy, one call of pipelines/quality.sh (real speech
over donar-torsim through the elements, the recording scored by
tools/quality/qscore.py): PESQ-WB beside the mean and the last MOS of the
callee's donar-quality messages (donar-demo's `live_quality`) and
qscore.py's offline R.  Then whether the live MOS ranks the calls as
PESQ-WB does: Spearman's rho (ties at their mean rank) and the pairs of
calls whose order the two agree on (concordant), disagree on
(discordant), or that either ties.

Runs as build-venv/bin/python3 (qscore.py's PESQ); the calls run one after
another, in real time (one to two minutes each on a loaded machine, most of
it PESQ).  --log FILE appends each call's row as a JSON line as it ends.
"""

import argparse
import json
import os
import subprocess
import sys


def ranks(values):
    """Ranks from 1, ties at the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0 + 1
        i = j + 1
    return out


def spearman(x, y):
    """Spearman's rho: Pearson's correlation of the ranks; None if either
    is constant or there are fewer than 2 values."""
    if len(x) != len(y) or len(x) < 2:
        return None
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / (sxx * syy) ** 0.5


def pairs(x, y):
    """(concordant, discordant, tied) pairs of indices."""
    c = d = t = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            s = (x[i] - x[j]) * (y[i] - y[j])
            if s > 0:
                c += 1
            elif s < 0:
                d += 1
            else:
                t += 1
    return c, d, t


def run_call(top, build, seconds, policy, seed):
    cmd = [os.path.join(top, "pipelines", "quality.sh"), "--build", build,
           "--seconds", str(seconds), "--policy", policy, "--seed", str(seed),
           "--json"]
    print("# " + " ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run(cmd, stdout=subprocess.PIPE, check=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--policies", default="adaptive,double-send,simple")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--log")
    ap.add_argument("--build")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    top = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    build = a.build or os.path.join(top, "build")
    rows = []
    for seed in [int(x) for x in a.seeds.split(",")]:
        for policy in a.policies.split(","):
            r = run_call(top, build, a.seconds, policy, seed)
            live = r.get("live_quality") or {}
            rows.append({"seed": seed, "policy": policy,
                         "pesq_wb": r["pesq_wb"],
                         "live_mos_mean": live.get("mos_mean"),
                         "live_mos_last": live.get("mos_last"),
                         "live_r_mean": live.get("r_mean"),
                         "live_messages": live.get("messages"),
                         "offline_r": r["r_factor"],
                         "late_ratio": r["late_ratio"],
                         "loss_ratio": r["loss_ratio"],
                         "mouth_to_ear_ms": r["mouth_to_ear_ms"]})
            if a.log:
                with open(a.log, "a") as f:
                    f.write(json.dumps(rows[-1]) + "\n")
    ok = [x for x in rows if x["pesq_wb"] is not None and x["live_messages"]]
    pesq = [x["pesq_wb"] for x in ok]
    summary = {}
    for key in ("live_mos_mean", "live_mos_last", "offline_r"):
        other = [x[key] for x in ok]
        c, d, t = pairs(pesq, other)
        summary[key] = {"spearman": spearman(pesq, other), "concordant": c,
                        "discordant": d, "tied": t}
    if a.json:
        print(json.dumps({"calls": rows, "against_pesq_wb": summary}))
        return 0
    print("| seed | policy | PESQ-WB | live MOS mean | live MOS last | live R mean "
          "| messages | offline R | late | lost | mouth to ear ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for x in rows:
        def f(v, spec):
            return "n/a" if v is None else format(v, spec)
        print("| %d | %s | %s | %s | %s | %s | %s | %s | %.1f %% | %.1f %% | %.0f |"
              % (x["seed"], x["policy"], f(x["pesq_wb"], ".2f"),
                 f(x["live_mos_mean"], ".2f"), f(x["live_mos_last"], ".2f"),
                 f(x["live_r_mean"], ".1f"), f(x["live_messages"], "d"),
                 f(x["offline_r"], ".1f"), 100 * x["late_ratio"],
                 100 * x["loss_ratio"], x["mouth_to_ear_ms"]))
    print()
    for key, s in summary.items():
        rho = "n/a" if s["spearman"] is None else "%.2f" % s["spearman"]
        print("%s against PESQ-WB over %d calls: Spearman %s; pairs %d "
              "concordant, %d discordant, %d tied"
              % (key, len(ok), rho, s["concordant"], s["discordant"], s["tied"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
