#!/bin/bash
# Runs the audit of a one-node recipe against serve.sh's servers:
#   audit.sh RUN AUDIT-FLAGS...
# = vidscreen audit AUDIT-FLAGS --models RUN/models --device cuda
#   --device-memory VIDSCREEN_DEVICE_MEMORY --out RUN/audit --log-format json
# models.sh writes RUN/models first. Each GPU's ONNX budget (default 24GiB)
# is what serve.sh's vLLM shares leave of it (README.md has the arithmetic);
# the readers' requests go to the replicas. A killed run resumes from
# RUN/audit, asking the servers nothing they answered.
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: audit.sh RUN AUDIT-FLAGS..." >&2; exit 2; }
run=$1
shift
[[ -f $run/models/models.json ]] || { echo "audit.sh: $run/models/models.json not found: run models.sh first" >&2; exit 2; }
exec "${VIDSCREEN_BIN:-vidscreen}" audit "$@" --models "$run/models" --device "${VIDSCREEN_DEVICE:-cuda}" \
	--device-memory "${VIDSCREEN_DEVICE_MEMORY:-24GiB}" --out "$run/audit" --log-format json
