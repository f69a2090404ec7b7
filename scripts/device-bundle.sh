#!/usr/bin/env bash
# Builds what the device check carries to a GPU machine that has a driver
# but no Go, no FFmpeg, no network: the check binary built with
# -tags cuda,noopenblas (it links libcuda.so.1 and the C library only, and
# holds the kernels' PTX), and the CPU reference computed here from the
# same seed. Prints what it built and its size; the device machine's run
# carries both (they are under bin/, which git ignores).
#
#   scripts/device-bundle.sh        (after make setup-cuda-dev)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
cuda=${CUDA_DEV_DIR:-$PWD/.cache/cuda-dev}
[ -s "$cuda/usr/include/cuda.h" ] || { echo "device-bundle: no CUDA headers in $cuda (make setup-cuda-dev)" >&2; exit 1; }
mkdir -p bin
CGO_CFLAGS="-I$cuda/usr/include" CGO_LDFLAGS="-L$cuda/usr/lib/x86_64-linux-gnu/stubs" \
  go build -trimpath -ldflags=-s -tags cuda,noopenblas -o bin/vidscreen-devicecheck-cuda ./cmd/vidscreen-devicecheck
# Only the driver and the C library (and the loader's own entries).
extra=$(ldd bin/vidscreen-devicecheck-cuda | awk '{print $1}' | grep -vE '^(linux-vdso\.so\.1|/lib64/ld-linux-x86-64\.so\.2|libc\.so\.6|libcuda\.so\.1)$' || true)
if [ -n "$extra" ]; then
  echo "device-bundle: bin/vidscreen-devicecheck-cuda links more than libcuda.so.1 and libc: $extra" >&2
  exit 1
fi
if [ ! -s bin/devicecheck-reference.json ] || [ -n "$(find cmd/vidscreen-devicecheck models/onnxbuild -name '*.go' ! -name '*_test.go' -newer bin/devicecheck-reference.json)" ]; then
  go build -o bin/vidscreen-devicecheck ./cmd/vidscreen-devicecheck
  echo "device-bundle: computing the CPU reference (seeded data, CPU kernels)"
  bin/vidscreen-devicecheck reference --out bin/devicecheck-reference.json
fi
du -b bin/vidscreen-devicecheck-cuda bin/devicecheck-reference.json
echo "device-bundle: $(du -cb bin/vidscreen-devicecheck-cuda bin/devicecheck-reference.json | tail -1 | cut -f1) bytes to carry: bin/vidscreen-devicecheck-cuda bin/devicecheck-reference.json"
