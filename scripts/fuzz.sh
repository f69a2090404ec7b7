#!/usr/bin/env bash
# Runs every fuzz target that reads bytes from outside for a fixed number
# of inputs each (FUZZTIME, default 4000x). make fuzz runs it so; make test
# calls it after the unit tests with FUZZTIME=300x (the Makefile's
# TESTFUZZTIME), a smoke pass per push.
# The seed corpora (f.Add in each target, or a helper such as fuzzRead or
# fuzzAnno that adds them) already run as plain tests in `go test ./...`;
# this explores past them. A failure leaves the input under the package's
# testdata/fuzz/ and fails the script.
#
# Why 300x for make test: each `go test -fuzz` call pays a fixed cost
# before its first input (an instrumented build of the package, cached
# after the first target of that package; the link; starting the workers;
# running the seeds for the baseline coverage). Measured on one target
# (./harness/items/formats FuzzNExTQA, build cached, 2 loaded cores):
# 9.4 s at 300x, of which 1.3 s fuzzing, and 38 s at 4000x, of which 31 s
# fuzzing. At 300x the 40 targets cost about their fixed cost: the whole
# pass took 5.9 minutes on those loaded cores (several builds cached),
# against 13 minutes for 4000x on a fresh idle 2-core machine; make fuzz
# (and TESTFUZZTIME=4000x make test) still explores the full count.
#
# -fuzzminimizetime 1s: Go minimises each new-coverage input, removing
# subsets of bytes (quadratic in its length) for up to a minute by default,
# and counts none of those runs in its execs/s; a 3 s run would otherwise
# spend its time there (seen as seconds at "0 execs/s").
#
# FUZZTIME counts inputs, not seconds: with a duration, Go 1.26's fuzzing
# coordinator can fail a target that found nothing with a bare "context
# deadline exceeded" when its workers are slow to stop at the deadline
# (golang/go#75804, fixed in Go 1.27), which a loaded 2-core CI machine
# hits. A count has no deadline to race; -timeout still fails a target
# whose input hangs, with every goroutine's stack.
#
# Go's fuzzer has a second spurious failure (golang/go#56238): a worker
# process that stalls (the machine is loaded, or it sits in minimisation)
# is reported as "fuzzing process hung or terminated unexpectedly", with
# the input it held written as a failing one. So a failed run is judged by
# its input: the script re-runs the input it wrote as a plain test. If that
# fails, or takes over 2 s, the input is a real finding: it stays in
# testdata/fuzz/ and the script fails. If it passes (or no input was written and the output is
# only the coordinator's own error), the failure was the fuzzer's: the
# input is removed, the script says so, and the target is fuzzed again, up
# to three times in all; a target that fails so every time fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-4000x}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
targets=(
	"./harness FuzzJSONLReader"
	"./harness FuzzParquetReader"
	"./harness/items FuzzParseList"
	"./harness/items FuzzOptionsInQuestion"
	"./harness/predictions FuzzReadJSONL"
	"./harness/items/formats FuzzReadLMMSEval"
	"./harness/items/formats FuzzReadDelimited"
	"./harness/items/formats FuzzReadVLMEvalKitJSON"
	"./harness/items/formats FuzzNExTQA"
	"./harness/items/formats FuzzEgoSchema"
	"./harness/items/formats FuzzEgoSchemaParquet"
	"./harness/items/formats FuzzMVBench"
	"./harness/items/formats FuzzVideoMMEJSON"
	"./harness/items/formats FuzzVideoMMEParquet"
	"./harness/items/spec FuzzSpec"
	"./harness/items/records FuzzReadJSON"
	"./harness/items/records FuzzReadTable"
	"./harness/items/formats FuzzPerceptionTest"
	"./harness/items/formats FuzzTempCompass"
	"./harness/items/formats FuzzMLVU"
	"./harness/items/formats FuzzLongVideoBench"
	"./harness/items/formats FuzzSTAR"
	"./harness/items/formats FuzzNExTGQA"
	"./harness/items/formats FuzzTVBench"
	"./harness/items/formats FuzzLMMSEvalTask"
	"./harness/items/formats FuzzLongVideoBenchParquet"
	"./harness/items/formats FuzzPerceptionTestParquet"
	"./harness/items/formats FuzzNExTQAParquet"
	"./harness/answer FuzzParse"
	"./harness/vidomni FuzzReadLabels"
	"./harness/vidomni FuzzParseReply"
	"./harness/vidomni FuzzSplit"
	"./models/openai FuzzOpenStore"
	"./models/imageprep FuzzParseConfig"
	"./gpu FuzzParseSpec"
	"./kernels/npy FuzzRead"
	"./models FuzzParseManifest"
	"./models/tokenizer FuzzFromJSON"
	"./models/tokenizer FuzzParseSentencePiece"
	"./decode FuzzParseSampler"
)

# spurious reports whether a failed fuzz run in $log was the fuzzer's own
# failure rather than an input that breaks the target ($1: package, $2:
# target). An input it wrote that passes as a plain test is removed.
spurious() {
	local input
	input=$(sed -n 's/^[[:space:]]*Failing input written to \(testdata\/fuzz\/[^[:space:]]*\)$/\1/p' "$log" | head -n 1)
	if [ -n "$input" ]; then
		grep -q 'fuzzing process hung or terminated unexpectedly' "$log" || return 1
		local id=${input##*/} secs
		# It must pass, and quickly: an input that takes seconds is a real
		# hang the worker was right to report.
		secs=$("$GO" test "$1" -run "^$2\$/^$id\$" -count 1 -v 2>&1 |
			sed -n "s/^[[:space:]]*--- PASS: $2\/$id (\([0-9.]*\)s)$/\1/p") || return 1
		if [ -n "$secs" ] && awk -v s="$secs" 'BEGIN { exit !(s < 2) }'; then
			rm -f "$1/$input"
			rmdir "$1/testdata/fuzz/$2" "$1/testdata/fuzz" "$1/testdata" 2>/dev/null || true
			return 0
		fi
		return 1
	fi
	# No input written: only the coordinator's own errors may be in the
	# output, no test failure, panic or race report.
	grep -Eq 'context deadline exceeded|fuzzing process hung or terminated unexpectedly' "$log" || return 1
	! grep -Eq '^[[:space:]]+[^[:space:]]+_test\.go:[0-9]+:|^panic:|WARNING: DATA RACE' "$log"
}

for t in "${targets[@]}"; do
	set -- $t
	echo "fuzz $1 $2 for $FUZZTIME"
	for attempt in 1 2 3; do
		if "$GO" test "$1" -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 1s -parallel 2 -timeout 5m >"$log" 2>&1; then
			tail -n 1 "$log"
			continue 2
		fi
		if ! spurious "$1" "$2"; then
			cat "$log"
			exit 1
		fi
		echo "fuzz $1 $2: attempt $attempt failed in Go's fuzzer, not on an input (golang/go#56238, #75804):"
		grep -E 'context deadline exceeded|hung or terminated|Failing input' "$log" | sed 's/^/    /'
	done
	echo "fuzz $1 $2: Go's fuzzer failed three times in a row; last output:"
	cat "$log"
	exit 1
done
