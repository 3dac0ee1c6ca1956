#!/usr/bin/env bash
# A refusal that no retry changes ends gst-launch-1.0 at once, in every
# run: a caller with a wrong client authorization key (tor's 0xF5), 50
# runs over donar-torsim.  The refusal comes from the link engine's thread
# while the setup thread ends; before the fix, 1 run in 46 posted the error,
# then "call set up", went to PLAYING and stayed there until peer-timeout
# (docs/elements.md, "Caller and callee").  Each run must exit non-zero
# within 10 s with the refusal's reason.  (Its output cannot tell whether
# "call set up" came after the error: gst-launch-1.0 prints errors from its
# bus sync handler, the progress later from its loop.  check-refusal.py
# checks the order on the bus.)  Everything started is stopped by PID, also
# on failure.
#
#   check-refusal.sh BUILD_DIR DONAR_TORSIM [RUNS]
set -euo pipefail

export GST_PLUGIN_PATH="$1/gst"
torsim=$2
runs=${3:-50}
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-refusal.XXXXXX")
source "$(dirname "$0")/../torsim/processes.sh"
logs=(torsim.log callee.log run.log)

"$torsim" --port-file "$work/ports" --seed 5 > "$work/torsim.log" 2>&1 &
pids+=($!)
wait_for_file "$work/ports"
grep -q READY "$work/ports"
eval "$(grep _PORT= "$work/ports")"

gst-launch-1.0 donarsrc callee=true client-auth=true \
  tor-control="$CONTROL_PORT" address-file="$work/address" ! fakesink \
  > "$work/callee.log" 2>&1 &
pids+=($!)
wait_for_file "$work/address"
address=$(cat "$work/address")
key=${address##*&auth=}
case ${key:0:1} in a|A) other=b ;; *) other=a ;; esac
wrong="${address%&auth=*}&auth=${other}${key:1}"

send="audiotestsrc is-live=true ! opusenc bitrate=32000 frame-size=40 ! rtpopuspay"
reason="refused our client authorization"
failed=0
before=0
start=$SECONDS
for run in $(seq 1 "$runs"); do
  rc=0
  # shellcheck disable=SC2086
  timeout -k 5 10 gst-launch-1.0 $send ! donarsink tor-control="$CONTROL_PORT" \
    address="$wrong" > "$work/run.log" 2>&1 || rc=$?
  grep -q "call set up" "$work/run.log" || before=$((before + 1))
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "run $run: gst-launch-1.0 exited with $rc, not an error" >&2
    failed=1
  elif ! grep -qF "$reason" "$work/run.log"; then
    echo "run $run: no \"$reason\" in its error" >&2
    failed=1
  fi
  [ "$failed" -eq 0 ] || { cat "$work/run.log" >&2; exit 1; }
done
echo "$runs runs in $((SECONDS - start)) s, each the error and exit; the" \
  "refusal came before the setup ended (no \"call set up\") in $before"
