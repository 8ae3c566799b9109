// A preload that samples where a process allocates, garbage included (V8's sampling heap profiler
// with the objects that minor and major collections freed), for a window of its life:
// `node -r ./bench/alloc-profile.cjs ...`, or for the platform's own process in a benchmark,
// BENCH_CHILD_NODE_OPTIONS="-r $PWD/bench/alloc-profile.cjs". ALLOC_PROFILE_START_MS (20000) after
// start it begins, ALLOC_PROFILE_MS (15000) later it writes $ALLOC_PROFILE_DIR (the system's temp
// folder)/alloc-<pid>.heapprofile, which Chrome's DevTools opens (Memory, load profile).
"use strict"
const fs = require("node:fs")
const inspector = require("node:inspector")
const os = require("node:os")
const path = require("node:path")
const { isMainThread } = require("node:worker_threads")

if (isMainThread) {
  const session = new inspector.Session()
  session.connect()
  const start = Number(process.env.ALLOC_PROFILE_START_MS ?? 20000)
  const length = Number(process.env.ALLOC_PROFILE_MS ?? 15000)
  const file = path.join(process.env.ALLOC_PROFILE_DIR || os.tmpdir(), `alloc-${process.pid}.heapprofile`)
  setTimeout(() => {
    session.post("HeapProfiler.startSampling", {
      samplingInterval: 16384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true
    }, () => {
      setTimeout(() => {
        session.post("HeapProfiler.stopSampling", (error, result) => {
          if (error === null) fs.writeFileSync(file, JSON.stringify(result.profile))
        })
      }, length).unref()
    })
  }, start).unref()
}
