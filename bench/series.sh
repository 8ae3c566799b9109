#!/usr/bin/env bash
# Interleaved rounds of the runs benchmark and its peers, one heavy process at a time, as issue 14
# asks its target to be measured: this platform over HTTP (`bench/runs.ts`), the stack floor with
# the journal and authentication (`bench/stackFloorRuns.ts`), the same with group commit
# (`BENCH_FLOOR_BATCHED=1`), the plain `pg` floor (in-process and
# `START=http`), the batched floor (group commit, `START=http`) and DBOS (`START=http`) from
# ../shared/bench-peers. Then medians and same-series ratios
# (`bench/seriesSummary.ts`). This machine's speed drifts by tens of per cent within minutes: only
# ratios within one series mean anything.
#
# Every engine warms up the same way (WARMUP runs before the measured ones, like `bench/runs.ts`'s
# 300): until 2026-11-27 the peers ran cold (their default), which halved DBOS's figure.
#
# Usage: bench/series.sh [ROUNDS]   (default 3; about two minutes a round)
# RUNS: runs measured by every engine (default 300, each one's default); WARMUP (default 300).
# PEERS: the peers' folder (default ../shared/bench-peers next to this checkout); they run from a
# scratch copy (PEERS_DIR, default $TMPDIR/bp-bench-peers), installed on first use.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-3}"
peers="${PEERS:-$here/../shared/bench-peers}"
scratch="${PEERS_DIR:-${TMPDIR:-/tmp}/bp-bench-peers}"
if [ ! -d "$scratch/node_modules" ]; then
  mkdir -p "$scratch"
  cp -r "$peers/." "$scratch/"
  (cd "$scratch" && npm install --no-audit --no-fund >/dev/null)
  ln -sfn "$here/node_modules" "$scratch/sketch/node_modules"
  # The peers print after dropping their database, and that drop can kill an idle pool client whose
  # unhandled error ends the process first: print before it (the measurement is untouched).
  node -e '
    const fs = require("fs")
    for (const f of ["floor-bench.ts", "dbos-bench.ts"]) {
      const p = process.argv[1] + "/" + f, line = "  for (const l of out) console.log(l)\n"
      let s = fs.readFileSync(p, "utf8")
      if (!s.includes(line)) continue
      s = s.replace(line, "").replace("  tracer.disable()\n", line + "  tracer.disable()\n")
      fs.writeFileSync(p, s)
    }' "$scratch"
fi
runs="${RUNS:-300}"
warmup="${WARMUP:-300}"
log="$(mktemp)"
echo "RUNS=$runs WARMUP=$warmup" | tee -a "$log"
results() { grep -E "RESULT|CPU" | sed 's/.*message="//; s/"$//' | tr '\n' ' '; echo; }
for i in $(seq 1 "$rounds"); do
  echo "ROUND $i $(date +%T)" | tee -a "$log"
  echo "ours: $(cd "$here" && BENCH_RUNS=$runs BENCH_WARMUP=$warmup BENCH_ONLY=runs node --max-semi-space-size=32 --expose-gc --import tsx bench/run.ts 2>&1 | results)" | tee -a "$log"
  echo "oursdirect: $(cd "$here" && BENCH_START=direct BENCH_RUNS=$runs BENCH_WARMUP=$warmup BENCH_ONLY=runs node --max-semi-space-size=32 --expose-gc --import tsx bench/run.ts 2>&1 | results)" | tee -a "$log"
  echo "stackfloor: $(cd "$here" && BENCH_RUNS=$runs BENCH_WARMUP=$warmup BENCH_ONLY=stackfloor BENCH_FLOOR_JOURNAL=1 BENCH_FLOOR_AUTH=1 node --max-semi-space-size=32 --expose-gc --import tsx bench/run.ts 2>&1 | results)" | tee -a "$log"
  echo "stackbatched: $(cd "$here" && BENCH_RUNS=$runs BENCH_WARMUP=$warmup BENCH_ONLY=stackfloor BENCH_FLOOR_JOURNAL=1 BENCH_FLOOR_AUTH=1 BENCH_FLOOR_BATCHED=1 node --max-semi-space-size=32 --expose-gc --import tsx bench/run.ts 2>&1 | results)" | tee -a "$log"
  echo "floor: $(cd "$scratch" && RUNS=$runs WARMUP=$warmup node --import tsx floor-bench.ts 2>&1 | results)" | tee -a "$log"
  echo "floorhttp: $(cd "$scratch" && RUNS=$runs WARMUP=$warmup START=http node --import tsx floor-bench.ts 2>&1 | results)" | tee -a "$log"
  echo "floorbatched: $(cd "$scratch" && RUNS=$runs WARMUP=$warmup START=http node --import tsx floor-batched-bench.ts 2>&1 | results)" | tee -a "$log"
  echo "dbos: $(cd "$scratch" && RUNS=$runs WARMUP=$warmup START=http node --import tsx dbos-bench.ts 2>&1 | results)" | tee -a "$log"
done
node --import tsx "$here/bench/seriesSummary.ts" "$log"
