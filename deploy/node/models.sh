#!/bin/bash
# Writes the models directory of a one-node audit and prints its path:
#   models.sh RUN ONNX-DIR
# RUN/models/models.json serves the readers from serve.sh's servers, each
# role's replicas in "servers" (one URL each with VIDSCREEN_NODE_MODE=dp):
# vlm_reader and captioner from the VLM's, lm_reader from the LM's. Its
# other roles (image_text, text_embed, dup_confirm: ONNX, on the GPUs beside
# vLLM) are ONNX-DIR/models.json's, their folders resolved against ONNX-DIR;
# ONNX-DIR "-" means none. Same environment as serve.sh. Needs python3 (vLLM's
# node has it).
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: models.sh RUN ONNX-DIR|-" >&2; exit 2; }
run=$1 onnx=$2
gpus=${VIDSCREEN_GPUS:-8}
mode=${VIDSCREEN_NODE_MODE:-replicas}
[[ $gpus =~ ^[1-9][0-9]*$ ]] || { echo "models.sh: VIDSCREEN_GPUS=$gpus is not a number of GPUs" >&2; exit 2; }
[[ $mode == replicas || $mode == dp ]] || { echo "models.sh: VIDSCREEN_NODE_MODE=$mode is neither replicas nor dp" >&2; exit 2; }
if [[ $onnx != - && ! -f $onnx/models.json ]]; then
	echo "models.sh: $onnx/models.json not found (the ONNX roles' manifest)" >&2
	exit 2
fi
mkdir -p "$run/models"
GPUS=$gpus MODE=$mode ONNX=$onnx OUT=$run/models/models.json \
	VLM=${VIDSCREEN_VLM_MODEL:-Qwen/Qwen3-VL-8B-Instruct} LM=${VIDSCREEN_LM_MODEL:-Qwen/Qwen3-8B} \
	VLM_PORT=${VIDSCREEN_VLM_PORT:-8000} LM_PORT=${VIDSCREEN_LM_PORT:-8100} \
	VLM_CONC=${VIDSCREEN_VLM_CONCURRENCY:-32} LM_CONC=${VIDSCREEN_LM_CONCURRENCY:-64} \
	python3 - <<'PY'
import json, os
env = os.environ
gpus, dp = int(env["GPUS"]), env["MODE"] == "dp"

def servers(port):
    # One endpoint a GPU (replicas), or vLLM's one data-parallel endpoint.
    return [f"http://127.0.0.1:{int(port) + i}/v1" for i in range(1 if dp else gpus)]

def conc(per_replica):
    # server_concurrency is per endpoint: one dp endpoint fronts every GPU.
    return int(per_replica) * (gpus if dp else 1)

roles = {}
if env["ONNX"] != "-":
    onnx = os.path.abspath(env["ONNX"])
    with open(os.path.join(onnx, "models.json")) as f:
        for role, entry in json.load(f)["roles"].items():
            if role in ("vlm_reader", "captioner", "lm_reader"):
                continue  # served below
            for e in entry if isinstance(entry, list) else [entry]:
                if "dir" in e and not os.path.isabs(e["dir"]):
                    e["dir"] = os.path.join(onnx, e["dir"])
            roles[role] = entry
vlm = {"servers": servers(env["VLM_PORT"]), "server_model": env["VLM"], "server_concurrency": conc(env["VLM_CONC"])}
roles["vlm_reader"] = vlm
roles["captioner"] = dict(vlm, max_new_tokens=48)
# Qwen3's template would open a think block before the answer letter.
roles["lm_reader"] = {"servers": servers(env["LM_PORT"]), "server_model": env["LM"], "server_concurrency": conc(env["LM_CONC"]),
                      "server_chat_template_kwargs": {"enable_thinking": False}}
with open(env["OUT"], "w") as f:
    json.dump({"roles": roles}, f, indent=2)
    f.write("\n")
PY
echo "$run/models"
