#!/usr/bin/env bash
# The `torsim-stall` test, issue 26's target over donar-torsim: a call of
# two donar-call processes, every link stalled for 10 s mid-call
# (DONAR-STALL: nothing delivered, tor's stream window of writes held,
# the streams opened meanwhile stalled too), then released, the backlog
# going on at 10 cells a second (DRAIN=10: a guard still loaded when it
# forwards again, which shares its capacity among its circuits: the
# testbed's busiest guard, 217 KiB/s over the call's 12 circuits and 4 bulk
# flows, would give each about 26 cells a second; forwarded at once, or at
# 20 cells a second, the backlog of the engine before issue 26 cost
# nothing); the call goes on 33 s more.  check-stall.py asserts, from both directions' frame
# logs: no frame later than the stall + the deadline (10 s + 360 ms), the
# first in-time frame sent after the release arrives within 1 s of it,
# and 99 % of the frames sent from release + 1 s to + 31 s are in time;
# it prints the figures (max latency, first in-time frame, % in time,
# frames lost).
#
#   run-stall.sh DONAR_TORSIM DONAR_CALL PYTHON
#
# The environment may change the call (defaults in brackets):
#   DONAR_STALL_POLICY   donar-call --policy [adaptive]
#   DONAR_STALL_BUDGET   donar-call --budget [donar-call's: 2.0]
#   DONAR_STALL_SEED     donar-torsim --seed [3]
#   DONAR_STALL_AT       seconds from all links up to the stall [12]
#   DONAR_STALL_SECONDS  the stall [10]
#   DONAR_STALL_AFTER    seconds of the call after the release [33]
#   DONAR_STALL_DRAIN    cells a second each stream's backlog drains at
#                        after the release, 0 at once [10]
#   DONAR_STALL_REPORT_ONLY=1  print the figures, fail only on errors
#   DONAR_STALL_KEEP=DIR  copy the logs there
# Everything started is stopped by PID, also on failure.  About 65 s.
set -euo pipefail

torsim=$1
donar_call=$2
python=$3
here=$(dirname "$0")
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-torsim-stall.XXXXXX")
source "$here/processes.sh"
logs=(torsim.log callee.log caller.log callee.json caller.json)

policy=${DONAR_STALL_POLICY:-adaptive}
stall_at=${DONAR_STALL_AT:-12}
stall_s=${DONAR_STALL_SECONDS:-10}
after=${DONAR_STALL_AFTER:-33}
drain=${DONAR_STALL_DRAIN:-10}
# The caller's --seconds count from its start, and its links may take a
# few seconds to come up on a loaded machine: 8 s more, so that the 31 s
# checked after the release are always in the call.
seconds=$((stall_at + stall_s + after + 8))
call_options=(--policy "$policy")
[ -n "${DONAR_STALL_BUDGET:-}" ] && call_options+=(--budget "$DONAR_STALL_BUDGET")

# 32 links: the 12 of the call and those it dials again.
"$torsim" --port-file "$work/ports" --seed "${DONAR_STALL_SEED:-3}" \
  --links 32 > "$work/torsim.log" 2>&1 &
pids+=($!)
wait_for_file "$work/ports"
eval "$(grep -E '^(SOCKS|CONTROL)_PORT=' "$work/ports")"

# The callee outlives the caller, whose BYE ends it.
"$donar_call" callee --tor-control "$CONTROL_PORT" --seconds $((seconds + 10)) \
  --address-file "$work/address" --setup-timeout 20 --json \
  --frame-log "$work/callee.csv" "${call_options[@]}" \
  > "$work/callee.json" 2> "$work/callee.log" &
pids+=($!)
callee_pid=$!
wait_for_file "$work/address"
"$donar_call" caller - --tor-control "$CONTROL_PORT" --seconds "$seconds" \
  --wait-links 12 --setup-timeout 20 --json --frame-log "$work/caller.csv" \
  "${call_options[@]}" < "$work/address" \
  > "$work/caller.json" 2> "$work/caller.log" &
pids+=($!)
caller_pid=$!

for _ in $(seq 1 300); do
  grep -q all-links-up "$work/caller.log" 2>/dev/null && break
  sleep 0.1
done
grep -q all-links-up "$work/caller.log"
sleep "$stall_at"

# The stall, and its moment on CLOCK_MONOTONIC (the clock of the frame
# logs' origins): just before the command, which torsim answers at once.
read -r stall_us release_us < <("$python" - "$CONTROL_PORT" "$stall_s" \
  "$drain" <<'PY'
import socket, sys, time
port, seconds, drain = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port), timeout=5)
s.sendall(b"AUTHENTICATE\r\n")
assert s.recv(100).startswith(b"250"), "no AUTHENTICATE"
start = time.monotonic_ns() // 1000
s.sendall(b"DONAR-STALL %d%s\r\n" % (seconds * 1000,
          b" DRAIN=%d" % drain if drain > 0 else b""))
reply = s.recv(100)
assert reply.startswith(b"250 STALLED="), reply
print(reply.decode().strip(), file=sys.stderr)
s.close()
print(start, start + seconds * 1000000)
PY
)

wait_call "$caller_pid" "$callee_pid" $((seconds + 30)) "$work"
if [ -n "${DONAR_STALL_KEEP:-}" ]; then
  mkdir -p "$DONAR_STALL_KEEP"
  cp "$work"/*.csv "$work"/*.json "$work"/*.log "$DONAR_STALL_KEEP"/
fi

origin () {
  sed -n 's/^frame-log: origin \([0-9-]*\) us$/\1/p' "$work/$1.log" | tail -n 1
}
report=()
[ "${DONAR_STALL_REPORT_ONLY:-0}" = 1 ] && report=(--report-only)
echo "policy $policy${DONAR_STALL_BUDGET:+, budget $DONAR_STALL_BUDGET}, seed ${DONAR_STALL_SEED:-3}, every link stalled ${stall_s} s at ${stall_at} s after all links up, backlog drained at ${drain} cells/s (0: at once)" >&2
"$python" "$here/check-stall.py" "$stall_us" "$release_us" "${report[@]}" \
  "callee-to-caller" "$work/caller.csv" "$(origin caller)" \
  "caller-to-callee" "$work/callee.csv" "$(origin callee)" >&2
