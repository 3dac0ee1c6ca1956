#!/usr/bin/python3
"""The `stats` of donarsink and donarsrc as an application in Python sees
them (suite elements, test stats-python; issue 25).

PyGObject without gst-python's overrides reads every field with
Gst.Structure.get_value, `links` included (a GValueArray of Gst.Structure,
which it gives as a list; a GstValueArray it could not read).  Every field
is there from the first read, 0 until it counts.  The set of fields is
docs/elements.md's, *Stats*: its first table (field, type, element) and
its table of each `link`.

Two reads of each element: a new one in NULL (every counter 0, no link),
and one of each end of a direct call (tor-control=direct, one process)
once a link is up (12 links, one at least up).

Usage: check-stats.py BUILD_DIR SOURCE_DIR"""

import os
import re
import sys
import time

BUILD, SOURCE = sys.argv[1], sys.argv[2]
os.environ.setdefault("GST_PLUGIN_PATH", os.path.join(BUILD, "gst"))

import gi  # noqa: E402

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from bus_wait import wait_element_message  # noqa: E402

SETUP_TIMEOUT = 20
ELEMENTS = ("donarsink", "donarsrc")
failed = False


def fail(text):
    global failed
    print("FAIL: " + text, file=sys.stderr, flush=True)
    failed = True


def documented():
    """{element: set of fields}, set of link fields, from docs/elements.md."""
    with open(os.path.join(SOURCE, "docs", "elements.md")) as f:
        text = f.read()
    section = text[text.index("\n## Stats\n"):]
    section = section[:section.index("\n## ", 1)]
    top, link = section.split("\nEach `link`:\n", 1)
    row = re.compile(r"^\| `([a-z0-9-]+)` \| ([^|]+) \|(?: ([^|]+) \|)?",
                     re.M)
    fields = {e: set() for e in ELEMENTS}
    for name, _, element in row.findall(top):
        for e in ELEMENTS:
            if element.strip() in ("both", e):
                fields[e].add(name)
    link_fields = {name for name, _, _ in row.findall(link)}
    return fields, link_fields


def read_all(structure):
    """Every field through get_value: what an application does."""
    values = {}
    for i in range(structure.n_fields()):
        name = structure.nth_field_name(i)
        values[name] = structure.get_value(name)
    return values


def check(what, element, want, link_fields, min_links):
    stats = element.get_property("stats")
    try:
        values = read_all(stats)
    except TypeError as e:
        fail("%s: a field PyGObject cannot read: %s" % (what, e))
        return None
    if set(values) != want:
        fail("%s: fields %s missing, %s not documented" % (
            what, sorted(want - set(values)), sorted(set(values) - want)))
    links = values.get("links")
    if not isinstance(links, list) or len(links) < min_links:
        fail("%s: links is %r, not a list of %d" % (what, links, min_links))
        return values
    for link in links:
        got = set(read_all(link))
        if got != link_fields:
            fail("%s: link fields %s missing, %s not documented" % (
                what, sorted(link_fields - got), sorted(got - link_fields)))
    return values


def wait_message(pipeline, name):
    structure, why = wait_element_message(pipeline, name, SETUP_TIMEOUT)
    if why:
        fail(why)
    return structure


def end(address):
    """One end of a duplex call, a donarsink and a donarsrc named sink
    and src."""
    dial = 'address="%s"' % address if address else "callee=true"
    return Gst.parse_launch(
        "audiotestsrc is-live=true ! opusenc bitrate=32000 frame-size=40 ! "
        "rtpopuspay ! donarsink name=sink call=c tor-control=direct %s "
        "donarsrc name=src call=c tor-control=direct %s ! fakesink "
        "sync=false" % (dial, dial))


def main():
    Gst.init(None)
    fields, link_fields = documented()
    for e in ELEMENTS:
        if not fields[e] or "links" not in fields[e] or not link_fields:
            fail("docs/elements.md: no table of %s's stats" % e)
            return 1

    # A new element: every field, 0, no link.
    for e in ELEMENTS:
        values = check("new %s" % e, Gst.ElementFactory.make(e), fields[e],
                       link_fields, 0)
        for name, value in (values or {}).items():
            if name != "links" and value not in (0, False):
                fail("new %s: %s is %r, not 0" % (e, name, value))

    callee = end(None)
    callee.set_state(Gst.State.PLAYING)
    address = wait_message(callee, "donar-call-address")
    if address is None:
        callee.set_state(Gst.State.NULL)
        return 1
    caller = end(address.get_value("address"))
    caller.set_state(Gst.State.PLAYING)
    wait_message(caller, "donar-ready")
    time.sleep(1)
    for side, pipeline in (("caller", caller), ("callee", callee)):
        for name, e in (("sink", "donarsink"), ("src", "donarsrc")):
            values = check("%s's %s" % (side, e),
                           pipeline.get_by_name(name), fields[e],
                           link_fields, 12)
            if values and values.get("links-up", 0) < 1:
                fail("%s's %s: no link up" % (side, e))
    caller.set_state(Gst.State.NULL)
    callee.set_state(Gst.State.NULL)
    print("stats: %d fields of donarsink, %d of donarsrc, %d of a link" % (
        len(fields["donarsink"]), len(fields["donarsrc"]), len(link_fields)))
    return 1 if failed else 0


sys.exit(main())
