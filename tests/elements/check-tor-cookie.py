#!/usr/bin/python3
"""tor-cookie-file is the cookie the elements authenticate with: a
donar-torsim that offers COOKIE and SAFECOOKIE with a cookie of its own
(--cookie-file), its cookie copied elsewhere and given as tor-cookie-file:
a callee is set up (its address posted); another 32-byte file given: the
setup fails, and says it was tor's cookie that did not match.

Usage: check-tor-cookie.py BUILD_DIR

Every process it starts (donar-torsim) is stopped by its PID."""

import os
import shutil
import sys
import tempfile
import time

import gi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torsim_fixture import start_torsim, stop, wait_file  # noqa: E402

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


def setup_outcome(control, cookie):
    """("address", ...) or ("error", debug) of a callee with the cookie."""
    pipeline = Gst.parse_launch(
        "donarsrc callee=true tor-control=%s tor-cookie-file=%s ! fakesink"
        % (control, cookie))
    bus = pipeline.get_bus()
    try:
        pipeline.set_state(Gst.State.PLAYING)
        end = time.monotonic() + 15
        while time.monotonic() < end:
            msg = bus.timed_pop_filtered(
                Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.ELEMENT)
            if msg is None:
                continue
            if msg.type == Gst.MessageType.ERROR:
                return ("error", msg.parse_error()[1])
            if msg.get_structure().get_name() == "donar-call-address":
                return ("address", "")
        return ("nothing", "")
    finally:
        pipeline.set_state(Gst.State.NULL)


def main():
    build = sys.argv[1]
    os.environ["GST_PLUGIN_PATH"] = os.path.join(build, "gst")
    Gst.init(None)
    work = tempfile.mkdtemp(prefix="donar-tor-cookie.")
    tor_cookie = os.path.join(work, "control_auth_cookie")
    torsim, control = start_torsim(build, work, 3,
                                   ["--cookie-file", tor_cookie])
    try:
        wait_file(tor_cookie)
        copy = os.path.join(work, "copy")
        shutil.copy(tor_cookie, copy)
        other = os.path.join(work, "other")
        with open(other, "wb") as f:
            f.write(bytes(32))
        got = setup_outcome(control, copy)
        print("the copy of tor's cookie: %s %s" % got)
        if got[0] != "address":
            return 1
        got = setup_outcome(control, other)
        print("another cookie: %s %s" % got)
        if got[0] != "error" or "cookie" not in got[1]:
            return 1
        return 0
    finally:
        stop(torsim)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
