#!/usr/bin/env python3
"""The guards of a caller's links, for the `tor-stall` test
(run-tor-stall.sh): reads the caller's tor (GETINFO stream-status and
circuit-status), takes the first hop of the circuit of every stream to the
onion (the call's links), and logs them with its entry-guards.

  stall-guards.py --control-port P --cookie FILE --onion ONION
      --relays TOR_SHAPER_RELAYS [--spike-file FILE --hold-ms MS]
      [--service-control-port P --service-cookie FILE]

With --spike-file it writes one line per guard, "INDEX,MS,hold" (INDEX:
the guard's relay in donar-shaper, from TOR_SHAPER_RELAYS), which
donar-shaper starts on SIGUSR1: every link of the call held at once,
whatever the number of guards the caller's tor uses.  With the callee's
tor (--service-control-port), it also logs the relays of the callee's
rendezvous circuits, held or not, for the report.  Exit status 1 when no
link's circuit is seen.
"""
import argparse
import collections
import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "call_check", os.path.join(here, "call-check.py"))
call_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(call_check)
check_onion = call_check.check_onion


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--control-port", type=int, required=True)
    p.add_argument("--cookie", required=True)
    p.add_argument("--onion", required=True)
    p.add_argument("--relays", required=True)
    p.add_argument("--spike-file")
    p.add_argument("--hold-ms", type=int, default=10000)
    p.add_argument("--service-control-port", type=int)
    p.add_argument("--service-cookie")
    a = p.parse_args()

    index = {}
    with open(a.relays) as f:
        for line in f:
            fields = line.split()
            kv = dict(x.split("=", 1) for x in fields[1:])
            index[fields[0]] = int(kv["model_relay"])
    onion = a.onion if a.onion.endswith(".onion") else a.onion + ".onion"
    ctl = check_onion.Control(a.control_port, timeout=10)
    check_onion.authenticate(ctl, a.cookie)
    lines = check_onion.circuit_lines(ctl)
    streams = check_onion.stream_circuits(ctl, onion)
    circuits = set(streams.values())
    paths = [call_check.path_nicknames(lines.get(c, "")) for c in circuits]
    guards = collections.Counter(x[0] for x in paths if x)
    entry = [line.split()[-1] + ":" + line.split()[0].split("~")[-1]
             for line in ctl.getinfo("entry-guards").splitlines() if line]
    ctl.close()
    print("stall-guards: %d links, on %d circuits; their first hops %s; "
          "the tor's entry-guards %s"
          % (len(streams), len(paths), dict(guards), entry),
          file=sys.stderr, flush=True)
    for path in sorted(x for x in paths if x):
        print("stall-guards:   caller %s" % "-".join(path), file=sys.stderr)
    if a.service_control_port:
        service = check_onion.Control(a.service_control_port, timeout=10)
        check_onion.authenticate(service, a.service_cookie)
        for line in sorted(check_onion.circuit_lines(service).values()):
            if "PURPOSE=HS_SERVICE_REND" in line and " BUILT " in line:
                print("stall-guards:   callee %s"
                      % "-".join(call_check.path_nicknames(line)),
                      file=sys.stderr)
        service.close()
    if not guards:
        return 1
    if a.spike_file:
        with open(a.spike_file, "w") as f:
            for g in sorted(guards):
                f.write("%d,%d,hold\n" % (index[g], a.hold_ms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
