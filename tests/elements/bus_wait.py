"""What the Python element tests that read a pipeline's bus share."""

import time

from gi.repository import Gst


def wait_element_message(pipeline, name, timeout):
    """(the structure of the first element message `name`, None) within
    timeout s, or (None, why not): an error on the bus, or none came."""
    bus = pipeline.get_bus()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = bus.timed_pop_filtered(
            100 * Gst.MSECOND, Gst.MessageType.ELEMENT | Gst.MessageType.ERROR)
        if msg is None:
            continue
        if msg.type == Gst.MessageType.ERROR:
            return None, "error: %s" % msg.parse_error()[0].message
        if msg.get_structure().get_name() == name:
            return msg.get_structure(), None
    return None, "no %s within %d s" % (name, timeout)
