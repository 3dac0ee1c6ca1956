#!/usr/bin/python3
"""A softphone that answers from a sync bus handler (suite elements, test
sync-handler; issue 34).

A sync handler runs on the thread that posts the message, inside
gst_element_post_message ().  The callee's handler here, on every
donar-* element message of its donarsrc or donarsink, reads both
elements' stats, sets a call property (which posts a warning: the
property keeps its value during a call), and on donar-incoming-call emits
"accept".  Each of those takes the call object's lock: if the call posted
its messages while holding it, the posting thread would wait for itself
for ever.  Over tor-control=direct (127.0.0.1), ITERATIONS calls (default
100), each set up, answered from the handler and carrying frames both
ways within CALL_TIMEOUT_S, then stopped.  A call that does not get there
in time is a hang: the test says where it was and exits at once (a
deadlocked pipeline cannot be stopped).

Usage: check-sync-handler.py BUILD_DIR [ITERATIONS]"""

import os
import sys
import threading
import time

BUILD = sys.argv[1]
ITERATIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 100
os.environ.setdefault("GST_PLUGIN_PATH", os.path.join(BUILD, "gst"))

import gi  # noqa: E402

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

CALL_TIMEOUT_S = 15


def end(dial):
    """One end of a duplex call: donarsink sink, donarsrc src, fakesink
    out."""
    return Gst.parse_launch(
        "audiotestsrc is-live=true ! opusenc bitrate=32000 frame-size=40 ! "
        "rtpopuspay ! donarsink name=sink call=c tor-control=direct %s "
        "donarsrc name=src call=c tor-control=direct %s ! fakesink "
        "name=out sync=false" % (dial, dial))


def received(pipeline):
    return pipeline.get_by_name("src").get_property("stats").get_value(
        "buffers-received")


class Answerer:
    """The callee's sync handler and what it saw."""

    def __init__(self, pipeline):
        self.pipeline = pipeline
        self.src = pipeline.get_by_name("src")
        self.sink = pipeline.get_by_name("sink")
        self.address = None
        self.accepted = threading.Event()
        self.handled = 0
        pipeline.get_bus().set_sync_handler(self.on_message)

    def on_message(self, bus, msg):
        structure = msg.get_structure()
        if msg.type != Gst.MessageType.ELEMENT or structure is None or \
                not structure.get_name().startswith("donar-") or \
                msg.src not in (self.src, self.sink):
            return Gst.BusSyncReply.PASS
        self.handled += 1
        for element in (self.src, self.sink):
            element.get_property("stats")
        self.sink.set_property("peer-timeout", 30)
        name = structure.get_name()
        if name == "donar-call-address":
            self.address = structure.get_value("address")
        elif name == "donar-incoming-call" and \
                not structure.get_value("answered"):
            if self.src.emit("accept"):
                self.accepted.set()
        return Gst.BusSyncReply.PASS


def hang(what, i):
    print("FAIL: call %d: %s within %d s: the call hangs" %
          (i, what, CALL_TIMEOUT_S), file=sys.stderr, flush=True)
    os._exit(1)


def one_call(i):
    callee = end("callee=true auto-answer=false")
    answerer = Answerer(callee)
    callee.set_state(Gst.State.PLAYING)
    deadline = time.monotonic() + CALL_TIMEOUT_S
    while answerer.address is None:
        if time.monotonic() > deadline:
            hang("no address", i)
        time.sleep(0.01)
    caller = end('address="%s"' % answerer.address)
    caller.set_state(Gst.State.PLAYING)
    if not answerer.accepted.wait(max(0, deadline - time.monotonic())):
        hang("not answered", i)
    while received(callee) == 0 or received(caller) == 0:
        if time.monotonic() > deadline:
            hang("no frames both ways", i)
        time.sleep(0.01)
    handled = answerer.handled
    caller.set_state(Gst.State.NULL)
    callee.set_state(Gst.State.NULL)
    callee.get_bus().set_sync_handler(None)
    return handled


def main():
    Gst.init(None)
    started = time.monotonic()
    handled = 0
    for i in range(ITERATIONS):
        handled += one_call(i)
    print("ok   %d calls answered from the sync handler, frames both ways, "
          "%d messages handled there, in %.0f s"
          % (ITERATIONS, handled, time.monotonic() - started), flush=True)


if __name__ == "__main__":
    main()
