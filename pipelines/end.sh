# Shared by callee.sh and caller.sh (sourced, not run): the options and the
# gst-launch-1.0 pipeline of one end of a full-duplex call.  The donarsrc
# and the donarsink share one call (call=c): one set of links both ways.

usage() {
  cat <<USAGE
Usage: $0 $USAGE_ARGS[options]
  --build DIR        the build directory with gst/libgstdonar.so (default: the tree's build/)
  --tor-control PORT|PATH
                     ControlPort, or ControlSocket (e.g. /run/tor/control), of
                     a running tor (or donar-torsim);
                     default: the elements launch a tor of their own
  --input FILE.wav   send this file (default: the microphone, autoaudiosrc)
  --tone             send a 440 Hz tone (audiotestsrc) instead
  --output FILE.wav  write what is received (default: the speakers)
  --policy NAME      simple, torfone, alternate, double-send, adaptive (default)
  --security NAME    default, 1way (for a tor the elements launch)
Stop with Ctrl-C: the pipeline gets an EOS first (gst-launch-1.0 -e), so a
WAV output is finished properly.
USAGE
  exit "${1:-2}"
}

# The tree this script is in, wherever it is run from: its build/ by
# default.
tree=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$tree/build tor_control= input= tone= output= policy=adaptive security=default
positional=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=${2:?--build needs a directory}; shift ;;
    --tor-control) tor_control=${2:?--tor-control needs a port or a socket}; shift ;;
    --input) input=${2:?--input needs a file}; shift ;;
    --tone) tone=1 ;;
    --output) output=${2:?--output needs a file}; shift ;;
    --policy) policy=${2:?--policy needs a name}; shift ;;
    --security) security=${2:?--security needs a name}; shift ;;
    -h|--help) usage 0 ;;
    -*) echo "$0: unknown option '$1'" >&2; usage ;;
    *) positional+=("$1") ;;
  esac
  shift
done

if [ ! -e "$build/gst/libgstdonar.so" ]; then
  echo "$0: $build/gst/libgstdonar.so is missing: build first" \
    "(meson setup $build && ninja -C $build)" >&2
  exit 1
fi
export GST_PLUGIN_PATH=$build/gst

# The properties of the call, the same on both elements (the first to
# start makes the call with its own).
call_props=(call=c policy="$policy" security="$security")
[ -n "$tor_control" ] && call_props+=(tor-control="$tor_control")

if [ -n "$input" ]; then
  # A file is not live: identity sync=true sends it at the pace of speech.
  audio_in=(filesrc location="$input" ! wavparse ! identity sync=true)
elif [ -n "$tone" ]; then
  audio_in=(audiotestsrc is-live=true freq=440 volume=0.3)
else
  audio_in=(autoaudiosrc)
fi
if [ -n "$output" ]; then
  audio_out=(wavenc ! filesink location="$output")
else
  audio_out=(autoaudiosink)
fi

# One end: receive (donarsrc ! jitter buffer ! decoder ! out) and send
# (in ! encoder ! donarsink).  $1: extra properties of both donar
# elements (address=... for the caller, callee=true for the callee).
run_end() {
  local role=("$@")
  gst-launch-1.0 -e -m \
    donarsrc "${call_props[@]}" "${role[@]}" ! donarjitterbuffer ! \
    rtpopusdepay ! opusdec plc=true ! audioconvert ! audioresample ! \
    "${audio_out[@]}" \
    "${audio_in[@]}" ! audioconvert ! audioresample ! \
    opusenc audio-type=voice bitrate=32000 frame-size=40 ! \
    rtpopuspay pt=96 ! donarsink "${call_props[@]}" "${role[@]}"
}
