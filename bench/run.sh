#!/usr/bin/env bash
# Runs every side-by-side comparison and throughput benchmark of vidscreen, one
# after another (they share the cores), and prints their tables.
#   bench/run.sh            all of them
#   bench/run.sh decode     only bench/decode.sh (likewise kernels, models)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
which=("$@")
[ ${#which[@]} -gt 0 ] || which=(kernels decode models)
for b in "${which[@]}"; do
  echo "== bench/$b.sh"
  bash "bench/$b.sh"
done
