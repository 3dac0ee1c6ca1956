#!/usr/bin/python3
"""An incoming call, answered or rejected by the callee's application
(suite elements, test answer; issue 25).

With auto-answer=false a callee posts donar-incoming-call (answered
false) when the caller's first link is up, and no frame goes either way
until the application emits "accept" on a DONAR element of the call;
"reject" ends the call instead, and the caller is told why.  With the
default (auto-answer=true) the message says answered true and the call
goes on as ever.  Over tor-control=direct (127.0.0.1, no Tor):

- reject, the caller a gst-launch-1.0 process: while the call rings
  nothing of it is heard at either end (the callee's donarsrc and
  donarsink count what they held back in dropped-unanswered); "reject"
  returns true, the callee posts donar-call-ended "rejected", and
  gst-launch exits 1 with "The other end rejected the call." within
  5 s; a second "reject" returns false;
- accept, the caller in this process: after "accept" each end receives
  the other's frames within 5 s; "reject" of an answered call, and
  "accept" on the caller, return false;
- the default: donar-incoming-call says answered true.

Usage: check-answer.py BUILD_DIR

Every process it starts (gst-launch-1.0) is stopped by its PID, whatever
happens."""

import os
import subprocess
import sys
import time

BUILD = sys.argv[1]
os.environ.setdefault("GST_PLUGIN_PATH", os.path.join(BUILD, "gst"))

import gi  # noqa: E402

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from bus_wait import wait_element_message  # noqa: E402

SETUP_TIMEOUT = 20
# The caller hears of the rejection this soon at most: the BYE crosses
# 127.0.0.1 at once; gst-launch then stops its pipeline.
REJECT_NOTICE_S = 5
FLOW_TIMEOUT_S = 5
RING_S = 1.5
failed = False


def fail(text):
    global failed
    print("FAIL: " + text, file=sys.stderr, flush=True)
    failed = True


def ok(text):
    print("ok   " + text, flush=True)


def end(dial, extra=""):
    """One end of a duplex call: a donarsink named sink, a donarsrc named
    src, whose buffers a fakesink named out counts."""
    return Gst.parse_launch(
        "audiotestsrc is-live=true ! opusenc bitrate=32000 frame-size=40 ! "
        "rtpopuspay ! donarsink name=sink call=c tor-control=direct %s %s "
        "donarsrc name=src call=c tor-control=direct %s %s ! fakesink "
        "name=out sync=false" % (dial, extra, dial, extra))


def wait_message(pipeline, name, timeout=SETUP_TIMEOUT):
    structure, why = wait_element_message(pipeline, name, timeout)
    if why:
        fail("%s: %s" % (name, why))
    return structure


def counter(pipeline, element, name):
    return pipeline.get_by_name(element).get_property("stats").get_value(name)


def start_callee(extra):
    callee = end("callee=true", extra)
    callee.set_state(Gst.State.PLAYING)
    address = wait_message(callee, "donar-call-address")
    return callee, address.get_value("address") if address else None


def check_reject():
    callee, address = start_callee("auto-answer=false")
    if address is None:
        callee.set_state(Gst.State.NULL)
        return
    caller = subprocess.Popen(
        ["gst-launch-1.0", "audiotestsrc", "is-live=true", "!", "opusenc",
         "bitrate=32000", "frame-size=40", "!", "rtpopuspay", "!",
         "donarsink", "address=%s" % address, "tor-control=direct"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print("# gst-launch-1.0 caller pid %d" % caller.pid, flush=True)
    try:
        incoming = wait_message(callee, "donar-incoming-call")
        if incoming is None:
            return
        if incoming.get_value("answered"):
            fail("reject: donar-incoming-call says answered with "
                 "auto-answer=false")
        time.sleep(RING_S)
        held = counter(callee, "src", "dropped-unanswered")
        heard = counter(callee, "src", "buffers-received")
        sent = counter(callee, "sink", "buffers-sent")
        withheld = counter(callee, "sink", "dropped-unanswered")
        if held > 0 and heard == 0 and sent == 0 and withheld > 0:
            ok("ringing %.1f s: the caller's %d frames held back, none "
               "heard; %d of ours held back, none sent"
               % (RING_S, held, withheld))
        else:
            fail("ringing: dropped-unanswered %d, buffers-received %d at "
                 "donarsrc; buffers-sent %d, dropped-unanswered %d at "
                 "donarsink" % (held, heard, sent, withheld))
        rejected_at = time.monotonic()
        if callee.get_by_name("src").emit("reject"):
            ok("reject returned true")
        else:
            fail("reject returned false on a ringing call")
        ended = wait_message(callee, "donar-call-ended", REJECT_NOTICE_S)
        if ended and ended.get_value("reason") == "rejected":
            ok("the callee's donar-call-ended: rejected")
        elif ended:
            fail("the callee's donar-call-ended: %s, not rejected"
                 % ended.get_value("reason"))
        if callee.get_by_name("sink").emit("reject"):
            fail("a second reject returned true")
        try:
            out, _ = caller.communicate(timeout=REJECT_NOTICE_S)
        except subprocess.TimeoutExpired:
            fail("gst-launch-1.0 still runs %d s after the rejection"
                 % REJECT_NOTICE_S)
            return
        took = time.monotonic() - rejected_at
        if caller.returncode == 1 and \
                "The other end rejected the call." in out:
            ok("gst-launch-1.0 exited 1 with the reason, %.2f s after "
               "reject" % took)
        else:
            fail("gst-launch-1.0 exited %d; its output:\n%s"
                 % (caller.returncode, out))
    finally:
        if caller.poll() is None:
            caller.kill()
            caller.wait()
        callee.set_state(Gst.State.NULL)


def start_pair(extra):
    """(callee, caller, the callee's donar-incoming-call), both PLAYING, or
    None once both are stopped."""
    callee, address = start_callee(extra)
    if address is None:
        callee.set_state(Gst.State.NULL)
        return None
    caller = end('address="%s"' % address)
    caller.set_state(Gst.State.PLAYING)
    incoming = wait_message(callee, "donar-incoming-call")
    if incoming is None:
        caller.set_state(Gst.State.NULL)
        callee.set_state(Gst.State.NULL)
        return None
    return callee, caller, incoming


def check_accept():
    pair = start_pair("auto-answer=false")
    if pair is None:
        return
    callee, caller, _ = pair
    try:
        time.sleep(0.5)
        if caller.get_by_name("src").emit("accept"):
            fail("accept on the caller returned true")
        if not callee.get_by_name("sink").emit("accept"):
            fail("accept returned false on a ringing call")
            return
        accepted_at = time.monotonic()
        deadline = accepted_at + FLOW_TIMEOUT_S
        while time.monotonic() < deadline and (
                counter(callee, "src", "buffers-received") == 0 or
                counter(caller, "src", "buffers-received") == 0):
            time.sleep(0.05)
        took = time.monotonic() - accepted_at
        got = (counter(callee, "src", "buffers-received"),
               counter(caller, "src", "buffers-received"))
        if all(got):
            ok("accepted: frames both ways %.2f s after accept" % took)
        else:
            fail("accepted: %d frames at the callee, %d at the caller after "
                 "%d s" % (got + (FLOW_TIMEOUT_S,)))
        if callee.get_by_name("src").emit("reject"):
            fail("reject of an answered call returned true")
    finally:
        caller.set_state(Gst.State.NULL)
        callee.set_state(Gst.State.NULL)


def check_default():
    pair = start_pair("")
    if pair is None:
        return
    callee, caller, incoming = pair
    if incoming.get_value("answered"):
        ok("auto-answer (the default): donar-incoming-call answered")
    else:
        fail("auto-answer: donar-incoming-call not answered")
    caller.set_state(Gst.State.NULL)
    callee.set_state(Gst.State.NULL)


def main():
    Gst.init(None)
    check_reject()
    check_accept()
    check_default()
    return 1 if failed else 0


sys.exit(main())
