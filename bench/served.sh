#!/usr/bin/env bash
# bench/served.sh: vidscreen's served-reader client against one and eight
# vLLM-like test servers (bench/servedsim) on loopback.
#
#   bench/served.sh            # the default sizes (about 10 minutes on 2 cores)
#   STEPS="4 5" bench/served.sh    # some steps only
#   ITEMS=500000 bench/served.sh   # the text readers at pool size (hours here)
#   STEPS=7 bench/served.sh        # the client's memory at pool size (POOL_ITEMS, 4M prompts)
#   TEXT_TPS=2600 ONE=0 BENCH=1250 ITEMS=10000 STEPS=1 bench/served.sh
#                                  # 8 servers at a tenth of the rate, 64 equal units: the
#                                  # client's spread, not this machine's CPU (docs/scale.md)
#
# 1. The text readers (options-only and blind lm_reader, 4 orders each: 8
#    prompts an item) through models/served as the attack stage asks them
#    (64 prompts a call, -workers units at once), against 1 server and
#    against 8 (the driver spreads calls over them, least outstanding
#    first), and against 8 as replicas (one reader over all eight, which
#    the client spreads: models.json's servers). Prints requests/s against the servers' own capacity (their
#    requests per busy second), the client's CPU per request and peak
#    memory, and checks that 1 and 8 servers give the same answers.
# 2. The same at this machine's default --workers (2 units at once).
# 3. The client's ceiling: 8 servers that take no time, CEIL_ITEMS items.
# 4. The VLM reader on a sample (VLM_ITEMS items, 4 a video, 32 frames of
#    448x252, Qwen2.5-VL's image tokens): prefill tokens computed in
#    video-grouped order and in item (shuffled) order at 64 in flight, and
#    in grouped order one request at a time (the most sharing can save).
# 5. kill -9 during a text run with a response store, then the same run
#    again: the seconds to read the store back, and the requests asked
#    twice (over both runs: the requests past one a prompt).
# 6. The VLM sample against 8 replicas: whether a video's queries kept on
#    one replica keep the grouped order's saving.
# 7. (only when named in STEPS) The text readers at pool size, POOL_ITEMS
#    items, against 8 servers that take no time, with a response store,
#    under GNU time: the client's peak memory and CPU per request.
#
# Server model: servedsim's flags below; TEXT_TPS and VLM_TPS are the
# prefill rates of one H200 assumed in docs/scale.md (VLM_TPS here is 10x
# that, a faster clock, so that the sample runs in a minute: its token
# counts do not depend on the clock). Environment: WORK (default a temp
# dir), ITEMS, BENCH (items a unit), ONE (0: step 1 without the single
# server), POOL_ITEMS, CEIL_ITEMS, VLM_ITEMS, WORKERS, STEPS (default "1 2 3 4 5 6":
# the steps to run; 2 and 5 use step 1's reports when they are in WORK).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
ITEMS=${ITEMS:-6000}
BENCH=${BENCH:-5000}
POOL_ITEMS=${POOL_ITEMS:-500000}
CEIL_ITEMS=${CEIL_ITEMS:-25000}
VLM_ITEMS=${VLM_ITEMS:-2000}
WORKERS=${WORKERS:-32}
TEXT_TPS=${TEXT_TPS:-26000}
VLM_TPS=${VLM_TPS:-200000}
WORK=${WORK:-$(mktemp -d)}
STEPS=" ${STEPS:-1 2 3 4 5 6} "
step() { [[ "$STEPS" == *" $1 "* ]]; }
mkdir -p "$WORK/bin"
go build -o "$WORK/bin/" ./bench/servedsim ./bench/servedclient
load() { cut -d' ' -f1-3 /proc/loadavg; }
: >"$WORK/pids"
cleanup() { while read -r p; do kill "$p" 2>/dev/null || true; done <"$WORK/pids"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
# start NAME N ARGS...: N servers; prints their URLs, comma-separated.
start() {
	local name=$1 n=$2 urls=()
	shift 2
	for i in $(seq 1 "$n"); do
		rm -f "$WORK/$name-$i.url"
		"$WORK/bin/servedsim" -url-file "$WORK/$name-$i.url" -stats "$WORK/$name-$i.stats.json" -max-time 2h "$@" >/dev/null 2>>"$WORK/servers.log" &
		echo $! >>"$WORK/pids"
	done
	for i in $(seq 1 "$n"); do
		for _ in $(seq 100); do [[ -s "$WORK/$name-$i.url" ]] && break; sleep 0.1; done
		urls+=("$(cat "$WORK/$name-$i.url")")
	done
	local IFS=,
	echo "${urls[*]}"
}
client() { "$WORK/bin/servedclient" "$@"; }
report() { /usr/bin/python3 bench/served_report.py "$@"; }
show() { report show; }
echo "== machine: $(nproc) cores, load $(load); WORK=$WORK"
text=(-model qwen2.5-7b-instruct -prefill-tps "$TEXT_TPS" -max-seqs 256 -max-batched-tokens 8192 -cache-tokens 1800000)
if step 1 && [[ ${ONE:-1} == 1 ]]; then one=$(start one 1 "${text[@]}"); fi
if step 1 || step 2 || step 5; then eight=$(start eight 8 "${text[@]}"); fi

if step 1; then
	echo "== 1. text readers, $ITEMS items x 2 readers x 4 orders, units of $BENCH items, --workers $WORKERS, concurrency 256 a server, $TEXT_TPS tokens/s a server (load $(load))"
	if [[ ${ONE:-1} == 1 ]]; then
		echo "  1 server:"; client -servers "$one" -model qwen2.5-7b-instruct -items "$ITEMS" -benchmark "$BENCH" -workers "$WORKERS" | tee "$WORK/text1.json" | show
	fi
	echo "  8 servers:"; client -servers "$eight" -model qwen2.5-7b-instruct -items "$ITEMS" -benchmark "$BENCH" -workers "$WORKERS" | tee "$WORK/text8.json" | show
	[[ ${ONE:-1} == 1 ]] && report checksums "$WORK/text1.json" "$WORK/text8.json"
	echo "  8 servers as replicas (models.json's servers: the client spreads the requests):"
	client -replicas -servers "$eight" -model qwen2.5-7b-instruct -items "$ITEMS" -benchmark "$BENCH" -workers "$WORKERS" | tee "$WORK/text8r.json" | show
	report checksums "$WORK/text8.json" "$WORK/text8r.json"
fi

if step 2; then
	echo "== 2. the same against 8 servers at --workers 2, this machine's default (load $(load))"
	client -servers "$eight" -model qwen2.5-7b-instruct -items "$ITEMS" -workers 2 | tee "$WORK/text8w2.json" | show
fi

if step 3; then
	echo "== 3. the client's ceiling: 8 servers that take no time, $CEIL_ITEMS items (load $(load))"
	fast=$(start fast 8 -model qwen2.5-7b-instruct -prefill-tps 1e12 -step 0 -cache-tokens 0)
	client -servers "$fast" -model qwen2.5-7b-instruct -items "$CEIL_ITEMS" -workers "$WORKERS" | tee "$WORK/ceiling.json" | show
fi

if step 4; then
	echo "== 4. VLM reader, $VLM_ITEMS items (4 a video, 32 frames), 1 server, concurrency 64, Qwen2.5-VL tokens, cache 150,000 tokens (load $(load))"
	vlm=$(start vlm 1 -model qwen2.5-vl-7b -family qwen2.5-vl -prefill-tps "$VLM_TPS" -cache-tokens 150000)
	for o in grouped item; do
		echo "  $o order:"; client -vlm -servers "$vlm" -model qwen2.5-vl-7b -items "$VLM_ITEMS" -concurrency 64 -order "$o" | tee "$WORK/vlm-$o.json" | show
	done
	echo "  grouped order, one request at a time (the most sharing can save: every later item of a video finds its first's prefix):"
	client -vlm -servers "$vlm" -model qwen2.5-vl-7b -items "$VLM_ITEMS" -concurrency 1 -order grouped | tee "$WORK/vlm-serial.json" | show
	report prefix "$WORK/vlm-grouped.json" "$WORK/vlm-item.json" "$WORK/vlm-serial.json"
fi

if step 5; then
	echo "== 5. kill -9 and resume: 8 servers, $ITEMS items, a response store (load $(load))"
	rm -f "$WORK/store.jsonl"
	"$WORK/bin/servedclient" -servers "$eight" -model qwen2.5-7b-instruct -items "$ITEMS" -workers "$WORKERS" -store "$WORK/store.jsonl" >"$WORK/killed.json" 2>&1 &
	cp=$! # the client itself, not a subshell: kill -9 must reach it
	sleep "${KILL_AFTER:-8}"
	kill -9 "$cp"; wait "$cp" 2>/dev/null || true
	echo "  killed after ${KILL_AFTER:-8} s; the store holds $(wc -l <"$WORK/store.jsonl") records"
	client -servers "$eight" -model qwen2.5-7b-instruct -items "$ITEMS" -workers "$WORKERS" -store "$WORK/store.jsonl" -reset=false | tee "$WORK/resumed.json" | show
	report resume "$WORK/resumed.json" "$WORK/text1.json"
fi

if step 6; then
	echo "== 6. VLM reader against 8 replicas, $VLM_ITEMS items, concurrency 8 a replica, cache 20,000 tokens each (load $(load))"
	vlm8=$(start vlm8 8 -model qwen2.5-vl-7b -family qwen2.5-vl -prefill-tps "$VLM_TPS" -cache-tokens 20000)
	for o in grouped item; do
		echo "  $o order:"; client -vlm -servers "$vlm8" -model qwen2.5-vl-7b -items "$VLM_ITEMS" -concurrency 8 -order "$o" | tee "$WORK/vlm8-$o.json" | show
	done
	report prefix "$WORK/vlm8-grouped.json" "$WORK/vlm8-item.json"
fi

if step 7; then
	echo "== 7. the text readers at pool size: $POOL_ITEMS items x 2 readers x 4 orders, 8 servers that take no time, a response store, under GNU time (load $(load))"
	pool=$(start pool 8 -model qwen2.5-7b-instruct -prefill-tps 1e12 -step 0 -cache-tokens 0)
	rm -f "$WORK/pool-store.jsonl"
	/usr/bin/time -v "$WORK/bin/servedclient" -servers "$pool" -model qwen2.5-7b-instruct -items "$POOL_ITEMS" -workers "$WORKERS" -store "$WORK/pool-store.jsonl" >"$WORK/pool.json" 2>"$WORK/pool-time.txt"
	show <"$WORK/pool.json"
	grep -E "Maximum resident|Elapsed|User time|System time" "$WORK/pool-time.txt" | sed 's/^\t*/  /'
	echo "  the store: $(wc -l <"$WORK/pool-store.jsonl") replies, $(du -h "$WORK/pool-store.jsonl" | cut -f1); read back as a resumed run reads it first: $("$WORK/bin/servedclient" -load-only -store "$WORK/pool-store.jsonl")"
fi

echo "== done (load $(load))"
