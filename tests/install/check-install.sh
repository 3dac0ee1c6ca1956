#!/usr/bin/env bash
# DONAR as its users get it: `meson install` into a DESTDIR, each installed
# header compiled by itself, a program built against the installed libdonar
# through pkg-config and run, the installed tools run, and gst-inspect-1.0
# finding the installed plugin (and `--exists` saying so, which takes the
# plugin's version into account).
# usage: check-install.sh BUILD_DIR PREFIX LIBDIR BINDIR EXAMPLE_C
# (CC: the compiler, MESON: meson, from tests/install/meson.build.)
set -euo pipefail
build=$1
prefix=$2
libdir=$3
bindir=$4
example=$5

work=$(mktemp -d "${TMPDIR:-/tmp}/donar-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
dest=$work/dest

fail () {
  echo "not ok: $*"
  exit 1
}

# --no-rebuild: the test runs after the build; a second ninja would race
# the one meson test may be running.
DESTDIR=$dest $MESON install -C "$build" --no-rebuild --quiet ||
  fail "meson install"
lib=$dest$libdir
plugins=$lib/gstreamer-1.0
for f in "$lib/libdonar-1.0.so.1" "$lib/pkgconfig/donar-1.0.pc" \
    "$dest$prefix/include/donar-1.0/donar.h" "$plugins/libgstdonar.so" \
    "$dest$bindir/donar-call"; do
  [ -e "$f" ] || fail "$f is not installed"
done
echo "ok: installed into $dest"

# The installed .pc, moved to the DESTDIR as a relocatable package is: its
# prefix, which its other paths follow.  (PKG_CONFIG_SYSROOT_DIR would move
# GLib's paths too.)
grep -q '^libdir=${prefix}/' "$lib/pkgconfig/donar-1.0.pc" ||
  fail "donar-1.0.pc's libdir does not follow its prefix"
mkdir "$work/pkgconfig"
sed "s|^prefix=.*|prefix=$dest$prefix|" "$lib/pkgconfig/donar-1.0.pc" \
  > "$work/pkgconfig/donar-1.0.pc"
export PKG_CONFIG_PATH=$work/pkgconfig
flags=$(pkg-config --cflags --libs donar-1.0) || fail "pkg-config donar-1.0"
# shellcheck disable=SC2086  # CC and the flags are words
$CC -Wall -Werror -o "$work/donar-example" "$example" $flags ||
  fail "the example does not build against the installed library"
echo "ok: built with $flags"

# Each installed header by itself, and twice (its guard), against the
# installed ones alone: a header that needs another included first, or
# includes one that is not installed, fails here rather than in a user's
# program.
cflags=$(pkg-config --cflags donar-1.0)
headers=("$dest$prefix/include/donar-1.0/"*.h)
for header in "${headers[@]}"; do
  name=${header##*/}
  # shellcheck disable=SC2086  # CC and the flags are words
  printf '#include <%s>\n#include <%s>\n' "$name" "$name" |
    $CC -Wall -Werror -fsyntax-only -x c - $cflags ||
    fail "the installed $name does not compile by itself"
done
echo "ok: each of the ${#headers[@]} installed headers compiles by itself"

export LD_LIBRARY_PATH=$lib
# (Not `ldd | grep -q`: grep's early exit fails ldd, and pipefail the test.)
ldd "$work/donar-example" > "$work/ldd.txt"
grep -q "$lib/libdonar-1.0.so.1" "$work/ldd.txt" ||
  fail "the example does not load the installed libdonar"
"$work/donar-example" || fail "the example failed"

# The installed donar-call, linked to the installed library.
"$dest$bindir/donar-call" --help > /dev/null || fail "donar-call --help"
echo "ok: the installed donar-call runs"

# The installed plugin, and only it: a registry of our own, the DESTDIR's
# plugin directory first.  The system's plugins stay (donarjitterbuffer
# wraps rtpjitterbuffer).
export GST_REGISTRY=$work/registry.bin
export GST_PLUGIN_PATH=$plugins
gst-inspect-1.0 donarsrc > "$work/inspect.txt" 2>&1 ||
  { cat "$work/inspect.txt"; fail "gst-inspect-1.0 donarsrc"; }
grep -q "Filename *$plugins/libgstdonar.so" "$work/inspect.txt" ||
  { cat "$work/inspect.txt"; fail "gst-inspect-1.0 found another plugin"; }
echo "ok: gst-inspect-1.0 donarsrc: $(grep -E '^ *Version' "$work/inspect.txt")"
for element in donarsrc donarsink donarjitterbuffer donarrtcpdemux; do
  gst-inspect-1.0 --exists "$element" ||
    fail "gst-inspect-1.0 --exists $element: $?"
done
echo "ok: gst-inspect-1.0 --exists finds every element"
