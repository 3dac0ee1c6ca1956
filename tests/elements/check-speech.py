#!/usr/bin/python3
"""Real speech through the encoder settings of docs/elements.md carries a
whole 30-s call (suite elements, test speech; issue 16).

Debian's codec2 speech sample (speech_orig_16k.wav, 10.8 s) looped to 30 s
goes through the caller's pipeline as docs/elements.md's examples have it,
a WAV file in place of the microphone:

    filesrc ! wavparse ! identity sync=true ! audioconvert ! audioresample
        ! opusenc bitrate=32000 frame-size=40 ! rtpopuspay ! donarsink

to a callee over tor-control=direct (one process, two pipelines on the
system clock):

    donarsrc ! donarjitterbuffer ! rtpopusdepay ! opusdec plc=true
        ! wavenc ! filesink

Checks: no buffer was dropped as too large (`buffers-too-large`), nor
before the call was ready or with no link; every RTP packet out of
rtpopuspay was sent and arrived (donarsrc's `buffers-received`); the
decoded speech lasts the call (30 s).  Prints the packet sizes.

Usage: check-speech.py BUILD_DIR [SPEECH_WAV]
Exit 77 (skipped) when the speech sample is not installed."""

import os
import sys
import tempfile
import time
import wave

SPEECH = "/usr/share/codec2/raw/speech_orig_16k.wav"
SECONDS = 30
FRAME_MS = 40
ENCODER = "opusenc bitrate=32000 frame-size=%d" % FRAME_MS  # docs/elements.md
SETUP_TIMEOUT = 30
SKIP = 77

BUILD = sys.argv[1]
os.environ.setdefault("GST_PLUGIN_PATH", os.path.join(BUILD, "gst"))

import gi  # noqa: E402

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


def write_input(path, speech):
    """The speech looped (or cut) to SECONDS, as test-offline.py loops it."""
    with wave.open(speech, "rb") as w:
        params = w.getparams()
        data = w.readframes(w.getnframes())
    frame_bytes = params.sampwidth * params.nchannels
    want = SECONDS * params.framerate * frame_bytes
    out = (data * (want // len(data) + 1))[:want]
    with wave.open(path, "wb") as w:
        w.setparams(params)
        w.writeframes(out)


def pump(pipeline, until, timeout):
    """Bus messages of pipeline until until(msg) is true or timeout s:
    the message, or None.  An error fails the test; donarjitterbuffer's
    latency messages are answered."""
    bus = pipeline.get_bus()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = bus.timed_pop(100 * Gst.MSECOND)
        if msg is None:
            continue
        if msg.type == Gst.MessageType.ERROR:
            err, debug = msg.parse_error()
            raise SystemExit("FAIL %s: %s (%s)" % (msg.src.get_name(), err.message, debug))
        if msg.type == Gst.MessageType.LATENCY:
            pipeline.recalculate_latency()
        if until(msg):
            return msg
    return None


def element_message(name):
    def match(msg):
        s = msg.get_structure()
        return msg.type == Gst.MessageType.ELEMENT and s is not None and s.get_name() == name
    return match


def stat(element, field):
    s = element.get_property("stats")
    ok, v = s.get_uint64(field) if s is not None else (False, 0)
    return v if ok else 0


def main():
    speech = sys.argv[2] if len(sys.argv) > 2 else SPEECH
    if not os.path.exists(speech):
        print("# %s is not installed (Debian's codec2-examples): skipped" % speech)
        return SKIP
    Gst.init(None)
    ok = True
    with tempfile.TemporaryDirectory(prefix="speech-") as tmp:
        sent_wav = os.path.join(tmp, "sent.wav")
        heard_wav = os.path.join(tmp, "heard.wav")
        write_input(sent_wav, speech)

        callee = Gst.parse_launch(
            "donarsrc name=src callee=true tor-control=direct ! "
            "donarjitterbuffer name=jb ! rtpopusdepay ! opusdec plc=true ! "
            "wavenc ! filesink location=" + heard_wav)
        caller = None
        try:
            callee.set_state(Gst.State.PLAYING)
            msg = pump(callee, element_message("donar-call-address"), SETUP_TIMEOUT)
            assert msg is not None, "no address from the callee"
            address = msg.get_structure().get_string("address")

            caller = Gst.parse_launch(
                "filesrc location=%s ! wavparse ! identity sync=true ! "
                "audioconvert ! audioresample ! %s ! rtpopuspay name=pay ! "
                "donarsink name=sink tor-control=direct" % (sent_wav, ENCODER))
            caller.get_by_name("sink").set_property("address", address)
            sizes = []
            caller.get_by_name("pay").get_static_pad("src").add_probe(
                Gst.PadProbeType.BUFFER,
                lambda pad, info: sizes.append(info.get_buffer().get_size())
                or Gst.PadProbeReturn.OK)
            # donarsink starts its call on the way to PAUSED, where
            # identity holds the first buffer: the speech goes from its
            # first frame once the call is ready (as donar-demo does).
            caller.set_state(Gst.State.PAUSED)
            assert pump(caller, element_message("donar-ready"), SETUP_TIMEOUT), \
                "the caller's call was not ready"
            caller.set_state(Gst.State.PLAYING)
            started = time.monotonic()
            assert pump(caller, lambda m: m.type == Gst.MessageType.EOS, SECONDS + 15), \
                "the caller did not reach the end of the speech"
            print("# %.1f s of call" % (time.monotonic() - started))

            sink, src = caller.get_by_name("sink"), callee.get_by_name("src")
            sent = stat(sink, "buffers-sent")
            # The last frames may still be on their way.
            deadline = time.monotonic() + 5
            while stat(src, "buffers-received") < sent and time.monotonic() < deadline:
                pump(callee, lambda m: False, 0.1)
            received = stat(src, "buffers-received")
            callee.send_event(Gst.Event.new_eos())
            assert pump(callee, lambda m: m.type == Gst.MessageType.EOS, 10), \
                "no EOS out of the callee"
            jb = callee.get_by_name("jb").get_property("stats")
            too_large = stat(sink, "buffers-too-large")
        finally:
            for p in (caller, callee):
                if p is not None:
                    p.set_state(Gst.State.NULL)

        with wave.open(heard_wav, "rb") as w:
            heard = w.getnframes() / w.getframerate()
        frames = SECONDS * 1000 // FRAME_MS
        print("# %d RTP packets out of rtpopuspay: %d to %d bytes, mean %.0f"
              % (len(sizes), min(sizes), max(sizes), sum(sizes) / len(sizes)))
        print("# donarsink: %d sent, %d too large; donarsrc: %d received; "
              "donarjitterbuffer: %s late, %s lost; heard %.2f s"
              % (sent, too_large, received, jb.get_uint64("late")[1],
                 jb.get_uint64("lost")[1], heard))
        checks = [
            ("no buffer too large for a frame (buffers-too-large 0)", too_large == 0),
            ("none dropped before the call was ready or with no link",
             stat(sink, "dropped-not-ready") == 0 and stat(sink, "dropped-no-link") == 0),
            ("the whole speech encoded: %d >= %d packets" % (len(sizes), frames - 1),
             len(sizes) >= frames - 1),
            ("every packet sent: %d of %d" % (sent, len(sizes)), sent == len(sizes)),
            ("every packet arrived: %d of %d" % (received, sent), received == sent),
            ("the decoded speech lasts the call: %.2f s in [%.1f, %.1f]"
             % (heard, SECONDS - 0.5, SECONDS + 1.0),
             SECONDS - 0.5 <= heard <= SECONDS + 1.0),
        ]
        for name, good in checks:
            print(("ok   " if good else "FAIL ") + name)
            ok = ok and good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
