#!/usr/bin/env bash
# donar-playout-eval on synthetic traces: it reads them, reports the four
# policies, the replay agrees with the estimator's own late-frame count, the
# ideal buffer plays 99 % of each stream on time, and bad input is refused.
# usage: test-playout-eval.sh GEN EVAL WORKDIR
set -eu
gen=$1
eval=$2
dir=$3
extra=$dir-extra
rm -rf "$dir" "$extra"
mkdir -p "$extra"
"$gen" --out "$dir" --calls 6 --duration 120 --seed 3

json=$("$eval" --json "$dir")
echo "$json"
fail () { echo "not ok: $*"; exit 1; }
for key in '"directions": 12' '"calls": 6' '"consistent": true' \
    '"name": "ideal"' '"name": "static"' '"name": "adaptive"' \
    '"name": "adaptive-base-known"'; do
  grep -qF "$key" <<<"$json" || fail "missing $key"
done
# The ideal buffer is late on at most 1 % of each stream.
"$eval" --per-call "$dir" | awk '/csv/ { split($2, a, "/"); if (a[2] > 1.0) bad = 1 }
    END { exit bad }' || fail "ideal late on more than 1 %"
"$eval" "$dir" >/dev/null

# A single file, a static buffer by hand.
"$eval" --static-ms 200 --json "$dir/call0-dir0.csv" | grep -qF '"static_ms": 200.000' ||
  fail "--static-ms"

# Hand-made: 3 frames at 100 ms, one lost: the ideal plays at 100 ms.
printf 'seq,sent_ms,arrival_ms\n0,0,100\n1,40,140\n2,80,\n3,120,220\n' >"$extra/hand.csv"
"$eval" --json "$extra/hand.csv" | grep -qF '"mean_delay_ms": 100.000' ||
  fail "hand-made trace"

# Bad input is refused.
printf 'seq,sent,arrival\n' >"$extra/bad.csv"
if "$eval" "$extra/bad.csv" 2>/dev/null; then fail "bad header accepted"; fi
printf 'seq,sent_ms,arrival_ms\n0,abc,1\n' >"$extra/bad.csv"
if "$eval" "$extra/bad.csv" 2>/dev/null; then fail "bad number accepted"; fi
if "$eval" 2>/dev/null; then fail "no input accepted"; fi
echo "ok: donar-playout-eval"
