import { newQuickJSWASMModule, type QuickJSWASMModule, shouldInterruptAfterDeadline } from "quickjs-emscripten"
import type { CallOutcome } from "./HttpFunction.js"

// Runs on a thread of the worker pool (platform/workers): never on the event loop that serves requests.

export interface ScriptCall {
  readonly source: string
  readonly input: Record<string, unknown>
  readonly cpuMs: number
  readonly memoryBytes: number
}

export interface ScriptOutcome extends CallOutcome {
  readonly logs: string
}

const MAX_LOG_CHARS = 64 * 1024

// One QuickJS engine per thread; an engine a script left in a bad state is replaced.
let engine: Promise<QuickJSWASMModule> | undefined

const failed = (error: string, logs: string): ScriptOutcome => ({ ok: false, httpStatus: null, output: null, error, logs })

const evaluate = (module: QuickJSWASMModule, call: ScriptCall): ScriptOutcome => {
  const runtime = module.newRuntime()
  runtime.setMemoryLimit(call.memoryBytes)
  runtime.setMaxStackSize(1024 * 1024)
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + call.cpuMs))
  const vm = runtime.newContext()
  const lines: Array<string> = []
  let logChars = 0
  const log = (level: string) =>
    vm.newFunction(level, (...args) => {
      const line = `${level === "log" ? "" : `[${level}] `}${
        args.map((a) => {
          const value: unknown = vm.dump(a)
          return typeof value === "string" ? value : JSON.stringify(value)
        }).join(" ")
      }`
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
  const inputHandle = vm.newString(JSON.stringify(call.input))
  vm.setProp(vm.global, "__input", inputHandle)
  inputHandle.dispose()

  const started = Date.now()
  const result = vm.evalCode(`JSON.stringify((function (input) {\n${call.source}\n})(JSON.parse(__input)) ?? null)`, "function.js")
  const logs = lines.join("\n")
  let outcome: ScriptOutcome
  if (result.error !== undefined) {
    const dumped: unknown = vm.dump(result.error)
    result.error.dispose()
    const message = typeof dumped === "object" && dumped !== null && "message" in dumped ? String(dumped.message) : String(dumped)
    const interrupted = message.includes("interrupted") || Date.now() - started >= call.cpuMs
    outcome = failed(interrupted ? `The script ran over its ${call.cpuMs} ms CPU limit and was stopped` : `The script failed: ${message}`, logs)
  } else {
    const text: unknown = vm.dump(result.value)
    result.value.dispose()
    outcome = { ok: true, httpStatus: null, output: typeof text === "string" ? JSON.parse(text) as unknown : null, logs }
  }
  vm.dispose()
  runtime.dispose()
  return outcome
}

/**
 * Runs a script function in a fresh QuickJS context: its own heap (`memoryBytes`), interrupted
 * after `cpuMs`, with no network, file system or host objects; only `input` (a copy of the call's
 * input) and a `console` whose lines become the execution's logs. The body's `return` value,
 * passed through JSON, is the output. A script that breaks the engine itself (a stack overflow
 * inside the allocator, a runtime that cannot be freed) fails alone: the thread's engine is
 * dropped and the next script gets a new one.
 */
export const runScript = async (call: ScriptCall): Promise<ScriptOutcome> => {
  engine ??= newQuickJSWASMModule()
  const module = await engine
  try {
    return evaluate(module, call)
  } catch (error) {
    engine = undefined
    return failed(`The script failed: ${error instanceof Error ? error.message : String(error)}`, "")
  }
}
