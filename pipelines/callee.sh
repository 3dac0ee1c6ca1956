#!/usr/bin/env bash
# The callee of a call between two machines: publishes an onion service
# and prints the address to give the caller (pipelines/caller.sh), then
# talks both ways.  See pipelines/README.md.
set -euo pipefail
USAGE_ARGS=
# shellcheck source=end.sh
. "$(dirname "$0")/end.sh"
[ ${#positional[@]} -eq 0 ] || usage

# gst-launch-1.0 -m shows the element messages; pick the address out of
# donar-call-address and say it plainly.
# Both elements post it: say it once.  GstStructure escapes ? and = with
# a backslash: drop those.
shown=
run_end callee=true | while IFS= read -r line; do
  case "$line" in
    *donar-call-address*)
      [ -z "$shown" ] || continue
      shown=1
      address=$(sed -n 's/.*address=(string)"\{0,1\}\([^",;]*\).*/\1/p' <<<"$line" | tr -d '\\')
      echo "*** Give the caller this address (a secret: whoever has it can call):"
      echo "ADDRESS=$address"
      echo "*** e.g. pipelines/caller.sh '$address'" ;;
    *"(state-changed)"*|*"(stream-status)"*|*"(progress)"*) ;;
    *) echo "$line" ;;
  esac
done
