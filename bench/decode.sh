#!/usr/bin/env bash
# bench/decode.sh: samples the same 32 uniform frames (short side 224, RGB)
# from the same files with vidscreen, with PyAV the way lmms-eval's pyav
# backend does (decode from the start, keep the wanted frames), with PyAV
# using frame threads, and with OpenCV seeking to each frame; times
# `ffmpeg -threads 2 -i F -f null -` as this machine's full-decode rate;
# and times a pool of 1 and 2 decoders. Prints one table.
#
#   bench/decode.sh [FILE...]     default: the files scripts/make-test-videos.sh
#                                 makes in .cache/testvideos (made if missing)
#
# Environment: REPEAT (rounds; each tool's best round is reported; default 3),
# FRAMES (default 32), SIZE (short side, default 224), HWACCEL (none|cuda).
# The timings run under /tmp/vidscreen-bench.lock (taken once) so that
# benchmarks sharing this machine do not overlap; compiles and tests of
# others sharing it still can, so run it on a quiet machine for figures.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
PY=/usr/bin/python3 # Debian's, which has python3-av and python3-opencv
export REPEAT=${REPEAT:-3}
FRAMES=${FRAMES:-32}
SIZE=${SIZE:-224}
HWACCEL=${HWACCEL:-none}
LOCK=/tmp/vidscreen-bench.lock

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  bash scripts/make-test-videos.sh .cache/testvideos
  files=(.cache/testvideos/1080p_gop600.mp4 .cache/testvideos/720p_gop250.mp4
    .cache/testvideos/480p_10min_gop60.mp4 .cache/testvideos/hevc_gop10.mp4 .cache/testvideos/vp9.webm)
fi
mkdir -p .cache/bin
go build -o .cache/bin/decodebench ./bench/decodebench

# Hold the machine-wide benchmark lock once for all the timings, so that the
# tools' rounds run back to back rather than queueing behind other benches
# between each one.
if [ -z "${VIDSCREEN_BENCH_LOCKED:-}" ]; then
  echo "decode.sh: waiting for $LOCK" >&2
  exec env VIDSCREEN_BENCH_LOCKED=1 flock "$LOCK" "$(pwd)/bench/decode.sh" "${files[@]}"
fi

# Raw timings, one line per run, kept for a second look.
out=.cache/bench-decode.tsv
: >"$out"

# Rounds interleave the tools, so that load from others sharing the machine
# falls on all of them alike; the table keeps each tool's best round.
for round in $(seq "$REPEAT"); do
  for f in "${files[@]}"; do
    echo "decode.sh: round $round/$REPEAT: $f" >&2
    .cache/bin/decodebench -repeat 1 -sampler "uniform:$FRAMES" -size "$SIZE" -threads 2 -hwaccel "$HWACCEL" "$f" >>"$out"
    $PY bench/decode_pyav.py --repeat 1 --frames "$FRAMES" --size "$SIZE" "$f" >>"$out"
    $PY bench/decode_pyav.py --repeat 1 --frames "$FRAMES" --size "$SIZE" --threads auto "$f" >>"$out"
    $PY bench/decode_opencv.py --repeat 1 --frames "$FRAMES" --size "$SIZE" "$f" >>"$out"
    # The full-decode rate: ffmpeg decoding every frame with 2 threads.
    $PY - "$f" >>"$out" <<'PY'
import subprocess, sys, time
t = time.perf_counter()
subprocess.run(["ffmpeg", "-v", "error", "-threads", "2", "-i", sys.argv[1], "-an", "-f", "null", "-"], check=True)
print(f"ffmpeg\t{sys.argv[1]}\t{time.perf_counter() - t:.4f}\t0\t0\t0")
PY
  done
done
# Pool scaling: every file, 2 copies each, on 1 decoder of 2 threads and on
# 2 decoders of 1 thread each (the same 2 cores).
for wt in "1 2" "2 1"; do
  set -- $wt
  echo "decode.sh: pool of $1 decoders x $2 threads" >&2
  .cache/bin/decodebench -pool -workers "$1" -threads "$2" -copies 2 -sampler "uniform:$FRAMES" -size "$SIZE" -hwaccel "$HWACCEL" "${files[@]}" >>"$out"
done

$PY bench/decode_table.py "$out"
