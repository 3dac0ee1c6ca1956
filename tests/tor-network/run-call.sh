#!/usr/bin/env bash
# The `tor-call` test: a DONAR call over the private Tor network.
#   - the callee's tor joins the network (as in run-check.sh; the launcher
#     is tested by the torclient test), and the callee (donar-call)
#     publishes its onion through that tor's control port;
#   - the caller (donar-call) dials 12 links through the network client's
#     SocksPort, having asked its control port;
#   - call-check.py sees a distinct circuit per link, then kills the relay
#     that most of them cross and that is neither side's guard nor on the
#     callee's introduction circuits;
#   - 10 s later the caller's tor (the network's client) is restarted;
#   - both ends must have had all 12 links up and received most of the
#     other's frames, the caller must have lost links to the kill and
#     dialed them again, and its links must have come back after the
#     restart.
# Everything started is stopped by PID, also on failure.
#
#   run-call.sh DONAR_CALL [PYTHON]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
donar_call=$1
python=${2:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-tor-call.XXXXXX")
pids=()

cleanup () {
  local rc=$?
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  "$here/../../tools/tornet/tor-network.sh" stop "$work/net" || true
  if [ "$rc" -ne 0 ]; then
    # The caller's tor's own account of the restart (what it waited for
    # when the links came back late), after the ends' own.
    for f in callee.log caller.log callee.json caller.json \
        net/client/notice.log; do
      [ -f "$work/$f" ] && { echo "==> $f <==" >&2; tail -n 30 "$work/$f" >&2; }
    done
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 8 relays rather than 5: with 5, the callee's introduction circuits
# cross every relay, and no relay can die without taking them.
eval "$("$here/../../tools/tornet/tor-network.sh" start "$work/net" --relays 8)"

# The callee's own tor: a client of the private network, no SocksPort.
source "$here/callee-tor.sh"
start_callee_tor "$work/callee-tor" "$TOR_TORRC_INCLUDE"

"$donar_call" callee --tor-control "$callee_control" \
  --tor-cookie "$work/callee-tor/control_auth_cookie" --seconds 60 --address-file "$work/address" --setup-timeout 90 --json \
  > "$work/callee.json" 2> "$work/callee.log" &
pids+=($!)
callee_pid=$!

wait_for_address "$work/address" "$callee_pid" 90

"$donar_call" caller "$address" --tor-control "$TOR_CONTROL_PORT" \
  --tor-cookie "$TOR_COOKIE" --seconds 45 --wait-links 12 --setup-timeout 60 \
  --json > "$work/caller.json" 2> "$work/caller.log" &
caller_pid=$!
pids+=("$caller_pid")

killed=$("$python" "$here/call-check.py" --control-port "$TOR_CONTROL_PORT" \
  --cookie "$TOR_COOKIE" --onion "$onion" --links 12 \
  --service-control-port "$callee_control" \
  --service-cookie "$work/callee-tor/control_auth_cookie" \
  --network-dir "$TOR_NETWORK_DIR" --timeout 60)
links_killed=${killed#* }

# Restart the caller's tor: its links die with it and must come back.
sleep 10
client_pid=$(awk '$1 == "client" { pid = $2 } END { print pid }' "$TOR_NETWORK_DIR/pids")
kill -TERM "$client_pid"
for _ in $(seq 1 50); do kill -0 "$client_pid" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$client_pid" 2>/dev/null || true
tor -f "$TOR_NETWORK_DIR/client/torrc" --defaults-torrc /dev/null \
  < /dev/null > "$TOR_NETWORK_DIR/client/stdout.log" 2>&1 &
echo "client $!" >> "$TOR_NETWORK_DIR/pids"
echo "restarted the caller's tor (pid $client_pid, now $!) at $(date -u +%T)" >&2

wait "$caller_pid"
wait "$callee_pid"
echo "caller: $(cat "$work/caller.json")" >&2
echo "callee: $(cat "$work/callee.json")" >&2

"$python" - "$work/caller.json" "$work/callee.json" "$links_killed" <<'PY'
import json, sys
links_killed = int(sys.argv[3])
caller = json.load(open(sys.argv[1]))
callee = json.load(open(sys.argv[2]))
ok = True
for name, r in (("caller", caller), ("callee", callee)):
    # The default policy, at its default budget: two messages a frame
    # (fewer while links come back one by one after the restart), give or
    # take the second copies ADAPTIVE saves up, also while no link is up,
    # or borrows: at most 25 each way (MAX_CREDIT, lib/core/donar-adaptive.c).
    most = 2.0 + 2 * 25.0 / max(1, r["frames_sent"])
    if r["policy"] != "adaptive" or not 1.5 <= r["messages_per_frame"] <= most:
        print("%s: policy %s, %.3f messages a frame" % (name, r["policy"], r["messages_per_frame"]), file=sys.stderr)
        ok = False
    if r["max_links_up"] != 12:
        print("%s: at most %d links up, not 12" % (name, r["max_links_up"]), file=sys.stderr)
        ok = False
    # A relay killed and the caller's tor restarted: the frames sent while
    # no link was up are lost, the rest arrive.
    if r["frames_expected"] < 500 or r["frames_received"] < 0.6 * r["frames_expected"]:
        print("%s: received %d of %d frames" % (name, r["frames_received"], r["frames_expected"]), file=sys.stderr)
        ok = False
if caller["link_downs"] < 12 + links_killed or caller["connections_opened"] < 24 + links_killed:
    print("caller: links were not closed by the kill and the restart, or not dialed again", file=sys.stderr)
    ok = False
# The caller read its links' circuits from tor (for copies on links with
# no relay in common), at least for the 12 it opened first: after its tor
# restarted, it has no control connection to ask.
if caller["paths_told"] < 12:
    print("caller: the paths of %d links known from tor's circuit-status, not 12" % caller["paths_told"], file=sys.stderr)
    ok = False
# The callee matched its onion's rendezvous circuits to its links by the
# rendezvous point each link's caller told (docs/protocol.md, RENDEZVOUS).
if callee["paths_told"] < 12:
    print("callee: the paths of %d links known from its rendezvous circuits, not 12" % callee["paths_told"], file=sys.stderr)
    ok = False
if caller["links_up"] < 6:
    print("caller: %d links up at the end: they did not come back after tor's restart" % caller["links_up"], file=sys.stderr)
    ok = False
sys.exit(0 if ok else 1)
PY
