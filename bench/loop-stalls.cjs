// A preload that records where a process's event loop stalls, for matching against a benchmark's slow
// runs: `node -r ./bench/loop-stalls.cjs ...`, or for the platform's own process in a benchmark,
// BENCH_CHILD_NODE_OPTIONS="-r $PWD/bench/loop-stalls.cjs". Every gap over 15 ms between the turns of a
// 2 ms timer, and every garbage collection over 4 ms (minor, major, incremental), with its wall-clock
// time, appended once a second to $LOOP_STALLS_DIR/stalls-<pid>.log (default the system's temp folder).
"use strict"
const fs = require("node:fs")
const os = require("node:os")
const path = require("node:path")
const { PerformanceObserver, constants } = require("node:perf_hooks")
const { isMainThread } = require("node:worker_threads")

if (isMainThread) {
  const file = path.join(process.env.LOOP_STALLS_DIR || os.tmpdir(), `stalls-${process.pid}.log`)
  const lines = []
  let last = performance.now()
  setInterval(() => {
    const now = performance.now()
    if (now - last > 15) lines.push(`${new Date().toISOString()} GAP ${(now - last).toFixed(0)}`)
    last = now
  }, 2).unref()
  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
    [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weak-callbacks"
  }
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration > 4) lines.push(`${new Date(performance.timeOrigin + e.startTime).toISOString()} GC ${kinds[e.detail?.kind] ?? e.detail?.kind} ${e.duration.toFixed(1)}`)
    }
  }).observe({ entryTypes: ["gc"] })
  setInterval(() => {
    if (lines.length > 0) fs.appendFileSync(file, lines.splice(0).join("\n") + "\n")
  }, 1000).unref()
}
