#!/usr/bin/env bash
# Fetches ONNX Runtime 1.29.0 (linux x64) from the npm registry into DIR,
# checks the tarball's sha256, and keeps the shared libraries there.
#
#   scripts/setup-ort.sh DIR          CPU runtime: libonnxruntime.so
#   scripts/setup-ort.sh --cuda DIR   adds the CUDA execution provider (CUDA 13)
#
# Skips the download when DIR already holds the libraries. A user with their own
# build sets VIDSCREEN_ORT_LIB to its libonnxruntime.so instead.
set -euo pipefail

cuda=0
if [ "${1:-}" = --cuda ]; then cuda=1; shift; fi
dir=${1:?usage: setup-ort.sh [--cuda] DIR}

cpu_pkg=com.github.asus4.onnxruntime@0.4.9
cpu_sha=e59788788818fdde1b2e522e766a21ba0f7d8391de55737abf81e32cc801785d
gpu_pkg=com.github.asus4.onnxruntime.linux-x64-gpu@0.4.9
gpu_sha=2b459e0c17f340c92970c10ed86de4f37a3009f93c14053e6ad4334cbb6be412

# fetch PKG SHA FILE...: npm pack PKG, verify, copy FILEs from Plugins/Linux/x64.
fetch() {
  local pkg=$1 sha=$2; shift 2
  local need=0 f
  for f in "$@"; do [ -s "$dir/$f" ] || need=1; done
  if [ $need = 0 ]; then
    echo "setup-ort: $pkg already in $dir"
    return
  fi
  command -v npm >/dev/null || { echo "setup-ort: npm not found (make setup-system installs it)" >&2; exit 1; }
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  echo "setup-ort: fetching $pkg from the npm registry"
  (cd "$tmp" && npm pack --silent "$pkg" >/dev/null)
  local tgz
  tgz=$(ls "$tmp"/*.tgz)
  local got
  got=$(sha256sum "$tgz" | cut -d' ' -f1)
  if [ "$got" != "$sha" ]; then
    echo "setup-ort: $pkg: sha256 $got, want $sha; refusing to install it" >&2
    exit 1
  fi
  tar -xzf "$tgz" -C "$tmp" package/Plugins/Linux/x64
  mkdir -p "$dir"
  for f in "$@"; do
    install -m 0644 "$tmp/package/Plugins/Linux/x64/$f" "$dir/$f"
  done
  echo "setup-ort: installed $* in $dir"
}

fetch "$cpu_pkg" "$cpu_sha" libonnxruntime.so libonnxruntime_providers_shared.so
if [ $cuda = 1 ]; then
  fetch "$gpu_pkg" "$gpu_sha" libonnxruntime_providers_cuda.so
fi
