#!/usr/bin/env bash
# libdonar's ABI against its baseline (lib/libdonar/libdonar-1.0.abi):
# abidiff of the two, restricted to the installed headers, fails on any
# change to what a program built against the baseline uses (a type of
# the installed headers, a function's signature, a function gone).  A new
# function is fine.  After a change on purpose, lib/libdonar/update-abi.sh
# writes the baseline again (docs/api.md, "Keeping the ABI").
# usage: check-abi.sh BASELINE LIBRARY HEADER...
set -euo pipefail
baseline=$1
lib=$2
shift 2

if ! command -v abidiff > /dev/null; then
  echo "skip: no abidiff (Debian's abigail-tools)"
  exit 77
fi
# The baseline is of an x86-64 build with DWARF (meson's default
# buildtype): another machine's layouts, or a build without debug
# information, cannot be compared with it.
# (Into variables, not `readelf | grep -q`: grep's early exit fails
# readelf, and pipefail the test.)
header=$(readelf -h "$lib")
sections=$(readelf -S "$lib")
if ! grep -q 'Machine: *Advanced Micro Devices X86-64' <<< "$header"; then
  echo "skip: the baseline is of x86-64"
  exit 77
fi
if ! grep -q '\.debug_info' <<< "$sections"; then
  echo "skip: $lib has no debug information"
  exit 77
fi

# The headers as installed, in one directory: abidiff's --hf2 matches
# none of the library's DWARF paths (../lib/core/donar.h from the build
# directory) and then filters every change out; --hd2 matches by name.
work=$(mktemp -d "${TMPDIR:-/tmp}/donar-abi.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$@" "$work/"
# --no-added-syms: additions are compatible, so they do not count here.
# abidiff's status is a bit mask (man abidiff): 1 an error, 2 a usage
# error, 4 a change, 8 an incompatible one.  A struct that grew at its
# end is only 4, and is a break all the same for a program that
# allocates it: any bit fails.
status=0
report=$(abidiff --no-added-syms --hd2 "$work" "$baseline" "$lib") ||
  status=$?
if [ $status != 0 ]; then
  echo "$report"
  echo "not ok: abidiff's status is $status: libdonar's ABI differs from" \
    "$baseline; a struct that grows takes a new version (docs/api.md)," \
    "and a change on purpose is lib/libdonar/update-abi.sh's"
  exit 1
fi
echo "ok: libdonar's ABI is its baseline's, or adds to it"
