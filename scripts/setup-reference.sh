#!/usr/bin/env bash
# Installs the conformance tests' reference, Hugging Face's JavaScript port
# of transformers (@huggingface/transformers, pinned with its integrity in
# conformance/reference/package-lock.json), into an ignored folder:
#
#   scripts/setup-reference.sh DIR      (make setup-reference: .cache/reference)
#
# npm ci --ignore-scripts: onnxruntime-node's install script only fetches a
# CUDA provider from a host these machines cannot reach; its CPU library and
# sharp's libvips ship inside the packages. Skips when DIR already holds the
# lockfile's exact tree. Node itself comes from Debian (setup-system.sh).
set -euo pipefail
dir=${1:?usage: setup-reference.sh DIR}
src="$(cd "$(dirname "$0")/.." && pwd)/conformance/reference"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "setup-reference: node and npm are needed (make setup-system installs Debian's nodejs and npm)" >&2
  exit 1
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ -f "$dir/.installed" ] && cmp -s "$src/package-lock.json" "$dir/.installed"; then
  echo "setup-reference: @huggingface/transformers already installed in $dir"
  exit 0
fi
cp "$src/package.json" "$src/package-lock.json" "$dir/"
rm -f "$dir/.installed"
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
cp "$src/package-lock.json" "$dir/.installed"
echo "setup-reference: installed $(node -p "require('$dir/node_modules/@huggingface/transformers/package.json').version") in $dir"
