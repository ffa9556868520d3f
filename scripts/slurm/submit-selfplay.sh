#!/bin/bash
# submit-selfplay.sh — queues `tabula selfplay` on Slurm as an array job of
# SHARDS tasks (selfplay.sbatch), settings from the environment (see the top
# of selfplay.sbatch); extra arguments go to sbatch (e.g. --partition=...).
#   SHARDS=64 GAMES=100000 AGENT=ismcts:normal scripts/slurm/submit-selfplay.sh
# With TRAIN set to a command (e.g. "python3 examples/python/train.py --data
# \$OUT"), that command is queued too, to run once every task succeeded
# (--dependency=afterok).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SHARDS=${SHARDS:-4}
case $SHARDS in ''|*[!0-9]*|0) echo "submit-selfplay.sh: SHARDS must be a whole number from 1" >&2; exit 2;; esac
export OUT=${OUT:-$PWD/tabula-selfplay-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
array=$(sbatch --parsable --export=ALL --array=0-$((SHARDS - 1)) --chdir="$OUT" "$@" "$here/selfplay.sbatch")
array=${array%%;*}
echo "array job $array ($SHARDS shards) writing $OUT"
if [ -n "${TRAIN:-}" ]; then
  train=$(sbatch --parsable --export=ALL --dependency=afterok:"$array" --kill-on-invalid-dep=yes \
    --chdir="$OUT" --job-name=tabula-train --output=tabula-train-%j.log "$@" --wrap="$TRAIN")
  echo "training job ${train%%;*} after it"
fi
