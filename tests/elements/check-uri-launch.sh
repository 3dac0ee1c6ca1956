#!/usr/bin/env bash
# The gst-launch-1.0 lines of docs/elements.md, "The donar:// URI", run as
# written over donar-torsim, its control port in place of 9051 (and of
# PORT in the playbin line), in a directory of their own (address.txt,
# out.wav), each process run with -v, which prints the caps it negotiates:
#   1. the callee's line (donar://callee?...&address-file=address.txt) and
#      the caller's ("$(cat address.txt)&tor-control=9051"): the caller
#      sets the call up, the callee decodes (opusdec's output caps), and
#      -v never prints the secret;
#   2. playbin uri="$(cat address.txt)&tor-control=PORT" against the
#      sending callee the paragraph names: out.wav holds 2 s of audio;
#   3. the full-duplex pair (C=..., A=...): both ends decode.
# Everything started is stopped by PID, also on failure.
#
#   check-uri-launch.sh BUILD_DIR DONAR_TORSIM SOURCE_DIR
set -euo pipefail

export GST_PLUGIN_PATH="$1/gst"
torsim=$2
doc="$3/docs/elements.md"
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-uri-launch.XXXXXX")
source "$(dirname "$0")/../torsim/processes.sh"
logs=(torsim.log callee-1.log caller-1.log callee-2.log playbin.log
  callee-3.log caller-3.log)

"$torsim" --port-file "$work/ports" --publish-ms 500 > "$work/torsim.log" 2>&1 &
pids+=($!)
wait_for_file "$work/ports"
grep -q READY "$work/ports"
eval "$(grep _PORT= "$work/ports")"

# The section's example lines, the port put in: the one that matches $1.
example () {
  local line
  line=$(sed -n '/^## The donar:\/\/ URI/,/^## Bandwidth/p' "$doc" |
    sed -n 's/^ *\(\(gst-launch-1.0\|C=\|A=\).*\)$/\1/p' | grep -F -- "$1" |
    head -n 1)
  [ -n "$line" ] || { echo "no example line with \"$1\" in $doc" >&2; exit 1; }
  line=${line//tor-control=9051/tor-control=$CONTROL_PORT}
  echo "${line//tor-control=PORT/tor-control=$CONTROL_PORT}"
}

# Runs example line $1 in the background with -v, its log $work/$2.log,
# its pid in last_pid.
start () {
  local line
  line=$(example "$1")
  # exec: the pid is gst-launch-1.0's, for stop ().
  (cd "$work" && eval "exec ${line/gst-launch-1.0/gst-launch-1.0 -v}") \
    > "$work/$2.log" 2>&1 &
  pids+=($!)
  last_pid=$!
}

# Runs example line $1 for $3 s (then SIGINT), its log $work/$2.log.
run_for () {
  local line
  line=$(example "$1")
  (cd "$work" && eval "timeout -s INT $3 ${line/gst-launch-1.0/gst-launch-1.0 -v}") \
    > "$work/$2.log" 2>&1 || true
}

stop () {
  kill -INT "$1" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
}

decoded () {
  grep -q "GstOpusDec:opusdec0.GstPad:src: caps = audio/x-raw" "$work/$1.log"
}

failed=0
check () {
  if ! eval "$1"; then
    echo "not ok: $2" >&2
    failed=1
  else
    echo "ok: $2"
  fi
}

# 1.
start "gst-launch-1.0 'donar://callee?" callee-1
callee=$last_pid
wait_for_file "$work/address.txt"
secret=$(sed -n 's/.*secret=\([0-9a-f]*\).*/\1/p' "$work/address.txt")
run_for '"$(cat address.txt)&tor-control=9051"' caller-1 8
stop "$callee"
check 'grep -q "Progress: (donar-call) call set up" "$work/caller-1.log"' \
  "1: the caller made from the URI sets the call up"
check 'decoded callee-1' "1: the callee made from donar://callee decodes"
check '! grep -q "$secret" "$work/caller-1.log" "$work/callee-1.log"' \
  "1: -v prints no secret"

# 2.
rm -f "$work/address.txt"
(cd "$work" && exec gst-launch-1.0 audiotestsrc is-live=true ! opusenc \
  bitrate=32000 frame-size=40 ! rtpopuspay ! \
  "donar://callee?tor-control=$CONTROL_PORT&address-file=address.txt") \
  > "$work/callee-2.log" 2>&1 &
pids+=($!)
callee=$!
wait_for_file "$work/address.txt"
# -e: wavenc writes its header's sizes at EOS.
run_for 'playbin uri=' playbin 8
stop "$callee"
bytes=$(stat -c %s "$work/out.wav" 2>/dev/null || echo 0)
echo "2: out.wav: $bytes bytes"
# 48 kHz, mono, 16 bits: 96,000 bytes a second.
check '[ "$bytes" -gt 192000 ]' "2: playbin plays 2 s of the callee's audio"

# 3.
rm -f "$work/address.txt"
eval "$(example "C='donar://callee")"
start 'gst-launch-1.0 "$C"' callee-3
callee=$last_pid
wait_for_file "$work/address.txt"
(cd "$work" && eval "$(example 'A="$(cat address.txt)')" &&
  eval "timeout -s INT 8 $(example 'gst-launch-1.0 "$A"' |
    sed 's/gst-launch-1.0/gst-launch-1.0 -v/')") \
  > "$work/caller-3.log" 2>&1 || true
stop "$callee"
check 'decoded callee-3' "3: the duplex callee decodes"
check 'decoded caller-3' "3: the duplex caller decodes"
exit "$failed"
