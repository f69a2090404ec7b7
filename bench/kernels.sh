#!/usr/bin/env bash
# kernels.sh: the vidscreen kernels side by side with FAISS (IndexFlatIP
# range search) and numpy (eigvalsh) on the same .npy files, at the same
# thread count, with the machine's fp32 peak and a projection of the
# 505,518 x 1024 all-pairs join (Video-Index 4.5).
#
# usage: bench/kernels.sh            (from the repository root)
# env:   THREADS (default: nproc)   N_JOIN (default 20000)
#        JOIN=0, VENDI=0, MEM=0 (the 200,000 x 1024 memory run), LONG=0
#        (SLQ against exact Vendi at n = 5,000 and 10,000) skip parts;
#        WORK (default a temp dir)
#
# Every timing runs under flock /tmp/vidscreen-bench.lock so measurements
# by several people on one machine do not overlap.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${VIDSCREEN_BENCH_LOCKED:-}" ]]; then
	exec env VIDSCREEN_BENCH_LOCKED=1 flock /tmp/vidscreen-bench.lock "$0" "$@"
fi

THREADS=${THREADS:-$(nproc)}
N_JOIN=${N_JOIN:-20000}
D=1024
PY=/usr/bin/python3
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
json() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, d))" "$@"; }
calc() { "$PY" -c "from math import *; print($1)"; }

echo "== machine"
CORES=$(nproc)
MODEL=$(lscpu | sed -n 's/^Model name: *//p')
VENDOR=$(lscpu | sed -n 's/^Vendor ID: *//p')
FAMILY=$(lscpu | sed -n 's/^CPU family: *//p')
NOMINAL=$(awk -F: '/cpu MHz/ {print $2/1000; exit}' /proc/cpuinfo)
cc -O2 -o "$WORK/clock" bench/kernels_clock.c
GHZ=$("$WORK/clock")
# fp32 flops per cycle per core: two FMA pipes of 256 bits (AVX2, or
# AMD Zen 4 running AVX-512 as two halves) = 2 x 8 lanes x 2 flops = 32;
# Intel cores with two 512-bit FMA units = 64.
if grep -qw avx512f /proc/cpuinfo && [[ "$VENDOR" == GenuineIntel ]]; then FPC=64; WHY="Intel AVX-512, 2 FMA units x 16 lanes x 2";
elif grep -qw fma /proc/cpuinfo; then FPC=32; WHY="2 FMA pipes x 8 fp32 lanes (256-bit) x 2 flops (AMD family $FAMILY runs AVX-512 as 2 x 256)";
else FPC=8; WHY="SSE: 4 lanes x 2"; fi
PEAK=$(calc "$THREADS * $GHZ * $FPC")
echo "cpu: $MODEL ($VENDOR family $FAMILY), $CORES cores; clock $NOMINAL GHz nominal (/proc/cpuinfo), $GHZ GHz measured under load (bench/kernels_clock.c)"
echo "fp32 peak at $THREADS threads = $THREADS cores x $GHZ GHz x $FPC flops/cycle ($WHY) = $PEAK GFLOP/s"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine slows every figure below alike)"
if [[ -n "${OPENBLAS_CORETYPE:-}" ]]; then echo "OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE is set; numpy runs with it unset (see .library/env README)"; fi

echo "== data ($WORK)"
# The kernels' own benchmark binary does the timing: it needs nothing but
# kernels/ (cmd/vidscreen neardup and vendi call the same functions).
go test -c -o "$WORK/kernels.test" ./kernels
gobench() { "$WORK/kernels.test" -test.run '^$' -test.cpu "$THREADS" -test.bench "$@"; }
metric() { awk -v m="$1" '/^Benchmark/ {for (i=1;i<=NF;i++) if ($(i+1)==m) print $i}'; }
"$PY" bench/kernels_data.py "$WORK/join.npy" "$N_JOIN" $D 1
for n in 200 5000; do
	"$PY" bench/kernels_data.py "$WORK/v$n.npy" $n 1152 2
	"$PY" bench/kernels_data.py "$WORK/t$n.npy" $n $D 3
done
echo "join: $N_JOIN x $D; vendi: 200 and 5000 items, SigLIP-sized 1152 x BGE-sized $D"

if [[ "${JOIN:-1}" != 0 ]]; then
echo "== threshold join, self, cosine >= 0.9, $THREADS threads"
"$PY" bench/kernels_ref.py join "$WORK/join.npy" 0.9 "$THREADS" > "$WORK/faiss.json"
VIDSCREEN_BENCH_JOIN="$WORK/join.npy" gobench BenchmarkJoinFile -test.benchtime 3x > "$WORK/ours.txt"
FS=$(json "$WORK/faiss.json" seconds); FP=$(json "$WORK/faiss.json" pairs)
OS=$(awk '/^BenchmarkJoinFile/ {print $3/1e9}' "$WORK/ours.txt"); OP=$(metric pairs-found < "$WORK/ours.txt")
USEFUL=$(calc "$N_JOIN * ($N_JOIN - 1) * $D")   # n(n-1)/2 products of 2d flops
OG=$(calc "$USEFUL / $OS / 1e9"); FG=$(calc "$USEFUL / $FS / 1e9")
printf "%-36s %9s %9s %16s %8s\n" tool seconds pairs "GFLOP/s (useful)" "of peak"
printf "%-36s %9.3f %9d %16.1f %7.0f%%\n" "vidscreen ThresholdJoin (mean of 3)" "$OS" "$OP" "$OG" "$(calc "100 * $OG / $PEAK")"
printf "%-36s %9.3f %9d %16.1f %7.0f%%\n" "faiss $(json "$WORK/faiss.json" faiss) IndexFlatIP range" "$FS" "$FP" "$FG" "$(calc "100 * $FG / $PEAK")"
echo "speed ratio vidscreen/faiss: $(calc "round($FS / $OS, 2)")x (useful flops: n(n-1)/2 dot products of 2d; FAISS computes all n^2)"
echo "pairs differ by $(calc "$OP - $FP"): vidscreen keeps sim >= 0.9 decided in float64, FAISS sim > 0.9 in float32"
BEST=$OG
N=505518
PROJ=$(calc "$N * ($N - 1) * $D / ($BEST * 1e9)")
echo "projection, 505,518 x 1024 self-join ($(calc "round($N*($N-1)*$D/1e12)") Tflop useful) at the best measured $BEST GFLOP/s:"
echo "  this machine ($THREADS threads): $(calc "round($PROJ / 60, 1)") min"
echo "  64-core host, same per-core rate (row blocks are independent, each tile stays in cache): $(calc "round($PROJ * $THREADS / 64 / 60, 1)") min"

fi

if [[ "${VENDI:-1}" != 0 ]]; then
echo "== Vendi, joint kernel (V V^T) o (T T^T), q = 1"
printf "%-6s %14s %14s %16s %16s %14s %14s %12s\n" n "vidscreen s" "vidscreen best" "numpy total s" "numpy mean s" "numpy eig s" "vidscreen VS" "rel. diff"
for n in 200 5000; do
	reps=$([[ $n == 200 ]] && echo 200 || echo 1)
	OPENBLAS_NUM_THREADS=$THREADS env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$PY" bench/kernels_ref.py vendi "$WORK/v$n.npy" "$WORK/t$n.npy" $reps > "$WORK/np$n.json"
	bt=$([[ $n == 200 ]] && echo 200x || echo 1x)
	VIDSCREEN_BENCH_V="$WORK/v$n.npy" VIDSCREEN_BENCH_T="$WORK/t$n.npy" gobench BenchmarkVendiFile -test.benchtime $bt -test.v > "$WORK/vendi$n.txt"
	ns=$(awk '/^BenchmarkVendiFile/ {print $3}' "$WORK/vendi$n.txt"); vs=$(awk '$2 == "vendi" {print $3; exit}' "$WORK/vendi$n.txt")
	gs=$(calc "$ns / 1e9")
	printf "%-6s %14.4f %14.4f %16.4f %16.4f %14.4f %14.8f %12.2e\n" $n "$gs" "$(metric best-s < "$WORK/vendi$n.txt")" "$(json "$WORK/np$n.json" seconds_total)" "$(json "$WORK/np$n.json" seconds_total_mean)" "$(json "$WORK/np$n.json" seconds_eigvalsh)" "$vs" "$(calc "abs($vs / $(json "$WORK/np$n.json" score) - 1)")"
done
echo "numpy BLAS: $(json "$WORK/np200.json" blas)"
echo "(vidscreen: mean and best of Go benchmark runs (200 at n = 200), K in float64 tiles + LAPACKE dsyevd on one thread; numpy: best (total column) and mean of 200 (n = 200) or 1 run, K in float64 + eigvalsh on $THREADS threads)"

fi

if [[ "${MEM:-1}" != 0 ]]; then
	echo "== memory: self-join of 200,000 x 1024 at 0.9 ($THREADS threads)"
	"$PY" bench/kernels_data.py "$WORK/mem.npy" 200000 $D 4
	VIDSCREEN_BENCH_JOIN="$WORK/mem.npy" /usr/bin/time -v "$WORK/kernels.test" -test.run '^$' -test.cpu "$THREADS" -test.bench BenchmarkJoinFile -test.benchtime 1x > "$WORK/mem.txt" 2> "$WORK/mem.time"
	RSS=$(awk -F: '/Maximum resident set size/ {print $2}' "$WORK/mem.time")
	MS=$(awk '/^BenchmarkJoinFile/ {print $3/1e9}' "$WORK/mem.txt")
	echo "peak resident: $(calc "round($RSS / 1024 / 1024, 2)") GiB (/usr/bin/time -v; the input matrix alone is 0.76 GiB); $(metric pairs-found < "$WORK/mem.txt") pairs in $(calc "round($MS, 1)") s, $(metric GFLOP/s < "$WORK/mem.txt") GFLOP/s"
	rm -f "$WORK/mem.npy" "$WORK/mem.parquet"
fi

if [[ "${LONG:-1}" != 0 ]]; then
	echo "== Vendi estimate (SLQ) against the exact value"
	VIDSCREEN_LONG_TESTS=1 go test -count=1 -run 'TestVendiEstimateWithinOnePercent|TestVendiEstimateLarge' -v -timeout 30m ./kernels/ | grep -E 'n=|ok|FAIL'
fi
