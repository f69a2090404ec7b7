#!/usr/bin/env bash
# Submits a vidscreen audit split into N shards: an array job of N tasks
# (shard.sbatch, one shard and by default one GPU each) and a merge job
# (merge.sbatch) that starts when every task has succeeded.
#
#   deploy/slurm/submit.sh N RUN -- AUDIT-FLAGS...
#
# RUN is a directory every node sees (shared file system); the shards write
# RUN/shard-i, the merge RUN/merged, the jobs' logs go to RUN/logs. The audit
# flags are those of `vidscreen audit` without --out and --shard, with paths
# the nodes can read. It prints the two job ids: ARRAY MERGE.
#
# Environment:
#   VIDSCREEN_BIN         the vidscreen binary on the nodes (default: vidscreen on PATH)
#   VIDSCREEN_GPUS        GPUs per shard task (default 1; 0 asks for none, as on a CPU-only cluster)
#   VIDSCREEN_CPUS        CPUs per shard task (default 1)
#   VIDSCREEN_SBATCH_ARGS more sbatch options for both jobs (--partition, --time, --account, ...)
#   VIDSCREEN_MERGE_ARGS  more sbatch options for the merge job only (its --cpus-per-task, --mem)
set -euo pipefail

usage() { echo "usage: $0 N RUN -- AUDIT-FLAGS..." >&2; exit 2; }
[ $# -ge 3 ] || usage
n=$1
run=$2
shift 2
[ "$1" = -- ] || usage
shift
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: N must be a positive integer, got '$n'" >&2; exit 2; }
gpus=${VIDSCREEN_GPUS:-1}
[[ "$gpus" =~ ^[0-9]+$ ]] || { echo "submit.sh: VIDSCREEN_GPUS must be 0 or more, got '$gpus'" >&2; exit 2; }
cpus=${VIDSCREEN_CPUS:-1}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$run/logs"
run=$(cd "$run" && pwd)

read -r -a common <<<"${VIDSCREEN_SBATCH_ARGS:-}"
read -r -a mergeargs <<<"${VIDSCREEN_MERGE_ARGS:-}"
gres=()
if [ "$gpus" -gt 0 ]; then gres=(--gres="gpu:$gpus"); fi
export VIDSCREEN_RUN="$run" VIDSCREEN_SHARDS="$n"

array=$(sbatch --parsable --array="0-$((n - 1))" --cpus-per-task="$cpus" "${gres[@]}" "${common[@]}" \
  --output="$run/logs/shard-%a.log" --export=ALL "$here/shard.sbatch" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes "${common[@]}" "${mergeargs[@]}" \
  --output="$run/logs/merge.log" --export=ALL "$here/merge.sbatch")
merge=${merge%%;*}
echo "$array $merge"
