#!/usr/bin/python3
"""A full-duplex end as docs/elements.md writes it (one pipeline: rtpbin,
donarsink and donarsrc of one call, donarjitterbuffer on the receiving
side) sends each frame when it is captured: it does not wait for the
pipeline's latency, which holds the receiving jitter buffer's (suite
elements, test duplex-latency; issue 25).

Two such ends in one process over tor-control=direct (no Tor: what is
measured is the pipelines' own delay), on the system clock, each with
audiotestsrc is-live=true in place of the microphone.  For every RTP packet
out of one end's donarsink and into the other's donarsrc: capture (the
buffer's running time at the sender plus its base time) to arrival (the
clock when donarsrc pushes it).  Run twice: with donarsink as the docs write
it (sync left at its default, true) and with sync=false.

Checks, per direction: with the default, the median capture-to-arrival is
under the pipeline's latency (a sink that waited for it would add it
whole), and within 15 ms of sync=false's, the same pipelines' delay without
any wait.  Prints both, and the pipelines' latency.

Usage: check-duplex-latency.py BUILD_DIR [--seconds N]"""

import os
import sys
import time

SETUP_TIMEOUT = 30
SECONDS = 6
# One frame is 40 ms; sync=false's median plus this is the same delay,
# what a scheduler's tick or a busy machine may add.
MARGIN_MS = 15

BUILD = sys.argv[1]
if len(sys.argv) > 3 and sys.argv[2] == "--seconds":
    SECONDS = int(sys.argv[3])
os.environ.setdefault("GST_PLUGIN_PATH", os.path.join(BUILD, "gst"))

import gi  # noqa: E402

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

# docs/elements.md, *RTCP*: the callee's pipeline, an audiotestsrc in place
# of autoaudiosrc and a fakesink in place of autoaudiosink.
END = (
    "rtpbin name=r latency=0 "
    "audiotestsrc is-live=true freq={freq} ! audioconvert ! audioresample ! "
    "opusenc bitrate=32000 frame-size=40 ! rtpopuspay ! r.send_rtp_sink_0 "
    "r.send_rtp_src_0 ! funnel name=f ! donarsink name=sink call=c {sync} {who} "
    "r.send_rtcp_src_0 ! f. "
    "donarsrc name=src call=c {who} ! donarrtcpdemux name=d "
    "d.rtp_src ! donarjitterbuffer ! r.recv_rtp_sink_0 "
    "d.rtcp_src ! r.recv_rtcp_sink_0 "
    "r. ! rtpopusdepay ! opusdec plc=true ! fakesink sync=true")


def rtp_seq(buf):
    """The RTP sequence number, None for RTCP (RFC 5761: types 192-223)."""
    ok, info = buf.map(Gst.MapFlags.READ)
    try:
        data = bytes(info.data[:4])
    finally:
        buf.unmap(info)
    if len(data) < 4 or 192 <= data[1] <= 223:
        return None
    return (data[2] << 8) | data[3]


def pump(pipelines, until, timeout):
    """Bus messages until until(msg), or timeout s: the message, or None.
    An error fails the test; latency messages are answered."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in pipelines:
            msg = p.get_bus().timed_pop(20 * Gst.MSECOND)
            if msg is None:
                continue
            if msg.type == Gst.MessageType.ERROR:
                err, debug = msg.parse_error()
                raise SystemExit("FAIL %s: %s (%s)" % (msg.src.get_name(), err.message, debug))
            if msg.type == Gst.MessageType.LATENCY:
                p.recalculate_latency()
            if until(msg):
                return msg
    return None


def named(name):
    def match(msg):
        s = msg.get_structure()
        return msg.type == Gst.MessageType.ELEMENT and s is not None and s.get_name() == name
    return match


def watch_sent(pipeline, sent):
    """seq -> capture time (clock), at donarsink's sink pad."""
    def probe(pad, info):
        buf = info.get_buffer()
        seq = rtp_seq(buf)
        if seq is not None and buf.pts != Gst.CLOCK_TIME_NONE:
            sent.setdefault(seq, pipeline.get_base_time() + buf.pts)
        return Gst.PadProbeReturn.OK
    pipeline.get_by_name("sink").get_static_pad("sink").add_probe(
        Gst.PadProbeType.BUFFER, probe)


def watch_arrived(pipeline, clock, arrived):
    """seq -> arrival (clock), at donarsrc's source pad."""
    def probe(pad, info):
        seq = rtp_seq(info.get_buffer())
        if seq is not None:
            arrived.setdefault(seq, clock.get_time())
        return Gst.PadProbeReturn.OK
    pipeline.get_by_name("src").get_static_pad("src").add_probe(
        Gst.PadProbeType.BUFFER, probe)


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def call(sync):
    """One call: {direction: [capture-to-arrival ms]}, pipeline latency ms."""
    clock = Gst.SystemClock.obtain()
    sync_prop = "sync=false" if sync == "false" else ""
    callee = Gst.parse_launch(END.format(freq=440, sync=sync_prop,
                                         who="callee=true tor-control=direct"))
    callee.use_clock(clock)
    caller = None
    sent = {"callee": {}, "caller": {}}
    arrived = {"callee": {}, "caller": {}}
    try:
        callee.set_state(Gst.State.PLAYING)
        msg = pump([callee], named("donar-call-address"), SETUP_TIMEOUT)
        assert msg is not None, "no address from the callee"
        address = msg.get_structure().get_string("address")
        caller = Gst.parse_launch(END.format(
            freq=660, sync=sync_prop,
            who='tor-control=direct address="%s"' % address))
        caller.use_clock(clock)
        watch_sent(callee, sent["callee"])
        watch_sent(caller, sent["caller"])
        watch_arrived(caller, clock, arrived["callee"])
        watch_arrived(callee, clock, arrived["caller"])
        caller.set_state(Gst.State.PLAYING)
        assert pump([caller, callee], named("donar-ready"), SETUP_TIMEOUT), \
            "the caller's call was not ready"
        pump([caller, callee], lambda m: False, SECONDS)
        q = Gst.Query.new_latency()
        caller.query(q)
        latency_ms = q.parse_latency()[1] / Gst.MSECOND
    finally:
        for p in (caller, callee):
            if p is not None:
                p.set_state(Gst.State.NULL)
    delays = {}
    for who in ("caller", "callee"):
        delays[who] = [(arrived[who][s] - sent[who][s]) / Gst.MSECOND
                       for s in arrived[who] if s in sent[who]]
    return delays, latency_ms


def main():
    Gst.init(None)
    default, latency_ms = call("default")
    unsynced, _ = call("false")
    ok = True
    print("# the caller's pipeline latency: %.0f ms" % latency_ms)
    for who in ("caller", "callee"):
        d, u = default[who], unsynced[who]
        if not d or not u:
            print("FAIL no frame measured from the %s (%d, %d)" % (who, len(d), len(u)))
            ok = False
            continue
        print("# from the %s, capture to arrival, ms: default (sync=true) p50 %.0f "
              "(%d frames); sync=false p50 %.0f (%d frames)"
              % (who, median(d), len(d), median(u), len(u)))
        checks = [
            ("from the %s: p50 %.0f ms under the pipeline's latency %.0f ms"
             % (who, median(d), latency_ms), median(d) < latency_ms),
            ("from the %s: p50 %.0f ms within %d ms of sync=false's %.0f ms"
             % (who, median(d), MARGIN_MS, median(u)),
             median(d) <= median(u) + MARGIN_MS),
        ]
        for name, good in checks:
            print(("ok   " if good else "FAIL ") + name)
            ok = ok and good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
