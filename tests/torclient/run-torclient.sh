#!/usr/bin/env bash
# The `torclient` test (suite tor): starts the private Tor network of
# tests/tor-network once, runs test-torclient against it (the control client
# on the network's client tor, and tors the launcher starts and joins to the
# network), and stops everything by PID in an EXIT trap, also on failure.
# Exits 77 (skipped) without Debian's tor.
#
#   run-torclient.sh TEST-PROGRAM TOR-NETWORK-SCRIPT
set -euo pipefail

program=$1
network=$2

# Debian installs tor in /usr/sbin, outside a normal user's PATH.
case ":$PATH:" in
  *:/usr/sbin:*) ;;
  *) PATH=$PATH:/usr/sbin ;;
esac
if ! command -v tor > /dev/null || ! command -v tor-gencert > /dev/null; then
  echo "tor or tor-gencert not installed (apt-get install tor): skipped"
  exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/donar-torclient.XXXXXX")
# "PID DATA-DIR" of every tor the test program launched.
pids_file=$work/launched-pids

# A tor the program launched and could not stop (it crashed): by its PID,
# and only while that PID is still a tor reading a torrc of our data
# directory (a PID may be reused). Such a tor would also exit by itself
# within 15 s (__OwningControllerProcess).
stop_launched () {
  local pid dir cmdline
  [ -f "$pids_file" ] || return 0
  while read -r pid dir; do
    # Read whole first: `grep -q` in a pipe may end before the writer,
    # whose SIGPIPE would then fail the test under pipefail.
    cmdline=$(tr '\0' ' ' 2> /dev/null < "/proc/$pid/cmdline") || continue
    if [[ "$cmdline" == *"$dir/torrc"* ]]; then
      kill -TERM "$pid" 2> /dev/null || true
      for _ in $(seq 1 30); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2> /dev/null || true
    fi
  done < "$pids_file"
}

cleanup () {
  local rc=$?
  stop_launched
  "$(dirname "$network")/tor-network.sh" stop "$work/net" || true
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t0=$(date +%s.%N)
eval "$("$network" start "$work/net")"
echo "private network ready in $TOR_READY_SECONDS s"
export TOR_SOCKS_PORT TOR_SOCKS_EXTENDED_PORT TOR_CONTROL_PORT TOR_COOKIE
export TOR_TORRC_INCLUDE
export TORCLIENT_PIDS_FILE=$pids_file
# The launcher's data directories go under $work, so nothing survives it.
mkdir -m 700 "$work/tmp"
: > "$pids_file"
t1=$(date +%s.%N)
TMPDIR=$work/tmp "$program"
echo "test-torclient: $(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s;" \
  "with the network: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
