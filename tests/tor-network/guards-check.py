#!/usr/bin/env python3
"""During a call between two donar-call that launched their own tors with
--guards 2: checks on each tor that the call's links start at two guards,
not one (docs/security.md, "Number of guards").

    guards-check.py --caller-tmp DIR --callee-tmp DIR --onion HOST
        --links N [--guards G] [--timeout S]
    guards-check.py --config PORT COOKIE

The second form prints a running tor's NumEntryGuards and NumPrimaryGuards
(config-text; "unset" when not set), for the check of what a call does to
a tor it was given.

DIR is the TMPDIR the donar-call ran with: its tor's data directory,
donar-tor-XXXXXX, holds control-port and control_auth_cookie.

On the caller's tor the links are the circuits of its streams to the onion
(HS_CLIENT_REND, one a link: IsolateSOCKSAuth); on the callee's, the
circuits tor built to the callers' rendezvous points (HS_SERVICE_REND,
REND_QUERY the onion). tor 0.4.9 picks each circuit's first hop at random
among the first NumEntryGuards of its primary guards (a guard that is also
the circuit's last hop is skipped for the next), so with 2 guards all N
links fall on one guard with a probability of about 2 * 2^-N per side:
with N = 16, 3e-5. The check asks for at least 2 first hops a side.

Prints what it saw (the first hops and how many links each, the path
lengths); exits 0 on success, 1 on failure. Uses the control client of
check-onion.py.
"""

import argparse
import collections
import glob
import importlib.util
import os
import sys
import time

# check-onion.py's name is no module name: loaded by path.
check_onion = importlib.util.module_from_spec(
    importlib.util.spec_from_file_location(
        "check_onion", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "check-onion.py")))
check_onion.__spec__.loader.exec_module(check_onion)


def log(msg):
    print("guards-check: %s" % msg, file=sys.stderr, flush=True)


def open_tor(tmp, deadline):
    """A control connection to the tor that donar-call launched under
    TMPDIR tmp (it writes control-port once listening)."""
    while True:
        for d in glob.glob(os.path.join(tmp, "donar-tor-*")):
            try:
                with open(os.path.join(d, "control-port")) as f:
                    port = int(f.read().strip().rsplit(":", 1)[1])
            except (OSError, ValueError, IndexError):
                continue
            ctl = check_onion.Control(port, timeout=10)
            check_onion.authenticate(ctl, os.path.join(d, "control_auth_cookie"))
            return ctl
        if time.monotonic() > deadline:
            raise check_onion.CheckError("no launched tor under " + tmp)
        time.sleep(0.2)


def hops(line):
    """The relays of a circuit-status line, as $fingerprint~nickname."""
    f = line.split()
    return f[2].split(",") if len(f) >= 3 and f[2].startswith("$") else []


def first_hops(name, lines):
    """Logs and returns {first hop: links} of the circuit-status lines."""
    counts = collections.Counter(hops(line)[0] for line in lines if hops(line))
    lengths = collections.Counter(len(hops(line)) for line in lines)
    log("%s: %d links' circuits; first hops %s; path lengths %s"
        % (name, len(lines), dict(counts), dict(lengths)))
    return counts


def config_guards(ctl, key="NumEntryGuards"):
    for line in ctl.getinfo("config-text").splitlines():
        if line.startswith(key + " "):
            return line.split()[1]
    return "unset"


def print_config(port, cookie):
    ctl = check_onion.Control(int(port), timeout=10)
    check_onion.authenticate(ctl, cookie)
    print("NumEntryGuards=%s NumPrimaryGuards=%s"
          % (config_guards(ctl), config_guards(ctl, "NumPrimaryGuards")))
    ctl.close()
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--config":
        return print_config(sys.argv[2], sys.argv[3])
    p = argparse.ArgumentParser()
    p.add_argument("--caller-tmp", required=True)
    p.add_argument("--callee-tmp", required=True)
    p.add_argument("--onion", required=True)
    p.add_argument("--links", type=int, required=True)
    p.add_argument("--guards", default="2", help="what both tors were "
                   "launched with (0: NumEntryGuards unset)")
    p.add_argument("--timeout", type=float, default=90)
    a = p.parse_args()
    deadline = time.monotonic() + a.timeout
    onion = a.onion[:-len(".onion")] if a.onion.endswith(".onion") else a.onion

    caller = open_tor(a.caller_tmp, deadline)
    callee = open_tor(a.callee_tmp, deadline)
    ok = True
    for name, ctl in (("caller", caller), ("callee", callee)):
        got = config_guards(ctl)
        if got != ("unset" if a.guards == "0" else a.guards):
            log("%s's tor: NumEntryGuards %s, not %s" % (name, got, a.guards))
            ok = False

    while True:
        streams = check_onion.stream_circuits(caller, onion + ".onion")
        if len(streams) >= a.links:
            break
        if time.monotonic() > deadline:
            log("only %d links after %.0f s" % (len(streams), a.timeout))
            return 1
        time.sleep(0.5)
    lines = check_onion.circuit_lines(caller)
    client = [lines[c] for c in set(streams.values()) if c in lines]
    for line in client:
        if "PURPOSE=HS_CLIENT_REND" not in line:
            log("caller: a link's circuit is no HS_CLIENT_REND one: " + line)
            ok = False
    service = [line for line in check_onion.circuit_lines(callee).values()
               if " BUILT " in line and "PURPOSE=HS_SERVICE_REND" in line
               and "REND_QUERY=" + onion in line]
    if len(service) < a.links:
        log("callee: %d rendezvous circuits, not %d" % (len(service), a.links))
        ok = False
    for name, circuits in (("caller", client), ("callee", service)):
        counts = first_hops(name, circuits)
        if len(counts) < 2:
            log("%s: every link starts at one guard" % name)
            ok = False
    for name, ctl in (("caller", caller), ("callee", callee)):
        guards = [line.split()[0] for line in ctl.getinfo("entry-guards").splitlines()
                  if " up" in line]
        log("%s's tor: guards up %s" % (name, guards))
        ctl.close()
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except check_onion.CheckError as e:
        log(str(e))
        sys.exit(1)
