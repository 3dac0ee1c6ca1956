#!/usr/bin/env python3
"""During a donar-call over the private network: checks that the caller's
links to the onion each have a circuit of their own, then kills (SIGKILL)
the relay that most of those circuits cross and that is neither side's
guard nor on the callee's introduction circuits, so that the call must go
on without it.

    call-check.py --control-port P --cookie FILE --onion HOST --links N
        --service-control-port P --service-cookie FILE
        --network-dir DIR [--timeout S]

Prints what it saw; exits 0 on success, 1 on failure. Uses the control
client of check-onion.py.
"""

import argparse
import collections
import importlib.util
import os
import signal
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("check_onion",
                                              os.path.join(here, "check-onion.py"))
check_onion = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_onion)


def log(msg):
    print("call-check: " + msg, file=sys.stderr, flush=True)


def relay_pids(network_dir):
    """{node name: pid} of the relays, authorities included (they relay
    too; two of three still vote), not the clients."""
    out = {}
    with open(os.path.join(network_dir, "pids")) as f:
        for line in f:
            name, pid = line.split()
            if name.startswith("relay") or name.startswith("auth"):
                out[name] = int(pid)
    return out


def path_nicknames(line):
    """The relay nicknames of a circuit-status line."""
    fields = line.split()
    if len(fields) < 3 or not fields[2].startswith("$"):
        return []
    return [hop.split("~", 1)[1] for hop in fields[2].split(",") if "~" in hop]


def lines_of(ctl):
    return check_onion.circuit_lines(ctl)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--control-port", type=int, required=True)
    p.add_argument("--cookie", required=True)
    p.add_argument("--onion", required=True)
    p.add_argument("--links", type=int, required=True)
    p.add_argument("--service-control-port", type=int, required=True)
    p.add_argument("--service-cookie", required=True)
    p.add_argument("--network-dir", required=True)
    p.add_argument("--timeout", type=float, default=60)
    a = p.parse_args()

    ctl = check_onion.Control(a.control_port, timeout=10)
    check_onion.authenticate(ctl, a.cookie)
    onion = a.onion[:-len(".onion")] if a.onion.endswith(".onion") else a.onion
    deadline = time.monotonic() + a.timeout
    while True:
        streams = check_onion.stream_circuits(ctl, onion + ".onion")
        if not streams:
            streams = check_onion.stream_circuits(ctl, onion)
        if len(streams) >= a.links:
            break
        if time.monotonic() > deadline:
            log("only %d streams to the onion after %.0f s" % (len(streams), a.timeout))
            return 1
        time.sleep(0.5)
    circuits = set(streams.values())
    log("%d streams to the onion on %d distinct circuits" % (len(streams), len(circuits)))
    if len(circuits) != len(streams):
        log("some links share a circuit")
        return 1

    # Stock tor has one primary guard: the caller's is the first hop of
    # every link, the callee's of every circuit of its service, and killing
    # either stops the whole call until tor has found another. A relay on
    # the callee's introduction circuits takes its introduction points, and
    # no link can open until it has published new ones (docs/security.md).
    # Any other relay on the links tests what DONAR is for: the links
    # through it die, the others carry the call, the dead ones are dialed
    # again on new circuits.
    service = check_onion.Control(a.service_control_port, timeout=10)
    check_onion.authenticate(service, a.service_cookie)
    lines = lines_of(ctl)
    spared = set()
    for line in lines_of(service).values():
        hops = path_nicknames(line)
        if "PURPOSE=HS_SERVICE_INTRO" in line:
            spared.update(hops)
        elif "PURPOSE=HS_SERVICE" in line:
            spared.update(hops[:1])
    service.close()
    for c in circuits:
        spared.update(path_nicknames(lines.get(c, ""))[:1])
    crossings = collections.Counter()
    for circuit in circuits:
        crossings.update(set(path_nicknames(lines.get(circuit, ""))) - spared)
    log("spared (guards, the callee's introduction circuits): %s; "
        "others on the links: %s"
        % (sorted(spared), dict(crossings)))
    pids = relay_pids(a.network_dir)
    candidates = [(n, name) for name, n in crossings.items() if name in pids]
    if not candidates:
        # Rare with 8 relays; the run then tests the restart alone.
        log("NOT KILLING: every relay on the links is a guard or on the "
            "callee's introduction circuits")
        print("none 0")
        return 0
    n, victim = max(candidates)
    os.kill(pids[victim], signal.SIGKILL)
    log("killed %s (pid %d), on %d of the %d circuits" % (victim, pids[victim], n, len(circuits)))
    ctl.close()
    print("%s %d" % (victim, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
