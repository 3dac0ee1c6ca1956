#!/usr/bin/python3
"""After a refusal that no retry changes, nothing says the call is set up,
and the pipeline does not play on: a donarsink with a wrong client
authorization key (tor's 0xF5), RUNS times over donar-torsim, driven as
gst-launch-1.0 drives it (PAUSED; PLAYING once the setup's progress ends).
The refusal comes from the link engine's thread while the setup thread
ends; before the fix a run could post the error, then the progress
"complete" ("call set up"), and stay PLAYING until peer-timeout.

The order is taken on the bus in the posting threads (a sync handler): in
each run an error that names the refusal, and no progress "complete"
after it.

Usage: check-refusal.py BUILD_DIR [RUNS]

Every process it starts (donar-torsim) is stopped by its PID."""

import os
import subprocess
import sys
import tempfile
import threading
import time

import gi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torsim_fixture import start_torsim, stop, wait_file  # noqa: E402

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

SEND = ("audiotestsrc is-live=true ! opusenc bitrate=32000 frame-size=40 ! "
        "rtpopuspay ! donarsink tor-control={control} address={address}")
REASON = "refused our client authorization"


def wait_for(predicate, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()




def run_once(control, address):
    """How the run went ("set up first": the refusal came after the setup
    ended; "setup failed": before, and the setup failed with it), or what
    went wrong."""
    log = []
    lock = threading.Lock()

    def on_sync(bus, message):
        with lock:
            if message.type == Gst.MessageType.ERROR:
                error, debug = message.parse_error()
                log.append(("error", error.message + " " + debug))
            elif message.type == Gst.MessageType.PROGRESS:
                kind, _, text = message.parse_progress()
                log.append(("progress", kind, text))
        return Gst.BusSyncReply.PASS

    def progress_ended():
        with lock:
            return any(e[0] == "error" or (
                e[0] == "progress" and e[1] in (
                    Gst.ProgressType.COMPLETE, Gst.ProgressType.ERROR,
                    Gst.ProgressType.CANCELED)) for e in log)

    pipeline = Gst.parse_launch(SEND.format(control=control, address=address))
    bus = pipeline.get_bus()
    bus.enable_sync_message_emission()
    bus.connect("sync-message", on_sync)
    try:
        pipeline.set_state(Gst.State.PAUSED)
        if not wait_for(progress_ended, 10):
            return "the setup did not end in 10 s"
        pipeline.set_state(Gst.State.PLAYING)
        if not wait_for(lambda: any(e[0] == "error" for e in log), 5):
            return "no error within 5 s of PLAYING"
        with lock:
            first = next(i for i, e in enumerate(log) if e[0] == "error")
            if REASON not in log[first][1]:
                return "the error does not say %r: %s" % (REASON, log[first][1])
            complete = [i for i, e in enumerate(log) if e[0] == "progress"
                        and e[1] == Gst.ProgressType.COMPLETE]
        if complete and complete[-1] > first:
            return "progress %r after the error" % log[complete[-1]][2]
        return "set up first" if complete else "setup failed"
    finally:
        pipeline.set_state(Gst.State.NULL)
        bus.disable_sync_message_emission()


def main():
    build = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    os.environ["GST_PLUGIN_PATH"] = os.path.join(build, "gst")
    Gst.init(None)
    work = tempfile.mkdtemp(prefix="donar-refusal.")
    torsim, control = start_torsim(build, work, 5)
    callee = None
    try:
        callee = Gst.parse_launch(
            "donarsrc callee=true client-auth=true tor-control=%s "
            "address-file=%s ! fakesink" % (control,
                                           os.path.join(work, "address")))
        callee.set_state(Gst.State.PLAYING)
        address = wait_file(os.path.join(work, "address")).strip()
        key = address.split("&auth=")[1]
        other = ("b" if key[0] in "aA" else "a") + key[1:]
        wrong = address.replace("&auth=" + key, "&auth=" + other)
        start = time.monotonic()
        ways = {}
        for run in range(1, runs + 1):
            way = run_once(control, wrong)
            if way not in ("set up first", "setup failed"):
                print("run %d: %s" % (run, way))
                return 1
            ways[way] = ways.get(way, 0) + 1
        print("%d runs in %.1f s, each the error and no \"set up\" after it: "
              "%s" % (runs, time.monotonic() - start, ways))
        return 0
    finally:
        if callee:
            callee.set_state(Gst.State.NULL)
        stop(torsim)
        subprocess.call(["rm", "-rf", work])


if __name__ == "__main__":
    sys.exit(main())
