#!/usr/bin/env python3
"""During and after a donar-call over the shaped network (tools/tornet):
reads the circuits of both ends every 2 s while the caller runs, then
checks that the frames of both directions came with the shaped delay.

    shaped-call-check.py --control-port P --cookie FILE --onion HOST
        --service-control-port P --service-cookie FILE --relays FILE
        --caller-pid PID --callee-pid PID
        --frame-log CALLER_CSV --frame-log CALLEE_CSV

A frame's one-way path is the caller's circuit (its tor, a guard, ...,
the rendezvous point) and the callee's (its tor, its guard, ..., the same
rendezvous point). The shaper delays every connection into a relay by
that relay's delay (--relays: tools/tornet's DIR/shaper/relays): the hop
from a tor client to its guard by the guard's, a hop between two relays
by the one that accepted the connection, which may be either. So no frame
can arrive sooner than the least, over the circuits seen, of

    base(guard) + sum over the next hops of min(base of its two relays)

on each side; spikes and the cross traffic's queues only add. Checked:
  - most frames arrived (the call carried voice);
  - the fastest frame no sooner than that bound (less 1 ms): the delay is
    the shaper's, not loopback's 0 ms (onion circuits have no conflux in
    tor 0.4.9, so a link's traffic takes the circuit it names);
  - the median no later than the slowest circuits' bound with every hop at
    its larger relay's base, plus 500 ms for cross traffic and a loaded
    machine.
Prints what it saw; exits 0 on success, 1 on failure.
"""

import argparse
import importlib.util
import os
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(here, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sys.path.insert(0, os.path.join(here, "..", "..", "tools", "framelog"))
from frame_log import read_frame_log  # noqa: E402

# call-check.py loads check-onion.py's control client, and reads paths.
call_check = load("call_check", "call-check.py")
check_onion = call_check.check_onion
path_nicknames = call_check.path_nicknames

SLACK_MS = 500.0
TOLERANCE_MS = 1.0


def log(msg):
    print("shaped-call-check: " + msg, file=sys.stderr, flush=True)


def read_relays(path):
    """{nickname: base delay in ms} of tools/tornet's DIR/shaper/relays."""
    base = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            kv = dict(x.split("=", 1) for x in fields[1:])
            base[fields[0]] = int(kv["base_us"]) / 1000.0
    return base


def bounds(path, base):
    """(least, most) one-way shaped delay from a tor client along path."""
    least = most = base[path[0]]
    for a, b in zip(path, path[1:]):
        least += min(base[a], base[b])
        most += max(base[a], base[b])
    return least, most


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def latencies(path):
    """(frames, latencies in ms of those that arrived)."""
    rows = read_frame_log(path)
    return len(rows), sorted(a - s for _, s, a in rows if a is not None)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--control-port", type=int, required=True)
    p.add_argument("--cookie", required=True)
    p.add_argument("--onion", required=True)
    p.add_argument("--service-control-port", type=int, required=True)
    p.add_argument("--service-cookie", required=True)
    p.add_argument("--relays", required=True)
    p.add_argument("--caller-pid", type=int, required=True)
    p.add_argument("--callee-pid", type=int, required=True)
    p.add_argument("--frame-log", action="append", required=True)
    a = p.parse_args()

    base = read_relays(a.relays)
    onion = a.onion[:-len(".onion")] if a.onion.endswith(".onion") else a.onion
    ctl = check_onion.Control(a.control_port, timeout=10)
    check_onion.authenticate(ctl, a.cookie)
    service = check_onion.Control(a.service_control_port, timeout=10)
    check_onion.authenticate(service, a.service_cookie)
    caller_paths, callee_paths = set(), set()
    while alive(a.caller_pid):
        try:
            lines = check_onion.circuit_lines(ctl)
            for circuit in set(check_onion.stream_circuits(ctl, onion + ".onion").values()):
                path = path_nicknames(lines.get(circuit, ""))
                if path:
                    caller_paths.add(tuple(path))
            for line in check_onion.circuit_lines(service).values():
                if "PURPOSE=HS_SERVICE_REND" in line and " BUILT " in line:
                    callee_paths.add(tuple(path_nicknames(line)))
        except (OSError, check_onion.CheckError) as e:
            log("reading circuits: %s" % e)
        time.sleep(2)
    ctl.close()
    service.close()
    while alive(a.callee_pid):
        time.sleep(0.2)

    if not caller_paths or not callee_paths:
        log("no circuit seen: caller %d, callee %d" % (len(caller_paths), len(callee_paths)))
        return 1
    least = (min(bounds(x, base)[0] for x in caller_paths)
             + min(bounds(x, base)[0] for x in callee_paths))
    most = (max(bounds(x, base)[1] for x in caller_paths)
            + max(bounds(x, base)[1] for x in callee_paths))
    log("%d caller circuits, %d callee circuits: shaped one-way delay "
        "%.1f ms at least, %.1f ms at most without spikes or queues"
        % (len(caller_paths), len(callee_paths), least, most))
    for x in sorted(caller_paths):
        log("  caller %s: %.1f-%.1f ms" % ("-".join(x), *bounds(x, base)))
    for x in sorted(callee_paths):
        log("  callee %s: %.1f-%.1f ms" % ("-".join(x), *bounds(x, base)))
    ok = True
    for path in a.frame_log:
        n, lat = latencies(path)
        if n < 500 or len(lat) < 0.9 * n:
            log("%s: %d of %d frames arrived" % (path, len(lat), n))
            ok = False
            continue
        p50 = lat[len(lat) // 2]
        p99 = lat[int(0.99 * (len(lat) - 1))]
        log("%s: %d of %d frames, latency min %.1f p50 %.1f p99 %.1f max %.1f ms"
            % (os.path.basename(path), len(lat), n, lat[0], p50, p99, lat[-1]))
        if lat[0] < least - TOLERANCE_MS:
            log("a frame came in %.1f ms, sooner than the shaped %.1f ms" % (lat[0], least))
            ok = False
        if p50 > most + SLACK_MS:
            log("median %.1f ms, beyond the shaped %.1f ms + %.0f ms" % (p50, most, SLACK_MS))
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
