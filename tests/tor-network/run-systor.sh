#!/usr/bin/env bash
# The `tor-systor` test: calls through a tor set up as Debian's tor
# service is (/usr/share/tor/tor-service-defaults-torrc), that is with
# Unix sockets only: a ControlSocket with cookie authentication and a
# SocksPort unix:/path, in a directory of the group debian-tor, and no
# TCP port at all.
#   - the errors that say what to do: no such socket, not a socket, and
#     (when we are root and can become nobody) permission denied, naming
#     the group debian-tor, from donar-call and from donarsrc;
#   - two calls at once, both ends on that tor with --tor-control
#     <dir>/control (as root, as nobody with the group debian-tor only, as
#     a user of Debian's tor would): the callees publish their onions
#     through the control socket; one caller learns the SocksPort
#     unix:<dir>/socks from it, the other is given it (--tor-socks-path),
#     and each dials its 12 links through that socket; a --tor-socks-path
#     that is not a socket fails at the setup;
#   - a call of the elements too: two pipelines/softphone.py (donarsink
#     and donarsrc) with tor-control=<dir>/control;
#   - every end must have had 12 links up and received most frames.
# Everything started is stopped by PID, also on failure.
#
#   run-systor.sh DONAR_CALL PLUGIN_DIR [PYTHON]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
donar_call=$1
plugin_dir=$2
python=${3:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-systor.XXXXXX")
# pids, logs and cleanup (stop by PID, tails of logs on failure), with the
# network stopped too.
source "$here/../torsim/processes.sh"
logs=(systor/notice.log)
stop_all () {
  local rc=$?
  set +e
  "$here/../../tools/tornet/tor-network.sh" stop "$work/net"
  (exit "$rc")
  cleanup
}
trap stop_all EXIT

# expect_error WHAT TEXT COMMAND...: COMMAND fails and says TEXT.
expect_error () {
  local what=$1 text=$2
  shift 2
  if "$@" > "$work/error.out" 2> "$work/error.log"; then
    echo "$what: succeeded, but should have failed" >&2
    exit 1
  fi
  if ! grep -qF -- "$text" "$work/error.log"; then
    echo "$what: the error does not say \"$text\":" >&2
    cat "$work/error.log" >&2
    exit 1
  fi
  echo "$what: $(cat "$work/error.log")" >&2
}

run_dir=$work/run
touch "$work/not-a-socket"
expect_error "a socket that does not exist" "no such file" \
  "$donar_call" callee --quiet --tor-control "$run_dir/control"
expect_error "a file that is not a socket" "not a socket" \
  "$donar_call" callee --quiet --tor-control "unix:$work/not-a-socket"

# As root, tor runs as Debian's service runs it (started as root, then
# User debian-tor), and we can be a user outside, then inside, its group.
as_user=()
tor_user=()
softphone=$here/../../pipelines/softphone.py
group_gid=$(getent group debian-tor | cut -d: -f3 || true)
# (nobody must also be able to run the build and read the tree.)
if [ "$(id -u)" = 0 ] && [ -n "$group_gid" ] && getent passwd debian-tor > /dev/null \
    && command -v setpriv > /dev/null \
    && setpriv --reuid=65534 --regid=65534 --clear-groups "$donar_call" --help > /dev/null 2>&1 \
    && setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$softphone"; then
  tor_user=(debian-tor)
  as_user=(setpriv --reuid=65534 --regid=65534 "--groups=$group_gid")
  outsider=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  # nobody must reach the sockets' directory and run the build, and
  # writes in a directory of its own.
  chmod 755 "$work"
  mkdir -m 700 "$work/nobody"
  chown 65534:65534 "$work/nobody"
fi

eval "$("$here/../../tools/tornet/tor-network.sh" start "$work/net")"

# The system-like tor: Debian's service settings, its sockets under
# $run_dir (as /run/tor: tor's own, setgid, so the sockets and the cookie
# are its group's; tor refuses a directory of another group), its data
# apart.
mkdir -m 700 "$work/systor"
mkdir -m 2755 "$run_dir"
if [ ${#tor_user[@]} -gt 0 ]; then
  chown debian-tor:debian-tor "$work/systor" "$run_dir"
fi
cat > "$work/systor/torrc" <<TORRC
%include $TOR_TORRC_INCLUDE
${tor_user:+User $tor_user}
DataDirectory $work/systor
ControlSocket $run_dir/control GroupWritable RelaxDirModeCheck
ControlSocketsGroupWritable 1
SocksPort unix:$run_dir/socks WorldWritable
CookieAuthentication 1
CookieAuthFileGroupReadable 1
CookieAuthFile $run_dir/control.authcookie
Log notice file $work/systor/notice.log
TORRC
tor -f "$work/systor/torrc" --defaults-torrc /dev/null < /dev/null > /dev/null 2>&1 &
systor_pid=$!
pids+=("$systor_pid")
for _ in $(seq 1 600); do
  grep -q "Bootstrapped 100%" "$work/systor/notice.log" 2>/dev/null && break
  kill -0 "$systor_pid" 2>/dev/null || { echo "the system-like tor exited" >&2; exit 1; }
  sleep 0.1
done
grep -q "Bootstrapped 100%" "$work/systor/notice.log" || { echo "the system-like tor did not bootstrap in 60 s" >&2; exit 1; }
echo "$SECONDS s: the system-like tor bootstrapped" >&2
[ -S "$run_dir/control" ] && [ -S "$run_dir/socks" ] || { echo "no sockets in $run_dir" >&2; exit 1; }
# "Opened Socks listener connection (ready) on /path" (or on 127.0.0.1:N).
if grep -E "Opened .* listener connection \(ready\) on [^/]" "$work/systor/notice.log" >&2 \
    || ! grep -qF "Opened Socks listener connection (ready) on $run_dir/socks" "$work/systor/notice.log"; then
  echo "the system-like tor listens elsewhere than on its Unix sockets" >&2
  exit 1
fi

if [ ${#as_user[@]} -gt 0 ]; then
  expect_error "outside the group debian-tor" "sudo adduser \$USER debian-tor" \
    "${outsider[@]}" "$donar_call" callee --quiet --tor-control "$run_dir/control"
  # The elements say it too (gst-launch-1.0 prints it as the error's debug
  # text); the timeout only bounds a failure (test setup-error).
  expect_error "donarsrc outside the group debian-tor" "sudo adduser \$USER debian-tor" \
    "${outsider[@]}" env HOME="$work/nobody" GST_PLUGIN_PATH="$plugin_dir" \
    GST_REGISTRY="$work/nobody/registry.bin" timeout 5 \
    gst-launch-1.0 donarsrc tor-control="$run_dir/control" ! fakesink
fi

# Two calls at once on that tor, both ends with --tor-control only; the
# second caller also names the SocksPort socket (--tor-socks-path) rather
# than asking for it.  Each callee would send for 2 minutes: it reports
# once told to stop, after its caller.
user_dir=$work
[ ${#as_user[@]} -gt 0 ] && user_dir=$work/nobody
callee_pids=()
for call in asked given; do
  "${as_user[@]}" "$donar_call" callee --tor-control "$run_dir/control" \
    --seconds 120 --wait-links 12 --address-file "$user_dir/$call.address" \
    --setup-timeout 60 --json > "$work/$call-callee.json" 2> "$work/$call-callee.log" &
  pids+=($!)
  callee_pids+=($!)
  logs+=("$call-callee.log" "$call-caller.log")
done
# And a call of the elements: two softphones (pipelines/softphone.py, a
# donarsink and a donarsrc each) with tor-control=<dir>/control.
gst_env=(env HOME="$user_dir" GST_PLUGIN_PATH="$plugin_dir" GST_REGISTRY="$user_dir/registry.bin")
softphone_args=(--tor-control "$run_dir/control" --seconds 8 --setup-timeout 60 --json)
"${as_user[@]}" "${gst_env[@]}" /usr/bin/python3 "$softphone" callee --tone 440 \
  --output "$user_dir/elements-callee.wav" --address-file "$user_dir/elements.address" \
  "${softphone_args[@]}" > "$work/elements-callee.json" 2> "$work/elements-callee.log" &
pids+=($!)
softphone_pids=($!)
logs+=(elements-callee.log elements-caller.log)
for call in asked given elements; do
  for _ in $(seq 1 600); do
    [ -s "$user_dir/$call.address" ] && break
    sleep 0.1
  done
  [ -s "$user_dir/$call.address" ] || { echo "$call: no call address in 60 s" >&2; exit 1; }
  echo "$SECONDS s: the $call callee published its onion" >&2
done
echo "$SECONDS s: the callees published their onions" >&2

# A SocksPort that is not a socket: said at the setup, so the option counts.
expect_error "--tor-socks-path to a file" "cannot connect to tor's SocksPort $work/not-a-socket: not a socket" \
  "${as_user[@]}" "$donar_call" caller - --tor-control "$run_dir/control" \
  --tor-socks-path "$work/not-a-socket" --setup-timeout 60 < "$user_dir/asked.address"

caller_pids=()
for call in asked given; do
  socks=()
  [ "$call" = given ] && socks=(--tor-socks-path "unix:$run_dir/socks")
  "${as_user[@]}" "$donar_call" caller - --tor-control "$run_dir/control" "${socks[@]}" \
    --seconds 15 --wait-links 12 --setup-timeout 60 --json \
    < "$user_dir/$call.address" > "$work/$call-caller.json" 2> "$work/$call-caller.log" &
  pids+=($!)
  caller_pids+=($!)
done
"${as_user[@]}" "${gst_env[@]}" /usr/bin/python3 "$softphone" caller "$(cat "$user_dir/elements.address")" \
  --tone 660 --output "$user_dir/elements-caller.wav" "${softphone_args[@]}" \
  > "$work/elements-caller.json" 2> "$work/elements-caller.log" &
pids+=($!)
softphone_pids+=($!)
for pid in "${caller_pids[@]}" "${softphone_pids[@]}"; do wait "$pid"; done
echo "$SECONDS s: the callers and the softphones are done" >&2
# A donar-call callee ends at its caller's hang-up; a softphone may not.
for pid in "${callee_pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
for pid in "${callee_pids[@]}"; do wait "$pid" || true; done
echo "$SECONDS s: the callees are done" >&2
for f in asked-caller asked-callee given-caller given-callee elements-caller elements-callee; do
  echo "$f: $(cat "$work/$f.json")" >&2
done

"$python" - "$work" <<'PY'
import json, sys
ok = True
for call in ("asked", "given"):
    for end in ("caller", "callee"):
        name = "%s %s" % (call, end)
        r = json.load(open("%s/%s-%s.json" % (sys.argv[1], call, end)))
        if r["max_links_up"] != 12:
            print("%s: at most %d links up, not 12" % (name, r["max_links_up"]), file=sys.stderr)
            ok = False
        # Each sends a frame every 40 ms once the 12 links are up, the
        # caller for 15 s, the callee until the caller hangs up: most of
        # 375 frames each way.
        if r["frames_expected"] < 300 or r["frames_received"] < 0.95 * r["frames_expected"]:
            print("%s: received %d of %d frames" % (name, r["frames_received"], r["frames_expected"]), file=sys.stderr)
            ok = False
# The softphones: 8 s of a call from each one's first audio, a frame every
# 40 ms (opusenc frame-size=40): some 200 each way.
for end in ("caller", "callee"):
    r = json.loads(open("%s/elements-%s.json" % (sys.argv[1], end)).read().strip().splitlines()[-1])
    if r["frames_received"] < 150 or len(r["links"]) != 12:
        print("elements %s: received %d frames, %d links of 12 in the stats" % (end, r["frames_received"], len(r["links"])), file=sys.stderr)
        ok = False
sys.exit(0 if ok else 1)
PY
