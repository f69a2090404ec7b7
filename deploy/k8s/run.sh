#!/usr/bin/env bash
# Runs a split vidscreen audit on Kubernetes: the shard Indexed Job, then,
# once it is complete, the merge Job. The claim of pvc.yaml must exist and
# hold the inputs (kubectl apply -f pvc.yaml, then copy them in).
#
#   deploy/k8s/run.sh [TIMEOUT-SECONDS]    # for each Job, default 86400
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
timeout=${1:-86400}

# wait_job waits until a Job is Complete (status 0) or Failed (status 1).
wait_job() {
  local job=$1 deadline=$((SECONDS + timeout)) conds
  while [ "$SECONDS" -lt "$deadline" ]; do
    conds=$(kubectl get job "$job" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}')
    case " $conds " in
    *" Complete "*) return 0 ;;
    *" Failed "*) echo "run.sh: job $job failed; kubectl logs job/$job" >&2; return 1 ;;
    esac
    sleep 10
  done
  echo "run.sh: job $job not complete after $timeout s" >&2
  return 1
}

kubectl apply -f "$here/shard-job.yaml"
wait_job vidscreen-shards
kubectl apply -f "$here/merge-job.yaml"
wait_job vidscreen-merge
