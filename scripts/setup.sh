#!/usr/bin/env bash
# Installs what is missing from Debian 12 (apt-get only), builds into build/,
# then runs the main job (`run`) or the whole test suite (`test`).
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail

cd "$(dirname "$0")/.."

packages=(
  meson ninja-build pkg-config gcc binutils
  libglib2.0-dev libevent-dev libopus-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  tor
)

install_missing () {
  local missing=()
  for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
}

build () {
  if [ ! -f build/build.ninja ]; then
    meson setup build
  fi
  meson compile -C build
}

case "${1:-run}" in
  run)
    install_missing
    build
    # The main job until the elements exist: a short simulated call.
    build/tools/donar-sim --policy double-send --security default \
      --calls 4 --duration 300 --seed 1
    ;;
  test)
    install_missing
    build
    meson test -C build --print-errorlogs
    ;;
  install-only)
    install_missing
    ;;
  *)
    echo "usage: $0 [run|test|install-only]" >&2
    exit 2
    ;;
esac
