#!/usr/bin/env bash
# bench/decode_gpu_check.sh: the NVDEC check for a machine with an NVIDIA GPU.
# It builds decodebench, makes short test videos (10 s each: H.264 1080p and
# 720p, HEVC 720p with 10-frame GOPs, VP9 720p), samples 32 uniform frames
# at short side 224 from each on the CPU and with NVDEC (scale_cuda resizing
# on the GPU), and prints per file: both times, whether every frame has the
# same time, the PSNR and largest difference between CPU and GPU pixels,
# and whether NVDEC was used. Exit status 1 if NVDEC was not used for a
# file, a frame's time differs, or the PSNR is below 30 dB (the two paths
# resize with different bicubic kernels and convert NV12 after resizing, so
# pixels are close, not equal).
#
# Needs: Go, pkg-config and Debian 12's FFmpeg 5.1 -dev packages (make
# setup-system), the ffmpeg command, and the NVIDIA driver (libcuda.so.1).
# Writes under .cache/gpucheck. Takes about a minute on 16 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
dir=.cache/gpucheck
mkdir -p "$dir" .cache/bin

missing=()
command -v ffmpeg >/dev/null || missing+=("the ffmpeg command")
if [ ! -x .cache/bin/decodebench ] || [ -n "$(command -v go)" ]; then
  command -v go >/dev/null || missing+=("Go (or a prebuilt .cache/bin/decodebench)")
  pkg-config --exists libavcodec libavformat libavfilter libswscale 2>/dev/null || missing+=("FFmpeg -dev packages and pkg-config")
fi
if [ ${#missing[@]} -gt 0 ]; then
  printf 'decode_gpu_check: missing: %s\n' "${missing[@]}" >&2
  exit 1
fi
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
else
  echo "decode_gpu_check: nvidia-smi not found; NVDEC will probably be unavailable" >&2
fi
if command -v go >/dev/null; then
  go build -o .cache/bin/decodebench ./bench/decodebench
fi

mk() {
  local name=$1 size=$2
  shift 2
  [ -s "$dir/$name" ] && return
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=$size:rate=30:duration=10" "$@" "$dir/.tmp.$name"
  mv "$dir/.tmp.$name" "$dir/$name"
}
x264=(-c:v libx264 -preset veryfast -pix_fmt yuv420p -sc_threshold 0)
mk h264_1080p_gop250.mp4 1920x1080 "${x264[@]}" -g 250
mk h264_720p_gop60.mp4 1280x720 "${x264[@]}" -g 60
mk hevc_720p_gop10.mp4 1280x720 -c:v libx265 -preset ultrafast -pix_fmt yuv420p -tag:v hvc1 -x265-params keyint=10:min-keyint=10:scenecut=0:log-level=error
mk vp9_720p.webm 1280x720 -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -row-mt 1 -g 120 -b:v 2M

out=$(.cache/bin/decodebench -compare -repeat 3 -threads "$(nproc)" "$dir"/*.mp4 "$dir"/*.webm)
echo "$out" | awk -F'\t' '
  BEGIN { bad = 0; printf "%-24s %8s %8s %6s %8s %6s  %s\n", "file", "cpu s", "nvdec s", "pts=", "psnr dB", "max", "nvdec used" }
  {
    n = split($2, p, "/")
    printf "%-24s %8.3f %8.3f %6s %8s %6d  %s\n", p[n], $3, $4, $5, $6, $7, $8
    if ($5 != "true" || $8 != "yes" || ($6 != "+Inf" && $6 + 0 < 30)) bad = 1
  }
  END { exit bad }'
