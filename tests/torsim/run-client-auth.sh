#!/usr/bin/env bash
# The `torsim-client-auth` test: onion client authorization end to end
# over donar-torsim.  A callee with --client-auth publishes an onion that
# only its address's x25519 key opens (ADD_ONION ClientAuthV3).  A caller
# with the whole address gives its tor the key (ONION_CLIENT_AUTH_ADD) and
# carries the call; one without the key, or with another key, gets a clear
# error at once and exit status 1, not a hang; one with the key and another
# secret hears why within 10 s (no-link-yet); a malformed key is refused
# before any tor is started.  Everything started is
# stopped by PID, also on failure.
#
#   run-client-auth.sh DONAR_TORSIM DONAR_CALL PYTHON
set -euo pipefail

torsim=$1
donar_call=$2
python=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-torsim-auth.XXXXXX")
source "$(dirname "$0")/processes.sh"
logs=(torsim.log callee.log caller.log none.log other.log secret.log bad.log
  caller.json)

"$torsim" --port-file "$work/ports" --seed 2 > "$work/torsim.log" 2>&1 &
pids+=($!)
wait_for_file "$work/ports"
eval "$(grep _PORT= "$work/ports")"

"$donar_call" callee --client-auth --tor-control "$CONTROL_PORT" \
  --seconds 20 --address-file "$work/address" --setup-timeout 20 \
  > /dev/null 2> "$work/callee.log" &
pids+=($!)
wait_for_file "$work/address"
address=$(cat "$work/address")
case "$address" in
  *'&auth='*) ;;
  *) echo "the address carries no client key: $address" >&2; exit 1 ;;
esac

# Without the key: refused by tor (SOCKS 0xF4), said at once.
none=$(echo "$address" | sed 's/&auth=[A-Za-z2-7]*//')
status=0
timeout 20 "$donar_call" caller "$none" --tor-control "$CONTROL_PORT" \
  --seconds 5 --setup-timeout 10 > /dev/null 2> "$work/none.log" || status=$?
[ "$status" -eq 1 ] || { echo "no key: exit status $status, not 1" >&2; exit 1; }
grep -q "needs client authorization" "$work/none.log"

# Another well-formed key: its first character changed (SOCKS 0xF5).
key=${address##*&auth=}
first=${key:0:1}
case "$first" in a|A) other=b ;; *) other=a ;; esac
wrong="${address%&auth=*}&auth=${other}${key:1}"
status=0
timeout 20 "$donar_call" caller "$wrong" --tor-control "$CONTROL_PORT" \
  --seconds 5 --setup-timeout 10 > /dev/null 2> "$work/other.log" || status=$?
[ "$status" -eq 1 ] || { echo "wrong key: exit status $status, not 1" >&2; exit 1; }
grep -q "rejected the client authorization" "$work/other.log"

# The right key, another secret: tor opens the streams, the callee closes
# each on our HELLO.  donar-call says why within 10 s, --quiet or not,
# then fails at its peer timeout.
secret=${address#*secret=}
secret=${secret%%&*}
case ${secret:0:1} in f) digit=e ;; *) digit=f ;; esac
start=$SECONDS
status=0
timeout 30 "$donar_call" caller "${address/secret=$secret/secret=$digit${secret:1}}" \
  --tor-control "$CONTROL_PORT" --quiet --seconds 5 --wait-links 1 \
  --peer-timeout 10 --setup-timeout 20 > /dev/null 2> "$work/secret.log" \
  || status=$?
[ "$status" -eq 1 ] || { echo "wrong secret: exit status $status, not 1" >&2; exit 1; }
grep -q "no-link-yet: no link to the callee after .* wrong secret" "$work/secret.log"
echo "wrong secret: $(grep no-link-yet "$work/secret.log"), status 1 after $((SECONDS - start)) s" >&2

# A key of the wrong length: said at once, before any tor is launched
# (there is none to reach here: a launched tor would still be
# bootstrapping when the timeout ends it).
status=0
timeout 5 "$donar_call" caller "${address}x" --seconds 5 > /dev/null \
  2> "$work/bad.log" || status=$?
[ "$status" -eq 1 ] || { echo "bad key: exit status $status, not 1" >&2; exit 1; }
grep -q "must be 52 base32 characters" "$work/bad.log"

# With the key: the call, the address read from standard input (`caller
# -`), where other local users cannot read it as they can the arguments.
"$donar_call" caller - --tor-control "$CONTROL_PORT" --seconds 5 \
  --wait-links 12 --setup-timeout 20 --json < "$work/address" \
  > "$work/caller.json" 2> "$work/caller.log"
echo "caller: $(cat "$work/caller.json")" >&2
"$python" - "$work/caller.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ok = r["max_links_up"] == 12 and r["frames_expected"] >= 100 and \
    r["frames_received"] >= 0.98 * r["frames_expected"]
if not ok:
    print("caller with the key: %d links, %d of %d frames" % (
        r["max_links_up"], r["frames_received"], r["frames_expected"]),
        file=sys.stderr)
sys.exit(0 if ok else 1)
PY
