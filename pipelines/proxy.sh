#!/usr/bin/env bash
# A bridge for a softphone that speaks plain RTP over UDP: what it sends to
# 127.0.0.1:LISTEN goes over the DONAR call, and what comes from the call
# goes to 127.0.0.1:SEND.  Run one on each machine: one --callee (prints
# the address), the other with that address.  See pipelines/README.md.
set -euo pipefail

usage() {
  cat <<USAGE
Usage: $0 (--callee | ADDRESS) [options]
  --callee           publish an onion service and print the address to give
  ADDRESS            the donar://... address the other proxy printed: dial it
  --listen PORT      UDP port on 127.0.0.1 the softphone sends RTP to (default: 5004)
  --send PORT        UDP port on 127.0.0.1 the received RTP goes to (default: 5006)
  --caps CAPS        the caps of the softphone's RTP (default: Opus, payload 96:
                     $default_caps)
  --build DIR        the build directory with gst/libgstdonar.so (default: the tree's build/)
  --tor-control PORT|PATH
                     ControlPort, or ControlSocket (e.g. /run/tor/control), of
                     a running tor (or donar-torsim);
                     default: the elements launch a tor of their own
  --policy NAME      simple, torfone, alternate, double-send, adaptive (default)
The softphone's RTP packets must fit a DONAR frame (402 bytes with the default policy and links): Opus or
another low-rate codec (Opus at 32 kbit/s), 20 to 60 ms a packet; a larger packet is
dropped, counted and warned about.  It keeps its own jitter
buffer: the proxy adds none.
USAGE
  exit "${1:-2}"
}

default_caps='application/x-rtp,media=audio,clock-rate=48000,encoding-name=OPUS,payload=96'
# The tree this script is in, wherever it is run from: its build/ by
# default.
tree=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$tree/build tor_control= policy=adaptive listen=5004 send=5006
caps=$default_caps role=
while [ $# -gt 0 ]; do
  case "$1" in
    --callee) role=(callee=true) ;;
    --listen) listen=${2:?--listen needs a port}; shift ;;
    --send) send=${2:?--send needs a port}; shift ;;
    --caps) caps=${2:?--caps needs caps}; shift ;;
    --build) build=${2:?--build needs a directory}; shift ;;
    --tor-control) tor_control=${2:?--tor-control needs a port or a socket}; shift ;;
    --policy) policy=${2:?--policy needs a name}; shift ;;
    -h|--help) usage 0 ;;
    donar://*) role=("address=\"$1\"") ;;  # quoted: else taken for a URI
    *) echo "$0: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
[ -n "${role[*]}" ] || usage
if [ ! -e "$build/gst/libgstdonar.so" ]; then
  echo "$0: $build/gst/libgstdonar.so is missing: build first" \
    "(meson setup $build && ninja -C $build)" >&2
  exit 1
fi
export GST_PLUGIN_PATH=$build/gst

call_props=(call=c policy="$policy")
[ -n "$tor_control" ] && call_props+=(tor-control="$tor_control")

# The packets are already paced by the softphone: sync=false on both
# sinks forwards each one as it comes.  -m shows the donar-call-address
# message (the callee's address) and the call's progress.
exec gst-launch-1.0 -e -m \
  udpsrc address=127.0.0.1 port="$listen" caps="$caps" ! \
  donarsink sync=false "${call_props[@]}" "${role[@]}" \
  donarsrc "${call_props[@]}" "${role[@]}" ! \
  udpsink host=127.0.0.1 port="$send" sync=false
