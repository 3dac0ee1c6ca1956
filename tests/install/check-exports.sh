#!/usr/bin/env bash
# libdonar exports what its installed headers declare, all of it and nothing
# else: a declaration without a definition fails here rather than at a
# user's link.
# usage: check-exports.sh LIBRARY VERSION_SCRIPT
set -euo pipefail
lib=$1
map=$2

declared=$(grep -oE '^ +donar_[a-z0-9_]+;' "$map" | tr -d ' ;' | sort)
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort)
if [ "$declared" != "$exported" ]; then
  echo "not ok: declared in the installed headers but not defined (<) or" \
    "exported but not declared (>):"
  diff <(echo "$declared") <(echo "$exported") | grep '^[<>]'
  exit 1
fi
echo "ok: libdonar exports the $(echo "$declared" | wc -l) functions its headers declare"
