#!/usr/bin/env bash
# The Debian packages as a user gets them (scripts/setup.sh test): installed
# with apt-get, the plugin found by GStreamer alone, a program built through
# pkg-config and run on the system's libdonar, donar-call run; removed at
# the end, pass or fail.
# usage: check-deb.sh DIR (where scripts/setup.sh deb put the .deb files)
set -euo pipefail
dir=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
packages=(libdonar-1.0-1 libdonar-1.0-dev gstreamer1.0-donar donar-tools)
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

work=$(mktemp -d "${TMPDIR:-/tmp}/donar-deb.XXXXXX")
cleanup () {
  $sudo apt-get purge -y -q "${packages[@]}" > /dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

fail () {
  echo "not ok: $*"
  exit 1
}

debs=()
for p in "${packages[@]}"; do
  debs+=("$dir/$p"_*.deb)
done
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
  --no-install-recommends "${debs[@]}" > "$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get install the packages"; }
echo "ok: installed ${packages[*]}"

# GStreamer's own search path only, and a registry of our own.
unset GST_PLUGIN_PATH GST_PLUGIN_SYSTEM_PATH LD_LIBRARY_PATH
export GST_REGISTRY=$work/registry.bin
gst-inspect-1.0 --exists donarsrc || fail "gst-inspect-1.0 --exists donarsrc"
gst-inspect-1.0 donarsrc > "$work/inspect.txt" 2>&1 ||
  fail "gst-inspect-1.0 donarsrc"
grep -E '^ *(Filename|Version|Binary package)' "$work/inspect.txt"
# (GStreamer may name it through /lib, which a merged /usr links to /usr/lib.)
found=$(awk '$1 == "Filename" {print $2}' "$work/inspect.txt")
packaged=$(dpkg -L gstreamer1.0-donar | grep 'libgstdonar.so$')
[ "$(readlink -f "$found")" = "$(readlink -f "$packaged")" ] ||
  fail "GStreamer found $found, not the packaged $packaged"
echo "ok: GStreamer finds the packaged plugin"

# shellcheck disable=SC2046  # the flags are words
cc -Wall -Werror -o "$work/donar-example" "$here/donar-example.c" \
  $(pkg-config --cflags --libs donar-1.0) || fail "the example does not build"
"$work/donar-example" || fail "the example failed"
donar-call --help > /dev/null || fail "donar-call --help"
echo "ok: a program built with pkg-config donar-1.0 runs; donar-call runs"
