#!/usr/bin/env bash
# The `tor-stall` test, issue 26's target over real tor: a call over the
# shaped network of tools/tornet (16 relays behind donar-shaper, without
# its bulk cross traffic), and mid-call every guard of
# the caller's links held 10 s (donar-shaper's hold, started by SIGUSR1:
# nothing through the relay, both ways, every connection into it, then
# everything at once, in order), the call going on 33 s more.
# check-stall.py (tests/torsim) asserts, from both directions' frame logs:
# no frame later than the hold + the deadline (10 s + 360 ms), the first
# in-time frame sent after the release arrives within 1 s of it, 99 % of
# the frames sent from release + 1 s to + 31 s in time, or as many as in
# the seconds before the hold less 5 points where the network's own steady
# call misses 99 % (check-stall.py --baseline).
#
# The caller dials through the network's client, a running tor that
# donar-call leaves as it is (one guard, tor's default; --guards is for a
# tor it launches).  stall-guards.py reads the guard of every link's
# circuit just before the hold and holds them all, so every link stalls
# whatever the number of guards.
#
#   run-tor-stall.sh DONAR_CALL DONAR_SHAPER [PYTHON]
#
# The environment may change it (defaults in brackets):
#   DONAR_TOR_STALL_AT       seconds from all links up to the hold [15]
#   DONAR_TOR_STALL_SECONDS  the hold [10]
#   DONAR_TOR_STALL_AFTER    seconds of the call after the release [33]
#   DONAR_TOR_STALL_MODEL_SPIKES=1  keep the model's own spikes (seed 3's
#                            flaky relay3 spikes up to +1.4 s; off by default)
#   DONAR_TOR_STALL_REPORT_ONLY=1  print the figures, fail only on errors
#   DONAR_TOR_STALL_KEEP=DIR  copy the logs there
# About 100 s.  Everything started is stopped by PID, also on failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tornet=$here/../../tools/tornet/tornet.sh
donar_call=$1
shaper=$2
python=${3:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-tor-stall.XXXXXX")
t0=$(date +%s)
stall_at=${DONAR_TOR_STALL_AT:-15}
stall_s=${DONAR_TOR_STALL_SECONDS:-10}
after=${DONAR_TOR_STALL_AFTER:-33}
seconds=$((stall_at + stall_s + after))
source "$here/../torsim/processes.sh"
logs=(callee.log caller.log callee.json caller.json)
source "$here/callee-tor.sh"
# Each line of donar-call's stderr stamped with CLOCK_MONOTONIC µs, so
# that its events (link-down, no-link-in-time) can be placed against the
# hold; the filter ends with donar-call's stderr.
stamp () {
  "$python" -u -c 'import sys, time
for line in sys.stdin:
    print(time.monotonic_ns() // 1000, line, end="", flush=True)'
}
keep () {
  if [ -n "${DONAR_TOR_STALL_KEEP:-}" ]; then
    mkdir -p "$DONAR_TOR_STALL_KEEP"
    cp "$work"/*.csv "$work"/*.json "$work"/*.log "$work/net/shaper/stdout.log" \
      "$work/net/cross/flows.csv" "$work/net/shaper/shaper.log" \
      "$DONAR_TOR_STALL_KEEP"/ 2>/dev/null || true
  fi
}
# On exit, also on failure: the logs kept if asked, then the network
# stopped by PID, then our own processes (processes.sh).
keep_then_stop () {
  keep
  "$tornet" stop "$work/net"
}
stop_network_on_exit keep_then_stop

# In two steps, so that a failed start fails the test (set -e).
# The model's own spikes off (bases and capacities as they are): seed 3's
# relay3 is flaky all through (spikes of +0.4 to +1.4 s, one of +0.4 s for
# 10 s), and on a relay that every link crosses (the callee's guard, say)
# they fail the 30 s after the release by themselves, whatever the engine
# does (seen: 33-36 % in time there, every bad second on one of relay3's
# spikes).  This test is about the hold.
# The bulk cross traffic off too: through the call's guard it congests the
# minutes after the hold by itself (tor-shaped-call, with it: p99 350 ms to
# 2.3 s), which is the evaluation's subject, not this test's.
sets=(--set spike_gap_median_s=0 --cross-flows 0)
[ "${DONAR_TOR_STALL_MODEL_SPIKES:-0}" = 1 ] && sets=(--cross-flows 0)
network_env=$("$tornet" start "$work/net" --shaper "$shaper" "${sets[@]}")
eval "$network_env"
shaper_pid=$(awk '$1 == "shaper" { print $2 }' "$TOR_NETWORK_DIR/pids")
echo "$(( $(date +%s) - t0 )) s: network up, call guard $TOR_CALL_GUARD" >&2

start_callee_tor "$work/callee-tor" "$TOR_TORRC_INCLUDE"
# The callee outlives the caller, whose BYE ends it.
"$donar_call" callee --tor-control "$callee_control" \
  --tor-cookie "$callee_cookie" --seconds $((seconds + 60)) \
  --address-file "$work/address" --setup-timeout 60 --json \
  --frame-log "$work/callee.csv" > "$work/callee.json" \
  2> >(stamp > "$work/callee.log") &
callee_pid=$!
pids+=("$callee_pid")
wait_for_address "$work/address" "$callee_pid" 60

"$donar_call" caller - --tor-control "$TOR_CONTROL_PORT" \
  --tor-cookie "$TOR_COOKIE" --seconds "$seconds" --wait-links 12 \
  --setup-timeout 25 --json --frame-log "$work/caller.csv" \
  < "$work/address" > "$work/caller.json" 2> >(stamp > "$work/caller.log") &
caller_pid=$!
pids+=("$caller_pid")
for _ in $(seq 1 300); do
  grep -q all-links-up "$work/caller.log" 2>/dev/null && break
  sleep 0.1
done
grep -q all-links-up "$work/caller.log"
echo "$(( $(date +%s) - t0 )) s: all links up" >&2
sleep "$stall_at"

# Hold every guard of the caller's links now: the shaper stamps the start
# on its clock (origin_us + start_us is CLOCK_MONOTONIC, the frame logs'
# clock).
"$python" "$here/stall-guards.py" --control-port "$TOR_CONTROL_PORT" \
  --cookie "$TOR_COOKIE" --onion "$onion" --relays "$TOR_SHAPER_RELAYS" \
  --spike-file "$TOR_NETWORK_DIR/shaper/spikes" --hold-ms $((stall_s * 1000)) \
  --service-control-port "$callee_control" --service-cookie "$callee_cookie"
kill -USR1 "$shaper_pid"
for _ in $(seq 1 50); do
  grep -q '^spike ' "$TOR_NETWORK_DIR/shaper/stdout.log" && break
  sleep 0.1
done
grep '^spike ' "$TOR_NETWORK_DIR/shaper/stdout.log" >&2
origin_us=$(sed -n 's/^ready origin_us=\([0-9]*\) .*/\1/p' "$TOR_NETWORK_DIR/shaper/stdout.log")
start_us=$(sed -n 's/^spike .* start_us=\([0-9]*\) .*/\1/p' "$TOR_NETWORK_DIR/shaper/stdout.log" | head -n 1)
stall_us=$((origin_us + start_us))
release_us=$((stall_us + stall_s * 1000000))

# The links' guards once it is over: dialed again through another?
sleep $((stall_s + 3))
"$python" "$here/stall-guards.py" --control-port "$TOR_CONTROL_PORT" \
  --cookie "$TOR_COOKIE" --onion "$onion" --relays "$TOR_SHAPER_RELAYS" || true

wait_call "$caller_pid" "$callee_pid" $((seconds + 30)) "$work"
# What the engines said of the stall (link-down reasons, no link in time),
# at their times from the release.
for side in caller callee; do
  grep -E 'link-down|no-link-in-time|in-time-again' "$work/$side.log" \
    | awk -v r="$release_us" -v side="$side" \
      '{ t = ($1 - r) / 1e6; $1 = ""; printf "%s: release%+.2f s:%s\n", side, t, $0 }' \
    | head -n 40 >&2 || true
done

origin () {
  sed -n 's/^[0-9]* frame-log: origin \([0-9-]*\) us$/\1/p' "$work/$1.log" | tail -n 1
}
# --baseline: the minutes after the hold against the seconds before it,
# when the network's own steady call misses 99 % (this testbed's does:
# docs/tornet.md, *Calibration*).
report=(--baseline)
[ "${DONAR_TOR_STALL_REPORT_ONLY:-0}" = 1 ] && report+=(--report-only)
echo "every guard of the caller's links held ${stall_s} s at ${stall_at} s after all links up; $(( $(date +%s) - t0 )) s so far" >&2
"$python" "$here/../torsim/check-stall.py" "$stall_us" "$release_us" \
  "${report[@]}" \
  "callee-to-caller" "$work/caller.csv" "$(origin caller)" \
  "caller-to-callee" "$work/callee.csv" "$(origin callee)" >&2
echo "$(( $(date +%s) - t0 )) s in all" >&2
