#!/usr/bin/env bash
# Hang-up between two gst-launch-1.0 processes over donar-torsim, each a
# full-duplex call as docs/elements.md shows it:
#   A. the caller's audio ends (num-buffers): its donarsink hangs up, and
#      the callee's process must exit with EOS (status 0) within 5 s of
#      the caller's, having posted donar-call-ended "peer-hung-up";
#   B. the caller is killed (SIGKILL, no BYE): the callee must end with
#      the documented error (status 1, "unreachable", donar-call-ended
#      "peer-unreachable") within peer-timeout + 5 s, having said that it
#      waits for the caller to reconnect (a callee never dials);
#   C. a callee nobody called loses tor's control port (donar-torsim's
#      DONAR-CLOSE-CONTROLS): its onion is gone, so it must end at once
#      with an error that says so, not wait for ever.
# Everything started is stopped by PID, also on failure.
#
#   check-hang-up.sh BUILD_DIR DONAR_TORSIM
set -euo pipefail

export GST_PLUGIN_PATH="$1/gst"
torsim=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-hang-up.XXXXXX")
source "$(dirname "$0")/../torsim/processes.sh"
logs=(torsim.log callee-a.log caller-a.log callee-b.log caller-b.log callee-c.log)
peer_timeout=5

"$torsim" --port-file "$work/ports" --seed 7 > "$work/torsim.log" 2>&1 &
pids+=($!)
wait_for_file "$work/ports"
grep -q READY "$work/ports"
eval "$(grep _PORT= "$work/ports")"

send="audiotestsrc is-live=true wave=ticks ! opusenc bitrate=32000 frame-size=40 ! rtpopuspay"
receive="donarjitterbuffer ! rtpopusdepay ! opusdec plc=true ! fakesink sync=false"

# The callee of case $1: its pid in callee_pid, its address in $work/address-$1.
start_callee () {
  # shellcheck disable=SC2086
  gst-launch-1.0 -m donarsrc callee=true call=c tor-control="$CONTROL_PORT" \
    peer-timeout=$peer_timeout ! $receive \
    $send ! donarsink callee=true call=c tor-control="$CONTROL_PORT" \
    peer-timeout=$peer_timeout address-file="$work/address-$1" \
    > "$work/callee-$1.log" 2>&1 &
  callee_pid=$!
  pids+=($callee_pid)
  wait_for_file "$work/address-$1"
}

# The caller of case $1, sending $2 (gst-launch-1.0 options) buffers.
start_caller () {
  local address
  address=$(cat "$work/address-$1")
  # shellcheck disable=SC2086
  gst-launch-1.0 -m donarsrc call=c address="$address" \
    tor-control="$CONTROL_PORT" ! $receive \
    ${send/audiotestsrc/audiotestsrc $2} ! donarsink call=c \
    address="$address" tor-control="$CONTROL_PORT" \
    > "$work/caller-$1.log" 2>&1 &
  caller_pid=$!
  pids+=($caller_pid)
}

# Waits for a process to exit, up to $2 s; its status in `status`, the
# seconds it took in `took`.
wait_exit () {
  local start=$SECONDS
  status=""
  while [ $((SECONDS - start)) -lt "$2" ]; do
    if ! kill -0 "$1" 2>/dev/null; then
      status=0
      wait "$1" || status=$?
      break
    fi
    sleep 0.2
  done
  took=$((SECONDS - start))
}

failed=0
check () {
  if ! eval "$1"; then
    echo "FAIL: $2" >&2
    failed=1
  fi
}

# A: 250 buffers of 40 ms, 10 s of sound, most of it once the links are up.
start_callee a
start_caller a "num-buffers=250"
wait_exit "$caller_pid" 60
echo "A: the caller exited with $status after its audio ended"
check '[ "$status" = 0 ]' "A: the caller did not exit with EOS"
wait_exit "$callee_pid" 5
echo "A: the callee exited ${status:-not} in ${took} s"
check '[ "$status" = 0 ]' "A: the callee did not exit with EOS within 5 s"
check 'grep -q "Got EOS from element" "$work/callee-a.log"' "A: no EOS at the callee"
check 'grep -q "donar-call-ended.*peer-hung-up" "$work/callee-a.log"' \
  "A: no donar-call-ended peer-hung-up at the callee"
check 'grep -q "donar-call-ended.*reason=(string)hung-up" "$work/caller-a.log"' \
  "A: no donar-call-ended hung-up at the caller"

# B: the caller killed once its links carry the call.
start_callee b
start_caller b ""
for _ in $(seq 1 300); do
  grep -q "donar-links.*links-up=(uint)12" "$work/caller-b.log" && break
  sleep 0.1
done
sleep 1
kill -KILL "$caller_pid"
wait "$caller_pid" 2>/dev/null || true
wait_exit "$callee_pid" $((peer_timeout + 5))
echo "B: the callee exited ${status:-not} ${took} s after the caller was killed"
check '[ -n "$status" ] && [ "$status" != 0 ]' \
  "B: the callee did not end with an error within peer-timeout + 5 s"
check 'grep -q "unreachable: no link to it for peer-timeout" "$work/callee-b.log"' \
  "B: the callee's error does not name the cause"
check 'grep -q "donar-call-ended.*peer-unreachable" "$work/callee-b.log"' \
  "B: no donar-call-ended peer-unreachable at the callee"
check 'grep -q "No link of the call is left open; waiting for the caller to reconnect" "$work/callee-b.log"' \
  "B: the callee did not say it waits for the caller"
check '! grep -q "dialing again" "$work/callee-b.log"' \
  "B: the callee speaks of dialing"

# C: tor's control connections closed under a callee nobody called.
start_callee c
exec 3<>"/dev/tcp/127.0.0.1/$CONTROL_PORT"
printf 'AUTHENTICATE\r\nDONAR-CLOSE-CONTROLS\r\nQUIT\r\n' >&3
timeout 5 cat <&3 > /dev/null || true
exec 3<&-
wait_exit "$callee_pid" 5
echo "C: the callee exited ${status:-not} ${took} s after tor's control port closed"
check '[ -n "$status" ] && [ "$status" != 0 ]' \
  "C: the callee did not end with an error within 5 s"
check 'grep -q "the onion service is gone, and the caller cannot reach this end again" "$work/callee-c.log"' \
  "C: the callee's error does not say the onion is gone"
check '! grep -q "the call goes on over the open links" "$work/callee-c.log"' \
  "C: the callee speaks of open links"
exit "$failed"
