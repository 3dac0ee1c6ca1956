#!/usr/bin/env python3
"""Checks that a (private) Tor network carries onion-service traffic.

Through the control port of a tor client (cookie or SAFECOOKIE
authentication), publishes an ephemeral v3 onion service (ADD_ONION) that
points to a TCP listener of this script, connects to it through the tor's
SOCKS port (SOCKS5, the .onion name passed as a domain name, a distinct
username per connection), sends bytes both ways, checks with GETINFO
stream-status and circuit-status that the connections use distinct
circuits, then removes the service (DEL_ONION).

Prints the time to publish the descriptor and to the first byte through the
onion; exits 0 on success, 1 on failure. Python 3 standard library only;
the control and SOCKS protocols are implemented here in a few functions
(control-spec.txt, RFC 1928 and RFC 1929).

    check-onion.py --control-port P --cookie FILE --socks-port P
        [--service-control-port P --service-cookie FILE]

With --service-control-port, the service is published by that other tor
(the callee's own, say) and reached through the first one.
"""

import argparse
import hashlib
import os
import socket
import struct
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "tornet"))
from tornet.torctl import (  # noqa: E402  (the names the checks here use)
    CheckError, Control, authenticate, circuit_lines, recv_exact,
    socks5_connect, stream_circuits)


def log(msg):
    print("check-onion: " + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# The service behind the onion: answers each message with a transformed copy.


def serve(listener, stop):
    def handle(conn):
        with conn:
            conn.settimeout(60)
            try:
                # Server speaks first: checks the service-to-caller direction
                # before the caller has sent anything.
                conn.sendall(b"HELLO\n")
                while True:
                    size = struct.unpack(">I", recv_exact(conn, 4))[0]
                    data = recv_exact(conn, size)
                    reply = hashlib.sha256(data).digest() + data[::-1]
                    conn.sendall(struct.pack(">I", len(reply)) + reply)
            except (CheckError, OSError):
                return

    listener.settimeout(0.2)
    while not stop.is_set():
        try:
            conn, _ = listener.accept()
        except (socket.timeout, TimeoutError):
            continue
        except OSError:
            return
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


def exchange(sock, size):
    """One round trip: SIZE random bytes out, their checked transform back."""
    data = os.urandom(size)
    sock.sendall(struct.pack(">I", len(data)) + data)
    n = struct.unpack(">I", recv_exact(sock, 4))[0]
    reply = recv_exact(sock, n)
    if reply != hashlib.sha256(data).digest() + data[::-1]:
        raise CheckError("the onion service's answer is wrong")


# ---------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--control-port", type=int, required=True)
    ap.add_argument("--cookie", help="cookie file (default: from PROTOCOLINFO)")
    ap.add_argument("--socks-port", type=int, required=True)
    ap.add_argument("--service-control-port", type=int,
                    help="publish the onion service on this other tor (default:"
                    " the one of --control-port)")
    ap.add_argument("--service-cookie", help="cookie file of that other tor")
    ap.add_argument("--connections", type=int, default=4,
                    help="isolated connections to open (default 4)")
    ap.add_argument("--bytes", type=int, default=16384,
                    help="bytes per round trip (default 16384)")
    ap.add_argument("--timeout", type=float, default=120,
                    help="seconds for the whole check (default 120)")
    args = ap.parse_args()
    deadline = time.monotonic() + args.timeout

    ctl = Control(args.control_port, timeout=30)
    svc = ctl
    if args.service_control_port:
        svc = Control(args.service_control_port, timeout=30)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    stop = threading.Event()
    threading.Thread(target=serve, args=(listener, stop), daemon=True).start()
    onion = None
    socks = []
    try:
        how = authenticate(ctl, args.cookie)
        log("authenticated (%s); bootstrap: %s" % (how, ctl.getinfo("status/bootstrap-phase")))
        if svc is not ctl:
            how = authenticate(svc, args.service_cookie)
            log("service tor: authenticated (%s); bootstrap: %s"
                % (how, svc.getinfo("status/bootstrap-phase")))
        svc.command("SETEVENTS HS_DESC")

        t0 = time.monotonic()
        reply = svc.command("ADD_ONION NEW:ED25519-V3 Flags=DiscardPK Port=80,127.0.0.1:%d"
                            % listener.getsockname()[1])
        service_id = next(t.split("=", 1)[1] for t in reply if t.startswith("ServiceID="))
        onion = service_id + ".onion"
        log("ADD_ONION: %s" % onion)

        # Dialing before the descriptor is on an HSDir fails (SOCKS 0xF0) and
        # tor would not look it up again for a while: wait for the upload.
        ev = svc.wait_event(lambda t: t.startswith("HS_DESC UPLOADED " + service_id), deadline)
        if ev is None:
            raise CheckError("descriptor not uploaded in time")
        t_published = time.monotonic() - t0
        log("descriptor uploaded after %.2f s (%s)" % (t_published, ev))

        # First connection: retried until the deadline, since an HSDir may
        # not have the descriptor yet or an introduction may time out.
        attempt = 0
        while True:
            attempt += 1
            try:
                s = socks5_connect(args.socks_port, onion, 80, "check-0-%d" % attempt,
                                   timeout=max(1, min(60, deadline - time.monotonic())))
                greeting = recv_exact(s, 6)
                break
            except (CheckError, OSError) as e:
                if time.monotonic() + 2 > deadline:
                    raise CheckError("no connection to the onion: %s" % e)
                log("connection attempt %d failed: %s; retrying" % (attempt, e))
                time.sleep(1)
        t_first_byte = time.monotonic() - t0
        if greeting != b"HELLO\n":
            raise CheckError("wrong greeting %r" % greeting)
        socks.append(s)
        exchange(s, args.bytes)
        log("first byte through the onion after %.2f s (attempt %d)" % (t_first_byte, attempt))

        # More connections, each with its own SOCKS username: own circuit.
        t1 = time.monotonic()
        for i in range(1, args.connections):
            s = socks5_connect(args.socks_port, onion, 80, "check-%d" % i,
                               timeout=max(1, deadline - time.monotonic()))
            socks.append(s)
            if recv_exact(s, 6) != b"HELLO\n":
                raise CheckError("wrong greeting on connection %d" % i)
        for s in socks:
            exchange(s, args.bytes)
        t_more = time.monotonic() - t1
        log("%d more isolated connections open and echoed in %.2f s"
            % (args.connections - 1, t_more))

        streams = stream_circuits(ctl, onion)
        circuits = circuit_lines(ctl)
        used = sorted(set(streams.values()), key=int)
        for c in used:
            log("circuit " + circuits.get(c, c + " (not in circuit-status)")[:160])
        if len(streams) != len(socks):
            raise CheckError("stream-status shows %d streams to the onion, %d open"
                             % (len(streams), len(socks)))
        if len(used) != len(socks):
            raise CheckError("%d connections share %d circuits" % (len(socks), len(used)))
        missing = [c for c in used if c not in circuits]
        if missing:
            raise CheckError("circuits %s not in circuit-status" % ",".join(missing))
        log("%d connections on %d distinct circuits" % (len(socks), len(used)))

        svc.command("DEL_ONION " + service_id)
        onion = None
        print("publish_s=%.2f first_byte_s=%.2f more_connections_s=%.2f connections=%d"
              % (t_published, t_first_byte, t_more, len(socks)))
        return 0
    except CheckError as e:
        log("FAILED: %s" % e)
        return 1
    finally:
        for s in socks:
            s.close()
        if onion is not None:
            try:
                svc.command("DEL_ONION " + onion[:-len(".onion")])
            except (CheckError, OSError):
                pass
        stop.set()
        listener.close()
        if svc is not ctl:
            svc.close()
        ctl.close()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except OSError as e:
        log("FAILED: %s" % e)
        sys.exit(1)
