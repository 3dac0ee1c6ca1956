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
import hmac
import os
import queue
import socket
import struct
import sys
import threading
import time

SAFECOOKIE_SERVER_KEY = b"Tor safe cookie authentication server-to-controller hash"
SAFECOOKIE_CLIENT_KEY = b"Tor safe cookie authentication controller-to-server hash"
# Replies longer than this are a protocol error, not something to buffer.
MAX_REPLY_LINES = 100000


class CheckError(Exception):
    pass


def log(msg):
    print("check-onion: " + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Control port


class Control:
    """A control-port connection. Replies to commands come in order;
    asynchronous events (status 650) may come between them and are queued
    for wait_event()."""

    def __init__(self, port, timeout):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.file = self.sock.makefile("rb")
        self.events = []

    def close(self):
        try:
            self.sock.sendall(b"QUIT\r\n")
        except OSError:
            pass
        self.file.close()
        self.sock.close()

    def _line(self):
        raw = self.file.readline()
        if not raw:
            raise CheckError("control connection closed by tor")
        if not raw.endswith(b"\r\n"):
            raise CheckError("control line without CRLF: %r" % raw[:80])
        return raw[:-2].decode("utf-8", "replace")

    def _message(self):
        """One whole reply: list of (status, text) with data blocks
        ("250+key=" lines) folded into their text, '\\n'-separated."""
        lines = []
        while len(lines) < MAX_REPLY_LINES:
            line = self._line()
            if len(line) < 4 or not line[:3].isdigit() or line[3] not in " -+":
                raise CheckError("malformed control line: %r" % line[:80])
            status, sep, text = line[:3], line[3], line[4:]
            if sep == "+":
                data = []
                while True:
                    d = self._line()
                    if d == ".":
                        break
                    data.append(d[1:] if d.startswith(".") else d)
                text = text + "\n" + "\n".join(data)
            lines.append((status, text))
            if sep == " ":
                return lines
        raise CheckError("control reply too long")

    def command(self, cmd):
        """Sends one command; returns its reply lines (text only). Raises
        unless the status is 250."""
        self.sock.sendall(cmd.encode() + b"\r\n")
        while True:
            msg = self._message()
            if msg[0][0] == "650":
                self.events.append(msg)
                continue
            if msg[-1][0] != "250":
                name = cmd.split(" ", 1)[0]
                raise CheckError("%s: %s %s" % (name, msg[-1][0], msg[-1][1]))
            return [text for _, text in msg]

    def wait_event(self, match, deadline):
        """Returns the first queued or new event whose first line satisfies
        match(text), or None at the deadline."""
        while True:
            for i, msg in enumerate(self.events):
                if match(msg[0][1]):
                    del self.events[i]
                    return msg[0][1]
            self.events.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                msg = self._message()
            except (socket.timeout, TimeoutError):
                return None
            finally:
                self.sock.settimeout(None)
            if msg[0][0] == "650":
                self.events.append(msg)

    def getinfo(self, key):
        lines = self.command("GETINFO " + key)
        for text in lines:
            if text.startswith(key + "="):
                return text[len(key) + 1:].lstrip("\n")
        raise CheckError("GETINFO %s: no value" % key)


def parse_kv(text):
    """KEY=VALUE KEY="quoted value" ... as a dict (control-spec 2.3)."""
    out = {}
    i = 0
    while i < len(text):
        while i < len(text) and text[i] == " ":
            i += 1
        eq = text.find("=", i)
        sp = text.find(" ", i)
        if eq < 0 or (0 <= sp < eq):
            # A bare word: skip it.
            i = len(text) if sp < 0 else sp
            continue
        key = text[i:eq]
        i = eq + 1
        if i < len(text) and text[i] == '"':
            i += 1
            val = []
            while i < len(text) and text[i] != '"':
                if text[i] == "\\" and i + 1 < len(text):
                    i += 1
                val.append(text[i])
                i += 1
            i += 1
            out[key] = "".join(val)
        else:
            sp = text.find(" ", i)
            sp = len(text) if sp < 0 else sp
            out[key] = text[i:sp]
            i = sp
    return out


def authenticate(ctl, cookie_path):
    """PROTOCOLINFO, then SAFECOOKIE when offered, else COOKIE."""
    methods = set()
    for text in ctl.command("PROTOCOLINFO 1"):
        if text.startswith("AUTH "):
            kv = parse_kv(text[5:])
            methods = set(kv.get("METHODS", "").split(","))
            cookie_path = cookie_path or kv.get("COOKIEFILE")
    with open(cookie_path, "rb") as f:
        cookie = f.read()
    if len(cookie) != 32:
        raise CheckError("cookie file %s: %d bytes, not 32" % (cookie_path, len(cookie)))
    if "SAFECOOKIE" in methods:
        client_nonce = os.urandom(32)
        reply = ctl.command("AUTHCHALLENGE SAFECOOKIE " + client_nonce.hex())
        kv = parse_kv(reply[-1].split(" ", 1)[1])
        server_nonce = bytes.fromhex(kv["SERVERNONCE"])
        msg = cookie + client_nonce + server_nonce
        expect = hmac.new(SAFECOOKIE_SERVER_KEY, msg, hashlib.sha256).digest()
        if not hmac.compare_digest(expect, bytes.fromhex(kv["SERVERHASH"])):
            raise CheckError("SAFECOOKIE: tor's server hash is wrong")
        answer = hmac.new(SAFECOOKIE_CLIENT_KEY, msg, hashlib.sha256).digest()
        ctl.command("AUTHENTICATE " + answer.hex())
        return "SAFECOOKIE"
    if "COOKIE" in methods:
        ctl.command("AUTHENTICATE " + cookie.hex())
        return "COOKIE"
    raise CheckError("no cookie authentication offered: %s" % ",".join(sorted(methods)))


# ---------------------------------------------------------------------------
# SOCKS5 (RFC 1928) with username/password (RFC 1929)

SOCKS_ERRORS = {
    1: "general failure", 2: "not allowed", 3: "network unreachable",
    4: "host unreachable", 5: "connection refused", 6: "TTL expired",
    7: "command not supported", 8: "address type not supported",
    0xF0: "onion service descriptor not found", 0xF1: "onion descriptor invalid",
    0xF2: "onion introduction failed", 0xF3: "onion rendezvous failed",
    0xF4: "onion client auth missing", 0xF5: "onion client auth wrong",
    0xF6: "onion address invalid", 0xF7: "onion introduction timed out",
}


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise CheckError("connection closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


def socks5_connect(socks_port, host, port, username, timeout):
    """A TCP connection to host:port through tor; the host name goes to tor
    as is (never resolved here). The username isolates the circuit."""
    sock = socket.create_connection(("127.0.0.1", socks_port), timeout=timeout)
    try:
        sock.sendall(b"\x05\x01\x02")  # version 5, one method: user/password
        ver, method = recv_exact(sock, 2)
        if ver != 5 or method != 2:
            raise CheckError("SOCKS: method 0x%02x refused" % method)
        user, password = username.encode(), b"x"
        sock.sendall(bytes([1, len(user)]) + user + bytes([len(password)]) + password)
        if recv_exact(sock, 2)[1] != 0:
            raise CheckError("SOCKS: username/password refused")
        name = host.encode()
        sock.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + struct.pack(">H", port))
        ver, rep, _, atyp = recv_exact(sock, 4)
        if rep != 0:
            raise CheckError("SOCKS error 0x%02x (%s)" % (rep, SOCKS_ERRORS.get(rep, "?")))
        # The bound address: skip it.
        alen = {1: 4, 4: 16}.get(atyp)
        if alen is None:
            alen = recv_exact(sock, 1)[0]
        recv_exact(sock, alen + 2)
        return sock
    except BaseException:
        sock.close()
        raise


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


def stream_circuits(ctl, onion):
    """{stream id: circuit id} of the SUCCEEDED streams to ONION."""
    out = {}
    for line in ctl.getinfo("stream-status").splitlines():
        f = line.split()
        if len(f) >= 4 and f[1] == "SUCCEEDED" and f[3].split(":")[0] == onion:
            out[f[0]] = f[2]
    return out


def circuit_lines(ctl):
    """{circuit id: status line} from circuit-status."""
    out = {}
    for line in ctl.getinfo("circuit-status").splitlines():
        f = line.split()
        if f:
            out[f[0]] = line
    return out


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
