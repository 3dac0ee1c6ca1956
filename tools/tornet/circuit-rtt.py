#!/usr/bin/env python3
"""Round trips through the shaped network's exit circuits, beside the
delays the shaper puts on them (docs/tornet.md, "Figures").

    eval "$(tools/tornet/tornet.sh start DIR)"
    python3 tools/tornet/circuit-rtt.py --socks-port $TOR_SOCKS_PORT \\
        --control-port $TOR_CONTROL_PORT --cookie $TOR_COOKIE \\
        --relays $TOR_SHAPER_RELAYS [--circuits 6] [--echoes 20]

An echo server on 127.0.0.1, reached through the network's exits: each
circuit (its own SOCKS username) carries --echoes 16-byte messages one
after the other. For each, the circuit's relays and twice the shaped
one-way delay (tests/tor-network/shaped-call-check.py: the guard's base,
then each hop between two relays at the smaller or the larger of their
bases, as either relay may have accepted the connection), then the
measured round trips. A leg of a conflux set is reckoned with its other
legs (the traffic takes either). Exits 1 if a round trip was shorter than
the least shaped delay allows.
"""

import argparse
import importlib.util
import os
import socket
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "shaped_call_check", os.path.join(HERE, "..", "..", "tests", "tor-network",
                                      "shaped-call-check.py"))
shaped = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shaped)
check_onion = shaped.check_onion


def echo_server():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve(conn):
        with conn:
            while True:
                data = conn.recv(4096)
                if not data:
                    return
                conn.sendall(data)

    def accept():
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return listener.getsockname()[1]


def conflux_legs(lines, circuit):
    """The status lines of the circuit and, if it is a leg of a conflux
    set, of the set's other legs: tor 0.4.8 and later splits exit traffic
    over two linked circuits (through the client's two guards) and sends
    on the one it finds faster, which stream-status does not name."""
    line = lines.get(circuit, "")
    conflux = [f for f in line.split() if f.startswith("CONFLUX_ID=")]
    if not conflux:
        return [line]
    return [x for x in lines.values() if conflux[0] in x.split()]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--socks-port", type=int, required=True)
    p.add_argument("--control-port", type=int, required=True)
    p.add_argument("--cookie", required=True)
    p.add_argument("--relays", required=True)
    p.add_argument("--circuits", type=int, default=6)
    p.add_argument("--echoes", type=int, default=20)
    a = p.parse_args()

    base = shaped.read_relays(a.relays)
    port = echo_server()
    ctl = check_onion.Control(a.control_port, timeout=10)
    check_onion.authenticate(ctl, a.cookie)
    ok = True
    for k in range(a.circuits):
        sock = check_onion.socks5_connect(a.socks_port, "127.0.0.1", port,
                                          "rtt-%d-%d" % (os.getpid(), k), 60)
        # The one stream of this username is the only one open to the
        # server: its circuit is this connection's.
        circuits = set(check_onion.stream_circuits(ctl, "127.0.0.1").values())
        lines = check_onion.circuit_lines(ctl)
        rtts = []
        for _ in range(a.echoes):
            t = time.monotonic()
            sock.sendall(b"x" * 16)
            check_onion.recv_exact(sock, 16)
            rtts.append((time.monotonic() - t) * 1000)
        sock.close()
        if len(circuits) != 1:
            print("circuit %d: %d streams open, skipped" % (k, len(circuits)))
            continue
        legs = conflux_legs(lines, circuits.pop())
        paths = [shaped.path_nicknames(line) for line in legs]
        least = min(shaped.bounds(x, base)[0] for x in paths)
        most = max(shaped.bounds(x, base)[1] for x in paths)
        print("circuit %s: shaped round trip %.1f-%.1f ms; measured min %.1f, "
              "median %.1f, max %.1f ms"
              % (" or ".join("-".join(x) for x in paths), 2 * least,
                 2 * most, min(rtts), statistics.median(rtts), max(rtts)))
        if min(rtts) < 2 * least - 1.0:
            print("  shorter than the shaped delay allows")
            ok = False
        # Let the closed stream leave stream-status.
        time.sleep(0.5)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
