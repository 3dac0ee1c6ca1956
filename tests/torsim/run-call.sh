#!/usr/bin/env bash
# The `torsim-call` test: a DONAR call of two donar-call processes over
# donar-torsim (Default configuration, seed 1).  The callee publishes its
# onion through torsim's control port, the caller dials 12 links through
# its SocksPort; 3 s into the call one link's circuit is failed
# (DONAR-FAIL-LINK).  Both ends must have had 12 links up and received at
# least 98 % of the other's frames with a median one-way delay of Tor's
# order, and the caller must have dialed the failed link again and know
# the relays of every link open at the end (torsim's CIRC events and
# circuit-status name each link's SOCKS username).  The caller hangs up
# at its end, and the callee, due to go on until 30 s, stops at its BYE.
# Everything started is stopped by PID, also on failure.
#
#   run-call.sh DONAR_TORSIM DONAR_CALL PYTHON
set -euo pipefail

torsim=$1
donar_call=$2
python=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-torsim-call.XXXXXX")
source "$(dirname "$0")/processes.sh"
logs=(torsim.log callee.log caller.log callee.json caller.json)

"$torsim" --port-file "$work/ports" --seed 1 > "$work/torsim.log" 2>&1 &
pids+=($!)
wait_for_file "$work/ports"
grep -q READY "$work/ports"
eval "$(grep _PORT= "$work/ports")"

"$donar_call" callee --tor-control "$CONTROL_PORT" --seconds 30 \
  --address-file "$work/address" --setup-timeout 20 --json \
  > "$work/callee.json" 2> "$work/callee.log" &
pids+=($!)
callee_pid=$!
wait_for_file "$work/address"

"$donar_call" caller "$(cat "$work/address")" --tor-control "$CONTROL_PORT" \
  --seconds 10 --wait-links 12 --setup-timeout 20 --json \
  > "$work/caller.json" 2> "$work/caller.log" &
pids+=($!)
caller_pid=$!

# 3 s into the call (once every link is up), fail the circuit of link 5.
for _ in $(seq 1 200); do
  grep -q "all-links-up" "$work/caller.log" 2>/dev/null && break
  sleep 0.1
done
sleep 3
exec 3<>"/dev/tcp/127.0.0.1/$CONTROL_PORT"
printf 'AUTHENTICATE\r\nDONAR-FAIL-LINK 5\r\nQUIT\r\n' >&3
reply=$(timeout 5 cat <&3 || true)
exec 3<&-
echo "torsim: $(echo "$reply" | tr -d '\r' | tr '\n' ' ')" >&2
grep -q "^250 OK" <<< "$reply"

wait "$caller_pid"
wait "$callee_pid"
echo "caller: $(cat "$work/caller.json")" >&2
echo "callee: $(cat "$work/callee.json")" >&2

"$python" - "$work/caller.json" "$work/callee.json" <<'PY'
import json, sys
caller = json.load(open(sys.argv[1]))
callee = json.load(open(sys.argv[2]))
ok = True
for name, r in (("caller", caller), ("callee", callee)):
    if r["max_links_up"] != 12:
        print("%s: at most %d links up, not 12" % (name, r["max_links_up"]), file=sys.stderr)
        ok = False
    if r["frames_expected"] < 200 or r["frames_received"] < 0.98 * r["frames_expected"]:
        print("%s: received %d of %d frames" % (name, r["frames_received"], r["frames_expected"]), file=sys.stderr)
        ok = False
    # The model's links: medians of 100 to 300 ms (docs/netmodel.md).
    if not 60 <= r["latency_ms"]["p50"] <= 400:
        print("%s: median delay %.1f ms, not Tor-like" % (name, r["latency_ms"]["p50"]), file=sys.stderr)
        ok = False
if caller["link_downs"] < 1 or caller["connections_opened"] <= 12:
    print("caller: the failed link was not closed and dialed again", file=sys.stderr)
    ok = False
if caller["paths_known"] != caller["links_up"] or caller["links_up"] == 0:
    print("caller: the paths of %d of its %d open links known" % (caller["paths_known"], caller["links_up"]), file=sys.stderr)
    ok = False
# The caller hangs up at its end: the callee, due to send for 30 s, stops
# at its BYE, with every frame the caller sent.
if caller["ended"] is not None or callee["ended"] != "peer-hung-up":
    print("ended: caller %s, callee %s (not null, peer-hung-up)" % (caller["ended"], callee["ended"]), file=sys.stderr)
    ok = False
if callee["seconds"] > 25:
    print("callee: sent for %.1f s, though the caller hung up" % callee["seconds"], file=sys.stderr)
    ok = False
sys.exit(0 if ok else 1)
PY
