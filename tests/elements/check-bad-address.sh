#!/usr/bin/env bash
# A malformed call address, or settings that cannot make a call, fail the
# state change of donarsink / donarsrc at once: gst-launch-1.0 itself must
# exit with the reason, in every run (it used to hang when the error came
# from the setup thread while the state change ran).  Nothing is dialed:
# tor-control names a port where nothing listens, unless a case names a
# bad one.  The error's message names the reason (Invalid call settings:
# ...), and gst-launch-1.0 exits 255 (the state change to PAUSED failed) in
# every run.
#
#   check-bad-address.sh BUILD_DIR
set -euo pipefail

export GST_PLUGIN_PATH="$1/gst"
# The example v3 onion of tor's rend-spec (a valid checksum).
onion=pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion
secret=$(printf '0%.0s' $(seq 1 64))
# Each case: the element's properties, then the reason the error must give.
cases=(
  "address=foo|a call address starts with donar://"
  "address=http://example.com/|a call address starts with donar://"
  "address=donar://$onion:5004?secret=12|the secret must be 64 hexadecimal digits"
  "address=donar://abc.onion:5004?secret=$secret|the host must be a v3 onion address"
  "address=donar://$onion?secret=$secret|the address needs a port"
  "callee=true n1st=8 n2nd=8|is more than links"
  "callee=true tor-control=unix:run/tor/control|tor-control: a Unix socket must be an absolute path"
  "address=donar://$onion:5004?secret=$secret tor-socks-path=run/tor/socks|tor-socks-path: a Unix socket must be an absolute path"
  "callee=true tor-control=9051x|tor-control: a port number, a Unix socket"
)
failed=0
for run in $(seq 1 10); do
  entry=${cases[$(( (run - 1) % ${#cases[@]} ))]}
  props=${entry%%|*}
  reason=${entry#*|}
  if [ $(( run % 2 )) -eq 0 ]; then
    pipeline="audiotestsrc num-buffers=5 ! opusenc bitrate=32000 frame-size=40 ! rtpopuspay ! donarsink tor-control=9 $props"
  else
    pipeline="donarsrc tor-control=9 $props ! fakesink"
  fi
  rc=0
  # shellcheck disable=SC2086
  out=$(timeout 20 gst-launch-1.0 $pipeline 2>&1) || rc=$?
  if [ "$rc" -ne 255 ]; then
    echo "run $run ($props): gst-launch-1.0 exited with $rc, not 255 (its" \
      "failed state change)" >&2
    failed=1
  elif ! grep -q "ERROR: from element .*: Invalid call settings: .*$reason" <<< "$out"; then
    echo "run $run ($props): no \"$reason\" in the error's message:" >&2
    echo "$out" >&2
    failed=1
  else
    echo "run $run ($props): refused at once (exit $rc)"
  fi
done
exit "$failed"
