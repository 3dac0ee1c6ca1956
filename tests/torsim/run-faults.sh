#!/usr/bin/env bash
# The `torsim-faults` test: faults of the real-time stack over donar-torsim,
# each with the outcome a user should get (docs/torsim.md, *Faults*).
# Five calls of two donar-call processes run at once, each over its own
# donar-torsim:
#
#   A  a stranger caller with the right onion but a wrong call secret, and
#      garbage sent through torsim's SocksPort to the onion: the callee
#      closes and counts every such connection (connections_rejected), the
#      stranger gets nothing, and the call is unharmed (>= 98 % of frames);
#   B  a slow reader: the callee stopped (SIGSTOP) for 6 s, so it reads
#      nothing; torsim holds at most --max-pending per stream and
#      direction, the caller's memory stays flat, and the call goes on once
#      the callee reads again.  Then the callee is killed (-9): the caller
#      sees every link go down, reports PEER_UNREACHABLE (--peer-timeout 3),
#      which ends the call (no more dials), keeps its memory flat and exits
#      at its --seconds with its JSON report;
#   C  the control connections closed (DONAR-CLOSE-CONTROLS): tor removes
#      the callee's onion with its connection.  The callee says so at once
#      (tor-lost), goes on over its open links, and exits with status 1
#      and the error in its JSON; the caller, whose tor still runs, only
#      warns; a new caller gets a clear error and status 1 at once;
#   D  circuits that never drain: every stream of the call frozen
#      (DONAR-FREEZE, as when a relay hangs), over a torsim that constrains
#      its sockets' buffers as tor's ConstrainedSockets does.  No link
#      delivers in time: each end puts a few frames on every link, then one
#      probe a round trip (nothing piles up), waits 10 s as tor would for a
#      stream's answer, then closes the links its frames show stalled
#      (stalls); the caller dials every frozen circuit again, the call goes
#      on, and memory stays flat;
#   E  three circuits of twelve hang (DONAR-FREEZE 3) over a torsim whose
#      sockets buffer as the kernel likes, so that no queue fills for a long
#      time: each end closes the links the peer's frames no longer come out
#      of (silences), as it would behind a real tor, whose stream window
#      takes 250 KB; the caller dials them again, and the call loses
#      almost nothing.
#
# Everything started is stopped by PID, also on failure.  About 60 s.
#
#   run-faults.sh DONAR_TORSIM DONAR_CALL PYTHON
set -euo pipefail

torsim=$1
donar_call=$2
python=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-torsim-faults.XXXXXX")
source "$(dirname "$0")/processes.sh"
logs=()
for s in a b c d e; do
  logs+=("torsim-$s.log" "callee-$s.log" "caller-$s.log" "callee-$s.json"
    "caller-$s.json")
done
logs+=(stranger.log stranger.json late.log garbage.log)

max_pending=65536

# One donar-torsim per call; its ports in $SOCKS_PORT_<s>, $CONTROL_PORT_<s>.
start_torsim () {
  local s=$1
  shift
  "$torsim" --port-file "$work/ports-$s" "$@" > "$work/torsim-$s.log" 2>&1 &
  pids+=($!)
  eval "torsim_pid_$s=$!"
}

# A control command (after AUTHENTICATE) to torsim <s>; the reply on stdout.
control () {
  local port=$1
  shift
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  printf 'AUTHENTICATE\r\n%s\r\nQUIT\r\n' "$*" >&3
  timeout 5 cat <&3 | tr -d '\r' || true
  exec 3<&-
}

# VmRSS of a running process in kB.
rss () {
  kill -0 "$1" || { echo "process $1 is gone" >&2; return 1; }
  awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}

# wait_for_line_within SECONDS FILE PATTERN
wait_for_line_within () {
  for _ in $(seq 1 $(($1 * 10))); do
    grep -q "$3" "$2" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "no '$3' in $2 in $1 s" >&2
  return 1
}

wait_for_line () {
  wait_for_line_within 30 "$@"
}

start_torsim a --seed 3 --links 32
start_torsim b --seed 4 --max-pending "$max_pending"
start_torsim c --seed 5
start_torsim d --seed 6 --links 32 --constrained-sock-size 8192
start_torsim e --seed 7 --links 32
for s in a b c d e; do
  wait_for_file "$work/ports-$s"
  eval "$(sed -n "s/^\(SOCKS_PORT\|CONTROL_PORT\)=/\1_$s=/p" "$work/ports-$s")"
done

# callee <s> SECONDS [OPTIONS...], caller <s> SECONDS [OPTIONS...]
callee () {
  local s=$1 seconds=$2 port
  shift 2
  port=CONTROL_PORT_$s
  "$donar_call" callee --tor-control "${!port}" --seconds "$seconds" \
    --address-file "$work/address-$s" --setup-timeout 20 --json "$@" \
    > "$work/callee-$s.json" 2> "$work/callee-$s.log" &
  pids+=($!)
  eval "callee_pid_$s=$!"
}
caller () {
  local s=$1 seconds=$2 port
  shift 2
  port=CONTROL_PORT_$s
  "$donar_call" caller "$(cat "$work/address-$s")" --tor-control "${!port}" \
    --seconds "$seconds" --wait-links 12 --setup-timeout 20 --json "$@" \
    > "$work/caller-$s.json" 2> "$work/caller-$s.log" &
  pids+=($!)
  eval "caller_pid_$s=$!"
}

callee a 24
callee b 50
callee c 12
callee d 56
# E's ends both run DOUBLE-SEND, whose groups rotate every link through
# L2ND: each end then writes to every link, and sees the peer's frames on
# a hung one never come.  (ADAPTIVE stops writing to a link whose frames
# go unacknowledged, so the other end has nothing to miss on it.)
callee e 50 --policy double-send
for s in a b c d e; do wait_for_file "$work/address-$s"; done
caller a 18
# B's caller outlives the steps before its callee's kill, and 5 s of
# memory samples after it, on a loaded machine too.
caller b 40 --peer-timeout 3
caller c 8
caller d 50
caller e 46 --policy double-send
for s in a b c d e; do wait_for_line "$work/caller-$s.log" all-links-up; done
sleep 1

# E: once every link has carried frames both ways (a link joins L2ND every
# 2-s window), three circuits hang, while the rest of the test goes on.
(
  sleep 14
  reply=$(control "$CONTROL_PORT_e" DONAR-FREEZE 3)
  echo "torsim e: $(echo "$reply" | tr '\n' ' ')" >&2
  grep -q "^250 FROZEN=3" <<< "$reply"
) &
pids+=($!)
freezer_pid_e=$!

# D: the circuits of the 12 links stop forwarding, for good.
reply=$(control "$CONTROL_PORT_d" DONAR-FREEZE)
echo "torsim d: $(echo "$reply" | tr '\n' ' ')" >&2
grep -q "^250 FROZEN=12" <<< "$reply"
rss_frozen=$(rss "$caller_pid_d")

# B: the callee stops reading for 7 s, while the faults of A and C go on.
# torsim's buffers are sampled meanwhile, and the caller's memory.
kill -STOP "$callee_pid_b"
rss_stop=$(rss "$caller_pid_b")
(
  for _ in 1 2 3 4 5 6; do
    sleep 1
    control "$CONTROL_PORT_b" DONAR-STATS | grep "DONAR-STATS LINKS" || true
  done > "$work/stats-b"
) &
pids+=($!)
sampler_pid=$!

# C: every control connection but ours closes; the onion goes with the
# callee's.
reply=$(control "$CONTROL_PORT_c" DONAR-CLOSE-CONTROLS)
echo "torsim c: $(echo "$reply" | tr '\n' ' ')" >&2
grep -q "^250 OK" <<< "$reply"

# A: a stranger with the onion and a wrong secret (its first hex digit
# changed).
address_a=$(cat "$work/address-a")
secret=${address_a##*secret=}
case "${secret:0:1}" in 0) other=1 ;; *) other=0 ;; esac
wrong="${address_a%secret=*}secret=${other}${secret:1}"
timeout 30 "$donar_call" caller "$wrong" --tor-control "$CONTROL_PORT_a" \
  --seconds 4 --setup-timeout 10 --peer-timeout 3 --json \
  > "$work/stranger.json" 2> "$work/stranger.log" &
pids+=($!)
stranger_pid=$!

# A: garbage through the SocksPort to the onion, on three connections of
# their own circuits: an HTTP request (not a record length), a record of
# random bytes (no HELLO of the call), and a stream of random bytes.  The
# callee must close each at once, well before its 10-s HELLO timeout.
onion_a=${address_a#donar://}
onion_a=${onion_a%%\?*}
"$python" - "$SOCKS_PORT_a" "$onion_a" 2> "$work/garbage.log" <<'PY'
import os, socket, struct, sys, time
socks_port = int(sys.argv[1])
host, port = sys.argv[2].rsplit(":", 1)

def recv_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise SystemExit("torsim closed during the SOCKS handshake")
        data += chunk
    return data

def dial(user):
    s = socket.create_connection(("127.0.0.1", socks_port), timeout=15)
    s.sendall(b"\x05\x01\x02")
    assert recv_exact(s, 2) == b"\x05\x02"
    s.sendall(bytes([1, len(user)]) + user + b"\x01x")
    assert recv_exact(s, 2) == b"\x01\x00"
    s.sendall(b"\x05\x01\x00\x03" + bytes([len(host)]) + host.encode() +
              struct.pack(">H", int(port)))
    reply = recv_exact(s, 10)
    if reply[1] != 0:
        raise SystemExit("SOCKS reply 0x%02x" % reply[1])
    return s

garbage = [
    b"GET / HTTP/1.1\r\nHost: example\r\n\r\n",
    b"\x01\x00" + os.urandom(256),
    b"\x01\xf0" + os.urandom(2000),
]
for i, data in enumerate(garbage):
    s = dial(b"garbage-%d" % i)
    start = time.monotonic()
    try:
        s.sendall(data)
    except OSError:
        pass
    s.settimeout(8)
    try:
        while s.recv(4096):
            pass
    except socket.timeout:
        raise SystemExit("garbage %d: the callee did not close it in 8 s" % i)
    except OSError:
        pass
    print("garbage %d: closed after %.2f s" % (i, time.monotonic() - start),
          file=sys.stderr)
    s.close()
PY
cat "$work/garbage.log" >&2

# C: a new caller cannot reach the onion any more.
status=0
timeout 30 "$donar_call" caller "$(cat "$work/address-c")" \
  --tor-control "$CONTROL_PORT_c" --seconds 4 --setup-timeout 10 \
  --peer-timeout 2 > /dev/null 2> "$work/late.log" || status=$?
[ "$status" -eq 1 ] || { echo "late caller: exit status $status, not 1" >&2; exit 1; }
grep -q "descriptor not found" "$work/late.log"

# B: the callee reads again.  Every sample of torsim held at most
# --max-pending plus one read per stream and direction.
wait "$sampler_pid"
rss_cont=$(rss "$caller_pid_b")
kill -CONT "$callee_pid_b"
[ "$(wc -l < "$work/stats-b")" -ge 5 ] || { echo "torsim b: no stats" >&2; exit 1; }
while read -r stats; do
  buffered=$(echo "$stats" | sed -n 's/.* BUFFERED=\([0-9]*\).*/\1/p')
  streams=$(echo "$stats" | sed -n 's/.* STREAMS=\([0-9]*\).*/\1/p')
  limit=$((streams * 2 * (max_pending + 16384)))
  echo "torsim b: STREAMS=$streams BUFFERED=$buffered (at most $limit)" >&2
  [ "$buffered" -le "$limit" ] || { echo "torsim b holds too much" >&2; exit 1; }
done < "$work/stats-b"
echo "caller b: VmRSS $rss_stop kB, then $rss_cont kB while the callee read nothing" >&2
[ $((rss_cont - rss_stop)) -lt 4096 ]

# B: once the call has gone on for a while, the callee dies.
sleep 6
kill -KILL "$callee_pid_b"
wait_for_line "$work/caller-b.log" "peer-unreachable"
rss_gone=$(rss "$caller_pid_b")
sleep 5
rss_later=$(rss "$caller_pid_b")
echo "caller b: VmRSS $rss_gone kB, then $rss_later kB after the call ended" >&2
[ $((rss_later - rss_gone)) -lt 4096 ]

# D: the caller's stalled links are closed and dialed again; its memory
# stays flat meanwhile.
wait_for_line_within 45 "$work/caller-d.log" "stalled: our frames on it"
rss_stalled=$(rss "$caller_pid_d")
echo "caller d: VmRSS $rss_frozen kB at the freeze, $rss_stalled kB after a stall" >&2
[ $((rss_stalled - rss_frozen)) -lt 4096 ]

wait_exit "$freezer_pid_e" 20
[ "$exit_status" -eq 0 ]
wait_exit "$stranger_pid" 20
echo "stranger: exit status $exit_status" >&2
for s in a b c d e; do
  for who in caller callee; do
    [ "$s$who" = bcallee ] && continue
    pid=${who}_pid_$s
    wait_exit "${!pid}" 25
    eval "${who}_status_$s=$exit_status"
    echo "$who $s: exit status $exit_status: $(cat "$work/$who-$s.json")" >&2
  done
done
[ "$caller_status_a" -eq 0 ] && [ "$callee_status_a" -eq 0 ]
[ "$caller_status_b" -eq 0 ]
[ "$caller_status_c" -eq 0 ]
[ "$caller_status_d" -eq 0 ] && [ "$callee_status_d" -eq 0 ]
[ "$caller_status_e" -eq 0 ] && [ "$callee_status_e" -eq 0 ]
[ "$callee_status_c" -eq 1 ] || { echo "callee c: exit status $callee_status_c, not 1" >&2; exit 1; }
grep -q "tor-lost: .*onion service" "$work/callee-c.log"
grep -q "tor-lost: " "$work/caller-c.log"

"$python" - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
def load(name):
    return json.load(open(os.path.join(work, name)))
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("FAIL: " + what, file=sys.stderr)
        ok = False

def unharmed(name, r, frames=100):
    check(r["max_links_up"] == 12, "%s: at most %d links up" % (name, r["max_links_up"]))
    check(r["frames_expected"] >= frames and
          r["frames_received"] >= 0.98 * r["frames_expected"],
          "%s: received %d of %d frames" % (name, r["frames_received"], r["frames_expected"]))

# A: the stranger and the garbage were closed and counted; the call is
# unharmed; the stranger got nothing through.
callee_a, caller_a = load("callee-a.json"), load("caller-a.json")
unharmed("caller a", caller_a, 300)
unharmed("callee a", callee_a, 300)
check(callee_a["connections_rejected"] >= 12 + 3,
      "callee a: %d connections rejected, not >= 15" % callee_a["connections_rejected"])
check(caller_a["link_downs"] <= 2, "caller a: %d links went down" % caller_a["link_downs"])
if os.path.getsize(os.path.join(work, "stranger.json")) > 0:
    stranger = load("stranger.json")
    check(stranger["frames_received"] == 0, "the stranger received frames")

# B: the call went on after the callee read again (more than the 3 s
# before the stop can give at 25 frames a second), then every link went
# down with the callee, reported, and the report came at --seconds.
caller_b = load("caller-b.json")
check(caller_b["max_links_up"] == 12, "caller b: at most %d links up" % caller_b["max_links_up"])
check(caller_b["frames_received"] >= 150,
      "caller b: only %d frames received" % caller_b["frames_received"])
check(caller_b["link_downs"] >= 12 and caller_b["links_up"] == 0,
      "caller b: %d links down, %d up at the end" % (caller_b["link_downs"], caller_b["links_up"]))
check(caller_b["peer_unreachable"] is not None, "caller b: no PEER_UNREACHABLE")
check(abs(caller_b["seconds"] - 40) < 1, "caller b: sent for %.1f s, not 40" % caller_b["seconds"])

# C: the callee's error is in its report; the call went on over the links
# already open.
callee_c, caller_c = load("callee-c.json"), load("caller-c.json")
check(callee_c["tor_lost"] is not None and "onion service" in callee_c["tor_lost"],
      "callee c: tor_lost is %r" % callee_c["tor_lost"])
check(caller_c["tor_lost"] is not None, "caller c: no tor_lost warning")
unharmed("caller c", caller_c)

# D: both ends closed and counted stalled links; the caller dialed every
# frozen circuit again (12 links down at least, as many new connections)
# and the call went on: the second or two before the freeze give at most
# about 50 frames, so most of these came after it.  Nothing piled up: one
# probe a round trip while no link was in time.
for name in ("caller-d.json", "callee-d.json"):
    r = load(name)
    check(r["stalls"] >= 1 and r["in_time_stalls"] >= 1,
          "%s: %d stalls, %d times no link in time" % (name, r["stalls"], r["in_time_stalls"]))
    check(r["link_downs"] >= r["stalls"],
          "%s: %d stalls but %d links down" % (name, r["stalls"], r["link_downs"]))
caller_d = load("caller-d.json")
print("caller d: %d links down, %d stalls, %d silences, %d connections, "
      "%d frames withheld" % (caller_d["link_downs"], caller_d["stalls"],
                              caller_d["silences"], caller_d["connections_opened"],
                              caller_d["frames_withheld"]), file=sys.stderr)
check(caller_d["link_downs"] >= 12,
      "caller d: only %d of the 12 frozen links closed" % caller_d["link_downs"])
check(caller_d["connections_opened"] >= 24,
      "caller d: %d connections: not every frozen circuit dialed again" % caller_d["connections_opened"])
check(caller_d["frames_received"] >= 300,
      "caller d: only %d frames received: the call did not go on" % caller_d["frames_received"])

# E: the three hung links were closed by the ends that saw the peer's
# frames on them never come (not by a full queue), and dialed again; the
# other nine carried the call meanwhile.
caller_e, callee_e = load("caller-e.json"), load("callee-e.json")
check(caller_e["silences"] >= 3,
      "caller e: %d links closed as silent, not 3" % caller_e["silences"])
check(callee_e["silences"] >= 1,
      "callee e: %d links closed as silent" % callee_e["silences"])
for name, r in (("caller e", caller_e), ("callee e", callee_e)):
    check(r["stalls"] == 0, "%s: %d stalls" % (name, r["stalls"]))
check(caller_e["connections_opened"] >= 12 + 3,
      "caller e: %d connections" % caller_e["connections_opened"])
unharmed("caller e", caller_e, 1000)
unharmed("callee e", callee_e, 1000)
sys.exit(0 if ok else 1)
PY
