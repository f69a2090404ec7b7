#!/usr/bin/env bash
# Runs every GPU check in one command and writes one JSON report: per
# check the GPU's result against the CPU reference computed beforehand
# (pair sets and neighbour lists equal, by count and SHA-256), and the
# rates beside their ceilings (the chip's peak, the CPU's figure here),
# and the offload ladder: CPU and GPU seconds per search size on that
# machine and the measured crossing beside kernels.DefaultMinWork.
#
#   scripts/device-check.sh [--dry-run] REPORT.json
#   scripts/device-check.sh --stage bin/ort-stage/part-NN
#
# --stage takes one part of ONNX Runtime's CUDA provider into the staging
# folder ($VIDSCREEN_ORT_STAGE, else /tmp/vidscreen-ort), one run a part
# (scripts/device-stage.sh; docs/gpu.md lists the runs). The report's
# image_tower rows run on it when every part is in, and else say how many
# are.
#
# On the GPU machine it needs what scripts/device-bundle.sh built
# (bin/vidscreen-devicecheck-cuda, bin/devicecheck-reference.json) and
# nothing else: the data is generated there from the reference's seed.
# cuBLAS is found in the Python environment (the machine's CUDA 13 wheels)
# unless VIDSCREEN_CUBLAS_LIB names one; without any, the own GEMM kernel
# runs and the cuBLAS checks say why not. Everything stops after 6 minutes.
#
# --dry-run runs the same checks here on the CPU (building the CPU check
# binary and the reference when missing) and writes the same report with
# the GPU fields null: that is what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
dry=0
if [ "${1:-}" = --stage ]; then
  exec bash scripts/device-stage.sh take "${2:?usage: device-check.sh --stage PART}"
fi
if [ "${1:-}" = --dry-run ]; then dry=1; shift; fi
report=${1:?usage: device-check.sh [--dry-run] REPORT.json}
mkdir -p "$(dirname "$report")"
ref=bin/devicecheck-reference.json
limit=${DEVICE_CHECK_TIMEOUT:-6m}

if [ $dry = 1 ]; then
  export PATH="/usr/local/go/bin:$PATH"
  mkdir -p bin
  go build -o bin/vidscreen-devicecheck ./cmd/vidscreen-devicecheck
  if [ ! -s "$ref" ] || [ -n "$(find cmd/vidscreen-devicecheck models/onnxbuild -name '*.go' ! -name '*_test.go' -newer "$ref")" ]; then
    echo "device-check: computing the CPU reference"
    bin/vidscreen-devicecheck reference --out "$ref"
  fi
  # The rate join and the Vendi rate are GPU-only; 2,000 rows keep their bookkeeping in the dry run.
  bin/vidscreen-devicecheck run --cpu-only --rate-rows 2000 --vendi-rows 2000 --ort-lib "${VIDSCREEN_ORT_LIB:-}" --reference "$ref" --out "$report"
  echo "device-check: dry run report in $report"
  exit 0
fi

bin=bin/vidscreen-devicecheck-cuda
for f in "$bin" "$ref"; do
  [ -s "$f" ] || { echo "device-check: $f missing (run scripts/device-bundle.sh where Go is, and carry bin/)" >&2; exit 1; }
done
if [ -z "${VIDSCREEN_CUBLAS_LIB:-}" ]; then
  for py in python3 python; do
    command -v $py >/dev/null || continue
    d=$($py -c 'import os, nvidia.cublas as m; print(os.path.join(list(m.__path__)[0], "lib"))' 2>/dev/null || true)
    for so in libcublas.so.13 libcublas.so.12 libcublas.so.11; do
      if [ -n "$d" ] && [ -e "$d/$so" ]; then export VIDSCREEN_CUBLAS_LIB="$d/$so"; break 2; fi
    done
  done
fi
echo "device-check: cuBLAS: ${VIDSCREEN_CUBLAS_LIB:-none named, the dynamic loader searches its path}"
# ONNX Runtime, if staged; its CUDA provider loads CUDA 13's libraries
# (cudart, cuBLAS, cuRAND, cuDNN) from the Python environment's wheels.
stage=${VIDSCREEN_ORT_STAGE:-/tmp/vidscreen-ort}
ort_lib=
if staged=$(bash scripts/device-stage.sh status "$stage"); then
  ort_lib=$stage/lib/libonnxruntime.so
  for py in python3 python; do
    command -v $py >/dev/null || continue
    dirs=$($py -c 'import os, nvidia
print(":".join(sorted({r for p in nvidia.__path__ for r, _, fs in os.walk(p) if any(".so" in f for f in fs)})))' 2>/dev/null || true)
    if [ -n "$dirs" ]; then export LD_LIBRARY_PATH="$dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; break; fi
  done
fi
echo "device-check: ONNX Runtime: $staged"
command -v nvidia-smi >/dev/null && nvidia-smi -L || true
timeout "$limit" "$bin" run --reference "$ref" --ort-lib "$ort_lib" --ort-staged "$staged" --out "$report"
echo "device-check: report in $report"
