#!/usr/bin/env bash
# libdonar exports the functions that its installed headers mark DONAR_API,
# all of them and nothing else: a declaration without a definition fails
# here rather than at a user's link, and so does a symbol that escapes the
# hidden visibility the library is built with.  An installed header's
# function without DONAR_API would compile in a user's program and fail
# at its link: that fails here too.
# usage: check-exports.sh LIBRARY HEADER...
set -euo pipefail
lib=$1
shift

# The headers' code alone: a comment names functions of other layers
# ("donar_net_model_... ()"), and a macro such as DONAR_CALL_ERROR calls
# one; neither is a declaration.
code=$(perl -0777 -pe 's{\\\n}{ }g; s{/\*.*?\*/}{ }gs; s{^\s*#.*$}{ }mg' "$@")
# The name of a declaration is its first donar_ word before a parenthesis
# (the return type is a type, DonarX or GLib's).
marked=$(perl -0777 -ne \
  'print "$1\n" while /\bDONAR_API\b[^;(]*?\b(donar_\w+)\s*\(/g' \
  <<< "$code" | sort -u)
declared=$(grep -oE '\bdonar_[a-z0-9_]+ *\(' <<< "$code" | tr -d ' (' |
  sort -u)
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort)

status=0
unmarked=$(comm -13 <(echo "$marked") <(echo "$declared"))
if [ -n "$unmarked" ]; then
  echo "not ok: declared in the installed headers without DONAR_API:"
  echo "$unmarked"
  status=1
fi
if [ "$marked" != "$exported" ]; then
  echo "not ok: marked DONAR_API but not defined (<) or exported but not" \
    "marked (>):"
  diff <(echo "$marked") <(echo "$exported") | grep '^[<>]'
  status=1
fi
[ $status = 0 ] &&
  echo "ok: libdonar exports the $(echo "$marked" | wc -l) functions its" \
    "$# headers mark DONAR_API"
exit $status
