#!/usr/bin/env bash
# Installs the Debian packages vidscreen builds and tests against, skipping
# those already present. Needs root (or sudo) on Debian 12.
set -euo pipefail

pkgs=(
  # FFmpeg 5.1 for decode/ (go-astiav v0.16.0) and the ffmpeg CLI used by tests.
  pkg-config libavcodec-dev libavformat-dev libavfilter-dev libavutil-dev
  libswscale-dev libswresample-dev libavdevice-dev ffmpeg
  # BLAS and LAPACK for kernels/.
  libopenblas-dev liblapacke-dev
  # Side-by-side comparisons under bench/ and reference computations in tests.
  python3 python3-numpy python3-av python3-opencv python3-faiss python3-pil
  # npm fetches ONNX Runtime from the npm registry.
  npm
  # A single-node Slurm (scripts/slurm-local.sh) on which the test of the
  # deploy/slurm recipe runs the array and merge jobs for real.
  slurm-wlm munge
)
if [ "${VIDSCREEN_SETUP_EXTRA:-}" != "" ]; then
  read -r -a extra <<<"$VIDSCREEN_SETUP_EXTRA"
  pkgs+=("${extra[@]}")
fi

missing=()
for p in "${pkgs[@]}"; do
  if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
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
