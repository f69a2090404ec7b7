#!/bin/bash
# Starts the vLLM servers of a one-node audit and waits until each answers
# /v1/models:
#   serve.sh RUN
# On each of VIDSCREEN_GPUS GPUs (default 8), one server of the VLM (the
# vlm_reader and the captioner) on port VIDSCREEN_VLM_PORT+i and one of the
# LM (the lm_reader) on VIDSCREEN_LM_PORT+i: eight replicas of each model,
# which models.sh lists in models.json's "servers". With
# VIDSCREEN_NODE_MODE=dp, one server of each model with --data-parallel-size
# N instead (one endpoint each; see README.md for why the audit prefers the
# replicas). The VLMs start first and the LMs once every VLM answers, so
# that no two vLLM instances profile one GPU's memory at once.
# The servers' pids go to RUN/pids (stop.sh ends them), their logs to
# RUN/logs/. Exit 2 on bad usage, 1 when a server dies or does not answer
# within VIDSCREEN_SERVE_TIMEOUT seconds (default 1800).
set -euo pipefail
usage() {
	echo "usage: serve.sh RUN   (environment: VIDSCREEN_GPUS, VIDSCREEN_NODE_MODE=replicas|dp, VLLM_BIN, VIDSCREEN_VLM_MODEL, VIDSCREEN_LM_MODEL, ...; see deploy/node/README.md)" >&2
	exit 2
}
[[ $# -eq 1 && -n $1 ]] || usage
run=$1
gpus=${VIDSCREEN_GPUS:-8}
[[ $gpus =~ ^[1-9][0-9]*$ ]] || { echo "serve.sh: VIDSCREEN_GPUS=$gpus is not a number of GPUs" >&2; exit 2; }
mode=${VIDSCREEN_NODE_MODE:-replicas}
[[ $mode == replicas || $mode == dp ]] || { echo "serve.sh: VIDSCREEN_NODE_MODE=$mode is neither replicas nor dp" >&2; exit 2; }
vllm=${VLLM_BIN:-vllm}
command -v "$vllm" >/dev/null || { echo "serve.sh: $vllm not found (set VLLM_BIN)" >&2; exit 2; }
command -v curl >/dev/null || { echo "serve.sh: needs curl, to wait for the servers' /v1/models" >&2; exit 2; }
vlm=${VIDSCREEN_VLM_MODEL:-Qwen/Qwen3-VL-8B-Instruct}
lm=${VIDSCREEN_LM_MODEL:-Qwen/Qwen3-8B}
vlm_port=${VIDSCREEN_VLM_PORT:-8000}
lm_port=${VIDSCREEN_LM_PORT:-8100}
# Each GPU's memory: 45% for the VLM, 30% for the LM, the rest (25%) for
# vidscreen's ONNX roles (--device-memory in audit.sh) and the CUDA contexts.
vlm_mem=${VIDSCREEN_VLM_MEMORY:-0.45}
lm_mem=${VIDSCREEN_LM_MEMORY:-0.30}
timeout=${VIDSCREEN_SERVE_TIMEOUT:-1800}
# 32 frames a prompt, 128 for --reference-model's probe (about 40K tokens at
# 448 pixels); prefix caching so that a video's frames are computed once;
# 20 log-probabilities, as the readers ask.
vlm_flags=(--max-model-len 40960 --limit-mm-per-prompt '{"image":128}' --enable-prefix-caching --max-logprobs 20 --max-num-seqs 64)
lm_flags=(--max-model-len 8192 --enable-prefix-caching --max-logprobs 20 --max-num-seqs 128)

mkdir -p "$run/logs"
: >"$run/pids"
ports=()
# start NAME DEVICES PORT MODEL UTILIZATION FLAGS...
start() {
	local name=$1 devices=$2 port=$3 model=$4 util=$5
	shift 5
	CUDA_VISIBLE_DEVICES=$devices nohup "$vllm" serve "$model" --host 127.0.0.1 --port "$port" \
		--gpu-memory-utilization "$util" "$@" >"$run/logs/$name.log" 2>&1 </dev/null &
	echo "$! $name $port" >>"$run/pids"
	ports+=("$port")
}
# ready: waits for every port started so far to answer /v1/models.
ready() {
	local deadline=$((SECONDS + timeout)) port pid name p
	for port in "${ports[@]}"; do
		until curl -sf -o /dev/null "http://127.0.0.1:$port/v1/models"; do
			while read -r pid name p; do
				if [[ $p == "$port" ]] && ! kill -0 "$pid" 2>/dev/null; then
					echo "serve.sh: $name (port $port) exited; the end of $run/logs/$name.log:" >&2
					tail -n 20 "$run/logs/$name.log" >&2
					exit 1
				fi
			done <"$run/pids"
			if ((SECONDS > deadline)); then
				echo "serve.sh: port $port does not answer /v1/models after ${timeout}s; see $run/logs/" >&2
				exit 1
			fi
			sleep 1
		done
	done
}

if [[ $mode == replicas ]]; then
	for ((i = 0; i < gpus; i++)); do
		start "vlm-$i" "$i" $((vlm_port + i)) "$vlm" "$vlm_mem" "${vlm_flags[@]}"
	done
	ready
	for ((i = 0; i < gpus; i++)); do
		start "lm-$i" "$i" $((lm_port + i)) "$lm" "$lm_mem" "${lm_flags[@]}"
	done
	ready
else
	all=$(seq -s, 0 $((gpus - 1)))
	start vlm-dp "$all" "$vlm_port" "$vlm" "$vlm_mem" --data-parallel-size "$gpus" --data-parallel-rpc-port 13345 "${vlm_flags[@]}"
	ready
	start lm-dp "$all" "$lm_port" "$lm" "$lm_mem" --data-parallel-size "$gpus" --data-parallel-rpc-port 13346 "${lm_flags[@]}"
	ready
fi
echo "serve.sh: ${#ports[@]} servers answer (ports ${ports[*]}); stop them with deploy/node/stop.sh $run"
