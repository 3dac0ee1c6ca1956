#!/usr/bin/env bash
# The `torsim-keyfile` test: a lasting address (issue 16) over
# donar-torsim.  A callee run twice with one --key-file publishes the same
# onion and gives the same call address: the first run makes the file
# (mode 0600), the second reuses it unchanged, and a caller that dials the
# address saved from the first run reaches the second run's callee, its
# frames arriving.  A second callee with the key file while the first
# runs is refused (tor serves the onion already).  With --client-auth the
# address's client key lasts too.  A key file open to
# other users, a corrupt one, and one that cannot be created are refused
# with the reason and exit status 1, before any tor is launched (no
# --tor-control is given to them: a launched tor would still be
# bootstrapping when the timeout ends it).  Everything started is stopped
# by PID, also on failure.
#
#   run-keyfile.sh DONAR_TORSIM DONAR_CALL PYTHON
set -euo pipefail

torsim=$1
donar_call=$2
python=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-torsim-keyfile.XXXXXX")
source "$(dirname "$0")/processes.sh"
logs=(torsim.log first.log second.log twin.log auth1.log auth2.log
  caller.log caller.json open.log corrupt.log nodir.log)

# The refusals first: no tor is needed to say them.
mkdir -m 700 "$work/keys"
printf 'onion-key=x\n' > "$work/keys/open.key"
chmod 644 "$work/keys/open.key"
status=0
timeout 5 "$donar_call" callee --key-file "$work/keys/open.key" --seconds 1 \
  > /dev/null 2> "$work/open.log" || status=$?
refused "$status" open "mode 0644 lets other users read or change it"
printf 'not a key file\n' > "$work/keys/corrupt.key"
chmod 600 "$work/keys/corrupt.key"
status=0
timeout 5 "$donar_call" callee --key-file "$work/keys/corrupt.key" \
  --seconds 1 > /dev/null 2> "$work/corrupt.log" || status=$?
refused "$status" corrupt "corrupt"
status=0
timeout 5 "$donar_call" callee --key-file "$work/none/callee.key" \
  --seconds 1 > /dev/null 2> "$work/nodir.log" || status=$?
refused "$status" nodir "cannot be created"

"$torsim" --port-file "$work/ports" --seed 4 > "$work/torsim.log" 2>&1 &
pids+=($!)
wait_for_file "$work/ports"
eval "$(grep _PORT= "$work/ports")"
key="$work/keys/callee.key"

# answer NAME KEY_FILE SECONDS [OPTION...]: a callee in the background
# ($answer_pid), its address in $work/NAME once published, its log in
# NAME.log.
answer () {
  local name=$1 key_file=$2 seconds=$3
  shift 3
  rm -f "$work/$name"
  "$donar_call" callee --key-file "$key_file" --tor-control "$CONTROL_PORT" \
    --seconds "$seconds" --setup-timeout 60 --address-file "$work/$name" \
    "$@" > /dev/null 2> "$work/$name.log" &
  pids+=($!)
  answer_pid=$!
  wait_for_file "$work/$name"
}

# First run: the key file is made.  Stopped by TERM once its address is
# out (nobody calls it).
answer first "$key" 60
mode=$(stat -c %a "$key")
[ "$mode" = 600 ] || { echo "the key file has mode $mode, not 600" >&2; exit 1; }
grep -q '^onion-key=ED25519-V3:' "$key"
sum=$(sha256sum < "$key")
kill -TERM "$answer_pid"
wait "$answer_pid"

# Second run: the same onion and the same address, the file unchanged.
answer second "$key" 5
second_pid=$answer_pid
if [ "$(cat "$work/first")" != "$(cat "$work/second")" ]; then
  echo "the second run's address differs from the first's" >&2
  exit 1
fi
[ "$(sha256sum < "$key")" = "$sum" ] || {
  echo "the second run changed the key file" >&2; exit 1; }

# A twin with the same key file while the second runs: tor refuses it.
status=0
timeout 20 "$donar_call" callee --key-file "$key" \
  --tor-control "$CONTROL_PORT" --seconds 1 --setup-timeout 10 \
  > /dev/null 2> "$work/twin.log" || status=$?
refused "$status" twin "is another callee using it"

# With --client-auth the address's key is kept too (made by a first run
# on a new file, then the same): the whole address lasts.
for run in 1 2; do
  answer "auth$run" "$work/keys/auth.key" 60 --client-auth
  kill -TERM "$answer_pid"
  wait "$answer_pid"
done
grep -q '&auth=' "$work/auth1"
grep -q '^client-auth=' "$work/keys/auth.key"
[ "$(cat "$work/auth1")" = "$(cat "$work/auth2")" ] || {
  echo "--client-auth: the second run's address differs" >&2; exit 1; }

# The caller dials the address saved from the first run.
"$donar_call" caller - --tor-control "$CONTROL_PORT" --seconds 4 \
  --wait-links 12 --setup-timeout 20 --json < "$work/first" \
  > "$work/caller.json" 2> "$work/caller.log"
wait "$second_pid"
echo "caller: $(cat "$work/caller.json")" >&2
"$python" - "$work/caller.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ok = r["max_links_up"] == 12 and r["frames_expected"] >= 50 and \
    r["frames_received"] >= 0.98 * r["frames_expected"]
if not ok:
    print("caller of the saved address: %d links, %d of %d frames" % (
        r["max_links_up"], r["frames_received"], r["frames_expected"]),
        file=sys.stderr)
sys.exit(0 if ok else 1)
PY
