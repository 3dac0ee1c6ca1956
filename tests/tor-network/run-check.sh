#!/usr/bin/env bash
# The `tor-network` test: starts a private Tor network in a temporary
# directory, joins it with a second tor (the way a callee's own tor joins:
# %include of the network's torrc fragment), checks with check-onion.py that
# an onion service published by that tor is reached through the network's
# client with distinct circuits, and stops everything, also on failure.
#
#   run-check.sh [PYTHON]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
python=${1:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-tor-network.XXXXXX")
callee_pid=""

cleanup () {
  local rc=$?
  if [ -n "$callee_pid" ] && kill -0 "$callee_pid" 2>/dev/null; then
    kill -TERM "$callee_pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$callee_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$callee_pid" 2>/dev/null || true
  fi
  "$here/../../tools/tornet/tor-network.sh" stop "$work/net" || true
  if [ "$rc" -ne 0 ] && [ -f "$work/callee/notice.log" ]; then
    echo "==> callee notice.log <==" >&2
    tail -n 20 "$work/callee/notice.log" >&2
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

eval "$("$here/../../tools/tornet/tor-network.sh" start "$work/net")"

# A free port for the callee's control port: let the kernel choose one for
# a moment. (A race with another process is possible but harmless: tor then
# fails to start and the test says so.)
free_port () {
  "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The callee's own tor: a client of the private network, no SocksPort.
mkdir -m 700 "$work/callee"
callee_control=$(free_port)
cat > "$work/callee/torrc" <<TORRC
%include $TOR_TORRC_INCLUDE
DataDirectory $work/callee
SocksPort 0
ControlPort 127.0.0.1:$callee_control
CookieAuthentication 1
Log notice file $work/callee/notice.log
TORRC
t0=$(date +%s.%N)
tor -f "$work/callee/torrc" --defaults-torrc /dev/null < /dev/null > /dev/null 2>&1 &
callee_pid=$!
until grep -q "Bootstrapped 100%" "$work/callee/notice.log" 2>/dev/null; do
  kill -0 "$callee_pid" 2>/dev/null || { echo "callee tor exited" >&2; exit 1; }
  if [ "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print (b - a > 60) }')" = 1 ]; then
    echo "callee tor not bootstrapped in 60 s" >&2
    exit 1
  fi
  sleep 0.2
done
echo "callee tor bootstrapped in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" >&2

"$python" "$here/check-onion.py" \
  --control-port "$TOR_CONTROL_PORT" --cookie "$TOR_COOKIE" --socks-port "$TOR_SOCKS_PORT" \
  --service-control-port "$callee_control" --service-cookie "$work/callee/control_auth_cookie" \
  --connections 12
