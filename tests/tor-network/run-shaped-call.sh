#!/usr/bin/env bash
# The `tor-shaped-call` test: a 30-second DONAR call over the shaped
# network of tools/tornet (16 relays behind donar-shaper, the model's
# capacities, bulk cross traffic through the caller's guard and another):
#   - the callee's tor joins the network and the callee (donar-call)
#     publishes its onion through it; the caller dials 12 links through the
#     network's client, whose guard the cross traffic loads;
#   - shaped-call-check.py reads both ends' circuits while the call runs,
#     then checks that the frames of both directions came with the shaped
#     delay: none sooner than the relays' delays allow, the median within
#     them plus queues.
# About 80 s. Everything started is stopped by PID, also on failure.
#
#   run-shaped-call.sh DONAR_CALL DONAR_SHAPER [PYTHON]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tornet=$here/../../tools/tornet/tornet.sh
donar_call=$1
shaper=$2
python=${3:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-tor-shaped.XXXXXX")
t0=$(date +%s)
# pids, logs and cleanup (stop by PID, tails of logs on failure), with the
# network stopped too.
source "$here/../torsim/processes.sh"
logs=(callee.log caller.log callee.json caller.json net/cross/flows.csv)
stop_all () {
  local rc=$?
  set +e
  "$tornet" stop "$work/net"
  (exit "$rc")
  cleanup
}
trap stop_all EXIT
source "$here/callee-tor.sh"

eval "$("$tornet" start "$work/net" --shaper "$shaper")"

start_callee_tor "$work/callee-tor" "$TOR_TORRC_INCLUDE"

# The callee listens for as long as the caller may take to dial and call.
"$donar_call" callee --tor-control "$callee_control" \
  --tor-cookie "$callee_cookie" --seconds 75 \
  --address-file "$work/address" --setup-timeout 60 --json \
  --frame-log "$work/callee.csv" > "$work/callee.json" 2> "$work/callee.log" &
callee_pid=$!
pids+=("$callee_pid")
wait_for_address "$work/address" "$callee_pid" 60
echo "$(( $(date +%s) - t0 )) s: callee published" >&2

# 30 s of frames once the links are up (at most 25 s of dialing).
"$donar_call" caller "$address" --tor-control "$TOR_CONTROL_PORT" \
  --tor-cookie "$TOR_COOKIE" --seconds 30 --wait-links 12 --setup-timeout 25 \
  --json --frame-log "$work/caller.csv" > "$work/caller.json" 2> "$work/caller.log" &
caller_pid=$!
pids+=("$caller_pid")

"$python" "$here/shaped-call-check.py" --control-port "$TOR_CONTROL_PORT" \
  --cookie "$TOR_COOKIE" --onion "$onion" \
  --service-control-port "$callee_control" \
  --service-cookie "$callee_cookie" \
  --relays "$TOR_SHAPER_RELAYS" --caller-pid "$caller_pid" \
  --callee-pid "$callee_pid" \
  --frame-log "$work/caller.csv" --frame-log "$work/callee.csv" || rc=$?
echo "caller: $(cat "$work/caller.json")" >&2
echo "callee: $(cat "$work/callee.json")" >&2
echo "cross traffic (bytes a flow, the last second): $(tail -n 1 "$TOR_CROSS_DIR/flows.csv")" >&2
echo "$(( $(date +%s) - t0 )) s in all" >&2
exit "${rc:-0}"
