#!/usr/bin/env bash
# Measures the private Tor network on this machine, for README.md:
# time to ready, onion-service timings (check-onion.py), then CPU and
# memory of the whole idle network over IDLE seconds.
#
#   measure.sh [RUNS] [IDLE]      (default 5 runs, 60 s idle in the last)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${1:-5}
idle=${2:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-tor-measure.XXXXXX")
trap '"$here/../../tools/tornet/tor-network.sh" stop "$work/net" 2>/dev/null || true; rm -rf "$work"' EXIT

# Sum of utime + stime (clock ticks) and of RSS (kB) over the network's PIDs.
cpu_ticks () {
  local pid sum=0
  for pid in $(awk '{ print $2 }' "$work/net/pids"); do
    sum=$(( sum + $(awk '{ print $14 + $15 }' "/proc/$pid/stat") ))
  done
  echo "$sum"
}
rss_kb () {
  local pid sum=0
  for pid in $(awk '{ print $2 }' "$work/net/pids"); do
    sum=$(( sum + $(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status") ))
  done
  echo "$sum"
}

for run in $(seq 1 "$runs"); do
  rm -rf "$work/net"
  eval "$("$here/../../tools/tornet/tor-network.sh" start "$work/net" 2>/dev/null)"
  onion=$(python3 "$here/check-onion.py" --control-port "$TOR_CONTROL_PORT" \
    --cookie "$TOR_COOKIE" --socks-port "$TOR_SOCKS_PORT" --connections 12 2>/dev/null)
  echo "run $run: ready_s=$TOR_READY_SECONDS $onion"
  if [ "$run" -eq "$runs" ]; then
    # Idle: let the start-up work settle first.
    sleep 20
    hz=$(getconf CLK_TCK)
    c0=$(cpu_ticks); sleep "$idle"; c1=$(cpu_ticks)
    echo "idle over ${idle} s: $(wc -l < "$work/net/pids") tor processes," \
      "CPU $(awk -v t=$(( c1 - c0 )) -v hz="$hz" -v s="$idle" 'BEGIN { printf "%.1f", 100 * t / hz / s }') % of one core," \
      "RSS $(( $(rss_kb) / 1024 )) MiB in all"
  fi
  "$here/../../tools/tornet/tor-network.sh" stop "$work/net" 2>/dev/null
done
