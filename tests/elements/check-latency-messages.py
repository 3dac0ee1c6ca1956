#!/usr/bin/python3
"""One latency message per real change of donarjitterbuffer's latency
(suite elements, test latency-messages; issue 25).

A duplex call over donar-torsim, two pipelines in this process as
docs/elements.md's examples (donarsrc ! donarjitterbuffer ! rtpopusdepay !
opusdec, and opusenc ! rtpopuspay ! donarsink), the caller's audio 6 s
long (num-buffers): its EOS hangs up and ends the callee.  Each latency
message is handled as gst-launch-1.0 does (gst_bin_recalculate_latency, its
"Redistribute latency..."), and those of the rtpjitterbuffer inside each
donarjitterbuffer are counted, with the latency they announce (read in the
posting thread).

The design (gst/gstdonarjitterbuffer.c, latency_on_grid): the latency moves
on a grid of 10 ms, up at once (a step further each time within a climb),
down only after 2 s of wanting to.  So every message moves the latency by
10 ms at least, and a call of T seconds whose latency reached at most PEAK
ms posts at most
    1 + PEAK / 10 + 2 * (T / 2 + 1)
(the first value; the climbs, a grid line each at least; each lowering, at
most one every 2 s, and the climb back over what it lowered, at most as
many lines again, counted once more per lowering by the bound's factor 2).
Before, the latency moved by the millisecond: 30 to 38 messages per end in
a 12-s call (7 to 36 on a loaded machine, 2 to 12 after).

Usage: check-latency-messages.py BUILD_DIR

Every process it starts (donar-torsim) is stopped by its PID."""

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

BUILD = sys.argv[1]
os.environ.setdefault("GST_PLUGIN_PATH", os.path.join(BUILD, "gst"))

import gi  # noqa: E402

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

BUFFERS = 150           # of 40 ms at 48 kHz: 6 s of the caller's audio
STEP_MS = 10
LOWER_HOLD_S = 2
TIMEOUT_S = 90
failed = False


def fail(text):
    global failed
    print("FAIL: " + text, file=sys.stderr, flush=True)
    failed = True


def start_torsim(tmp):
    ports = os.path.join(tmp, "ports")
    proc = subprocess.Popen(
        [os.path.join(BUILD, "tools", "donar-torsim"), "--port-file", ports,
         "--publish-ms", "500"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if os.path.exists(ports):
            for line in open(ports):
                if line.startswith("CONTROL_PORT="):
                    return proc, line.strip().split("=", 1)[1]
        time.sleep(0.05)
    return proc, None


class End:
    """One end of the call and what its bus said."""

    def __init__(self, name, control, address):
        dial = 'address="%s"' % address if address else "callee=true"
        audio = ("samplesperbuffer=1920 num-buffers=%d " % BUFFERS
                 if address else "")
        self.name = name
        self.pipeline = Gst.parse_launch(
            "donarsrc call=c tor-control=%s %s ! donarjitterbuffer ! "
            "rtpopusdepay ! opusdec plc=true ! fakesink sync=true "
            "audiotestsrc is-live=true %s! opusenc bitrate=32000 "
            "frame-size=40 ! rtpopuspay ! donarsink call=c tor-control=%s %s"
            % (control, dial, audio, control, dial))
        self.lock = threading.Lock()
        self.latencies = []     # (monotonic s, ms) of the inner jitterbuffer
        self.messages = 0       # every latency message: "Redistribute"
        self.eos = False
        self.address = None
        self.pipeline.get_bus().set_sync_handler(self.on_sync)

    def on_sync(self, bus, msg):
        if msg.type == Gst.MessageType.LATENCY:
            parent = msg.src.get_parent()
            if (parent is not None and parent.get_factory() is not None and
                    parent.get_factory().get_name() == "donarjitterbuffer"):
                with self.lock:
                    self.latencies.append(
                        (time.monotonic(), msg.src.get_property("latency")))
        return Gst.BusSyncReply.PASS

    def drain(self):
        bus = self.pipeline.get_bus()
        while True:
            msg = bus.pop()
            if msg is None:
                return
            if msg.type == Gst.MessageType.LATENCY:
                self.messages += 1
                self.pipeline.recalculate_latency()
            elif msg.type == Gst.MessageType.EOS:
                self.eos = True
            elif msg.type == Gst.MessageType.ERROR:
                fail("%s: %s" % (self.name, msg.parse_error()[0].message))
                self.eos = True
            elif (msg.type == Gst.MessageType.ELEMENT and
                  msg.get_structure().get_name() == "donar-call-address"):
                self.address = msg.get_structure().get_value("address")


def check(end, seconds):
    with end.lock:
        values = [ms for _, ms in end.latencies]
        times = [t for t, _ in end.latencies]
    peak = max(values) if values else 0
    bound = 1 + peak // STEP_MS + 2 * (int(seconds) // LOWER_HOLD_S + 1)
    print("# %s: %d latency messages, %d of them from the jitter buffer "
          "(bound %d): %s" % (end.name, end.messages, len(values), bound,
                              " ".join(str(v) for v in values)), flush=True)
    for i in range(1, len(values)):
        if abs(values[i] - values[i - 1]) < STEP_MS:
            fail("%s: a latency message for %d -> %d ms, less than a step"
                 % (end.name, values[i - 1], values[i]))
        if values[i] < values[i - 1] and i > 1 and \
                times[i] - times[i - 1] < LOWER_HOLD_S - 0.5:
            # The hold runs on arrival times, these are the posting
            # thread's: half a second of slack.
            fail("%s: lowered %.1f s after the previous change"
                 % (end.name, times[i] - times[i - 1]))
    if len(values) > bound:
        fail("%s: %d latency messages from the jitter buffer, more than %d"
             % (end.name, len(values), bound))


def main():
    Gst.init(None)
    tmp = tempfile.mkdtemp(prefix="donar-latency-")
    torsim, control = start_torsim(tmp)
    try:
        if control is None:
            fail("donar-torsim did not start")
            return 1
        callee = End("callee", control, None)
        callee.pipeline.set_state(Gst.State.PLAYING)
        deadline = time.monotonic() + TIMEOUT_S
        while callee.address is None and time.monotonic() < deadline:
            callee.drain()
            time.sleep(0.02)
        if callee.address is None:
            fail("no address from the callee")
            return 1
        caller = End("caller", control, callee.address)
        start = time.monotonic()
        caller.pipeline.set_state(Gst.State.PLAYING)
        while not (caller.eos and callee.eos) and \
                time.monotonic() < deadline:
            caller.drain()
            callee.drain()
            time.sleep(0.02)
        seconds = time.monotonic() - start
        if not (caller.eos and callee.eos):
            fail("the call did not end within %d s" % TIMEOUT_S)
        for end in (caller, callee):
            end.pipeline.set_state(Gst.State.NULL)
            check(end, seconds)
    finally:
        torsim.send_signal(signal.SIGTERM)
        torsim.wait()
    return 1 if failed else 0


sys.exit(main())
