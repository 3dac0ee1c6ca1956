# Sourced by the call tests of the private network (run-call.sh,
# run-shaped-call.sh, run-guards.sh): the callee's own tor, a client of the
# network with a ControlPort and no SocksPort, the wait for the callee's
# address, and the network's stop on exit.
# The PIDs go into the script's `pids`.

# start_callee_tor DIR TORRC_INCLUDE: starts that tor in DIR and waits for
# its bootstrap (60 s); sets callee_control (its ControlPort) and
# callee_cookie.
start_callee_tor () {
  local dir=$1 include=$2
  callee_control=$("${python:-python3}" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  callee_cookie=$dir/control_auth_cookie
  mkdir -m 700 "$dir"
  cat > "$dir/torrc" <<TORRC
%include $include
DataDirectory $dir
SocksPort 0
ControlPort 127.0.0.1:$callee_control
CookieAuthentication 1
Log notice file $dir/notice.log
TORRC
  tor -f "$dir/torrc" --defaults-torrc /dev/null < /dev/null > /dev/null 2>&1 &
  pids+=($!)
  for _ in $(seq 1 600); do
    grep -q "Bootstrapped 100%" "$dir/notice.log" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "callee tor not bootstrapped in 60 s" >&2
  return 1
}

# wait_for_address FILE PID SECONDS: waits for the call address that the
# callee (PID) writes to FILE; sets address and onion.
wait_for_address () {
  local file=$1 pid=$2 seconds=$3
  for _ in $(seq 1 $(( seconds * 10 ))); do
    [ -s "$file" ] && break
    kill -0 "$pid" 2>/dev/null || { echo "the callee exited" >&2; return 1; }
    sleep 0.1
  done
  [ -s "$file" ] || { echo "no call address in $seconds s" >&2; return 1; }
  address=$(cat "$file")
  onion=$(echo "$address" | sed -E 's|^donar://([a-z2-7]+\.onion):.*|\1|')
  echo "callee published $onion" >&2
}

# stop_network_on_exit COMMAND...: after sourcing tests/torsim/processes.sh,
# makes the exit run COMMAND (the network's stop) before its cleanup, with
# the script's status kept.
stop_network_on_exit () {
  network_stop=("$@")
  trap stop_network_then_cleanup EXIT
}

stop_network_then_cleanup () {
  local rc=$?
  set +e
  "${network_stop[@]}"
  (exit "$rc")
  cleanup
}
