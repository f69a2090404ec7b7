#!/usr/bin/env bash
# make demo: audit the embedded default (about 4,000 real items of NExT-QA,
# Social-IQ 2.0, STAR and VideoHallucer) at the option, text and pool levels
# into out/demo, and print the summary table of the report cards.
# Expects bin/vidscreen (make build). Finishes in well under two minutes on
# two cores.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${VIDSCREEN_BIN:-bin/vidscreen}
OUT=${VIDSCREEN_DEMO_OUT:-out/demo}
if [ ! -x "$BIN" ]; then
  echo "demo: $BIN not found; run 'make build' first" >&2
  exit 1
fi

# A fresh directory each time: a run directory resumes only the exact
# configuration it was started with, and the demo follows the code.
rm -rf "$OUT"
start=$(date +%s)
"$BIN" audit --out "$OUT" --levels option,text,pool --seed 1
end=$(date +%s)
echo
echo "demo: audited the embedded default in $((end - start)) s."
echo "demo: open $OUT/index.html in a browser for the level profiles and learning curves;"
echo "      $OUT/cards.md has the full cards, docs/audit.md explains every file."
