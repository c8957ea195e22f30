#!/bin/bash
# A Slurm array job running one `agentbox compare` study in 4 shards, one task each. Slurm
# gives each task SLURM_ARRAY_TASK_ID with the array's MIN, STEP and COUNT, from which agentbox
# picks the shard: task (ID - MIN) / STEP + 1 of COUNT, so `--array=0-3` and `--array=0-6:2`
# both work. A listed array (`--array=0,3,5`) is refused: its tasks cannot tell their shard.
#
# The program: AGENTBOX, by default `agentbox` on the PATH of the nodes (after
# `cargo install --locked --path .`); on a shared disk you can point it at a build instead:
#   AGENTBOX=$PWD/target/release/agentbox sbatch examples/cluster/slurm.sh
# RESULTS (default results/), SEEDS (1..400) and TICKS (300) set the output folder and study.
# Submit from the project folder, then merge when all tasks are done:
#   sbatch examples/cluster/slurm.sh
#   agentbox merge results/shard-*.jsonl --out pursuit.jsonl
# To run one task again, requeue it (`scontrol requeue JOBID_TASK`, where it resumes its own
# file); do not submit it alone with `sbatch --array=TASK`, which agentbox refuses since the
# task would no longer know how many shards there are. Outside the array, give the shard
# yourself: `agentbox compare ... --shard K/4 --out results/shard-K.jsonl`.
#SBATCH --job-name=agentbox-pursuit
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --mem=1G
#SBATCH --time=01:00:00
#SBATCH --output=agentbox-pursuit-%A_%a.log
set -euo pipefail
results="${RESULTS:-results}"
mkdir -p "$results"
exec "${AGENTBOX:-agentbox}" compare scenes/pursuit.yaml \
  --variant chaser \
  --variant interceptor:scripts/plain_chaser.lua=scripts/interceptor.lua \
  --seeds "${SEEDS:-1..400}" --ticks "${TICKS:-300}" --jobs "${SLURM_CPUS_PER_TASK:-2}" \
  --out "$results/shard-${SLURM_ARRAY_TASK_ID}.jsonl"
