#!/usr/bin/env bash
# The test of demo.sh (suite elements): a 5-s call over donar-torsim and
# its QoE figures.  Usage: check-demo.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR}
here=$(dirname "$0")
json=$("$here/demo.sh" --build "$build" --seconds 5 --json)
echo "# $json"
python3 - "$json" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
checks = [
    ("policy == adaptive (the default)", r["policy"] == "adaptive"),
    ("frames_sent >= 100", r["frames_sent"] >= 100),
    ("frames_received >= 0.95 * frames_sent",
     r["frames_received"] >= 0.95 * r["frames_sent"]),
    ("50 <= latency p50 <= 600 ms", 50 <= r["latency_ms"]["p50"] <= 600),
    ("links_up == 12", r["links_up"] == 12),
    # The callee only listens: no frame of its own is acknowledged, so its
    # base delay comes from the links' openings (docs/jitterbuffer.md).
    ("the callee's base delay known, within the latencies",
     0 < r["jitterbuffer_base_delay_ms"] <= r["latency_ms"]["p99"]),
    ("p99 and mouth to ear reported",
     r["latency_ms"]["p99"] >= r["latency_ms"]["p50"] and
     r["mouth_to_ear_ms"] >= r["latency_ms"]["min"]),
]
for name, ok in checks:
    print(("ok   " if ok else "FAIL ") + name)
sys.exit(0 if all(ok for _, ok in checks) else 1)
PY
