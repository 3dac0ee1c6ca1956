#!/usr/bin/env bash
# A private Tor network on 127.0.0.1 for the `tor` test suite, made of
# Debian's `tor` only: 3 directory authorities (which also relay), N relays
# and one client whose SocksPort and ControlPort the tests use.
#
#   tor-network.sh start DIR [--relays N] [--timeout S]
#       [--shaper DONAR_SHAPER [--model SEED] [--set NAME=VALUE]...
#        [--scale F]] [--exits N]
#   tor-network.sh stop DIR
#   tor-network.sh status DIR
#
# `start` launches the authorities and relays, then the client once the
# first consensus is out, and prints shell assignments on stdout (eval them)
# once the client has bootstrapped and its consensus lists every relay as
# Running, Stable, Fast, Guard and HSDir; everything else goes to stderr.
# Every process is tracked in DIR/pids ("name pid" lines) and stopped by
# PID, never by name. See README.md next to this script.
#
# With --shaper, every relay's advertised ORPort is a port of one
# donar-shaper process, which forwards to the relay's real, unadvertised
# ORPort with the delays of lib/netmodel's relays of SEED, and each relay's
# RelayBandwidthRate is the capacity the model draws for it
# (docs/tornet.md); --scale F multiplies every relay's base delay and spikes
# (donar-shaper --scale). With --exits N, N relays exit to 127.0.0.1.
#
# Sourced (`. tor-network.sh`), it only defines its functions: the scripts
# of tools/tornet/ build on them.
set -euo pipefail

readonly NUM_AUTHORITIES=3
# 3 authorities + 5 relays = 8 relays: enough for distinct guard, middles,
# introduction, rendezvous points and the HSDir ring of a v3 onion service.
readonly DEFAULT_RELAYS=5
readonly DEFAULT_TIMEOUT=90
# Ports a network may use: a block of PORT_BLOCK consecutive ports under the
# kernel's ephemeral range (so that no outgoing connection takes one of them
# between our check and tor's bind).
# (a multiple of 32 big enough for every port; 32 without a shaper)
PORT_BLOCK=32
readonly PORT_MIN=10000
readonly LOCK_FILE=${TMPDIR:-/tmp}/donar-tor-network.lock
# Voting schedule (seconds). 10 s is the smallest interval tor accepts (and
# it must divide a day); vote + distribution delays must stay below half an
# interval, since tor halves the interval while it has no consensus.
# Consensuses are valid from multiples of the interval (plus an offset, see
# voting_offset), the votes are made VOTE_DELAY + DIST_DELAY before.
readonly INITIAL_VOTING_INTERVAL=10
readonly VOTING_INTERVAL=20
readonly VOTE_DELAY=2
readonly DIST_DELAY=2
# Seconds from launch to the first consensus. Its votes are made
# VOTE_DELAY + DIST_DELAY earlier, and must already hold every relay's
# descriptor: relays (keys made beforehand) publish 1 to 3 s after launch
# on 2 busy cores.
readonly FIRST_CONSENSUS_AFTER=10

log () { printf 'tor-network: %s\n' "$*" >&2; }
die () { log "error: $*"; exit 1; }

usage () {
  cat >&2 <<EOF
usage: $0 start DIR [--relays N] [--timeout SECONDS]
           [--shaper DONAR_SHAPER [--model SEED] [--set NAME=VALUE]...
            [--scale F]] [--exits N]
       $0 stop DIR
       $0 status DIR
EOF
  exit 2
}

now () { date +%s.%N; }
elapsed_since () { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------------------
# Ports

# True when no TCP socket (listening or connected) uses a port in [lo, hi].
ports_free () {
  local lo=$1 hi=$2
  ! ss -Htan | awk -v lo="$lo" -v hi="$hi" '
      { n = split($4, a, ":"); p = a[n] + 0; if (p >= lo && p <= hi) found = 1 }
      END { exit !found }'
}

# Prints the first port of a free block. The caller holds LOCK_FILE until
# its tors have bound their ports, so two networks started at once never
# pick the same block.
pick_port_block () {
  local eph_lo max base tries
  read -r eph_lo _ < /proc/sys/net/ipv4/ip_local_port_range
  max=$(( eph_lo - PORT_BLOCK ))
  (( max > PORT_MIN )) || max=60000
  for tries in $(seq 1 50); do
    base=$(( PORT_MIN + (RANDOM * 32768 + RANDOM) % (max - PORT_MIN) ))
    base=$(( base - base % PORT_BLOCK ))
    if ports_free "$base" $(( base + PORT_BLOCK - 1 )); then
      echo "$base"
      return 0
    fi
  done
  die "no free block of $PORT_BLOCK ports found"
}

# ---------------------------------------------------------------------------
# Processes

# pid_is_ours PID DIR: alive, and a process whose command line names DIR
# or that runs in DIR (the shaper and the cross traffic of tools/tornet),
# so that a recycled PID of another process is never signalled.
pid_is_ours () {
  local pid=$1 dir=$2 cmd cwd
  [ -r "/proc/$pid/cmdline" ] || return 1
  cmd=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ $cmd == *"$dir/"* ]] && return 0
  cwd=$(readlink "/proc/$pid/cwd" 2>/dev/null) || return 1
  [[ $cwd == "$dir" || $cwd == "$dir/"* ]]
}

# Stops every process listed in DIR/pids: SIGTERM, then SIGKILL for those
# still there after a few seconds (tor now and then hangs on SIGTERM after
# logging a clean exit).
stop_network () {
  local dir=$1 name pid alive=() i
  [ -f "$dir/pids" ] || { log "no $dir/pids: nothing to stop"; return 0; }
  while read -r name pid; do
    if pid_is_ours "$pid" "$dir"; then
      kill -TERM "$pid" 2>/dev/null || true
      alive+=("$pid")
    fi
  done < "$dir/pids"
  if [ ${#alive[@]} -eq 0 ]; then
    log "stop: no process of $dir running"
    return 0
  fi
  local n_signalled=${#alive[@]}
  for i in $(seq 1 50); do
    local left=()
    for pid in "${alive[@]}"; do
      pid_is_ours "$pid" "$dir" && left+=("$pid")
    done
    alive=("${left[@]+"${left[@]}"}")
    [ ${#alive[@]} -eq 0 ] && break
    sleep 0.1
  done
  for pid in "${alive[@]+"${alive[@]}"}"; do
    log "stop: PID $pid ignored SIGTERM, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  done
  log "stop: stopped $n_signalled processes of $dir"
}

# launch NAME: starts the tor of node NAME in the background, records its PID.
# stdin/stdout/stderr and the port lock are not inherited, so that neither a
# `$(tor-network.sh start ...)` nor the lock waits for the network to exit.
launch () {
  local name=$1 d="$NETDIR/$1"
  tor -f "$d/torrc" --defaults-torrc /dev/null \
    < /dev/null > "$d/stdout.log" 2>&1 {LOCK_FD}>&- &
  echo "$name $!" >> "$NETDIR/pids"
}

# ---------------------------------------------------------------------------
# Control port (of the client), from bash: cookie authentication, one
# command, QUIT. Prints the reply lines without CR.

control () {
  local port=$1 cookie=$2 cmd=$3 hex fd
  hex=$(od -An -v -tx1 "$cookie" | tr -d ' \n')
  exec {fd}<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf 'AUTHENTICATE %s\r\n%s\r\nQUIT\r\n' "$hex" "$cmd" >&"$fd"
  timeout 5 cat <&"$fd" | tr -d '\r' || true
  exec {fd}>&-
}

bootstrap_progress () {
  control "$1" "$2" 'GETINFO status/bootstrap-phase' \
    | sed -n 's/.*PROGRESS=\([0-9]*\).*/\1/p' | head -n 1
}

# Prints "relays running hsdirs guards" of the client's current consensus.
consensus_counts () {
  control "$1" "$2" 'GETINFO ns/all' | awk '
    /^r / { r++ }
    /^s / { if (/ Running/) run++; if (/ HSDir/) hs++; if (/ Guard/) g++ }
    END { printf "%d %d %d %d\n", r, run, hs, g }'
}

# ---------------------------------------------------------------------------
# Configuration

# Options every node shares; also the fragment that another tor (the
# callee's own, for example) %includes to join the network as a client.
write_common () {
  local f=$1 i
  {
    echo "# Joins the private Tor network of $NETDIR (tools/tornet/tor-network.sh)."
    echo "TestingTorNetwork 1"
    for i in $(seq 1 "$NUM_AUTHORITIES"); do
      echo "DirAuthority auth$i orport=${AUTH_OR[$i]} no-v2 v3ident=${AUTH_V3[$i]} 127.0.0.1:${AUTH_DIR[$i]} ${AUTH_FP[$i]}"
    done
    # With 8 relays the default fraction of paths (0.6) is easily not met
    # while descriptors arrive; tor's lowest allowed value.
    echo "PathsNeededToBuildCircuits 0.25"
    # Fetch the directory from the authorities, which have each consensus
    # and its microdescriptors as soon as it is out, not from relays, which
    # fetch them some seconds later: a client that asks a relay too early
    # gets a 404 and backs off for 10 s or more.
    echo "FetchDirInfoEarly 1"
    echo "FetchDirInfoExtraEarly 1"
    # Fetch missing descriptors after 1 s rather than 5 s.
    echo "TestingClientMaxIntervalWithoutRequest 1"
    # No country lookups: saves memory and start-up time.
    echo 'GeoIPFile ""'
    echo 'GeoIPv6File ""'
    echo "ClientUseIPv6 0"
  } > "$f"
}

# write_torrc NAME ROLE: the torrc of one node.
write_torrc () {
  local name=$1 role=$2 d="$NETDIR/$1"
  {
    echo "%include $NETDIR/torrc-include"
    echo "Nickname $name"
    echo "DataDirectory $d"
    echo "RunAsDaemon 0"
    echo "Log notice file $d/notice.log"
    # TOR_NETWORK_INFO_LOG=1: also an info-level log, to see why a circuit
    # or a descriptor upload fails.
    [ "${TOR_NETWORK_INFO_LOG:-0}" = 1 ] && echo "Log info file $d/info.log"
    echo "SafeLogging 0"
    echo "ShutdownWaitLength 0"
    echo "AvoidDiskWrites 1"
    echo "ContactInfo $name@donar.test"
    case $role in
      authority|relay)
        echo "Address 127.0.0.1"
        if [ -n "${REAL_OR_PORT[$name]:-}" ]; then
          # The shaper listens on the advertised port and forwards to the
          # real one, which no other relay or client learns: every
          # connection into this relay crosses the shaper.
          echo "ORPort 127.0.0.1:${OR_PORT[$name]} NoListen"
          echo "ORPort 127.0.0.1:${REAL_OR_PORT[$name]} NoAdvertise"
        else
          echo "ORPort 127.0.0.1:${OR_PORT[$name]}"
        fi
        # Relays publish at once instead of first testing their own
        # reachability, and authorities vote them Running without testing.
        echo "AssumeReachable 1"
        if [ -n "${CAPACITY_KIB[$name]:-}" ]; then
          # The model's capacity as tor's own token bucket, one second's
          # worth deep; relayed traffic only, so that directory fetches do
          # not slow the start.
          echo "RelayBandwidthRate ${CAPACITY_KIB[$name]} KBytes"
          echo "RelayBandwidthBurst ${CAPACITY_KIB[$name]} KBytes"
        fi
        if [ -n "${EXIT_NODE[$name]:-}" ]; then
          # An exit, for the bulk cross traffic of tools/tornet to a
          # server on 127.0.0.1. Not `accept 127.0.0.1:*` alone: clients
          # judge exits by the microdescriptor's policy summary, which
          # leaves private addresses out, so such an exit looks like it
          # rejects everything and no client ever finds an exit. The
          # machine has no other network to reach.
          echo "ExitRelay 1"
          echo "ExitPolicyRejectPrivate 0"
          echo "ExitPolicy accept *:*"
        else
          # Onion services only: no exit.
          echo "ExitRelay 0"
          echo "ExitPolicy reject *:*"
        fi
        echo "SocksPort 0"
        ;;
    esac
    case $role in
      authority)
        echo "DirPort 127.0.0.1:${DIR_PORT[$name]}"
        echo "AuthoritativeDirectory 1"
        echo "V3AuthoritativeDirectory 1"
        echo "TestingV3AuthInitialVotingInterval $INITIAL_VOTING_INTERVAL"
        echo "TestingV3AuthInitialVoteDelay $VOTE_DELAY"
        echo "TestingV3AuthInitialDistDelay $DIST_DELAY"
        echo "V3AuthVotingInterval $VOTING_INTERVAL"
        echo "V3AuthVoteDelay $VOTE_DELAY"
        echo "V3AuthDistDelay $DIST_DELAY"
        echo "TestingV3AuthVotingStartOffset $VOTING_OFFSET"
        # Consensuses valid for 2 intervals (the least): clients fetch the
        # next one sooner.
        echo "V3AuthNIntervalsValid 2"
        # New relays have no uptime history: give every relay the flags an
        # onion service needs from the first consensus on.
        echo "TestingDirAuthVoteGuard *"
        echo "TestingDirAuthVoteHSDir *"
        # and Exit to the exits (--exits), which the authorities would
        # otherwise give only to relays that have carried traffic.
        if [ -n "$EXIT_NICKNAMES" ]; then
          echo "TestingDirAuthVoteExit $EXIT_NICKNAMES"
        fi
        # and Stable: onion-service circuits want a Stable last hop. Without
        # this only the relays above the median uptime (the authorities,
        # which know their own) get it, the client's guard may be the only
        # Stable relay of the first consensus, and its circuits fail for
        # 30 s or more (a relay cannot extend to itself).
        echo "AuthDirVoteStableGuaranteeMinUptime 0"
        echo "AuthDirVoteStableGuaranteeMTBF 0"
        # and Fast, which onion-service circuits and HSDirs also need. New
        # relays advertise no bandwidth until they have carried traffic, so
        # the authorities (busy with directory traffic) set the threshold
        # above them. A guarantee under 1 KB puts the threshold at 0.
        echo "AuthDirFastGuarantee 100 bytes"
        echo "V3BandwidthsFile $NETDIR/bandwidths"
        ;;
      client)
        echo "SocksPort 127.0.0.1:$SOCKS_PORT"
        # A second port with tor's onion reply codes (0xF0 descriptor not
        # found, 0xF4 client authorization missing...), for the tests of
        # refusals.  Not the main one: there, a stream dialed again after
        # 0xF0 sometimes never carried data (3 runs of torclient in 6).
        echo "SocksPort 127.0.0.1:$SOCKS_EXT_PORT ExtendedErrors"
        echo "ControlPort 127.0.0.1:$CONTROL_PORT"
        echo "CookieAuthentication 1"
        echo "CookieAuthFile $d/control_auth_cookie"
        ;;
    esac
  } > "$d/torrc"
}

# make_relay_keys NAME: the relay identity and onion keys of node NAME
# (tor --list-fingerprint makes them). Made before launch, so that the
# relays publish their descriptors sooner after launch; the authorities'
# fingerprints go into every torrc.
make_relay_keys () {
  local name=$1 d="$NETDIR/$1"
  tor --ignore-missing-torrc -f "$d/none" --defaults-torrc /dev/null \
    --list-fingerprint --DataDirectory "$d" --Nickname "$name" \
    --ORPort "127.0.0.1:${OR_PORT[$name]}" --quiet > /dev/null 2>"$d/keygen.log" \
    || { cat "$d/keygen.log" >&2; return 1; }
}

# make_authority_keys I: the v3 authority identity key, signing key and
# certificate of authority I (tor-gencert), then its relay keys.
make_authority_keys () {
  local i=$1 d="$NETDIR/auth$1"
  mkdir -p "$d/keys"
  # Empty passphrase on stdin: an unencrypted identity key.
  tor-gencert --create-identity-key -m 12 -a "127.0.0.1:${DIR_PORT[auth$i]}" \
    -i "$d/keys/authority_identity_key" -s "$d/keys/authority_signing_key" \
    -c "$d/keys/authority_certificate" --passphrase-fd 0 < /dev/null \
    > "$d/gencert.log" 2>&1 || { cat "$d/gencert.log" >&2; return 1; }
  make_relay_keys "auth$i"
}

# The same measured bandwidth for every relay, in a bandwidth file (the
# format of bandwidth-file-spec 1.0.0) that the authorities read when they
# vote. Without it, new relays have a weight of 0 and whichever relay has
# carried a few bytes (an authority, often the client's only guard) is
# picked as the last hop of every circuit, which then fails (a relay does
# not extend to itself) until a later consensus: 30 s and more.
write_bandwidth_file () {
  local f=$1 name
  {
    date +%s
    for name in "${!OR_PORT[@]}"; do
      # With the model's capacities, path selection weighs relays by them,
      # as the live network weighs relays by their measured bandwidth.
      echo "node_id=\$$(cut -d' ' -f2- "$NETDIR/$name/fingerprint" | tr -d ' ') bw=${CAPACITY_KIB[$name]:-1000}"
    done
  } > "$f"
}

# Prints the TestingV3AuthVotingStartOffset that puts the first consensus
# FIRST_CONSENSUS_AFTER seconds from now. Without it, the first vote falls
# at a wall-clock multiple of the interval: launched just before one, the
# authorities vote before any relay has published, and clients bootstrap on
# a consensus of authorities only, waiting a whole interval for the next.
voting_offset () {
  echo $(( ($(date +%s) + FIRST_CONSENSUS_AFTER) % INITIAL_VOTING_INTERVAL ))
}

# ---------------------------------------------------------------------------
# The shaper (--shaper)

# The model's relays, in the order of the shaper's --relay options: the
# authorities, then the relays. Sets CAPACITY_KIB of the relays (not of the
# authorities: their directory answers count as relayed traffic, and a slow
# authority slows every start; path selection rarely picks them, see
# write_bandwidth_file) and writes NETDIR/shaper/relays.
describe_shaped_relays () {
  local names=("$@") i=0 line base_us kib
  "$SHAPER" --model "$MODEL_SEED" "${SHAPER_SETS[@]}" \
    --describe "${#names[@]}" > "$NETDIR/shaper/model" \
    || die "$SHAPER --describe failed"
  : > "$NETDIR/shaper/relays"
  while read -r line; do
    base_us=$(sed -n 's/.* base_us=\([0-9]*\).*/\1/p' <<< "$line")
    kib=$(sed -n 's/.* bandwidth_kib=\([0-9.]*\).*/\1/p' <<< "$line")
    kib=${kib%.*}
    # tor refuses a relay below 75 KiB/s (ROUTER_REQUIRED_MIN_BANDWIDTH);
    # the model draws under it for about 4 % of relays.
    (( kib >= 75 )) || kib=75
    if [[ ${names[$i]} == relay* ]]; then
      CAPACITY_KIB[${names[$i]}]=$kib
    fi
    echo "${names[$i]} model_relay=$i base_us=$base_us capacity_kib=${CAPACITY_KIB[${names[$i]}]:-none} listen=${OR_PORT[${names[$i]}]} target=${REAL_OR_PORT[${names[$i]}]} exit=${EXIT_NODE[${names[$i]}]:-0}" \
      >> "$NETDIR/shaper/relays"
    i=$(( i + 1 ))
  done < "$NETDIR/shaper/model"
  (( i == ${#names[@]} )) || die "$SHAPER --describe printed $i relays, not ${#names[@]}"
}

# Starts the shaper on every relay's advertised port, in NETDIR/shaper
# (which is how pid_is_ours knows it), and waits for its ready line.
# TOR_NETWORK_SHAPER_LOG=1 keeps its log of every chunk (large under cross
# traffic: some 200 KB/s).  Its stdout.log has the ready line (origin_us)
# and a line for each spike started by SIGUSR1.
launch_shaper () {
  local names=("$@") name args=() i
  for name in "${names[@]}"; do
    args+=(--relay "${OR_PORT[$name]},${REAL_OR_PORT[$name]}")
  done
  [ "${TOR_NETWORK_SHAPER_LOG:-0}" = 1 ] && args+=(--log "$NETDIR/shaper/shaper.log")
  # SIGUSR1 to the shaper starts the spikes of this file, if a test wrote
  # it (the tor suite's run-tor-stall.sh: a stall once its call is up).
  args+=(--spike-file "$NETDIR/shaper/spikes")
  (cd "$NETDIR/shaper" && exec "$SHAPER" --model "$MODEL_SEED" \
    "${SHAPER_SETS[@]}" "${args[@]}" < /dev/null > stdout.log 2> stderr.log \
    {LOCK_FD}>&-) &
  echo "shaper $!" >> "$NETDIR/pids"
  for i in $(seq 1 100); do
    grep -q '^ready ' "$NETDIR/shaper/stdout.log" 2>/dev/null && return 0
    kill -0 "$!" 2>/dev/null || break
    sleep 0.1
  done
  cat "$NETDIR/shaper/stderr.log" >&2
  die "the shaper did not start"
}

# ---------------------------------------------------------------------------
# Readiness

print_log_tails () {
  local f
  for f in "$NETDIR"/*/notice.log; do
    [ -f "$f" ] || continue
    echo "==> $f <==" >&2
    tail -n 8 "$f" >&2
  done
}

# Waits until the client has bootstrapped and its consensus lists every
# relay as Running and HSDir: then an onion service and its clients agree on
# the HSDir ring. A consensus made before the relays' descriptors arrived
# lists only some of them; the next one, VOTING_INTERVAL later, has them all.
wait_ready () {
  local deadline=$1 total=$2 progress counts last=""
  while :; do
    progress=""
    counts=""
    if [ -s "$COOKIE" ]; then
      progress=$(bootstrap_progress "$CONTROL_PORT" "$COOKIE" 2>/dev/null || true)
      if [ "$progress" = 100 ]; then
        counts=$(consensus_counts "$CONTROL_PORT" "$COOKIE" 2>/dev/null || true)
      fi
    fi
    local state="bootstrap ${progress:-?}%${counts:+, consensus relays/running/hsdir/guard $counts}"
    if [ "$state" != "$last" ]; then
      log "$(elapsed_since "$T0") s: $state"
      last=$state
    fi
    if [ -n "$counts" ]; then
      local r run hs g
      read -r r run hs g <<< "$counts"
      if (( r >= total && run >= total && hs >= total && g >= 1 )); then
        return 0
      fi
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      return 1
    fi
    sleep 0.5
  done
}

# Waits until every authority has published a consensus.
wait_first_consensus () {
  local deadline=$1 i
  for i in $(seq 1 "$NUM_AUTHORITIES"); do
    until grep -q "Published microdesc consensus" "$NETDIR/auth$i/notice.log" 2>/dev/null; do
      [ "$(date +%s)" -lt "$deadline" ] || return 1
      sleep 0.2
    done
  done
}

# Waits until every tor listens on its ports (so the lock can be released).
wait_bound () {
  local deadline=$(( $(date +%s) + 20 )) p
  for p in "$@"; do
    until ! ports_free "$p" "$p"; do
      [ "$(date +%s)" -lt "$deadline" ] || return 1
      sleep 0.1
    done
  done
}

# ---------------------------------------------------------------------------
# Commands

cmd_start () {
  local relays=$DEFAULT_RELAYS timeout=$DEFAULT_TIMEOUT exits=0
  SHAPER="" MODEL_SEED=1 SHAPER_SETS=()
  [ $# -ge 1 ] || usage
  local dir=$1; shift
  while [ $# -gt 0 ]; do
    case $1 in
      --relays) relays=${2:?}; shift 2 ;;
      --timeout) timeout=${2:?}; shift 2 ;;
      --shaper) SHAPER=${2:?}; shift 2 ;;
      --model) MODEL_SEED=${2:?}; shift 2 ;;
      --set) SHAPER_SETS+=(--set "${2:?}"); shift 2 ;;
      # The shaper's describe and run both take it (SHAPER_SETS).
      --scale) SHAPER_SETS+=(--scale "${2:?}"); shift 2 ;;
      --exits) exits=${2:?}; shift 2 ;;
      *) usage ;;
    esac
  done
  [[ $relays =~ ^[0-9]+$ ]] || die "--relays wants a number"
  [[ $exits =~ ^[0-9]+$ ]] && (( exits <= relays )) || die "--exits wants a number up to --relays"
  # Ports: OR (and the shaper's) and Dir per authority, OR (and the
  # shaper's) per relay, SOCKS, control and a second SOCKS.
  local per_or=1
  [ -n "$SHAPER" ] && per_or=2
  local n_ports=$(( (per_or + 1) * NUM_AUTHORITIES + per_or * relays + 3 ))
  PORT_BLOCK=$(( (n_ports + 31) / 32 * 32 ))
  (( PORT_BLOCK <= 128 )) || die "too many relays"
  if [ -n "$SHAPER" ]; then
    [ -x "$SHAPER" ] || die "--shaper $SHAPER: not an executable"
    SHAPER=$(cd "$(dirname "$SHAPER")" && pwd)/$(basename "$SHAPER")
  fi
  command -v tor > /dev/null || die "tor is not installed (apt-get install tor)"
  command -v tor-gencert > /dev/null || die "tor-gencert is missing (apt-get install tor)"

  mkdir -p "$dir"
  NETDIR=$(cd "$dir" && pwd)
  if [ -f "$NETDIR/pids" ]; then
    die "$NETDIR already holds a network (stop it and use a fresh directory)"
  fi
  [ -z "$(ls -A "$NETDIR")" ] || die "$NETDIR is not empty: give a fresh directory"
  : > "$NETDIR/pids"
  T0=$(now)

  # From here on, a failure stops whatever was started.
  trap 'rc=$?; if [ $rc -ne 0 ]; then log "start failed"; print_log_tails; stop_network "$NETDIR"; fi' EXIT
  trap 'exit 130' INT TERM

  exec {LOCK_FD}> "$LOCK_FILE"
  flock "$LOCK_FD"
  local base next i name
  base=$(pick_port_block)
  next=$base
  declare -gA OR_PORT DIR_PORT REAL_OR_PORT CAPACITY_KIB EXIT_NODE
  declare -ga AUTH_OR AUTH_DIR AUTH_V3 AUTH_FP
  local all_ports=() shaped=()
  for i in $(seq 1 "$NUM_AUTHORITIES"); do
    OR_PORT[auth$i]=$next; DIR_PORT[auth$i]=$(( next + 1 )); next=$(( next + 2 ))
    AUTH_OR[$i]=${OR_PORT[auth$i]}; AUTH_DIR[$i]=${DIR_PORT[auth$i]}
    all_ports+=("${OR_PORT[auth$i]}" "${DIR_PORT[auth$i]}")
    shaped+=("auth$i")
  done
  for i in $(seq 1 "$relays"); do
    OR_PORT[relay$i]=$next; next=$(( next + 1 ))
    all_ports+=("${OR_PORT[relay$i]}")
    shaped+=("relay$i")
    # The last ones exit: tools/tornet loads the first ones as guards.
    if (( i > relays - exits )); then EXIT_NODE[relay$i]=1; fi
  done
  EXIT_NICKNAMES=$(for name in "${!EXIT_NODE[@]}"; do echo "$name"; done | sort | paste -sd, -)
  if [ -n "$SHAPER" ]; then
    for name in "${shaped[@]}"; do
      REAL_OR_PORT[$name]=$next; next=$(( next + 1 ))
      all_ports+=("${REAL_OR_PORT[$name]}")
    done
  fi
  SOCKS_PORT=$next; CONTROL_PORT=$(( next + 1 )); SOCKS_EXT_PORT=$(( next + 2 ))
  log "ports $base-$(( next + 2 )) in $NETDIR"

  # Key generation is CPU-bound (RSA-3072 authority identity keys): all
  # nodes in parallel.
  local jobs=()
  for i in $(seq 1 "$NUM_AUTHORITIES"); do
    mkdir -m 700 "$NETDIR/auth$i"
    make_authority_keys "$i" & jobs+=($!)
  done
  for i in $(seq 1 "$relays"); do
    mkdir -m 700 "$NETDIR/relay$i"
    make_relay_keys "relay$i" & jobs+=($!)
  done
  for i in "${jobs[@]}"; do wait "$i" || die "key generation failed"; done
  for i in $(seq 1 "$NUM_AUTHORITIES"); do
    AUTH_V3[$i]=$(awk '/^fingerprint / { print $2 }' "$NETDIR/auth$i/keys/authority_certificate")
    AUTH_FP[$i]=$(cut -d' ' -f2- "$NETDIR/auth$i/fingerprint" | tr -d ' ')
  done
  log "$(elapsed_since "$T0") s: authority keys made"

  if [ -n "$SHAPER" ]; then
    mkdir "$NETDIR/shaper"
    describe_shaped_relays "${shaped[@]}"
    log "$(elapsed_since "$T0") s: shaper relays of model seed $MODEL_SEED: $NETDIR/shaper/relays"
  fi
  write_common "$NETDIR/torrc-include"
  write_bandwidth_file "$NETDIR/bandwidths"
  VOTING_OFFSET=$(voting_offset)
  for i in $(seq 1 "$NUM_AUTHORITIES"); do
    write_torrc "auth$i" authority
  done
  for i in $(seq 1 "$relays"); do
    write_torrc "relay$i" relay
  done
  mkdir -m 700 "$NETDIR/client"
  write_torrc client client
  COOKIE=$NETDIR/client/control_auth_cookie

  if [ -n "$SHAPER" ]; then launch_shaper "${shaped[@]}"; fi
  for i in $(seq 1 "$NUM_AUTHORITIES"); do launch "auth$i"; done
  for i in $(seq 1 "$relays"); do launch "relay$i"; done
  # The client's ports stay free until it starts, but the block is already
  # seen as used (the others listen in it), so the lock can go.
  wait_bound "${all_ports[@]}" || die "not every tor listens on its ports"
  flock -u "$LOCK_FD"
  exec {LOCK_FD}>&-
  log "$(elapsed_since "$T0") s: authorities and relays listening"

  local deadline=$(( ${T0%.*} + timeout ))
  # The client starts once the first consensus is out: started earlier, it
  # gets 404s and backs off, and fetches the consensus seconds late.
  wait_first_consensus "$deadline" || die "no consensus within $timeout s"
  log "$(elapsed_since "$T0") s: first consensus published"
  launch client
  if ! wait_ready "$deadline" $(( NUM_AUTHORITIES + relays )); then
    die "network not ready within $timeout s"
  fi
  local took
  took=$(elapsed_since "$T0")
  log "ready in $took s"
  {
    printf 'TOR_NETWORK_DIR=%q\n' "$NETDIR"
    printf 'TOR_SOCKS_PORT=%s\n' "$SOCKS_PORT"
    printf 'TOR_SOCKS_EXTENDED_PORT=%s\n' "$SOCKS_EXT_PORT"
    printf 'TOR_CONTROL_PORT=%s\n' "$CONTROL_PORT"
    printf 'TOR_COOKIE=%q\n' "$COOKIE"
    printf 'TOR_TORRC_INCLUDE=%q\n' "$NETDIR/torrc-include"
    printf 'TOR_READY_SECONDS=%s\n' "$took"
    if [ -n "$SHAPER" ]; then
      printf 'TOR_SHAPER_RELAYS=%q\n' "$NETDIR/shaper/relays"
    fi
  } | tee "$NETDIR/env"
  trap - EXIT INT TERM
}

cmd_stop () {
  [ $# -eq 1 ] || usage
  [ -d "$1" ] || { log "stop: no directory $1: nothing to stop"; return 0; }
  stop_network "$(cd "$1" && pwd)"
}

cmd_status () {
  [ $# -eq 1 ] || usage
  [ -f "$1/pids" ] || die "no network in $1"
  local dir name pid n_alive=0 n=0
  dir=$(cd "$1" && pwd)
  while read -r name pid; do
    n=$(( n + 1 ))
    if pid_is_ours "$pid" "$dir"; then
      n_alive=$(( n_alive + 1 ))
      printf '%-8s %7s alive\n' "$name" "$pid"
    else
      printf '%-8s %7s dead\n' "$name" "$pid"
    fi
  done < "$dir/pids"
  echo "$n_alive of $n processes alive"
  if [ -f "$dir/env" ]; then
    local TOR_CONTROL_PORT TOR_COOKIE
    TOR_CONTROL_PORT=$(sed -n 's/^TOR_CONTROL_PORT=//p' "$dir/env")
    TOR_COOKIE=$dir/client/control_auth_cookie
    if [ -s "$TOR_COOKIE" ] && phase=$(control "$TOR_CONTROL_PORT" "$TOR_COOKIE" \
        'GETINFO status/bootstrap-phase' 2>/dev/null | grep 'bootstrap-phase='); then
      echo "client: ${phase#*=}"
      echo "client consensus relays/running/hsdir/guard: $(consensus_counts "$TOR_CONTROL_PORT" "$TOR_COOKIE")"
    else
      echo "client: control port $TOR_CONTROL_PORT not answering"
    fi
  fi
  [ "$n_alive" -eq "$n" ]
}

main () {
  [ $# -ge 1 ] || usage
  local cmd=$1; shift
  case $cmd in
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    status) cmd_status "$@" ;;
    *) usage ;;
  esac
}

# Sourced by tools/tornet: functions only.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main "$@"
fi
