import { Effect } from "effect"
import { getQuickJS, type QuickJSWASMModule, shouldInterruptAfterDeadline } from "quickjs-emscripten"
import type { CallOutcome } from "./HttpFunction.js"

export interface ScriptLimits {
  readonly cpuMs: number
  readonly memoryBytes: number
}

export interface ScriptOutcome extends CallOutcome {
  readonly logs: string
}

const MAX_LOG_CHARS = 64 * 1024

/** The QuickJS engine (WebAssembly), loaded once per process. */
export const loadQuickJs: Effect.Effect<QuickJSWASMModule> = Effect.promise(() => getQuickJS())

/**
 * Runs a script function in a fresh QuickJS context: its own heap (`memoryBytes`), interrupted
 * after `cpuMs`, with no network, file system or host objects; only `input` (a copy of the call's
 * input) and a `console` whose lines become the execution's logs. The body's `return` value,
 * passed through JSON, is the output.
 */
export const runScript = (engine: QuickJSWASMModule, source: string, input: Record<string, unknown>, limits: ScriptLimits): ScriptOutcome => {
  const runtime = engine.newRuntime()
  runtime.setMemoryLimit(limits.memoryBytes)
  runtime.setMaxStackSize(1024 * 1024)
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + limits.cpuMs))
  const vm = runtime.newContext()
  const lines: Array<string> = []
  let logChars = 0
  const log = (level: string) =>
    vm.newFunction(level, (...args) => {
      const line = `${level === "log" ? "" : `[${level}] `}${args.map((a) => {
        const value: unknown = vm.dump(a)
        return typeof value === "string" ? value : JSON.stringify(value)
      }).join(" ")}`
      if (logChars < MAX_LOG_CHARS) lines.push(line.slice(0, MAX_LOG_CHARS - logChars))
      logChars += line.length
    })
  const consoleObject = vm.newObject()
  for (const level of ["log", "info", "warn", "error"]) {
    const fn = log(level)
    vm.setProp(consoleObject, level, fn)
    fn.dispose()
  }
  vm.setProp(vm.global, "console", consoleObject)
  consoleObject.dispose()
  const inputHandle = vm.newString(JSON.stringify(input))
  vm.setProp(vm.global, "__input", inputHandle)
  inputHandle.dispose()

  const started = Date.now()
  const result = vm.evalCode(`JSON.stringify((function (input) {\n${source}\n})(JSON.parse(__input)) ?? null)`, "function.js")
  const logs = lines.join("\n")
  let outcome: ScriptOutcome
  if (result.error !== undefined) {
    const dumped: unknown = vm.dump(result.error)
    result.error.dispose()
    const message = typeof dumped === "object" && dumped !== null && "message" in dumped ? String((dumped as { message: unknown }).message) : String(dumped)
    const interrupted = message.includes("interrupted") || Date.now() - started >= limits.cpuMs
    outcome = {
      ok: false,
      httpStatus: null,
      output: null,
      error: interrupted ? `The script ran over its ${limits.cpuMs} ms CPU limit and was stopped` : `The script failed: ${message}`,
      logs
    }
  } else {
    const text: unknown = vm.dump(result.value)
    result.value.dispose()
    outcome = { ok: true, httpStatus: null, output: typeof text === "string" ? JSON.parse(text) as unknown : null, logs }
  }
  vm.dispose()
  runtime.dispose()
  return outcome
}
