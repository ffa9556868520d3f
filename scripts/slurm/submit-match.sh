#!/bin/bash
# submit-match.sh — queues a sharded `tabula match` on Slurm: an array job of
# SHARDS tasks (match.sbatch) and the merge (merge.sbatch), which starts only
# when every task has succeeded (--dependency=afterok).  Settings come from
# the environment (see the top of match.sbatch); extra arguments go to both
# sbatch calls (e.g. --partition=short --account=myproject).
#   SHARDS=16 GAMES=100000 AGENTS=ismcts:hard,ismcts:normal scripts/slurm/submit-match.sh
# Prints the two job ids and where the table will be.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SHARDS=${SHARDS:-4}
case $SHARDS in ''|*[!0-9]*|0) echo "submit-match.sh: SHARDS must be a whole number from 1" >&2; exit 2;; esac
export OUT=${OUT:-$PWD/tabula-match-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
array=$(sbatch --parsable --export=ALL --array=0-$((SHARDS - 1)) --chdir="$OUT" "$@" "$here/match.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --export=ALL --dependency=afterok:"$array" --kill-on-invalid-dep=yes \
  --chdir="$OUT" "$@" "$here/merge.sbatch")
merge=${merge%%;*}
echo "array job $array ($SHARDS shards), merge job $merge"
echo "the table will be in $OUT/table.txt, the records in $OUT/match.json"
