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
headers=()
while read -r h; do
  headers+=(--hf "$here/$h")
done < <(sed -n "/^donar_public_headers = files(/,/^)/s/^ *'\(.*\)',$/\1/p" \
  "$here/meson.build")
# Locations and paths left out: they change with every edit of a header
# and with where the tree is, and abidiff does not compare them.
abidw --no-show-locs --no-corpus-path --no-comp-dir-path \
  --drop-undefined-syms "${headers[@]}" --out-file "$here/libdonar-1.0.abi" \
  "$lib"
echo "wrote $here/libdonar-1.0.abi from $lib (${#headers[@]} header options)"
