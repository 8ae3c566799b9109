// The entry of every thread of the worker pool (WorkerPool.ts). It is plain JavaScript so that a
// thread starts without a loader. A task's module is named by its `.js` file: compiled
// (dist/server), it is imported as it is; in the sources only the `.ts` file is there, and tsx
// imports it (as it imports a module named by its `.ts` file).
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { workerData } from "node:worker_threads"

const modules = new Map()

const importModule = async (module) =>
  /\.m?js$/.test(module) && existsSync(fileURLToPath(module)) ? import(module) : (await import("tsx/esm/api")).tsImport(module, import.meta.url)

const load = (module) => {
  let loaded = modules.get(module)
  if (loaded === undefined) {
    loaded = importModule(module)
    modules.set(module, loaded)
  }
  return loaded
}

// A warm pool (WORKER_WARM_THREADS) names every task module: loading them now spares the first
// task of each kind the wait. One at a time, so that a task arriving meanwhile waits for its own
// module and at most one other, not for all of them loading at once. A module that fails to load
// is forgotten, so its task reports why.
const preload = async (list) => {
  for (const module of list) await load(module).catch(() => modules.delete(module))
}
void preload(workerData?.preload ?? [])

/** Runs `fn` of `module` on `input`; a refusal (TaskRefusal) comes back as a value, anything else as an error. */
export default async function runTask({ module, fn, input }) {
  const task = (await load(module))[fn]
  if (typeof task !== "function") throw new Error(`${module} exports no task ${fn}`)
  try {
    return { ok: true, value: await task(input) }
  } catch (error) {
    if (error !== null && typeof error === "object" && error.name === "TaskRefusal") {
      return { ok: false, code: String(error.code), message: String(error.message) }
    }
    throw error
  }
}
