#!/usr/bin/env bash
# The voice quality of a call, in real time: reference speech through
# opusenc bitrate=32000 ! rtpopuspay ! donarsink, links over donar-torsim,
# donarsrc ! donarjitterbuffer ! rtpopusdepay ! opusdec plc=true into a file (the
# call is pipelines/demo.sh's: build/tools/donar-demo), then the file
# scored against the speech sent (tools/quality/qscore.py): PESQ WB and NB,
# one-way delay, late and lost frames, the E-model R.  Builds nothing: run
# `bash scripts/setup.sh run` first.  See pipelines/README.md and
# docs/quality.md.
set -euo pipefail

usage() {
  cat <<USAGE
Usage: $0 [options]
  --build DIR        the build directory (default: the tree's build/)
  --seconds N        seconds of call (default: 20); the reference is looped
                     or cut to this length
  --reference FILE   the speech to send, any WAV (default: codec2-examples'
                     speech_orig_16k.wav; espeak-ng speech when missing)
  --policy NAME      simple, torfone, alternate (default), double-send
  --security NAME    default, 1way (donar-torsim's model and the elements')
  --seed N           donar-torsim's seed (default: 1; same seed, same network)
  --direct           plain RTP over UDP on 127.0.0.1, no DONAR, no Tor: the ceiling
  --keep DIR         keep what was sent, heard and logged in DIR (sent.wav,
                     heard.wav, call.json, frames.csv)
  --json             print the result as one JSON object
USAGE
  exit "${1:-2}"
}

# The tree this script is in, wherever it is run from: its build/ by
# default.
tree=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$tree/build seconds=20 reference= policy=alternate security=default seed=1
direct= keep= json=
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=${2:?--build needs a directory}; shift ;;
    --seconds) seconds=${2:?--seconds needs a number}; shift ;;
    --reference) reference=${2:?--reference needs a file}; shift ;;
    --policy) policy=${2:?--policy needs a name}; shift ;;
    --security) security=${2:?--security needs a name}; shift ;;
    --seed) seed=${2:?--seed needs a number}; shift ;;
    --direct) direct=1 ;;
    --keep) keep=${2:?--keep needs a directory}; shift ;;
    --json) json=1 ;;
    -h|--help) usage 0 ;;
    *) echo "$0: unknown option '$1'" >&2; usage ;;
  esac
  shift
done
case "$seconds" in ''|*[!0-9]*|0) echo "$0: --seconds: '$seconds' is not a positive number" >&2; exit 2 ;; esac
case "$seed" in ''|*[!0-9]*) echo "$0: --seed: '$seed' is not a number" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
python=$top/build-venv/bin/python3
qscore=$top/tools/quality/qscore.py
if [ ! -x "$python" ] || ! "$python" -c 'import pesq' 2>/dev/null; then
  echo "$0: $python with pesq is missing: run 'bash scripts/setup.sh install-only'" >&2
  exit 1
fi

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$keep
  tmp=
else
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/donar-quality.XXXXXX")
  work=$tmp
fi
demo_pid=
cleanup() {
  # By PID, what this script started: demo.sh, which stops its own
  # donar-demo and donar-torsim by PID when it gets the TERM.
  if [ -n "$demo_pid" ]; then
    kill "$demo_pid" 2>/dev/null || true
    wait "$demo_pid" 2>/dev/null || true
  fi
  [ -z "$tmp" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The reference speech.
if [ -z "$reference" ]; then
  reference=/usr/share/codec2/raw/speech_orig_16k.wav
  if [ ! -r "$reference" ]; then
    command -v espeak-ng >/dev/null || {
      echo "$0: neither $reference (codec2-examples) nor espeak-ng: run 'bash scripts/setup.sh install-only'" >&2
      exit 1
    }
    echo "# $reference is missing (codec2-examples): espeak-ng speech instead" >&2
    espeak-ng -w "$work/espeak.wav" "The quick brown fox jumps over the lazy dog. \
A voice call over many onion links keeps its frames in time. \
Please call me back tomorrow morning at half past nine." 2>/dev/null
    reference=$work/espeak.wav
  fi
fi
[ -r "$reference" ] || { echo "$0: cannot read $reference" >&2; exit 1; }
# What is sent: the reference at 16 kHz mono, looped or cut to the call.
"$python" "$qscore" prepare "$reference" "$seconds" "$work/sent.wav"

demo_args=(--build "$build" --seconds "$seconds" --policy "$policy"
  --security "$security" --seed "$seed" --input "$work/sent.wav"
  --output "$work/heard.wav" --frame-log "$work/frames.csv" --json)
[ -n "$direct" ] && demo_args+=(--direct)
if [ -n "$direct" ]; then
  what="direct UDP"
else
  what="policy $policy, security $security, seed $seed"
fi
echo "# $(basename "$reference"), $seconds s, $what" >&2
"$here/demo.sh" "${demo_args[@]}" >"$work/call.json" &
demo_pid=$!
status=0
wait "$demo_pid" || status=$?
demo_pid=
if [ "$status" -ne 0 ]; then
  echo "$0: the call failed (status $status)" >&2
  exit 1
fi

score_args=(score --reference "$work/sent.wav" --received "$work/heard.wav"
  --call "$work/call.json" --frame-log "$work/frames.csv" --seed "$seed")
[ -n "$json" ] && score_args+=(--json)
"$python" "$qscore" "${score_args[@]}"
