#!/usr/bin/env bash
# Installs what is missing from Debian 12 (apt-get only), builds into build/,
# then runs the main job (`run`: a call over the emulated Tor), the whole test suite (`test`,
# the Debian packages too), the Debian packages alone (`deb`: build-deb/*.deb) or the
# evaluation of record (`evaluate`: docs/evaluation.md, docs/img/; `evaluate-tor`: its section
# "Over real tor", through real tor relays on 127.0.0.1).
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail

cd "$(dirname "$0")/.."

packages=(
  meson ninja-build pkg-config gcc binutils
  libglib2.0-dev libevent-dev libopus-dev libssl-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  tor python3-gi gir1.2-gstreamer-1.0
  # webrtcdsp and webrtcechoprobe: pipelines/softphone.py's echo canceller
  gstreamer1.0-plugins-bad
  # ss: tools/tornet/tor-network.sh picks free ports with it
  iproute2
  # abidw and abidiff: the install suite's test abi holds libdonar to its
  # baseline (lib/libdonar/libdonar-1.0.abi)
  abigail-tools
)

# tools/evaluate.py and its smoke test (tests/evaluate/); the voice-quality
# tools (tools/quality/, pipelines/quality.sh): reference speech, and what
# PyPI's pesq builds against.
evaluation_packages=(python3 python3-matplotlib python3-numpy python3-scipy
  python3-venv python3-dev codec2-examples espeak-ng)

# libFuzzer (tests/fuzz/): clang and its runtime, which clang-14 does not
# pull in by itself.
fuzz_packages=(clang libclang-rt-14-dev)

# The Debian packages (debian/, `deb`), built and installed by `test`.
deb_packages=(debhelper dpkg-dev fakeroot)

install_missing () {
  local missing=()
  for p in "$@"; do
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

# PESQ (ITU-T P.862) comes from PyPI: a virtual environment of Debian's
# python3 in build-venv/ that also sees Debian's numpy, scipy and
# matplotlib.  The quality tools find it there (tools/quality/).
pesq_version=0.0.4
python_venv () {
  if [ ! -x build-venv/bin/python3 ]; then
    /usr/bin/python3 -m venv --system-site-packages build-venv
  fi
  if ! build-venv/bin/python3 -c "import pesq" 2>/dev/null; then
    build-venv/bin/pip install -q "pesq==$pesq_version"
  fi
}

# The Debian packages into build-deb/, from a copy of the tree:
# dpkg-buildpackage writes its packages beside the source it builds.
build_deb () {
  rm -rf build-deb
  mkdir -p build-deb/src
  tar --exclude='./build*' --exclude=./.git -cf - . | tar -xf - -C build-deb/src
  (cd build-deb/src &&
    DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage -b -us -uc >../dpkg-buildpackage.log 2>&1) ||
    { tail -40 build-deb/dpkg-buildpackage.log; return 1; }
  rm -rf build-deb/src
  ls build-deb/*.deb
}

build () {
  if [ ! -f build/build.ninja ]; then
    meson setup build
  fi
  meson compile -C build
}

case "${1:-run}" in
  run)
    # The evaluation packages too: pipelines/quality.sh scores calls.
    install_missing "${packages[@]}" "${evaluation_packages[@]}"
    python_venv
    build
    # The main job: a 20-second call on this machine, both ends in
    # GStreamer, over the emulated Tor (pipelines/demo.sh).
    bash pipelines/demo.sh --seconds 20
    ;;
  test)
    install_missing "${packages[@]}" "${evaluation_packages[@]}" \
      "${fuzz_packages[@]}"
    python_venv
    build
    meson test -C build --print-errorlogs
    # The fuzz targets need the whole project built by clang: a build
    # directory of their own, and a short run of each.  All of it is built,
    # not only what the fuzz suite needs, so that clang's warnings (errors
    # here, as in every build) are checked too.
    if [ ! -f build-fuzz/build.ninja ]; then
      CC=clang meson setup build-fuzz
    fi
    ninja -C build-fuzz
    meson test -C build-fuzz --suite fuzz --print-errorlogs
    # AddressSanitizer (leaks included) and UndefinedBehaviorSanitizer over
    # the unit and element suites (the latter also under GStreamer's leaks
    # tracer); any report fails the run.  The one suppression is GLib's
    # load-time table (tests/sanitizers/lsan.supp).
    if [ ! -f build-sanitize/build.ninja ]; then
      meson setup build-sanitize -Db_sanitize=address,undefined \
        -Db_lundef=false
    fi
    # Full stacks for leaks (fast_unwind_on_malloc=0): the suppression
    # must see the loader's frame, which GLib's frame-pointer-less code
    # hides from the fast unwinder.
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0 \
      LSAN_OPTIONS=suppressions="$PWD/tests/sanitizers/lsan.supp" \
      UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      meson test -C build-sanitize --suite unit --suite elements \
      --print-errorlogs
    # ThreadSanitizer over the link engine, the library's threads: only
    # what its test needs is built.  Our GLib locks are told to TSan
    # (tests/sanitizers/tsan-glib.h); GLib's own handoffs are suppressed
    # (tsan.supp).  The elements are not run: GStreamer's handoffs are not
    # seen either (docs/link-engine.md, "ThreadSanitizer").
    if [ ! -f build-tsan/build.ninja ]; then
      meson setup build-tsan -Db_sanitize=thread -Db_lundef=false
    fi
    ninja -C build-tsan tests/link/test-link-engine
    TSAN_OPTIONS=suppressions="$PWD/tests/sanitizers/tsan.supp" \
      meson test -C build-tsan --no-rebuild link-engine --print-errorlogs
    # The Debian packages built, installed, used as a user would (the
    # plugin found by GStreamer alone, a program built through
    # pkg-config), then removed.
    install_missing "${deb_packages[@]}"
    build_deb
    bash tests/install/check-deb.sh build-deb
    ;;
  deb)
    install_missing "${packages[@]}" "${deb_packages[@]}"
    build_deb
    ;;
  evaluate)
    install_missing "${packages[@]}" "${evaluation_packages[@]}"
    python_venv
    build
    shift
    # build-venv/: Debian's python3 (its matplotlib, numpy, scipy) with
    # PyPI's pesq, for the voice-quality section.
    build-venv/bin/python3 tools/evaluate.py "$@"
    ;;
  evaluate-tor)
    # The section "Over real tor" of docs/evaluation.md
    # (tools/tornet/evaluate-tornet.py, under an hour): tor and tor-gencert,
    # python3, matplotlib and pesq.  First the calibration check, in
    # seconds: docs/tornet-calibration.json must hold a calibration of the
    # network tornet.sh starts (its scale and relay parameters) that met
    # its share targets, else nothing runs.  --calibrate runs that
    # calibration first (tornet.sh calibrate, some 25 minutes);
    # --check-calibration runs the check alone.
    install_missing "${packages[@]}" "${evaluation_packages[@]}"
    python_venv
    build
    shift
    build-venv/bin/python3 tools/tornet/evaluate-tornet.py "$@"
    ;;
  install-only)
    install_missing "${packages[@]}" "${evaluation_packages[@]}" \
      "${fuzz_packages[@]}"
    python_venv
    ;;
  *)
    echo "usage: $0 [run|test|deb|evaluate [evaluate.py options]|evaluate-tor [evaluate-tornet.py options]|install-only]" >&2
    exit 2
    ;;
esac
