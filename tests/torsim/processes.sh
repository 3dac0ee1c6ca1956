# Sourced by the torsim scripts: every process they start goes into
# `pids` and is stopped by PID on exit (TERM, then KILL after 5 s); on a
# failure the tails of the logs named in `logs` (files of $work) are
# shown; $work is removed.
pids=()
logs=()

cleanup () {
  local rc=$?
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [ "$rc" -ne 0 ]; then
    for f in "${logs[@]}"; do
      [ -f "$work/$f" ] && { echo "==> $f <==" >&2; tail -n 30 "$work/$f" >&2; }
    done
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_for_file () {
  for _ in $(seq 1 300); do
    [ -s "$1" ] && return 0
    sleep 0.1
  done
  echo "no $1 in 30 s" >&2
  return 1
}

# refused STATUS NAME PATTERN: a process that had to refuse exited with
# status 1 and said PATTERN in $work/NAME.log.
refused () {
  local status=$1 name=$2 pattern=$3
  [ "$status" -eq 1 ] || { echo "$name: exit status $status, not 1" >&2; exit 1; }
  grep -q "$pattern" "$work/$name.log" || {
    echo "$name: no \"$pattern\" in its error" >&2; exit 1; }
}

# Waits for a child that must end within $2 s (a hang fails); its exit
# status in $exit_status.
wait_exit () {
  exit_status=0
  for _ in $(seq 1 $(($2 * 10))); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$1" 2>/dev/null; then
    echo "process $1 hangs" >&2
    return 1
  fi
  wait "$1" || exit_status=$?
}

# wait_call CALLER_PID CALLEE_PID SECONDS DIR: the caller within SECONDS,
# then the callee (which its BYE ends) within 20 s; both JSON reports
# (DIR/caller.json, DIR/callee.json) on stderr; fails unless both exited 0.
wait_call () {
  local caller_status callee_status
  wait_exit "$1" "$3"
  caller_status=$exit_status
  wait_exit "$2" 20
  callee_status=$exit_status
  echo "caller: exit status $caller_status: $(cat "$4/caller.json")" >&2
  echo "callee: exit status $callee_status: $(cat "$4/callee.json")" >&2
  [ "$caller_status" -eq 0 ] && [ "$callee_status" -eq 0 ]
}
