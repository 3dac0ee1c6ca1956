#!/usr/bin/env bash
# A DONAR call on one machine: callee and caller in one process
# (build/tools/donar-demo), over donar-torsim (an emulated Tor) by default,
# then a QoE summary.  Builds nothing: run `bash scripts/setup.sh run` or
# `meson setup build && ninja -C build` first.  See pipelines/README.md.
set -euo pipefail

usage() {
  cat <<USAGE
Usage: $0 [options]
  --build DIR       the build directory (default: the tree's build/)
  --seconds N       seconds of call once the caller is ready (default: 20)
  --input FILE.wav  speech to send (default: a 440 Hz tone)
  --output FILE.wav where the callee writes what it plays (default: a temp dir)
  --speakers        play at the callee with autoaudiosink instead
  --policy NAME     simple, torfone, alternate, double-send, adaptive (default)
  --security NAME   default, 1way (2hop needs a patched tor)
  --seed N          donar-torsim's seed (default: 1; same seed, same network)
  --tor             a real tor launched by the elements instead of donar-torsim
                    (needs the internet: an offline machine cannot bootstrap)
  --direct          plain RTP over UDP on 127.0.0.1: no DONAR, no Tor (the ceiling)
  --frame-log FILE  write each frame's fate (seq,sent_ms,arrival_ms) to FILE
  --json            print the summary as one JSON object
USAGE
  exit "${1:-2}"
}

# The tree this script is in, wherever it is run from: its build/ by
# default.
tree=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$tree/build seconds=20 input= output= speakers= policy=adaptive
security=default seed=1 tor= json= direct= frame_log=
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=${2:?--build needs a directory}; shift ;;
    --seconds) seconds=${2:?--seconds needs a number}; shift ;;
    --input) input=${2:?--input needs a file}; shift ;;
    --output) output=${2:?--output needs a file}; shift ;;
    --speakers) speakers=1 ;;
    --policy) policy=${2:?--policy needs a name}; shift ;;
    --security) security=${2:?--security needs a name}; shift ;;
    --seed) seed=${2:?--seed needs a number}; shift ;;
    --tor) tor=1 ;;
    --direct) direct=1 ;;
    --frame-log) frame_log=${2:?--frame-log needs a file}; shift ;;
    --json) json=1 ;;
    -h|--help) usage 0 ;;
    *) echo "$0: unknown option '$1'" >&2; usage ;;
  esac
  shift
done
case "$seconds" in ''|*[!0-9]*) echo "$0: --seconds: '$seconds' is not a number" >&2; exit 2 ;; esac

demo=$build/tools/donar-demo
torsim=$build/tools/donar-torsim
[ -x "$torsim" ] || torsim=$build/tools/torsim/donar-torsim
for f in "$demo" "$build/gst/libgstdonar.so"; do
  if [ ! -e "$f" ]; then
    echo "$0: $f is missing: build first (meson setup $build && ninja -C $build)" >&2
    exit 1
  fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/donar-demo.XXXXXX")
torsim_pid= demo_pid=
cleanup() {
  # By PID, what this script started: donar-demo, then donar-torsim.
  for pid in $demo_pid $torsim_pid; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  # Keep the recording; remove the rest.
  rm -f "$tmp/ports" "$tmp/torsim.log"
  rmdir "$tmp" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

args=(--seconds "$seconds" --policy "$policy" --security "$security")
[ -n "$json" ] && args+=(--json)
[ -n "$input" ] && args+=(--input "$input")
[ -n "$frame_log" ] && args+=(--frame-log "$frame_log")
if [ -n "$speakers" ]; then
  args+=(--speakers)
else
  args+=(--output "${output:-$tmp/callee.wav}")
fi

if [ -n "$direct" ]; then
  args+=(--direct)
elif [ -n "$tor" ]; then
  # Empty tor-control: each element launches a tor of its own.
  echo "# a real tor: it must bootstrap, which needs the internet" >&2
  args+=(--tor-control "")
else
  [ -x "$torsim" ] || { echo "$0: $torsim is missing" >&2; exit 1; }
  "$torsim" --port-file "$tmp/ports" --seed "$seed" --security "$security" \
    >"$tmp/torsim.log" 2>&1 &
  torsim_pid=$!
  for _ in $(seq 100); do
    [ -e "$tmp/ports" ] && break
    kill -0 "$torsim_pid" 2>/dev/null || { cat "$tmp/torsim.log" >&2; exit 1; }
    sleep 0.1
  done
  control=$(sed -n 's/^CONTROL_PORT=//p' "$tmp/ports")
  [ -n "$control" ] || { echo "$0: donar-torsim did not start" >&2; exit 1; }
  echo "# donar-torsim pid $torsim_pid, control port $control, seed $seed" >&2
  args+=(--tor-control "$control")
fi

# In the background, then wait: a signal to this script runs its trap at
# once (not after a foreground child) and the trap stops donar-demo.
GST_PLUGIN_PATH=$build/gst "$demo" "${args[@]}" &
demo_pid=$!
status=0
wait "$demo_pid" || status=$?
demo_pid=
[ "$status" -eq 0 ] || exit "$status"
if [ -z "$speakers" ]; then
  echo "# the callee's recording: ${output:-$tmp/callee.wav}" >&2
fi
