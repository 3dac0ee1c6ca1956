#!/usr/bin/env bash
# The `torsim-contacts` test: per-contact client authorization of a
# lasting address over donar-torsim.  `donar-call contact-key NAME DIR`
# makes two contacts' pairs (DIR/NAME.auth in tor's authorized_clients
# form, the secret key on stdout) and refuses to replace one; a callee
# with --key-file and --client-auth-dir DIR lets in only them: a caller
# with the bare address, or with a stranger's key, gets the clear error
# and exit status 1; each contact, its own key added as &auth=, carries a
# call (a callee run each, with the same key file).  A contacts directory with a malformed NAME.auth is refused
# before any tor is launched.  Everything started is stopped by PID, also
# on failure.
#
#   run-contacts.sh DONAR_TORSIM DONAR_CALL PYTHON
set -euo pipefail

torsim=$1
donar_call=$2
python=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-torsim-contacts.XXXXXX")
source "$(dirname "$0")/processes.sh"
logs=(torsim.log callee.log none.log stranger.log again.log bad.log
  alice.log alice.json bob.log bob.json)

mkdir "$work/contacts" "$work/others" "$work/bad"
"$donar_call" contact-key alice "$work/contacts" > "$work/alice.key"
"$donar_call" contact-key bob "$work/contacts" > "$work/bob.key"
"$donar_call" contact-key carol "$work/others" > "$work/carol.key"
grep -Eq '^descriptor:x25519:[a-z2-7]{52}$' "$work/contacts/alice.auth"
grep -Eq '^[a-z2-7]{52}$' "$work/alice.key"
status=0
"$donar_call" contact-key alice "$work/contacts" > /dev/null \
  2> "$work/again.log" || status=$?
refused "$status" again "File exists"

echo "descriptor:x25519:tooshort" > "$work/bad/dave.auth"
status=0
timeout 5 "$donar_call" callee --client-auth-dir "$work/bad" --seconds 1 \
  > /dev/null 2> "$work/bad.log" || status=$?
refused "$status" bad "dave.auth: not descriptor:x25519:"

"$torsim" --port-file "$work/ports" --seed 5 > "$work/torsim.log" 2>&1 &
pids+=($!)
wait_for_file "$work/ports"
eval "$(grep _PORT= "$work/ports")"

mkdir -m 700 "$work/keys"
# One callee run per call, as a softphone answers: the same key file and
# contacts each time.
for who in alice bob; do
  rm -f "$work/address"
  "$donar_call" callee --key-file "$work/keys/callee.key" \
    --client-auth-dir "$work/contacts" --tor-control "$CONTROL_PORT" \
    --seconds 5 --address-file "$work/address" --setup-timeout 30 \
    > /dev/null 2> "$work/callee.log" &
  pids+=($!)
  callee_pid=$!
  wait_for_file "$work/address"
  address=$(cat "$work/address")

  if [ "$who" = alice ]; then
    status=0
    timeout 20 "$donar_call" caller - --tor-control "$CONTROL_PORT" \
      --seconds 3 --setup-timeout 10 <<< "$address" > /dev/null \
      2> "$work/none.log" || status=$?
    refused "$status" none "needs client authorization"
    status=0
    timeout 20 "$donar_call" caller - --tor-control "$CONTROL_PORT" \
      --seconds 3 --setup-timeout 10 \
      <<< "$address&auth=$(cat "$work/carol.key")" \
      > /dev/null 2> "$work/stranger.log" || status=$?
    refused "$status" stranger "rejected the client authorization"
  fi

  "$donar_call" caller - --tor-control "$CONTROL_PORT" --seconds 3 \
    --wait-links 12 --setup-timeout 20 --json \
    <<< "$address&auth=$(cat "$work/$who.key")" \
    > "$work/$who.json" 2> "$work/$who.log"
  echo "$who: $(cat "$work/$who.json")" >&2
  wait "$callee_pid"
done

"$python" - "$work/alice.json" "$work/bob.json" <<'PY'
import json, sys
ok = True
for path in sys.argv[1:]:
    r = json.load(open(path))
    if not (r["max_links_up"] == 12 and r["frames_expected"] >= 40 and
            r["frames_received"] >= 0.98 * r["frames_expected"]):
        print("%s: %d links, %d of %d frames" % (path, r["max_links_up"],
            r["frames_received"], r["frames_expected"]), file=sys.stderr)
        ok = False
sys.exit(0 if ok else 1)
PY
