#!/usr/bin/env bash
# make-test-videos.sh DIR: makes the synthetic videos bench/decode.sh reads,
# with the ffmpeg command's testsrc2 pattern (a moving picture with a frame
# counter), skipping files already there. They cover the cases that decide
# sparse-sampling speed (DEPENDENCY-FACTS.md, "Video decoding facts"):
#
#   1080p_gop600.mp4     H.264 1920x1080 30 fps 60 s, a keyframe every 600 frames:
#                        the worst case, 32 frames need nearly every frame decoded
#   720p_gop250.mp4      H.264 1280x720 30 fps 60 s, keyframe every 250 (x264's default)
#   480p_10min_gop60.mp4 H.264 854x480 30 fps 10 minutes, keyframe every 60:
#                        short GOPs, where skipping whole GOPs pays
#   hevc_gop10.mp4       HEVC 1280x720 30 fps 60 s, keyframe every 10 (how the
#                        Video-Index pool stores its videos)
#   vp9.webm             VP9 1280x720 30 fps 60 s, keyframe every 120
#
# Scene-cut keyframes are off (-sc_threshold 0, x265 scenecut=0) so the GOP
# lengths are exactly as named. Takes several minutes on 2 cores.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
dir=$1
mkdir -p "$dir"
command -v ffmpeg >/dev/null || { echo "make-test-videos: the ffmpeg command is missing (make setup-system installs it)" >&2; exit 1; }

make() {
  local name=$1 size=$2 secs=$3
  shift 3
  if [ -s "$dir/$name" ]; then
    return
  fi
  echo "make-test-videos: $name" >&2
  local tmp="$dir/.tmp.$name"
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=$size:rate=30:duration=$secs" "$@" "$tmp"
  mv "$tmp" "$dir/$name"
}

x264=(-c:v libx264 -preset veryfast -pix_fmt yuv420p -sc_threshold 0)
make 1080p_gop600.mp4 1920x1080 60 "${x264[@]}" -g 600 -keyint_min 600
make 720p_gop250.mp4 1280x720 60 "${x264[@]}" -g 250 -keyint_min 250
make 480p_10min_gop60.mp4 854x480 600 "${x264[@]}" -g 60 -keyint_min 60
make hevc_gop10.mp4 1280x720 60 -c:v libx265 -preset ultrafast -pix_fmt yuv420p -tag:v hvc1 \
  -x265-params "keyint=10:min-keyint=10:scenecut=0:log-level=error"
make vp9.webm 1280x720 60 -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -row-mt 1 -g 120 -b:v 2M
ls -l "$dir" >&2
