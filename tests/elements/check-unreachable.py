#!/usr/bin/python3
"""A caller whose links cannot come up is told why within 10 s of the start
of its setup: an element warning, "No link to the other end yet: <why>.",
whose details carry the reason's short name (`reason`), long before the
error at peer-timeout (60 s).  Over donar-torsim, five callers at once,
each with its own fault:

  gone     an onion donar-torsim does not know (the callee is gone):
           tor's 0xF0, descriptor-not-found;
  secret   a live callee's address with another secret: the callee closes
           each link on its HELLO, wrong-secret;
  refused  a SocksPort where nothing listens, connect-refused;
  silent   a SocksPort that takes the connection and says nothing,
           socks-silent;
  http     a SocksPort that answers in HTTP, socks-http.

The time is from the state change that starts the setup to the warning,
taken in the thread that posts it (a bus sync handler).

Usage: check-unreachable.py BUILD_DIR

Every process it starts (donar-torsim) is stopped by its PID."""

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

import gi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torsim_fixture import start_torsim, stop, wait_file  # noqa: E402

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

LIMIT = 10.0
SEND = ("audiotestsrc is-live=true ! opusenc bitrate=32000 frame-size=40 ! "
        "rtpopuspay ! donarsink name=sink tor-control={control} {settings} "
        "address={address}")
# The example v3 onion of tor's rend-spec: well formed, unknown here.
GONE_ONION = "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion"


def fake_socks_port(answer):
    """A port that takes connections and sends answer (b"": nothing)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held = []

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            if answer:
                conn.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    return server




def main():
    build = sys.argv[1]
    os.environ["GST_PLUGIN_PATH"] = os.path.join(build, "gst")
    Gst.init(None)
    work = tempfile.mkdtemp(prefix="donar-unreachable.")
    torsim, control = start_torsim(build, work, 11)
    pipelines = []
    try:
        callee = Gst.parse_launch(
            "donarsrc callee=true tor-control=%s address-file=%s ! fakesink"
            % (control, os.path.join(work, "address")))
        callee.set_state(Gst.State.PLAYING)
        pipelines.append(callee)
        address = wait_file(os.path.join(work, "address")).strip()
        secret = address.split("secret=")[1].split("&")[0]
        other = ("e" if secret[0] == "f" else "f") + secret[1:]
        gone = "donar://%s:5004?secret=%s" % (GONE_ONION, secret)
        silent = fake_socks_port(b"")
        http = fake_socks_port(b"HTTP/1.0 501 Tor is not an HTTP Proxy\r\n\r\n")
        cases = [
            ("gone", "", gone, "descriptor-not-found",
             "found no descriptor"),
            ("secret", "", address.replace(secret, other), "wrong-secret",
             "the peer closed the link on our greeting: wrong secret"),
            ("refused", "tor-socks=9", gone, "connect-refused",
             "nothing listens on tor's SocksPort"),
            ("silent", "tor-socks=%d" % silent.getsockname()[1], gone,
             "socks-silent", "never answered in SOCKS"),
            ("http", "tor-socks=%d" % http.getsockname()[1], gone,
             "socks-http", "answered in HTTP"),
        ]
        seen = {}
        lock = threading.Lock()

        def on_sync(bus, message, name):
            if message.type == Gst.MessageType.WARNING:
                error, _ = message.parse_warning()
                if error.message.startswith("No link to the other end yet"):
                    details = message.parse_warning_details()
                    with lock:
                        seen.setdefault(name, (
                            time.monotonic(), error.message,
                            details.get_string("reason") if details else None))
            elif message.type == Gst.MessageType.ERROR:
                error, debug = message.parse_error()
                with lock:
                    seen.setdefault(name, (time.monotonic(), "error: " +
                                           error.message + " " + debug, None))
            return Gst.BusSyncReply.PASS

        started = {}
        for name, settings, target, _, _ in cases:
            pipeline = Gst.parse_launch(SEND.format(
                control=control, settings=settings, address=target))
            bus = pipeline.get_bus()
            bus.enable_sync_message_emission()
            bus.connect("sync-message", on_sync, name)
            pipelines.append(pipeline)
            started[name] = time.monotonic()
            pipeline.set_state(Gst.State.PLAYING)

        end = time.monotonic() + LIMIT + 5
        while time.monotonic() < end and len(seen) < len(cases):
            time.sleep(0.1)
        failed = False
        for name, _, _, reason, text in cases:
            if name not in seen:
                print("%s: no warning within %.0f s" % (name, LIMIT + 5))
                failed = True
                continue
            at, message, got = seen[name]
            elapsed = at - started[name]
            ok = elapsed <= LIMIT and got == reason and text in message
            print("%s: %s after %.1f s (%s): %s" % (
                name, "warned" if ok else "WRONG", elapsed, got, message))
            failed |= not ok
        return 1 if failed else 0
    finally:
        for pipeline in pipelines:
            pipeline.set_state(Gst.State.NULL)
        stop(torsim)
        subprocess.call(["rm", "-rf", work])


if __name__ == "__main__":
    sys.exit(main())
