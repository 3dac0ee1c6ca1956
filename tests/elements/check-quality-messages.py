#!/usr/bin/python3
"""donarjitterbuffer's donar-quality messages in a real call (suite
elements, test quality-messages; issue 36).

A duplex call over donar-torsim, two pipelines in this process as
docs/elements.md's examples (donarsrc ! donarjitterbuffer ! rtpopusdepay !
opusdec, and opusenc ! rtpopuspay ! donarsink), the caller's audio 8 s
long (num-buffers): its EOS hangs up and ends the callee.  Each end's
jitter buffer must post a donar-quality message about every second from
its first frame out to the hang-up (taken in the posting thread): at least
one a second of the caller's audio but 2, at most one a second of the
whole run and 1 more, none two in one half second; each with R in [0,
93.21] (G.107's R with every default is 93.2 at best; a call bad enough to
go below 0 would be no test of the messages: donar-torsim's flaky spikes,
which put a link 1.2 s behind, are off), MOS in [1, 4.5] and G.107
Annex B's MOS of R, the rating that of R's band (good >= 80 > fair >= 60 >
poor), the mouth-to-ear delay above the frame's 40 ms, the loss in [0,
100] %, the window 5 s at most.

Usage: check-quality-messages.py BUILD_DIR

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

BUFFERS = 200           # of 40 ms at 48 kHz: 8 s of the caller's audio
AUDIO_S = BUFFERS * 0.04
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
         "--publish-ms", "500", "--set", "spike_flaky_fraction=0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if os.path.exists(ports):
            for line in open(ports):
                if line.startswith("CONTROL_PORT="):
                    return proc, line.strip().split("=", 1)[1]
        time.sleep(0.05)
    return proc, None


def mos_of(r):
    """G.107 Annex B, held within [1, 4.5]."""
    if r < 0:
        return 1.0
    if r > 100:
        return 4.5
    return max(1.0, 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6)


def band(r):
    return "good" if r >= 80 else "fair" if r >= 60 else "poor"


class End:
    """One end of the call and the quality messages of its jitter buffer."""

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
        self.quality = []       # (monotonic s, the message's fields)
        self.eos = False
        self.address = None
        self.pipeline.get_bus().set_sync_handler(self.on_sync)

    def on_sync(self, bus, msg):
        s = msg.get_structure()
        if (msg.type == Gst.MessageType.ELEMENT and s is not None and
                s.get_name() == "donar-quality"):
            fields = {k: s.get_value(k) for k in
                      ("r", "mos", "rating", "mouth-to-ear-ms",
                       "loss-percent", "window-ms")}
            with self.lock:
                self.quality.append((time.monotonic(), fields))
        return Gst.BusSyncReply.PASS

    def drain(self):
        bus = self.pipeline.get_bus()
        while True:
            msg = bus.pop()
            if msg is None:
                return
            if msg.type == Gst.MessageType.LATENCY:
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
        quality = list(end.quality)
    times = [t for t, _ in quality]
    least, most = int(AUDIO_S) - 2, int(seconds) + 1
    print("# %s: %d donar-quality messages in %.1f s (between %d and %d): %s"
          % (end.name, len(quality), seconds, least, most,
             "; ".join("R %.1f MOS %.2f %s %.0f ms %.1f %%"
                       % (f["r"], f["mos"], f["rating"], f["mouth-to-ear-ms"],
                          f["loss-percent"]) for _, f in quality)),
          flush=True)
    if not least <= len(quality) <= most:
        fail("%s: %d donar-quality messages, not between %d and %d"
             % (end.name, len(quality), least, most))
    for i in range(1, len(times)):
        if times[i] - times[i - 1] < 0.5:
            fail("%s: two donar-quality messages %.2f s apart"
                 % (end.name, times[i] - times[i - 1]))
    for _, f in quality:
        r = f["r"]
        if not 0 <= r <= 93.21:
            fail("%s: R %.2f outside [0, 93.21]" % (end.name, r))
        if not 1 <= f["mos"] <= 4.5 or abs(f["mos"] - mos_of(r)) > 1e-9:
            fail("%s: MOS %.4f for R %.2f (G.107: %.4f)"
                 % (end.name, f["mos"], r, mos_of(r)))
        if f["rating"] != band(r):
            fail("%s: rating %s for R %.2f" % (end.name, f["rating"], r))
        if not f["mouth-to-ear-ms"] > 40:
            fail("%s: mouth to ear %.1f ms" % (end.name, f["mouth-to-ear-ms"]))
        if not 0 <= f["loss-percent"] <= 100:
            fail("%s: loss %.2f %%" % (end.name, f["loss-percent"]))
        if not 0 < f["window-ms"] <= 5000:
            fail("%s: window %d ms" % (end.name, f["window-ms"]))


def main():
    Gst.init(None)
    tmp = tempfile.mkdtemp(prefix="donar-quality-")
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
