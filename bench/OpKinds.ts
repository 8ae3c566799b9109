/**
 * Which Effect instructions one span's fibers run (a diagnostic, not a benchmark): preload it with
 * `OPKINDS_SPAN="llm.call" node --import tsx --import ./bench/OpKinds.ts bench/run.ts`. From
 * OPKINDS_AFTER ms on (20000), every instruction a fiber runs while its current span has that name
 * is counted by its kind and the function it carries; one without a function (a `Success`, a
 * `Commit`) by the continuation it resumes, the top of the fiber's stack. At exit it prints the
 * instructions a span runs on average and the 60 most frequent kinds, to stderr.
 */
import { Effect } from "effect"

const SPAN = process.env.OPKINDS_SPAN ?? "llm.call"
const after = Number(process.env.OPKINDS_AFTER ?? 20000)
let on = false
setTimeout(() => {
  on = true
}, after).unref()

type Instruction = Readonly<Record<string, unknown>>
interface FiberLike {
  readonly currentSpan?: { readonly name?: string }
  readonly _stack?: ReadonlyArray<Instruction>
}

const counts = new Map<string, number>()
const spans = new WeakSet<object>()
let spansSeen = 0

const functionOf = (v: unknown) => typeof v === "function" ? `${v.name ? `${v.name}: ` : ""}${String(v).replace(/\s+/g, " ").slice(0, 110)}` : undefined
const describe = (op: Instruction) => functionOf(op.effect_instruction_i0) ?? functionOf(op.effect_instruction_i1) ?? functionOf(op.effect_instruction_i2) ?? ""

// Every fiber shares this prototype; its methods named after op codes run one instruction each.
const fiber = Effect.runSync(Effect.withFiberRuntime((f) => Effect.succeed(f)))
const proto = Object.getPrototypeOf(fiber) as Record<string, unknown>
const OPS =
  /^(Sync|Async|OnSuccess|OnFailure|OnSuccessAndFailure|Success|Failure|WithRuntime|Yield|While|Iterator|UpdateRuntimeFlags|Commit|Tag|Left|Right|Some|None)$/
for (const name of Object.getOwnPropertyNames(proto)) {
  const original = proto[name]
  if (typeof original !== "function" || !OPS.test(name)) continue
  proto[name] = function(this: FiberLike, op: Instruction) {
    const span = this.currentSpan
    if (on && span !== undefined && span.name === SPAN) {
      if (!spans.has(span)) {
        spans.add(span)
        spansSeen++
      }
      let what = describe(op)
      if (what === "") {
        const top = this._stack?.[this._stack.length - 1]
        what = top === undefined ? "(empty stack)" : `-> ${String(top._op)} ${describe(top)}`
      }
      const key = `${name} ${what}`
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    return (original as (this: FiberLike, op: Instruction) => unknown).call(this, op)
  }
}

process.on("exit", () => {
  let total = 0
  for (const n of counts.values()) total += n
  const lines = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 60).map(([key, n]) => `${(n / spansSeen).toFixed(2).padStart(7)} ${key}`)
  process.stderr.write(`OPKINDS ${SPAN}: ${spansSeen} spans, ${(total / Math.max(1, spansSeen)).toFixed(1)} instructions each\n${lines.join("\n")}\n`)
})
