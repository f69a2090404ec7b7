#!/usr/bin/env bash
# Checks the two builds' dynamic libraries: the default binary links no
# CUDA library (GPU paths load the driver at run time, so it starts on any
# machine), the cuda build links libcuda.so.1 and no cuBLAS (cuBLAS is
# dlopened at run time, whichever of libcublas.so.13/.12/.11 is there).
#
#   scripts/check-cuda-link.sh bin/vidscreen bin/vidscreen-cuda
set -euo pipefail
plain=${1:?usage: check-cuda-link.sh DEFAULT_BINARY CUDA_BINARY}
cuda=${2:?usage: check-cuda-link.sh DEFAULT_BINARY CUDA_BINARY}
fail=0
# ldd lists every needed library, "not found" ones too (no driver here).
# Its output is read whole first: under pipefail, `ldd | grep -q` fails
# whenever grep quits on its first match before ldd has written the rest
# (ldd dies of SIGPIPE), which made this check fail at random.
plain_libs=$(ldd "$plain" || true)
cuda_libs=$(ldd "$cuda" || true)
if grep -E 'libcuda|libcublas|libcudart' <<<"$plain_libs"; then
  echo "check-cuda-link: $plain links a CUDA library (above); it must load the driver at run time" >&2
  fail=1
fi
if ! grep -q 'libcuda\.so\.1' <<<"$cuda_libs"; then
  echo "check-cuda-link: $cuda does not link libcuda.so.1; was it built with -tags cuda?" >&2
  fail=1
fi
if grep -E 'libcublas|libcudart' <<<"$cuda_libs"; then
  echo "check-cuda-link: $cuda links cuBLAS or the CUDA runtime (above); both must be loaded at run time" >&2
  fail=1
fi
[ $fail = 0 ] && echo "check-cuda-link: $plain links no CUDA library; $cuda links libcuda.so.1 only"
exit $fail
