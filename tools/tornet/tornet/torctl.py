"""The tor control and SOCKS clients the testbed and the tor suite share
(control-spec.txt, RFC 1928 and RFC 1929), Python 3 standard library only:
a control-port connection with cookie or SAFECOOKIE authentication, the
circuits and streams of GETINFO, and a SOCKS5 connection through tor with a
username per circuit. The tor suite's check-onion.py is its check against
a private network."""

import hashlib
import os
import hmac
import socket
import struct
import time

SAFECOOKIE_SERVER_KEY = b"Tor safe cookie authentication server-to-controller hash"
SAFECOOKIE_CLIENT_KEY = b"Tor safe cookie authentication controller-to-server hash"
# Replies longer than this are a protocol error, not something to buffer.
MAX_REPLY_LINES = 100000


class CheckError(Exception):
    pass


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
