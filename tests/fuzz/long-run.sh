#!/usr/bin/env bash
# The long fuzz runs (tests/fuzz/README.md, "Long run"): RUNS executions
# (10 million by default) of each target named (all four by default), each
# split over JOBS processes (-seed=1 to JOBS) that share the target's corpus
# directory, then one Markdown row per target from libFuzzer's final stats.
# A crash, leak or sanitizer report stops the run with status 1; its input
# is in <build>/tests/fuzz/crashes/.  Logs: <build>/tests/fuzz/long-run/.
# Every process started is stopped by PID on exit.
#
#   tests/fuzz/long-run.sh [--build DIR] [--runs N] [--jobs N] [TARGET...]
#   TARGET: wire, socks, torctl or session
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build-fuzz
runs=10000000
jobs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -*) echo "long-run.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
case "$runs$jobs" in
  *[!0-9]*) echo "long-run.sh: --runs and --jobs take numbers" >&2; exit 2 ;;
esac
[ "$jobs" -ge 1 ] || { echo "long-run.sh: --jobs must be 1 or more" >&2; exit 2; }
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(wire socks torctl session)
# The largest input each target takes (a session stream of a HELLO and
# several DATA records; a control-port reply with data blocks).
declare -A max_len=([wire]=512 [socks]=512 [torctl]=4096 [session]=1024)

pids=()
stop_all () {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
}
trap stop_all EXIT
trap 'exit 130' INT TERM

logs=$build/tests/fuzz/long-run
mkdir -p "$logs"
echo "| target | executions | processes | wall s | executions/s | coverage | new inputs | peak RSS MB | crashes |"
echo "|---|---|---|---|---|---|---|---|---|"
for t in "${targets[@]}"; do
  if [ -z "${max_len[$t]:-}" ]; then
    echo "long-run.sh: no target '$t' (wire, socks, torctl or session)" >&2
    exit 2
  fi
  name=fuzz-$t
  ninja -C "$build" "tests/fuzz/$name" > /dev/null
  corpus=$build/tests/fuzz/corpus/$name
  rm -f "$logs/$name"-*.log
  start=$(date +%s)
  pids=()
  for j in $(seq 1 "$jobs"); do
    share=$((runs / jobs + (j <= runs % jobs ? 1 : 0)))
    "$build/tests/fuzz/$name" -runs="$share" -seed="$j" \
      -max_len="${max_len[$t]}" -timeout=10 -rss_limit_mb=2048 \
      -create_missing_dirs=1 -print_final_stats=1 \
      -artifact_prefix="$build/tests/fuzz/crashes/$name-" \
      "$corpus" "tests/fuzz/corpus/$name" > "$logs/$name-$j.log" 2>&1 &
    pids+=($!)
  done
  status=0
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  pids=()
  wall=$(($(date +%s) - start))
  executed=$(cat "$logs/$name"-*.log | awk '/^stat::number_of_executed_units:/ { n += $2 } END { print n + 0 }')
  rss=$(cat "$logs/$name"-*.log | awk '/^stat::peak_rss_mb:/ { if ($2 > m) m = $2 } END { print m + 0 }')
  cov=$(cat "$logs/$name"-*.log | sed -n 's/.* cov: \([0-9]*\) .*/\1/p' | sort -n | tail -n 1)
  added=$(cat "$logs/$name"-*.log | awk '/^stat::new_units_added:/ { n += $2 } END { print n + 0 }')
  crashes=$(find "$build/tests/fuzz/crashes" -name "$name-*" -newermt "@$start" 2> /dev/null | wc -l)
  echo "| $name | $executed | $jobs | $wall | $((executed / (wall > 0 ? wall : 1))) | ${cov:-?} | $added | $rss | $crashes |"
  if [ "$status" -ne 0 ]; then
    echo "long-run.sh: $name stopped on a finding; see $logs/$name-*.log" >&2
    exit 1
  fi
done
