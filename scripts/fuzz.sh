#!/usr/bin/env bash
# Runs every fuzz target that reads bytes from outside for a short time
# each (FUZZTIME, default 3s): make test calls it after the unit tests.
# The seed corpora already run as plain tests in `go test ./...`; this
# explores past them. A failure leaves the input under the package's
# testdata/fuzz/ and fails the script.
#
# -fuzzminimizetime 1s: Go minimises each new-coverage input, removing
# subsets of bytes (quadratic in its length) for up to a minute by default,
# and counts none of those runs in its execs/s; a 3 s run would otherwise
# spend its time there (seen as seconds at "0 execs/s").
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-3s}
targets=(
	"./harness FuzzJSONLReader"
	"./harness FuzzParquetReader"
	"./harness FuzzReadReference"
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
	"./kernels/npy FuzzRead"
	"./models FuzzParseManifest"
	"./models/tokenizer FuzzFromJSON"
	"./decode FuzzParseSampler"
)
for t in "${targets[@]}"; do
	set -- $t
	echo "fuzz $1 $2 for $FUZZTIME"
	"$GO" test "$1" -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 1s -parallel 2 >/tmp/vidscreen-fuzz.$$ 2>&1 || {
		cat /tmp/vidscreen-fuzz.$$
		rm -f /tmp/vidscreen-fuzz.$$
		exit 1
	}
	tail -n 1 /tmp/vidscreen-fuzz.$$
done
rm -f /tmp/vidscreen-fuzz.$$
