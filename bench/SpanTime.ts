/**
 * Where a process's Effect time goes, by span (a diagnostic, not a benchmark): preload it with
 * `node --import tsx --import ./bench/SpanTime.ts bench/run.ts`. From SPANTIME_AFTER ms on (8000),
 * the time between two consecutive instructions of one fiber (the scheduler's `shouldYield` is
 * asked once per instruction) is added to the fiber's current span, or, for a fiber outside any
 * span, to the code it was forked with. A gap over 1 ms, or another fiber in between, counts
 * nowhere: that is I/O, other callbacks or idle. At exit it prints the window, the process's CPU
 * in it, the time inside instructions and the 30 largest buckets, to stderr.
 */
import { Scheduler } from "effect"
import { cpuUsage } from "node:process"

interface FiberLike {
  readonly currentSpan?: { readonly name?: string }
}
interface Instruction {
  readonly _op?: string
  readonly [field: string]: unknown
}

const after = Number(process.env.SPANTIME_AFTER ?? 8000)
const time = new Map<string, number>()
const count = new Map<string, number>()
const origins = new WeakMap<object, string>()
let on = false
let last = 0
let lastFiber: unknown
let lastKey = ""
let cpu0 = cpuUsage()
let t0 = 0

/** A forked fiber's effect, named by the first function found in it (its source, shortened). */
const describe = (effect: unknown, depth = 0): string | undefined => {
  if (effect === null || typeof effect !== "object" || depth > 4) return undefined
  const e = effect as Instruction
  const fields = ["effect_instruction_i0", "effect_instruction_i1", "effect_instruction_i2"]
  for (const k of fields) {
    const v = e[k]
    if (typeof v !== "function") continue
    const source = String(v).replace(/\s+/g, " ")
    // `uninterruptible(self)` and its kin wrap the effect in `() => self`: name what it wraps.
    if (source === "() => self") return describe((v as () => unknown)(), depth + 1) ?? source
    return `${v.name ? `${v.name}: ` : ""}${source.slice(0, 90)}`
  }
  for (const k of fields.slice(0, 2)) {
    const d = describe(e[k], depth + 1)
    if (d !== undefined) return d
  }
  return e._op
}

const spanKeys = new WeakMap<object, string>()
/** A span's name, ids in it (the cluster's `Run(<id>).Run`) replaced, so that one name is one bucket. */
const spanKey = (span: { readonly name?: string }) => {
  let key = spanKeys.get(span)
  if (key === undefined) spanKeys.set(span, key = (span.name ?? "(external span)").replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "<id>"))
  return key
}

setTimeout(() => {
  on = true
  cpu0 = cpuUsage()
  t0 = performance.now()
}, after).unref()

const scheduler = Scheduler.defaultScheduler as { shouldYield: (fiber: unknown) => number | false }
const shouldYield = scheduler.shouldYield.bind(scheduler)
let patched = false
scheduler.shouldYield = (fiber) => {
  if (!patched) {
    // Every fiber shares this prototype: its `resume` is how a fork hands the fiber its effect.
    patched = true
    const proto = Object.getPrototypeOf(fiber) as { resume: (this: object, effect: unknown) => void }
    const resume = proto.resume
    proto.resume = function(this: object, effect: unknown) {
      if (!origins.has(this)) origins.set(this, describe(effect) ?? "?")
      resume.call(this, effect)
    }
  }
  if (on) {
    const now = performance.now()
    if (fiber === lastFiber && now - last < 1) {
      time.set(lastKey, (time.get(lastKey) ?? 0) + now - last)
      count.set(lastKey, (count.get(lastKey) ?? 0) + 1)
    }
    const span = (fiber as FiberLike).currentSpan
    lastKey = span === undefined ? `(no span) ${origins.get(fiber as object) ?? "(root)"}` : spanKey(span)
    lastFiber = fiber
    last = performance.now()
  }
  return shouldYield(fiber)
}

process.on("exit", () => {
  const cpu = cpuUsage(cpu0)
  const inside = [...time.values()].reduce((a, b) => a + b, 0)
  const lines = [...time.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([key, ms]) =>
    `${ms.toFixed(0).padStart(7)} ms ${String(count.get(key)).padStart(9)} instructions  ${key}`
  )
  process.stderr.write(
    `SPANTIME window ${(performance.now() - t0).toFixed(0)} ms, process CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms, ` +
      `inside Effect instructions ${inside.toFixed(0)} ms\n${lines.join("\n")}\n`
  )
})
