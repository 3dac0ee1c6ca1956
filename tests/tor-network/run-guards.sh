#!/usr/bin/env bash
# The `tor-guards` test: a call whose two ends launch their own tors
# (donar-call --guards 2, joined to the private network by %include), and
# guards-check.py reads both tors' circuits during it: each side's links
# must start at two guards, not one (docs/security.md, "Number of
# guards").  16 links, not 12: with 12, tor may put them all on one of its
# 2 guards once in 1000 runs; with 16, once in 16000.  Then a callee on a
# running tor (the network's client): left alone with a warning without
# --guards, set for the call and put back after with --guards 5.
# Everything started is stopped by PID, also on failure.
#
#   run-guards.sh DONAR_CALL [PYTHON]
# DONAR_TEST_GUARDS=0 runs it with tor's own setting, to see the contrast
# (the check then fails: one guard a side).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
donar_call=$1
python=${2:-python3}
links=16
guards=${DONAR_TEST_GUARDS:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-tor-guards.XXXXXX")
# pids, logs and cleanup (stop by PID, tails of logs on failure), with the
# network stopped too.
source "$here/../torsim/processes.sh"
logs=(callee.log caller.log callee.json caller.json running.log)
source "$here/callee-tor.sh"
stop_network_on_exit "$here/../../tools/tornet/tor-network.sh" stop "$work/net"

eval "$("$here/../../tools/tornet/tor-network.sh" start "$work/net")"

# Each tor's data directory goes under its end's TMPDIR, where the check
# finds its control port and cookie.
mkdir -m 700 "$work/callee-tmp" "$work/caller-tmp"
TMPDIR=$work/callee-tmp "$donar_call" callee --guards "$guards" \
  --torrc-line "%include $TOR_TORRC_INCLUDE" --links "$links" --seconds 40 \
  --address-file "$work/address" --setup-timeout 90 --json \
  > "$work/callee.json" 2> "$work/callee.log" &
callee_pid=$!
pids+=("$callee_pid")
wait_for_address "$work/address" "$callee_pid" 90

TMPDIR=$work/caller-tmp "$donar_call" caller - --guards "$guards" \
  --torrc-line "%include $TOR_TORRC_INCLUDE" --links "$links" \
  --wait-links "$links" --seconds 10 --setup-timeout 90 --json \
  < "$work/address" > "$work/caller.json" 2> "$work/caller.log" &
caller_pid=$!
pids+=("$caller_pid")

"$python" "$here/guards-check.py" --caller-tmp "$work/caller-tmp" \
  --callee-tmp "$work/callee-tmp" --onion "$onion" --links "$links" --guards "$guards" \
  --timeout 120

wait "$caller_pid"
kill -TERM "$callee_pid" 2>/dev/null || true
wait "$callee_pid" || true
echo "caller: $(cat "$work/caller.json")" >&2
echo "callee: $(cat "$work/callee.json")" >&2
"$python" - "$work/caller.json" "$links" "$work/callee.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
callee = json.load(open(sys.argv[3]))
links = int(sys.argv[2])
if r["max_links_up"] != links or r["frames_received"] < 0.9 * r["frames_expected"]:
    print("caller: %d links up, %d of %d frames" % (r["max_links_up"],
          r["frames_received"], r["frames_expected"]), file=sys.stderr)
    sys.exit(1)
# Both ends know each link's relays on their side: the caller from its
# streams' circuits, the callee from its rendezvous circuits, matched by
# the rendezvous point the caller tells.
for name, end in (("caller", r), ("callee", callee)):
    if end["paths_told"] < links:
        print("%s: the paths of %d links told, not %d" % (name,
              end["paths_told"], links), file=sys.stderr)
        sys.exit(1)
PY

# A running tor given with --tor-control (the network's client) is another's:
# left alone with a warning unless --guards is given; given, set for the
# call (NumPrimaryGuards too above 3) and put back after.
unset_config="NumEntryGuards=unset NumPrimaryGuards=unset"
expect_config () {
  local want=$1 when=$2 got
  got=$("$python" "$here/guards-check.py" --config "$TOR_CONTROL_PORT" "$TOR_COOKIE")
  echo "the running tor $when: $got" >&2
  [ "$got" = "$want" ] || { echo "not $want" >&2; exit 1; }
}
# running_call ARGS...: a callee on the running tor until its address is
# out, then stopped (SIGTERM: it ends the call as usual).
running_call () {
  rm -f "$work/address2"
  "$donar_call" callee --tor-control "$TOR_CONTROL_PORT" --tor-cookie "$TOR_COOKIE" \
    "$@" --address-file "$work/address2" --setup-timeout 30 \
    > /dev/null 2> "$work/running.log" &
  running_pid=$!
  pids+=("$running_pid")
  wait_for_address "$work/address2" "$running_pid" 30
  expect_config "${want_during:-$unset_config}" "during a call with ${*:-no --guards}"
  kill -TERM "$running_pid"
  wait "$running_pid"
  expect_config "$unset_config" "after it"
}
expect_config "$unset_config" "before"
want_during="" running_call
grep -q "warning: the running tor spreads its circuits over 1 entry guard" \
  "$work/running.log" || { echo "no warning of the running tor's 1 guard" >&2; exit 1; }
want_during="NumEntryGuards=5 NumPrimaryGuards=5" running_call --guards 5
if grep -q "warning" "$work/running.log"; then
  echo "a warning with --guards 5" >&2
  exit 1
fi
