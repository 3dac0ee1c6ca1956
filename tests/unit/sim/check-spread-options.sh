#!/bin/sh
# The spread_copies options of donar-sim and donar-call: each bad
# combination is refused with exit status 2 and a message that names it,
# and nothing runs.
sim=$1
call=$2
status=0

refused () {
  want=$1
  shift
  out=$("$@" 2>&1)
  rc=$?
  case "$out" in
    *"$want"*) ;;
    *) echo "not refused with \"$want\": $* -> $out"; status=1 ;;
  esac
  if [ $rc -ne 2 ]; then
    echo "exit status $rc, not 2: $*"
    status=1
  fi
}

# donar-call wants its mode first; it refuses the options before it
# starts the callee.
for tool in "$sim --calls 1 --duration 1" "$call --direct callee"; do
  refused "--spread-copies: only with --policy adaptive" \
    $tool --policy alternate --spread-copies
  refused "--no-spread-copies: only with --policy adaptive" \
    $tool --policy double-send --no-spread-copies
  refused "--spread-copies and --no-spread-copies: one or the other" \
    $tool --policy adaptive --spread-copies --no-spread-copies
done
refused "--no-spread-copies: only with --policy adaptive" \
  $sim --calls 1 --duration 1 --policy oracle --no-spread-copies
exit $status
