#!/bin/bash
# Stops the servers serve.sh started for RUN (their pids in RUN/pids):
#   stop.sh RUN
# SIGTERM, then SIGKILL to those still running after 30 seconds.
set -uo pipefail
[[ $# -eq 1 && -f $1/pids ]] || { echo "usage: stop.sh RUN   (RUN/pids is written by serve.sh)" >&2; exit 2; }
pids=()
while read -r pid _ _; do
	[[ $pid =~ ^[0-9]+$ ]] && pids+=("$pid")
done <"$1/pids"
((${#pids[@]})) || exit 0
kill "${pids[@]}" 2>/dev/null
for ((t = 0; t < 30; t++)); do
	alive=0
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
	((alive)) || exit 0
	sleep 1
done
kill -9 "${pids[@]}" 2>/dev/null
exit 0
