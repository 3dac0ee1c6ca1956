"""Bulk cross traffic for the shaped Tor network (docs/tornet.md): an HTTP
server on 127.0.0.1 and bulk clients that download from it through tor
SocksPorts, as seed 003's bulk clients do: one file after the other, no
pause, each flow on a circuit of its own (a SOCKS username per flow).

    python3 -m tornet cross-traffic --dir DIR --socks PORT:FLOWS [--socks PORT:FLOWS]...
        [--file-mib 5] [--start-s 0] [--duration-s 0]

Runs until SIGTERM or SIGINT (or --duration-s). Writes, in DIR:
  - ready: once the server listens and every flow is started;
  - flows.csv: one row per second, t_s and every flow's bytes so far;
  - summary.json on exit: per flow, bytes, downloads and KiB/s.
Standard library only, and the SOCKS5 client of
tornet/torctl.py.
"""

import argparse
import http.server
import json
import os
import signal
import socketserver
import sys
import threading
import time

from .torctl import CheckError, socks5_connect

CHUNK = 64 * 1024
PAYLOAD = bytes(range(256)) * (CHUNK // 256)


class Handler(http.server.BaseHTTPRequestHandler):
    """GET /bulk/BYTES: BYTES of filler, written as fast as tor takes them."""

    protocol_version = "HTTP/1.0"

    def do_GET(self):
        try:
            size = int(self.path.rsplit("/", 1)[1])
        except (ValueError, IndexError):
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(size))
        self.end_headers()
        left = size
        try:
            while left > 0:
                n = min(left, CHUNK)
                self.wfile.write(PAYLOAD[:n])
                left -= n
        except OSError:
            pass

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


class Flow:
    def __init__(self, name, socks_port, server_port, size):
        self.name = name
        self.socks_port = socks_port
        self.server_port = server_port
        self.size = size
        self.bytes = 0
        self.downloads = 0
        self.errors = 0
        self.started = None

    def run(self, stop):
        while not stop.is_set():
            try:
                s = socks5_connect(self.socks_port, "127.0.0.1",
                                   self.server_port, self.name, 60)
                s.settimeout(60)
                s.sendall(b"GET /bulk/%d HTTP/1.0\r\n\r\n" % self.size)
                got = 0
                while not stop.is_set():
                    d = s.recv(CHUNK)
                    if not d:
                        break
                    if self.started is None:
                        self.started = time.monotonic()
                    self.bytes += len(d)
                    got += len(d)
                s.close()
                # the HTTP header comes on top of the file
                if got >= self.size:
                    self.downloads += 1
            except (OSError, CheckError):
                self.errors += 1
                # A circuit that failed: tor builds another for the next
                # try; do not spin meanwhile.
                stop.wait(1.0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--socks", action="append", required=True,
                   help="PORT:FLOWS, a tor SocksPort and its flows")
    p.add_argument("--file-mib", type=float, default=5.0)
    p.add_argument("--start-s", type=float, default=0.0)
    p.add_argument("--duration-s", type=float, default=0.0,
                   help="0: until a signal")
    a = p.parse_args()

    os.makedirs(a.dir, exist_ok=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server_port = server.server_address[1]

    size = int(a.file_mib * 1024 * 1024)
    flows = []
    for spec in a.socks:
        port, n = spec.split(":")
        for i in range(int(n)):
            flows.append(Flow("bulk-%s-%d" % (port, i), int(port),
                              server_port, size))
    if stop.wait(a.start_s):
        return 0
    t0 = time.monotonic()
    for f in flows:
        threading.Thread(target=f.run, args=(stop,), daemon=True).start()
    with open(os.path.join(a.dir, "ready"), "w") as out:
        out.write("server_port=%d flows=%d\n" % (server_port, len(flows)))

    with open(os.path.join(a.dir, "flows.csv"), "w") as log:
        log.write("t_s," + ",".join(f.name for f in flows) + "\n")
        while not stop.wait(1.0):
            now = time.monotonic() - t0
            log.write("%.1f,%s\n" % (now, ",".join(str(f.bytes) for f in flows)))
            log.flush()
            if a.duration_s and now >= a.duration_s:
                break
    stop.set()
    elapsed = time.monotonic() - t0
    summary = {"seconds": round(elapsed, 1), "file_mib": a.file_mib,
               "flows": [{"name": f.name, "socks_port": f.socks_port,
                          "bytes": f.bytes, "downloads": f.downloads,
                          "errors": f.errors,
                          "kib_per_s": round(f.bytes / 1024 / max(
                              elapsed - ((f.started or t0) - t0), 1e-3), 1)}
                         for f in flows]}
    with open(os.path.join(a.dir, "summary.json"), "w") as out:
        json.dump(summary, out, indent=1)
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
