#!/usr/bin/env bash
# The caller of a call between two machines: dials the address the callee
# printed (pipelines/callee.sh), then talks both ways.
# See pipelines/README.md.
set -euo pipefail
USAGE_ARGS='ADDRESS '
# shellcheck source=end.sh
. "$(dirname "$0")/end.sh"
[ ${#positional[@]} -eq 1 ] || usage
case "${positional[0]}" in
  donar://*) ;;
  *) echo "$0: '${positional[0]}' is not a donar:// address" >&2; exit 2 ;;
esac

# Quoted for gst-launch-1.0: unquoted, a donar://... value is taken for a
# URI to make a source element of.
run_end "address=\"${positional[0]}\""
