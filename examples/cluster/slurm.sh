#!/bin/bash
# A Slurm array job running one `agentbox compare` study in 4 shards, one task each. Slurm
# gives each task SLURM_ARRAY_TASK_ID (0..3, counted from SLURM_ARRAY_TASK_MIN) and
# SLURM_ARRAY_TASK_COUNT, from which agentbox picks the shard. A task that is requeued resumes
# its own file. Submit from the project folder, then merge when all tasks are done:
#   sbatch examples/cluster/slurm.sh
#   agentbox merge results/shard-*.jsonl --out pursuit.jsonl
#SBATCH --job-name=agentbox-pursuit
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --mem=1G
#SBATCH --time=01:00:00
#SBATCH --output=agentbox-pursuit-%A_%a.log
set -euo pipefail
results="${RESULTS:-results}"
mkdir -p "$results"
exec agentbox compare scenes/pursuit.yaml \
  --variant chaser \
  --variant interceptor:scripts/plain_chaser.lua=scripts/interceptor.lua \
  --seeds "${SEEDS:-1..400}" --ticks "${TICKS:-300}" --jobs "${SLURM_CPUS_PER_TASK:-2}" \
  --out "$results/shard-${SLURM_ARRAY_TASK_ID}.jsonl"
