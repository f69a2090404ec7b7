#!/usr/bin/env bash
# Installs the Debian packages vidscreen builds and tests against, skipping
# those already present. Needs root (or sudo) on Debian 12.
#
#   scripts/setup-system.sh [--build | --runtime] [--list]
#
# With no option, everything `make setup` needs: what the build and the
# tests use. --build is what building bin/vidscreen and fetching ONNX
# Runtime need (the Dockerfile's build stage); --runtime is only the shared
# libraries the binary loads (the Dockerfile's final stage). --list prints
# the packages of the chosen set, one a line, and installs nothing.
set -euo pipefail

profile=all list=0
for a in "$@"; do
  case $a in
  --build) profile=build ;;
  --runtime) profile=runtime ;;
  --list) list=1 ;;
  *) echo "usage: setup-system.sh [--build | --runtime] [--list]" >&2; exit 2 ;;
  esac
done

# The libraries bin/vidscreen is linked against (readelf -d: its NEEDED
# entries), by their Debian 12 packages: FFmpeg 5.1 and OpenBLAS/LAPACKE.
# deploy/deploy_test.go checks the list against a built binary.
runtime=(
  libavcodec59 libavdevice59 libavfilter8 libavformat59 libavutil57
  libswresample4 libswscale6
  libopenblas0-pthread liblapacke
)
build=(
  # FFmpeg 5.1 for decode/ (go-astiav v0.16.0).
  pkg-config libavcodec-dev libavformat-dev libavfilter-dev libavutil-dev
  libswscale-dev libswresample-dev libavdevice-dev
  # BLAS and LAPACK for kernels/.
  libopenblas-dev liblapacke-dev
  # npm fetches ONNX Runtime from the npm registry (setup-ort.sh).
  npm
)
tests=(
  # The ffmpeg CLI used by tests.
  ffmpeg
  # Side-by-side comparisons under bench/ and reference computations in tests.
  python3 python3-numpy python3-av python3-opencv python3-faiss python3-pil
  # Node runs the conformance tests' reference, transformers.js
  # (setup-reference.sh; conformance/README.md).
  nodejs
  # A single-node Slurm (scripts/slurm-local.sh) on which the test of the
  # deploy/slurm recipe runs the array and merge jobs for real.
  slurm-wlm munge
  # Headless Chromium loads the HTML reports at 1400 and 800 px and checks
  # that none scrolls sideways (cmd/vidscreen/reports_layout_test.go).
  chromium
)
case $profile in
runtime) pkgs=("${runtime[@]}") ;;
build) pkgs=("${build[@]}") ;;
all) pkgs=("${build[@]}" "${tests[@]}") ;;
esac
if [ "${VIDSCREEN_SETUP_EXTRA:-}" != "" ]; then
  read -r -a extra <<<"$VIDSCREEN_SETUP_EXTRA"
  pkgs+=("${extra[@]}")
fi
if [ $list = 1 ]; then
  printf '%s\n' "${pkgs[@]}"
  exit 0
fi

missing=()
for p in "${pkgs[@]}"; do
  if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
  if [ "$p" = nodejs ] && command -v node >/dev/null 2>&1; then continue; fi
  if [ "$p" = python3 ] && command -v python3 >/dev/null 2>&1; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-system: all Debian packages present"
  exit 0
fi
echo "setup-system: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
