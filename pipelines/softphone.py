#!/usr/bin/python3
"""A DONAR softphone in Python (PyGObject): one end of a full-duplex call.

One process, one pipeline, one call: a donarsink and a donarsrc with the same
`call` name share one session and one set of links (docs/elements.md, "Full
duplex"), and an rtpbin whose RTCP goes over the call with the RTP (muxed,
RFC 5761; docs/elements.md, "RTCP"):

    donarsrc ! donarrtcpdemux name=demux
        demux.rtp_src ! donarjitterbuffer ! rtpbin.recv_rtp_sink_0
        demux.rtcp_src ! rtpbin.recv_rtcp_sink_0
    rtpbin.recv_rtp_src_0_* ! rtpopusdepay ! opusdec plc=true
             ! audioconvert ! audioresample ! (autoaudiosink | wavenc ! filesink)
    (autoaudiosrc | audiotestsrc | filesrc ! wavparse ! identity sync=true)
             ! audioconvert ! audioresample
             ! opusenc audio-type=voice bitrate=32000 frame-size=40 inband-fec=false
             ! rtpopuspay pt=96 ! rtpbin.send_rtp_sink_0
    rtpbin.send_rtp_src_0 ! funnel name=mux ! donarsink
    rtpbin.send_rtcp_src_0 ! mux.

With speakers and a microphone (no --input, --tone or --output), an echo
canceller (gst-plugins-bad's webrtcdsp and webrtcechoprobe), so that the
other end does not hear itself back a round trip later; --no-echo-cancel
goes without it, --echo-cancel puts it in with files too:

    opusdec ! audioconvert ! audioresample ! S16LE,48000,mono
             ! webrtcechoprobe name=echoprobe ! audioconvert ! audioresample ! autoaudiosink
    autoaudiosrc ! audioconvert ! audioresample ! S16LE,48000,mono
             ! webrtcdsp probe=echoprobe gain-control=false noise-suppression=false
               high-pass-filter=false echo-suppression-level=low ! ... ! opusenc

--echo-path GAIN makes the echo without a sound card (a test: what is
played comes back into what is sent, times GAIN, 20 ms after its time to
play; tests/elements/check-echo-cancel.py); --mic-output WAV writes what
the canceller gets.

    softphone.py callee [options]            # prints ADDRESS=donar://...
    softphone.py caller 'donar://...' [options]

When the other end restarts (killed and started again: a new session of
it, `donar-peer-restarted` on the bus), its RTP comes with a new SSRC on a
new rtpbin pad, and the depayloader moves to it (docs/elements.md, "RTCP").

The callee prints the call address (from the `donar-call-address` element
message) for the caller; the address is a secret: whoever has it can call.
Ctrl-C (or SIGTERM) ends the call cleanly: an EOS goes through the pipeline,
so that a WAV output is complete; a second Ctrl-C stops at once.

The plugin comes from GST_PLUGIN_PATH, or from BUILD/gst (--build, default
`build` at the top of the tree) when GST_PLUGIN_PATH is not set.
"""

import argparse
import json
import os
import signal
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="softphone.py",
        description="One end of a full-duplex DONAR call (GStreamer, PyGObject).",
        epilog="Ctrl-C ends the call (an EOS first, so a WAV output is complete).",
    )
    p.add_argument("role", choices=["callee", "caller"])
    p.add_argument("address", nargs="?", help="caller: the callee's donar:// address")
    p.add_argument("--tor-control", default="",
                   help="a running tor's (or donar-torsim's) ControlPort, its ControlSocket "
                        "(/run/tor/control: Debian's tor service), or 'direct' "
                        "(no Tor, 127.0.0.1); default: the elements launch a tor")
    p.add_argument("--policy", default="adaptive",
                   help="simple, torfone, alternate, double-send or adaptive "
                        "(default, as the elements')")
    p.add_argument("--security", default="default",
                   help="default or 1way, for a tor the elements launch")
    p.add_argument("--links", type=int, default=12, help="onion links (12)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--input", metavar="WAV", help="send this WAV file (default: the microphone)")
    src.add_argument("--tone", type=float, metavar="HZ", nargs="?", const=440.0,
                     help="send a tone (audiotestsrc, 440 Hz by default)")
    p.add_argument("--output", metavar="WAV", help="write what is heard there (default: the speakers)")
    p.add_argument("--echo-cancel", action=argparse.BooleanOptionalAction, default=None,
                   help="cancel the echo of what is played in what the microphone picks up "
                        "(webrtcdsp, webrtcechoprobe); default: on with the speakers and "
                        "the microphone, off with --input, --tone or --output")
    p.add_argument("--echo-path", type=float, metavar="GAIN",
                   help="test, without a sound card: what this end plays comes back into "
                        "what it sends, times GAIN (e.g. 0.5), added to the input before "
                        "the echo canceller, as from speakers into a microphone")
    p.add_argument("--mic-output", metavar="WAV",
                   help="test: also write the input as the echo canceller gets it "
                        "(with --echo-path, the echo in it) there")
    p.add_argument("--seconds", type=float, default=0,
                   help="end the call this long after the first audio from the other end "
                        "(default 0: until Ctrl-C)")
    p.add_argument("--setup-timeout", type=float, default=180,
                   help="give up if no audio came from the other end within this many s (180; 0: never)")
    p.add_argument("--rtcp-interval", type=float, default=5.0, metavar="S",
                   help="rtpbin's least RTCP interval (5 s, RFC 3550's; the first "
                        "report comes after half of it or more)")
    p.add_argument("--address-file", metavar="FILE",
                   help="callee: also write the address there (mode 0600)")
    p.add_argument("--key-file", metavar="FILE",
                   help="callee: a lasting address, the same every call: the onion key and "
                        "call secret kept in FILE (mode 0600, made on first use)")
    p.add_argument("--client-auth-dir", metavar="DIR",
                   help="callee: only the contacts whose NAME.auth keys DIR holds reach the "
                        "onion (donar-call contact-key NAME DIR)")
    p.add_argument("--build", default=os.path.join(TOP, "build"),
                   help="the build directory, for BUILD/gst when GST_PLUGIN_PATH is not set")
    p.add_argument("--json", action="store_true",
                   help="print a one-line JSON summary on stdout at the end")
    p.add_argument("--quiet", action="store_true", help="only errors on stderr")
    a = p.parse_args(argv)
    if a.role == "caller" and not a.address:
        p.error("caller: give the callee's donar:// address")
    if a.role == "callee" and a.address:
        p.error("callee: no address (the callee prints one)")
    if a.seconds < 0 or a.setup_timeout < 0:
        p.error("--seconds and --setup-timeout must not be negative")
    if a.rtcp_interval <= 0:
        p.error("--rtcp-interval must be positive")
    if a.echo_path is not None and not 0 < a.echo_path <= 1:
        p.error("--echo-path: a gain above 0, at most 1")
    return a


ARGS = parse_args(sys.argv[1:])
if not os.environ.get("GST_PLUGIN_PATH"):
    os.environ["GST_PLUGIN_PATH"] = os.path.join(ARGS.build, "gst")

import gi  # noqa: E402

gi.require_version("Gst", "1.0")
gi.require_version("GLib", "2.0")
from gi.repository import GLib, Gst  # noqa: E402


def say(text):
    if not ARGS.quiet:
        print("softphone: " + text, file=sys.stderr, flush=True)


def fail(text):
    print("softphone: error: " + text, file=sys.stderr, flush=True)


def link_stats(stats):
    """The `links` of an element's stats as dicts.  The field is a
    GValueArray of Gst.Structure, which PyGObject gives as a list."""
    if stats is None:
        return []
    entries = stats.get_value("links")
    links = []
    for link in entries:
        _, index = link.get_uint("index")
        links.append({"index": index, "state": link.get_string("state"),
                      "group": link.get_string("group")})
    return links


# rtpbin's round trip is in 1/65536 s (RFC 3550's LSR and DLSR unit).
RTCP_TIME_UNIT = 65536.0


def rtcp_stats(session_stats):
    """What rtpbin's session knows from the peer's RTCP: the peer's report
    on our stream (round trip, loss, jitter) and our count of the peer's
    packets.  None until a report came.  `source-stats` is a GValueArray of
    GstStructures, one per SSRC; the peer's is the one not `internal`."""
    if session_stats is None:
        return None
    sources = session_stats.get_value("source-stats")
    for source in (sources or []):
        ok, internal = source.get_boolean("internal")
        if not ok or internal:
            continue
        ok, have_rb = source.get_boolean("have-rb")
        if not ok or not have_rb:
            continue
        _, rtt = source.get_uint("rb-round-trip")
        _, lsr = source.get_uint("rb-lsr")
        _, fraction = source.get_uint("rb-fractionlost")
        _, lost = source.get_int("rb-packetslost")
        _, jitter = source.get_uint("rb-jitter")
        _, rate = source.get_int("clock-rate")
        _, received_lost = source.get_int("packets-lost")
        return {
            # -1 until the peer's report refers to an SR of ours (LSR 0).
            "round_trip_ms": round(rtt / RTCP_TIME_UNIT * 1000, 1) if lsr else -1.0,
            "peer_lost": lost,
            "peer_fraction_lost": round(fraction / 256.0, 4),
            "peer_jitter_ms": round(jitter * 1000.0 / rate, 1) if rate > 0 else -1.0,
            "lost": received_lost,
        }
    return None


# The echo canceller's format.  webrtcdsp and webrtcechoprobe take S16 at
# 48, 32, 16 or 8 kHz (and cut it into 10-ms blocks themselves); the probe's
# and the dsp's rates must be the same.  Mono: the call is (opusenc).
AEC_CAPS = "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1"
# --echo-path: the echo reaches the microphone this long after it is played
# (the pipeline's latency after its timestamp): sound over a metre and a
# sound card's buffering that its latency does not tell.
ECHO_DELAY = 20 * 1000 * 1000  # ns


def echo_cancel_on(args):
    """--echo-cancel or --no-echo-cancel if given; else on when the call is
    on speakers and a microphone, the only case with an echo to cancel."""
    if args.echo_cancel is not None:
        return args.echo_cancel
    return not args.output and not args.input and args.tone is None


def playback_chain(args):
    """What opusdec's output goes through (a gst-launch description): to
    the speakers or a WAV file.  With the echo canceller, through its probe
    (webrtcechoprobe), which keeps what is played for webrtcdsp; with
    --echo-path, a tee `played` after it, for the simulated room
    (capture_chain)."""
    aec = echo_cancel_on(args)
    if args.output:
        out = "wavenc ! filesink name=out"
    else:
        out = "autoaudiosink"
    chain = "audioconvert ! audioresample ! "
    if aec or args.echo_path is not None:
        chain += AEC_CAPS + " ! "
    if aec:
        chain += "webrtcechoprobe name=echoprobe ! "
    if args.echo_path is not None:
        # The simulated room's speakers: a sink that plays in time (the
        # clock's), for the pipeline's latency to be a playback's.
        chain += ("tee name=played  played. ! queue name=speakers ! fakesink sync=true  "
                  "played. ! queue name=outq ! ")
    if aec:
        # The sink's own format, if it cannot take the probe's.
        chain += "audioconvert ! audioresample ! "
    return chain + out


def capture_chain(args):
    """From the microphone (or a WAV file, or a tone) to opusenc: (a
    gst-launch description, more branches of it).  The echo canceller
    (webrtcdsp) comes right after the source.  With --echo-path, the
    source is mixed with the room's echo first: what is played (the tee
    `played`), times the gain, ECHO_DELAY after it is played (the
    queue's offset, EchoPath); with --mic-output, what goes into the
    canceller is also written to a WAV file."""
    aec = echo_cancel_on(args)
    if args.input:
        # A file is not live: identity sync=true sends it at the pace
        # of speech.
        inp = "filesrc name=in ! wavparse ! identity sync=true"
    elif args.tone is not None:
        inp = "audiotestsrc is-live=true volume=0.3 name=in"
    else:
        inp = "autoaudiosrc"
    chain = inp + " ! audioconvert ! audioresample ! "
    extra = ""
    if aec or args.echo_path is not None or args.mic_output:
        chain += AEC_CAPS + " ! "
    if args.echo_path is not None:
        chain += "audiomixer name=room ! " + AEC_CAPS + " ! "
        # The queue holds what is played until the mixer takes it, a
        # pipeline's latency and more later: no limit but time.
        extra += ("  played. ! queue name=echoq max-size-buffers=0 max-size-bytes=0 "
                  "max-size-time=5000000000 ! volume name=echo ! room.")
    if args.mic_output:
        chain += "tee name=mic ! queue ! "
        extra += "  mic. ! queue ! wavenc ! filesink name=micout"
    if aec:
        # Only the echo canceller: gain control and noise suppression
        # would change the level of what is sent (and of an echo left in
        # it) by themselves, and the high-pass filter cut what is below
        # 80 Hz; a measurement of the canceller (docs/elements.md,
        # "Echo cancellation") would count them as cancelled echo.
        # delay-agnostic=false: the delay from the probe's and the
        # microphone's timestamps (ProbeLead; delay-agnostic=true cancelled
        # 2 to 17 dB of the test's echo).  echo-suppression-level=low: in
        # double talk the suppressor took 6 dB of the near end's voice
        # (10 dB with moderate, the default), for as much echo cancelled.
        chain += ("webrtcdsp name=aec probe=echoprobe echo-cancel=true "
                  "gain-control=false noise-suppression=false "
                  "high-pass-filter=false delay-agnostic=false "
                  "echo-suppression-level=low ! audioconvert ! audioresample ! ")
    return chain, extra


class EchoPath:
    """--echo-path's room: what is played at running time T is in the
    microphone's signal at T + the pipeline's latency + ECHO_DELAY, when
    the speakers play it and it comes back.  The speakers are a fakesink
    that plays in time; the echo branch's queue moves its timestamps by
    the latency they are told (LATENCY events, again when it changes with
    donarjitterbuffer's) and ECHO_DELAY (a pad offset), and audiomixer adds
    it to the input at that time.  The LATENCY events of the WAV output's
    and of the echo branch's sinks (0: they do not sync) stop before the
    tee: the probe takes the latency of the last it gets as the time to
    play, and it is the speakers'."""

    def __init__(self, pipeline):
        self.echo = pipeline.get_by_name("echoq").get_static_pad("src")
        self.echo.add_probe(Gst.PadProbeType.EVENT_UPSTREAM, self.drop_latency)
        pipeline.get_by_name("outq").get_static_pad("src").add_probe(
            Gst.PadProbeType.EVENT_UPSTREAM, self.drop_latency)
        pipeline.get_by_name("speakers").get_static_pad("src").add_probe(
            Gst.PadProbeType.EVENT_UPSTREAM, self.on_speakers_event)

    def drop_latency(self, pad, info):
        if info.get_event().type == Gst.EventType.LATENCY:
            return Gst.PadProbeReturn.DROP
        return Gst.PadProbeReturn.OK

    def on_speakers_event(self, pad, info):
        event = info.get_event()
        if event.type == Gst.EventType.LATENCY:
            self.echo.set_offset(event.parse_latency() + ECHO_DELAY)
        return Gst.PadProbeReturn.OK


class ProbeLead:
    """webrtcechoprobe hands webrtcdsp what is played `delay` ms after the
    microphone's block, and takes for `delay` the latency upstream of it,
    asked when a LATENCY event comes: here, the jitter buffer's, hundreds
    of ms over Tor.  What is played that far ahead has not come through
    the probe yet when the block is processed, and the canceller is given
    silence.  The probe's own latency query (and only it: the pipeline's
    goes the same way) is answered with no latency: it then hands over
    what is played at the block's own time (the echo comes after it,
    within the canceller's filter)."""

    def __init__(self, probe):
        self.asking = threading.local()
        probe.get_static_pad("src").add_probe(Gst.PadProbeType.EVENT_UPSTREAM, self.on_event_in)
        sink = probe.get_static_pad("sink")
        sink.add_probe(Gst.PadProbeType.EVENT_UPSTREAM, self.on_event_out)
        sink.add_probe(Gst.PadProbeType.QUERY_UPSTREAM | Gst.PadProbeType.PULL, self.on_query)

    def on_event_in(self, pad, info):
        if info.get_event().type == Gst.EventType.LATENCY:
            self.asking.now = True
        return Gst.PadProbeReturn.OK

    def on_event_out(self, pad, info):
        if info.get_event().type == Gst.EventType.LATENCY:
            self.asking.now = False
        return Gst.PadProbeReturn.OK

    def on_query(self, pad, info):
        query = info.get_query()
        if query.type == Gst.QueryType.LATENCY and getattr(self.asking, "now", False):
            live, _, maximum = query.parse_latency()
            query.set_latency(live, 0, maximum)
        return Gst.PadProbeReturn.OK


def set_up_chains(pipeline, args):
    """The properties of the chains' elements that parse_launch is not
    given (file names may have spaces); the EchoPath with --echo-path
    (else None), to keep."""
    if args.output:
        pipeline.get_by_name("out").set_property("location", args.output)
    if args.input:
        pipeline.get_by_name("in").set_property("location", args.input)
    elif args.tone is not None:
        pipeline.get_by_name("in").set_property("freq", args.tone)
    if args.mic_output:
        pipeline.get_by_name("micout").set_property("location", args.mic_output)
    kept = []
    if echo_cancel_on(args):
        kept.append(ProbeLead(pipeline.get_by_name("echoprobe")))
    if args.echo_path is not None:
        pipeline.get_by_name("echo").set_property("volume", args.echo_path)
        kept.append(EchoPath(pipeline))
    return kept


class Softphone:
    def __init__(self, args):
        self.args = args
        self.loop = GLib.MainLoop()
        self.exit_code = 0
        self.address_shown = False
        self.ready = False
        self.first_audio = None      # monotonic µs of the first buffer from donarsrc
        self.end_timer = 0
        self.setup_timer = 0
        self.ending = False
        self.summary = None          # the stats when --seconds of call were up
        self.latencies = []          # the jitter buffer's latency, once a second
        self.links_down = 0
        self.rtcp_received = 0       # RTCP packets from the peer (the demuxer's)
        self.rtcp_shown = 0
        # The other end's restarts (donar-peer-restarted): each is a new
        # session of it, with an RTP stream of its own (a new SSRC) and so
        # a new rtpbin pad, to which the depayloader moves.
        self.peer_restarts = 0
        self.restart_us = None       # monotonic µs of the latest restart's message
        self.restart_pads = 0        # self.pads_linked when it came
        self.resumed_after = None    # s from it to the new session's first decoded audio
        self.pads_linked = 0         # rtpbin pads the depayloader was linked to
        self.pipeline = self.build()

    def build(self):
        a = self.args
        capture, capture_extra = capture_chain(a)
        # donarsink sync=false: the sources are live (or paced by identity);
        # donarsink would not wait for the pipeline's latency (the
        # receiving jitter buffer's) anyway.
        # rtpbin latency=0: donarjitterbuffer, in front of it, already
        # plays the frames out in order at their time; rtpbin's own jitter
        # buffer would only add its latency.  RTCP goes out over the call
        # with the RTP (a funnel into donarsink) and comes apart after
        # donarsrc (donarrtcpdemux): docs/elements.md, "RTCP".
        desc = (
            "rtpbin name=rtp latency=0  "
            "donarsrc name=src ! donarrtcpdemux name=demux  "
            "demux.rtp_src ! donarjitterbuffer name=jb ! rtp.recv_rtp_sink_0  "
            "demux.rtcp_src ! rtp.recv_rtcp_sink_0  "
            "rtpopusdepay name=depay ! "
            "opusdec plc=true name=dec ! " + playback_chain(a) + "  " +
            capture +
            "opusenc audio-type=voice bitrate=32000 frame-size=40 inband-fec=false ! "
            "rtpopuspay pt=96 name=pay ! rtp.send_rtp_sink_0  "
            "rtp.send_rtp_src_0 ! funnel name=mux ! donarsink name=sink sync=false  "
            "rtp.send_rtcp_src_0 ! mux." + capture_extra
        )
        try:
            pipeline = Gst.parse_launch(desc)
        except GLib.Error as e:
            raise SystemExit("softphone: error: cannot build the pipeline: %s "
                             "(GST_PLUGIN_PATH=%s; built?)"
                             % (e.message, os.environ.get("GST_PLUGIN_PATH")))
        self.echo_path = set_up_chains(pipeline, a)
        for name in ("src", "sink"):
            e = pipeline.get_by_name(name)
            # The first of the two to start makes the call with its own
            # properties: give them to both.
            e.set_property("call", "softphone")
            if a.role == "caller":
                e.set_property("address", a.address)
            else:
                e.set_property("callee", True)
            e.set_property("tor-control", a.tor_control)
            if a.role == "callee" and a.key_file:
                e.set_property("key-file", a.key_file)
            if a.role == "callee" and a.client_auth_dir:
                e.set_property("client-auth-dir", a.client_auth_dir)
            if a.address_file and name == "sink":
                # One writer is enough: every element of the call has the address.
                e.set_property("address-file", a.address_file)
            e.set_property("links", a.links)
            try:
                Gst.util_set_object_arg(e, "policy", a.policy)
                Gst.util_set_object_arg(e, "security", a.security)
            except Exception:
                pass
            if e.get_property("policy").value_nick != a.policy:
                raise SystemExit("softphone: error: --policy: simple, torfone, "
                                 "alternate, double-send or adaptive, not %r"
                                 % a.policy)
            if e.get_property("security").value_nick != a.security:
                raise SystemExit("softphone: error: --security: default, 2hop or "
                                 "1way, not %r" % a.security)
        rtp = pipeline.get_by_name("rtp")
        # parse_launch cannot name rtpbin's receiving pad (it carries the
        # peer's SSRC): link it when it comes, and move to the next one
        # when the other end restarts.
        depay = pipeline.get_by_name("depay").get_static_pad("sink")
        rtp.connect("pad-added", self.on_rtpbin_pad, depay)
        # What the decoder gives: when the new session's audio is heard.
        pipeline.get_by_name("dec").get_static_pad("src").add_probe(
            Gst.PadProbeType.BUFFER, self.on_decoded)
        rtp.connect("on-ssrc-active", self.on_rtcp)
        rtp.emit("get-internal-session", 0).set_property(
            "rtcp-min-interval", int(a.rtcp_interval * Gst.SECOND))
        demux = pipeline.get_by_name("demux")
        demux.get_static_pad("rtp_src").add_probe(
            Gst.PadProbeType.BUFFER, self.on_first_audio)
        demux.get_static_pad("rtcp_src").add_probe(
            Gst.PadProbeType.BUFFER, self.on_rtcp_packet)
        bus = pipeline.get_bus()
        bus.add_signal_watch()
        bus.connect("message", self.on_message)
        # The restart's time is taken in the posting thread: the main
        # loop may see the message after the new session's first audio.
        bus.enable_sync_message_emission()
        bus.connect("sync-message::element", self.on_sync_element)
        return pipeline

    # rtpbin's thread that is about to push the pad's first buffer (the new
    # SSRC's jitter buffer's).  The first pad is linked at once.  A later one
    # is the other end's new session (it restarted: a new SSRC): the
    # depayloader moves to it, as the old stream has ended.  The old pad's
    # thread may be pushing into the depayloader at this moment, so the move
    # waits until the old pad is idle (an IDLE probe), while a blocking probe
    # holds the new pad's first data until it is linked.  The old pad then
    # drops whatever its stream still sends, the EOS of a hang-up too (no
    # NOT_LINKED back into the old SSRC's jitter buffer in rtpbin); the EOS
    # comes to the depayloader from the new pad.
    def on_rtpbin_pad(self, rtpbin, pad, depay):
        if not pad.get_name().startswith("recv_rtp_src_0_"):
            return
        old = depay.get_peer()
        if old is None:
            if pad.link(depay) == Gst.PadLinkReturn.OK:
                self.pads_linked += 1
            return
        block = pad.add_probe(Gst.PadProbeType.BLOCK_DOWNSTREAM,
                              lambda p, i: Gst.PadProbeReturn.OK)

        def move(old_pad, info):
            old_pad.add_probe(Gst.PadProbeType.DATA_DOWNSTREAM,
                              lambda p, i: Gst.PadProbeReturn.DROP)
            old_pad.unlink(depay)
            result = pad.link(depay)
            if result == Gst.PadLinkReturn.OK:
                self.pads_linked += 1
            pad.remove_probe(block)
            GLib.idle_add(say, "the other end's new RTP stream (%s): the depayloader "
                          "moves to it from %s%s" % (pad.get_name(), old_pad.get_name(),
                                                     "" if result == Gst.PadLinkReturn.OK
                                                     else " (link failed: %s)" % result))
            return Gst.PadProbeReturn.REMOVE

        old.add_probe(Gst.PadProbeType.IDLE, move)

    # Any thread: the message's time, before the main loop sees it.
    def on_sync_element(self, bus, msg):
        s = msg.get_structure()
        if (s is not None and s.get_name() == "donar-peer-restarted" and
                msg.src.get_name() == "src"):
            # Every element of the call posts it: count the donarsrc's.
            self.peer_restarts += 1
            self.restart_pads = self.pads_linked
            self.resumed_after = None
            self.restart_us = GLib.get_monotonic_time()

    # The decoder's thread: the first audio decoded from a pad linked after
    # the latest restart is the new session's.
    def on_decoded(self, pad, info):
        if (self.restart_us is not None and self.resumed_after is None and
                self.pads_linked > self.restart_pads):
            self.resumed_after = (GLib.get_monotonic_time() - self.restart_us) / 1e6
            GLib.idle_add(self.audio_resumed, self.resumed_after)
        return Gst.PadProbeReturn.OK

    def audio_resumed(self, seconds):
        say("audio from the other end's new session, %.2f s after its restart" % seconds)
        return False

    def on_rtcp_packet(self, pad, info):
        self.rtcp_received += 1
        return Gst.PadProbeReturn.OK

    # The peer sent RTCP (rtpbin's thread): show what it reported.
    def on_rtcp(self, rtpbin, session, ssrc):
        GLib.idle_add(self.show_rtcp)

    def show_rtcp(self):
        r = self.rtcp()
        if r is not None and self.rtcp_received != self.rtcp_shown:
            self.rtcp_shown = self.rtcp_received
            say("RTCP: round trip %(round_trip_ms).1f ms; the other end lost "
                "%(peer_lost)d of ours (%(peer_fraction_lost).1f %% lately), "
                "jitter %(peer_jitter_ms).1f ms; we lost %(lost)d of theirs"
                % dict(r, peer_fraction_lost=r["peer_fraction_lost"] * 100))
        return False

    def rtcp(self):
        session = self.pipeline.get_by_name("rtp").emit("get-session", 0)
        return rtcp_stats(session.get_property("stats")) if session else None

    # The first frame from the other end: the call is on; --seconds counts
    # from here.  On the streaming thread: hand over to the main loop.
    def on_first_audio(self, pad, info):
        if self.first_audio is None:
            self.first_audio = GLib.get_monotonic_time()
            GLib.idle_add(self.call_connected)
        return Gst.PadProbeReturn.REMOVE

    def call_connected(self):
        say("audio from the other end: the call is on")
        if self.setup_timer:
            GLib.source_remove(self.setup_timer)
            self.setup_timer = 0
        if self.args.seconds > 0 and not self.ending:
            self.end_timer = GLib.timeout_add(int(self.args.seconds * 1000), self.on_end_timer)
        GLib.timeout_add(1000, self.sample_latency)
        return False

    # The latency in force at one instant may be near 0 for a second or two
    # while the call's playout is right: rtpjitterbuffer re-bases its
    # timeline after a late packet and donarjitterbuffer lowers the latency
    # by as much (docs/jitterbuffer.md).  Its median over the call says
    # whether the call kept a latency.
    def sample_latency(self):
        if self.ending:
            return False
        jb = self.pipeline.get_by_name("jb").get_property("stats")
        ok, v = jb.get_uint("latency") if jb is not None else (False, 0)
        if ok:
            self.latencies.append(v)
        return True

    def on_end_timer(self):
        self.end_timer = 0
        say("%.1f s of call: hanging up" % self.args.seconds)
        # The call's figures, before the hang-up drains the pipeline (the
        # jitter buffer's latency and late frames then tell the teardown).
        self.summary = self.stats()
        self.hang_up()
        return False

    def on_setup_timeout(self):
        self.setup_timer = 0
        fail("no audio from the other end within %.0f s" % self.args.setup_timeout)
        self.exit_code = 1
        self.hang_up()
        return False

    def hang_up(self):
        """An EOS through the pipeline; stop when it comes out (or after 5 s)."""
        if self.ending:
            return
        self.ending = True
        self.pipeline.send_event(Gst.Event.new_eos())
        GLib.timeout_add_seconds(5, self.on_eos_timeout)

    def on_eos_timeout(self):
        say("no EOS within 5 s: stopping anyway")
        self.loop.quit()
        return False

    def on_signal(self):
        if self.ending:
            say("stopping now")
            self.loop.quit()
        else:
            say("interrupted: hanging up (again to stop at once)")
            self.hang_up()
        return True

    def on_message(self, bus, msg):
        t = msg.type
        if t == Gst.MessageType.ERROR:
            err, debug = msg.parse_error()
            fail("%s: %s" % (msg.src.get_name(), err.message))
            if debug:
                say("  (%s)" % debug)
            self.exit_code = 1
            self.loop.quit()
        elif t == Gst.MessageType.WARNING:
            err, debug = msg.parse_warning()
            if "of the call is down" in err.message:
                # One per link and per element when the other end hangs up.
                self.links_down += 1
                if msg.src.get_name() == "src":
                    say("warning: %s" % err.message)
            else:
                say("warning: %s: %s" % (msg.src.get_name(), err.message))
        elif t == Gst.MessageType.EOS:
            say("call ended")
            self.loop.quit()
        elif t == Gst.MessageType.LATENCY:
            # donarjitterbuffer changes its latency while the call runs.
            self.pipeline.recalculate_latency()
        elif t == Gst.MessageType.PROGRESS and msg.src.get_name() == "sink":
            _, code, text = msg.parse_progress()
            say("setup: %s" % text)
        elif t == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s is None:
                return
            if s.get_name() == "donar-call-address" and not self.address_shown:
                self.address_shown = True
                address = s.get_string("address")
                if self.args.role == "callee":
                    print("ADDRESS=" + address, flush=True)
                    say("give the caller this address (a secret: whoever has it can call)")
            elif s.get_name() == "donar-peer-restarted" and msg.src.get_name() == "src":
                _, link = s.get_uint("link")
                say("the other end restarted (a new session of it, on link %d): "
                    "its audio starts over" % link)
            elif s.get_name() == "donar-quality":
                self.on_quality(s)
            elif s.get_name() == "donar-ready" and not self.ready:
                self.ready = True
                say("call set up; %s" % ("waiting for the caller" if self.args.role == "callee"
                                          else "a link is up"))

    # donarjitterbuffer's live estimate, once a second (docs/elements.md,
    # "donar-quality"): a line on stderr, and the latest in --json.
    def on_quality(self, s):
        self.quality = {"r": round(s.get_value("r"), 1),
                        "mos": round(s.get_value("mos"), 2),
                        "rating": s.get_value("rating"),
                        "mouth_to_ear_ms": round(s.get_value("mouth-to-ear-ms"), 1),
                        "loss_percent": round(s.get_value("loss-percent"), 2)}
        say("quality: R %(r).0f MOS %(mos).1f %(rating)s (%(mouth_to_ear_ms).0f ms mouth "
            "to ear, %(loss_percent).1f %% lost or late)" % self.quality)

    def stats(self):
        def u64(structure, field):
            if structure is None:
                return 0
            ok, v = structure.get_uint64(field)
            return v if ok else 0
        sink = self.pipeline.get_by_name("sink").get_property("stats")
        src = self.pipeline.get_by_name("src").get_property("stats")
        jb = self.pipeline.get_by_name("jb").get_property("stats")
        links_up = 0
        if sink is not None:
            ok, v = sink.get_uint("links-up")
            links_up = v if ok else 0
        jb_latency = 0
        base_delay = -1.0
        base_delay_upstream = -1.0
        base_delay_rejected = False
        if jb is not None:
            ok, v = jb.get_uint("latency")
            jb_latency = v if ok else 0
            ok, v = jb.get_double("base-delay")
            base_delay = round(v, 1) if ok else -1.0
            # donarsrc's estimate, and whether the observed delays
            # contradicted it (docs/jitterbuffer.md, "Checking the base delay").
            ok, v = jb.get_double("base-delay-upstream")
            base_delay_upstream = round(v, 1) if ok else -1.0
            ok, v = jb.get_boolean("base-delay-rejected")
            base_delay_rejected = bool(ok and v)
        seconds = 0.0
        if self.first_audio is not None:
            seconds = (GLib.get_monotonic_time() - self.first_audio) / 1e6
        rtcp = self.rtcp()
        if rtcp is not None:
            rtcp["received"] = self.rtcp_received
            rtcp["sent"] = u64(sink, "rtcp-sent")
        return {
            "role": self.args.role,
            "seconds": round(seconds, 2),
            # RTP only: the RTCP goes over the call too.
            "frames_sent": u64(sink, "buffers-sent") - u64(sink, "rtcp-sent"),
            "frames_received": u64(src, "buffers-received") - self.rtcp_received,
            "frames_late": u64(jb, "late"),
            "jitterbuffer_frames": u64(jb, "frames"),
            "frames_lost": u64(jb, "lost"),
            "jitterbuffer_latency_ms": jb_latency,
            "jitterbuffer_latency_median_ms": (sorted(self.latencies)[len(self.latencies) // 2]
                                               if self.latencies else jb_latency),
            "base_delay_ms": base_delay,
            "base_delay_upstream_ms": base_delay_upstream,
            "base_delay_rejected": base_delay_rejected,
            "links_up": links_up,
            "links": link_stats(sink),
            # The peer's RTCP (rtpbin): null if no report came.
            "rtcp": rtcp,
            # donar-peer-restarted messages, and the seconds from the latest
            # to the first audio decoded of the new session (null: none yet).
            "peer_restarts": self.peer_restarts,
            "audio_resumed_after_s": (round(self.resumed_after, 3)
                                      if self.resumed_after is not None else None),
            # The latest donar-quality message (null: none yet).
            "quality": getattr(self, "quality", None),
        }

    def run(self):
        for signum in (signal.SIGINT, signal.SIGTERM):
            GLib.unix_signal_add(GLib.PRIORITY_HIGH, signum, self.on_signal)
        if self.args.setup_timeout > 0:
            self.setup_timer = GLib.timeout_add(int(self.args.setup_timeout * 1000),
                                                self.on_setup_timeout)
        if self.pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            # The error message on the bus says why.
            self.exit_code = 1
            bus = self.pipeline.get_bus()
            msg = bus.pop_filtered(Gst.MessageType.ERROR)
            if msg:
                err, _ = msg.parse_error()
                fail(err.message)
            else:
                fail("the pipeline did not start")
        else:
            self.loop.run()
        summary = self.summary or self.stats()
        self.pipeline.set_state(Gst.State.NULL)
        self.pipeline.get_bus().remove_signal_watch()
        say("sent %(frames_sent)d frames, received %(frames_received)d "
            "(%(frames_late)d late, %(frames_lost)d lost at playout), "
            "%(links_up)d links up" % summary)
        if summary["rtcp"] is None:
            say("no RTCP report from the other end")
        else:
            say("RTCP: round trip %(round_trip_ms).1f ms, the other end lost "
                "%(peer_lost)d of ours, we lost %(lost)d of theirs" % summary["rtcp"])
        if self.args.json:
            print(json.dumps(summary), flush=True)
        return self.exit_code


def main():
    Gst.init(None)
    for factory in ("donarsrc", "donarsink", "donarjitterbuffer", "donarrtcpdemux",
                    "rtpbin", "opusenc", "rtpopuspay"):
        if Gst.ElementFactory.find(factory) is None:
            fail("no element %s (GST_PLUGIN_PATH=%s; build first: meson setup build && "
                 "ninja -C build)" % (factory, os.environ.get("GST_PLUGIN_PATH")))
            return 1
    if echo_cancel_on(ARGS):
        for factory in ("webrtcdsp", "webrtcechoprobe"):
            if Gst.ElementFactory.find(factory) is None:
                fail("no element %s for the echo canceller (Debian: gstreamer1.0-plugins-bad); "
                     "--no-echo-cancel goes without" % factory)
                return 1
    if ARGS.echo_path is not None:
        if Gst.ElementFactory.find("audiomixer") is None:
            fail("no element audiomixer for --echo-path (Debian: gstreamer1.0-plugins-base)")
            return 1
    phone = Softphone(ARGS)
    code = phone.run()
    phone.pipeline = None
    return code


if __name__ == "__main__":
    sys.exit(main())
