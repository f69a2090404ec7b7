#!/usr/bin/env bash
# Throughput of every model role (models/ Go benchmarks) on this machine's CPU,
# printed as a table.
#
#   bench/models.sh                 tiny models + BERT-base dimensions with 4 layers
#   VIDSCREEN_BENCH_LAYERS=12 bench/models.sh   the full 12-layer BERT-base shape
#   BENCHTIME=5s BIGTIME=3x bench/models.sh   longer runs (defaults 2s for the
#                                   tiny models, 2x for the BERT-base shape)
#
# The models are built by models/onnxbuild at run time (random weights, real
# shapes and input/output names) into a temporary directory; nothing is
# downloaded. The run holds /tmp/vidscreen-bench.lock so timings from several
# people on one machine do not overlap. Needs ONNX Runtime (make setup-ort).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
benchtime=${BENCHTIME:-2s}
bigtime=${BIGTIME:-2x}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

echo "models bench: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), load $(cut -d' ' -f1 /proc/loadavg), BERT-base layers ${VIDSCREEN_BENCH_LAYERS:-4}"
flock /tmp/vidscreen-bench.lock bash -c '
  go test ./models/ -run "^$" -bench "TextEncoder/tiny|HarnessVsRaw/tiny|ImageText|LetterScorer|Captioner|VLMReader" -benchtime "$1" -timeout 30m &&
  go test ./models/ -run "^$" -bench "TextEncoder/bert|HarnessVsRaw/bert" -benchtime "$2" -timeout 60m
' _ "$benchtime" "$bigtime" >"$out"

# Each benchmark line: name, iterations, ns/op, then value/unit pairs.
awk '
  /^Benchmark/ {
    name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
    line = ""
    for (i = 5; i + 1 <= NF; i += 2) {
      if ($(i+1) == "ns/op") continue
      line = line sprintf("%12.1f %-16s", $i, $(i+1))
    }
    printf "%-34s %s\n", name, line
  }
  /^(FAIL|panic|---)/ { print; bad = 1 }
  END { exit bad }
' "$out"
