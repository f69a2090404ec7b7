#!/usr/bin/env bash
# Checks models/ on a GPU machine: builds, runs every role (text_embed,
# dup_confirm, image_text, lm_reader, captioner, vlm_reader) on the CPU and on
# a CUDA device with the same inputs, compares the outputs, and times both;
# compares the image tower's host and device frame paths (audit --frame-path)
# where the cuda build can be made. Then runs the role benchmarks on the GPU.
#
#   bench/models_gpu_check.sh [cuda:N]     (default cuda:0)
#
# Needs: the NVIDIA driver, ONNX Runtime's CUDA provider next to
# libonnxruntime.so (`make setup-cuda`, or copy libonnxruntime_providers_cuda.so
# there) and the CUDA 13 runtime libraries it links (libcudart.so.13,
# libcublas.so.13, libcublasLt.so.13, libcurand.so.10) on the library path.
# The models are tiny ones built at run time; nothing is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
dev=${1:-cuda:0}
lib=${VIDSCREEN_ORT_LIB:-$PWD/.cache/onnxruntime/libonnxruntime.so}
export VIDSCREEN_ORT_LIB=$lib
provider=$(dirname "$lib")/libonnxruntime_providers_cuda.so

step() { printf '\n== %s\n' "$*"; }

step "devices"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=index,name,memory.total,memory.free,driver_version --format=csv
else
  echo "nvidia-smi not found: no NVIDIA driver here" >&2
  exit 1
fi

step "ONNX Runtime and its CUDA provider"
ls -l "$lib" "$provider" || { echo "missing; run make setup-ort setup-cuda" >&2; exit 1; }
missing=$(ldd "$provider" | awk '/not found/ {print $1}' || true)
if [ -n "$missing" ]; then
  echo "the CUDA provider cannot load; not found on the library path:" >&2
  echo "$missing" >&2
  echo "(add the CUDA 13 runtime's lib directory to LD_LIBRARY_PATH)" >&2
  exit 1
fi

step "build and vet"
go build ./...
go vet ./models/...

step "CPU tests of models/"
go test ./models/... -count=1

step "every role on cpu and $dev: outputs compared, throughput of both"
VIDSCREEN_GPU_CHECK=$dev go test ./models/ -run TestGPUMatchesCPU -count=1 -v | grep -v '^=== RUN'

step "the image tower's frame paths on $dev: host against device (the cuda build)"
# The cuda build needs cuda.h and a libcuda.so to link: make setup-cuda-dev's
# tree, else CUDA_HOME's (its lib64/stubs).
cdev=${CUDA_DEV_DIR:-$PWD/.cache/cuda-dev}
if [ -s "$cdev/usr/include/cuda.h" ]; then
  inc=$cdev/usr/include lib=$cdev/usr/lib/x86_64-linux-gnu/stubs
else
  inc=${CUDA_HOME:-/usr/local/cuda}/include lib=${CUDA_HOME:-/usr/local/cuda}/lib64/stubs
fi
if [ -s "$inc/cuda.h" ]; then
  # TestDeviceFramesMatchCPU: decoded frames through the kernels and the
  # bound tower against imageprep and the Session; TestDeviceFramePathNearHost:
  # real videos through audit --frame-path device's feature stage (NVDEC's
  # pictures on the device) against --frame-path host's, worst cosine per video.
  CGO_CFLAGS="-I$inc" CGO_LDFLAGS="-L$lib" VIDSCREEN_GPU_CHECK=$dev \
    go test -tags cuda ./models/ ./harness/features/ -run 'TestDeviceFramesMatchCPU|TestDeviceFramePathNearHost' -count=1 -v | grep -v '^=== RUN'
else
  echo "no cuda.h in $inc (make setup-cuda-dev, or set CUDA_HOME): the device frame path is not checked"
fi

step "role benchmarks on $dev"
VIDSCREEN_BENCH_DEVICE=$dev go test ./models/ -run '^$' -bench . -benchtime "${BENCHTIME:-5x}" -timeout 30m
