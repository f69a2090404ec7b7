#!/usr/bin/env bash
# bench/scale.sh: the audit at pool scale on this machine, and a projection
# of the whole Video-Index pool onto H200 nodes.
#
#   bench/scale.sh [ITEMS]     default 500000 (about 100 benchmarks); 50000
#                              runs in CI-sized time (10 benchmarks)
#
# 1. Builds a synthetic pool of ITEMS items (bench/scalepool: the real items
#    of ../shared/data, or $VIDSCREEN_DATA, with their texts perturbed so
#    that they are not all duplicates) in benchmarks of log-normal sizes.
# 2. Audits it at the text levels (option, text, pool: no video) and prints
#    the wall time, the peak resident memory (GNU time) and the time of
#    every stage (the run's stages.json).
# 3. Measures the per-stage rates of this machine: decode frames/s
#    (decode's BenchmarkUniform32, median over its clips: small generated
#    ones, and .cache/testvideos when scripts/make-test-videos.sh made it),
#    inference per role (models' Go benchmarks on the CPU: BERT-base with
#    4 layers for text_embed, the project's small models for the others;
#    on a machine with an NVIDIA GPU, bench/models_gpu_check.sh and
#    bench/decode_gpu_check.sh run too and their logs are kept), attack
#    and duplicate items/s (the audit above) and the join's GFLOP/s
#    (kernels' BenchmarkThresholdJoin).
# 4. Prints the projection table (bench/scale_projection.py): those rates,
#    the H200's published figures with every assumption beside its number,
#    and the projected wall time on 8 x H200 and on N nodes.
#
# Environment: WORK (default a temp dir; the pool and the run stay there),
# SEED (default 1), GOMEMLIMIT (Go's soft memory limit, e.g. 3GiB: the
# collector then runs more often as the heap nears it, trading CPU for a
# peak RSS closer to the live heap; printed with the figures), RATES=0
# skips step 3 (the table then uses the audit's
# rates and the assumptions only). Timings hold /tmp/vidscreen-bench.lock so
# that benchmarks sharing the machine do not overlap; builds and tests of
# others still can: the load average is printed with every figure.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
if [[ -z "${VIDSCREEN_BENCH_LOCKED:-}" ]]; then
	exec env VIDSCREEN_BENCH_LOCKED=1 flock /tmp/vidscreen-bench.lock "$0" "$@"
fi
ITEMS=${1:-500000}
SEED=${SEED:-1}
RATES=${RATES:-1}
WORK=${WORK:-$(mktemp -d)}
DATA=${VIDSCREEN_DATA:-../shared/data}
PY=/usr/bin/python3
mkdir -p "$WORK/bin"
load() { cut -d' ' -f1-3 /proc/loadavg; }
json() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, d))" "$@"; }

echo "== machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/^Mem:/ {print $2}') GiB; load $(load)"
go build -o "$WORK/bin/vidscreen" ./cmd/vidscreen
go build -o "$WORK/bin/scalepool" ./bench/scalepool

echo "== pool: $ITEMS items ($WORK/pool)"
rm -rf "$WORK/pool" "$WORK/run"
t0=$(date +%s.%N)
"$WORK/bin/scalepool" -items "$ITEMS" -seed "$SEED" -out "$WORK/pool" "$DATA"/nextqa.jsonl "$DATA"/socialiq2.jsonl "$DATA"/star.jsonl "$DATA"/videohallucer.jsonl
echo "built in $("$PY" -c "print(round($(date +%s.%N) - $t0, 1))") s; $(du -sh "$WORK/pool" | cut -f1) of JSONL"

echo "== audit (text levels: option, text, pool), GOMEMLIMIT=${GOMEMLIMIT:-unset}, load before $(load)"
args=()
for f in "$WORK"/pool/*.jsonl; do args+=(--items "$f"); done
/usr/bin/time -v -o "$WORK/time.txt" "$WORK/bin/vidscreen" audit "${args[@]}" --out "$WORK/run" --seed "$SEED" --quiet >"$WORK/audit.txt"
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/time.txt")
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/time.txt")
echo "wall $wall, peak RSS $("$PY" -c "print(f'{$rss/1048576:.2f} GiB')"), load after $(load)"
"$PY" - "$WORK/run/stages.json" <<'EOF'
import json, sys
for s in json.load(open(sys.argv[1]))["stages"]:
    rate = f"  {s['rate']:,.0f} {s['unit']}/s" if s.get("rate") else ""
    print(f"  {s['name']:<12} {s['seconds']:8.1f} s{rate}")
EOF

rates="$WORK/rates.txt"
{
	echo "cores=$(nproc)"
	echo "pool_items=$ITEMS"
	st="$WORK/run/stages.json"
	echo "attack_items_s=$(json "$st" "[s['seconds'] for s in stages if s['name']=='attack'][0]" | "$PY" -c "import sys; print($ITEMS/float(sys.stdin.read()))")"
	echo "dups_items_s=$(json "$st" "[s.get('rate','') for s in stages if s['name']=='duplicates'][0]")"
	echo "cards_items_s=$(json "$st" "[s.get('rate','') for s in stages if s['name']=='cards'][0]")"
} >"$rates"

metric() { awk -v m="$1" '/^Benchmark/ {for (i=1;i<=NF;i++) if ($(i+1)==m) print $i}' | sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}'; }
if [[ "$RATES" != 0 ]]; then
	echo "== rates of this machine (load $(load))"
	join=$(go test ./kernels -run '^$' -bench 'ThresholdJoin/self/n=4096' -benchtime 3x | tee -a /dev/stderr | metric GFLOP/s)
	echo "join_gflops=$join" >>"$rates"
	# The small generated clips, and .cache/testvideos when
	# scripts/make-test-videos.sh made it (1080p and 720p files).
	dec=$(go test ./decode -run '^$' -bench Uniform32 -benchtime 2x | tee -a /dev/stderr | metric frames/s)
	echo "decode_fps=$dec" >>"$rates"
	if [[ -n "${VIDSCREEN_ORT_LIB:-}" ]]; then
		mb=$(go test ./models -run '^$' -bench 'TextEncoder/bert|ImageText/images|Captioner|LetterScorer' -benchtime 1x -timeout 30m | tee -a /dev/stderr)
		echo "cpu_text_embed=$(grep TextEncoder/bert <<<"$mb" | metric texts/s)" >>"$rates"
		echo "cpu_image_text=$(metric images/s <<<"$mb")" >>"$rates"
		echo "cpu_captioner=$(metric captions/s <<<"$mb")" >>"$rates"
		echo "cpu_lm_reader=$(grep LetterScorer/last-position <<<"$mb" | metric prompts/s)" >>"$rates"
	else
		echo "(VIDSCREEN_ORT_LIB unset: inference not measured)"
	fi
	if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
		echo "gpu=1" >>"$rates"
		echo "== GPU present: bench/decode_gpu_check.sh and bench/models_gpu_check.sh (logs in $WORK)"
		bench/decode_gpu_check.sh >"$WORK/decode_gpu.txt" 2>&1 || echo "decode_gpu_check failed: see $WORK/decode_gpu.txt"
		bench/models_gpu_check.sh >"$WORK/models_gpu.txt" 2>&1 || echo "models_gpu_check failed: see $WORK/models_gpu.txt"
		tail -n 20 "$WORK/decode_gpu.txt" "$WORK/models_gpu.txt"
	fi
fi
"$PY" bench/scale_projection.py <"$rates"
