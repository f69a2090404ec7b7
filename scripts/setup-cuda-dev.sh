#!/usr/bin/env bash
# Unpacks the CUDA 11.8 headers, stub libraries and nvcc from Debian's
# non-free component into DIR, for building bin/vidscreen-cuda (-tags cuda)
# and compiling the kernels' CUDA C to PTX. Nothing is installed system-wide
# but g++-11 (Debian main), which nvcc 11.8 needs as its host compiler, and
# one apt sources entry for contrib/non-free: installing nvidia-cuda-dev as a
# package would pull in libcuda1, the driver library, which a machine without
# a GPU must not have (the default binary's discovery would find it).
#
#   scripts/setup-cuda-dev.sh DIR
#
# Afterwards:
#   DIR/usr/include                  cuda.h, cublas_v2.h (CGO_CFLAGS=-I...)
#   DIR/usr/lib/x86_64-linux-gnu/stubs  libcuda.so and friends (CGO_LDFLAGS=-L...)
#   DIR/bin/nvcc, DIR/bin/ptxas      nvcc 11.8 with a profile that points into DIR
#
# Skips every step whose result is already there.
set -euo pipefail

dir=${1:?usage: setup-cuda-dev.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)
version='11.8.89~11.8.0-5~deb12u1'

sources=/etc/apt/sources.list.d/vidscreen-nonfree.sources
if ! grep -rqs 'non-free' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "setup-cuda-dev: adding Debian contrib/non-free ($sources)"
  cat >"$sources" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  apt-get update -qq
fi

if ! command -v g++-11 >/dev/null; then
  echo "setup-cuda-dev: installing g++-11 (nvcc 11.8's host compiler)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++-11 >/dev/null
fi

# unpack PKG PATH...: extract only PATHs of PKG's data into DIR.
unpack() {
  local pkg=$1; shift
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  echo "setup-cuda-dev: fetching $pkg $version"
  (cd "$tmp" && apt-get download -qq "$pkg=$version" 2>/dev/null)
  dpkg-deb --fsys-tarfile "$tmp"/"${pkg}"_*.deb | tar -x -C "$dir" "$@"
}

if [ ! -s "$dir/usr/include/cuda.h" ] || [ ! -e "$dir/usr/lib/x86_64-linux-gnu/stubs/libcuda.so" ]; then
  unpack nvidia-cuda-dev ./usr/include ./usr/lib/x86_64-linux-gnu/stubs
fi

tk=$dir/usr/lib/nvidia-cuda-toolkit/bin
if [ ! -x "$tk/nvcc" ] || [ ! -x "$dir/usr/bin/ptxas" ]; then
  unpack nvidia-cuda-toolkit ./usr/lib/nvidia-cuda-toolkit ./usr/bin/ptxas ./usr/bin/fatbinary ./usr/bin/nvlink
fi

# Debian's nvcc.profile is a link to /etc/nvcc.profile with absolute
# /usr paths; ours points into DIR so nothing outside it is needed.
if [ -L "$tk/nvcc.profile" ] || ! grep -qs "$dir" "$tk/nvcc.profile"; then
  rm -f "$tk/nvcc.profile"
  cat >"$tk/nvcc.profile" <<PROFILE
NVVMIR_LIBRARY_DIR = \$(_HERE_)/../libdevice
PATH += \$(_HERE_):$dir/usr/bin:
INCLUDES += "-I$dir/usr/include" \$(_SPACE_)
LIBRARIES =+ \$(_SPACE_) "-L$dir/usr/lib/x86_64-linux-gnu/stubs"
PROFILE
fi
# nvcc finds nvcc.profile beside the path it was started by, so DIR/bin/nvcc
# is a script that starts the real one rather than a link.
mkdir -p "$dir/bin"
rm -f "$dir/bin/nvcc"
printf '#!/bin/sh\nexec "%s/nvcc" "$@"\n' "$tk" >"$dir/bin/nvcc"
chmod +x "$dir/bin/nvcc"
ln -sf "$dir/usr/bin/ptxas" "$dir/bin/ptxas"
echo "setup-cuda-dev: CUDA 11.8 headers, stubs and nvcc in $dir"
