/**
 * Medians and same-series ratios of `bench/series.sh`'s log: this platform and the stack floor
 * against DBOS and the plain `pg` floor, and issue 14's target (2x DBOS and 0.75x the floor, the larger).
 */
import { readFileSync } from "node:fs"

const PATTERNS: Record<string, RegExp> = {
  ours: /RESULT_RUNS_PER_S ([\d.]+)/,
  oursdirect: /RESULT_RUNS_PER_S ([\d.]+)/,
  stackfloor: /RESULT_STACK_FLOOR_RUNS_PER_S ([\d.]+)/,
  stackbatched: /RESULT_STACK_FLOOR_RUNS_PER_S ([\d.]+)/,
  floor: /RESULT_FLOOR ([\d.]+)/,
  floorhttp: /RESULT_FLOOR ([\d.]+)/,
  floorbatched: /RESULT_FLOOR_BATCHED ([\d.]+)/,
  dbos: /RESULT_WPS ([\d.]+)/
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length === 0 ? NaN : sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const tries = new Map<string, Array<number>>()
for (const line of readFileSync(process.argv[2], "utf8").split("\n")) {
  const name = line.slice(0, line.indexOf(":"))
  const found = PATTERNS[name]?.exec(line)
  if (found !== undefined && found !== null) tries.set(name, [...(tries.get(name) ?? []), Number(found[1])])
}
const m = (name: string) => median(tries.get(name) ?? [])
const floor = m("floor"), dbos = m("dbos"), floorhttp = m("floorhttp"), batched = m("floorbatched")
console.log(`issue 37's target over HTTP (2x DBOS): ${(2 * dbos).toFixed(1)} runs/s`)
for (const name of Object.keys(PATTERNS)) {
  const values = tries.get(name) ?? []
  const ratios = name === "ours" || name === "oursdirect" || name === "stackfloor" || name === "stackbatched"
    ? `: ${(m(name) / dbos).toFixed(2)}x DBOS, ${(m(name) / floor).toFixed(2)}x the floor, ${(m(name) / floorhttp).toFixed(2)}x the floor over HTTP, ${
      (m(name) / batched).toFixed(2)
    }x the batched floor over HTTP`
    : ""
  console.log(`${name}: median ${m(name).toFixed(1)} (${values.map((v) => v.toFixed(1)).join(", ")})${ratios}`)
}
