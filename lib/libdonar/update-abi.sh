#!/usr/bin/env bash
# Writes libdonar's ABI baseline (libdonar-1.0.abi, beside this script)
# from a build, on purpose: after a compatible addition, or with a new
# soname after an incompatible change (docs/api.md, "Keeping the ABI").
# The install suite's test abi compares the built library with it.
# usage: lib/libdonar/update-abi.sh [BUILD_DIR]   (default: build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
lib=$build/lib/libdonar/libdonar-1.0.so
# The installed headers in one directory, as check-abi.sh has them.
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-abi.XXXXXX")
trap 'rm -rf "$work"' EXIT
sed -n "/^donar_public_headers = files(/,/^)/s/^ *'\(.*\)',$/\1/p" \
  "$here/meson.build" | while read -r h; do cp "$here/$h" "$work/"; done
# Locations by file name only, without the tree's path: abidiff compares
# neither, but it needs the header a type is in to keep the installed
# headers' types (without locations it filters every change out).
abidw --short-locs --no-corpus-path --no-comp-dir-path \
  --drop-undefined-syms --hd "$work" --out-file "$here/libdonar-1.0.abi" \
  "$lib"
echo "wrote $here/libdonar-1.0.abi from $lib"
