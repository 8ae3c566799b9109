/** `npm run bench`: every benchmark, one after the other. Figures go in bench/README.md. */
import { Effect, Logger, LogLevel } from "effect"
import { buildServer } from "../scripts/build-server.mjs"
import { chatBench } from "./chat.js"
import { consoleBench } from "./console.js"
import { evalBench } from "./eval.js"
import { fairnessBench } from "./fairness.js"
import { gatewayBench } from "./gateway.js"
import { historyBench } from "./history.js"
import { hitlBench } from "./hitl.js"
import { hostileBench } from "./hostile.js"
import { httpCostBench } from "./httpCost.js"
import { idleBench } from "./idle.js"
import { integrationsBench } from "./integrations.js"
import { loadBench } from "./load.js"
import { operationsBench } from "./operations.js"
import { processesBench } from "./processes.js"
import { runsBench } from "./runs.js"
import { stackFloorRunsBench } from "./stackFloorRuns.js"
import { storageBench } from "./storage.js"
import { streamsBench } from "./streams.js"
import { ticketingBench } from "./ticketing.js"
import { triggersBench } from "./triggers.js"

const only = process.env.BENCH_ONLY

const main = Effect.gen(function*() {
  // The platform's processes run compiled, as npm start runs them.
  yield* Effect.promise(() => buildServer())
  if (only === undefined || only === "gateway") yield* gatewayBench
  if (only === undefined || only === "runs") {
    for (const line of yield* runsBench) yield* Effect.log(line)
  }
  if (only === "idle") {
    for (const line of yield* idleBench) yield* Effect.log(line)
  }
  if (only === "fairness") {
    for (const line of yield* fairnessBench) yield* Effect.log(line)
  }
  if (only === undefined || only === "storage") {
    for (const line of yield* storageBench) yield* Effect.log(line)
  }
  if (only === "history") {
    for (const line of yield* historyBench) yield* Effect.log(line)
  }
  if (only === "processes") {
    for (const line of yield* processesBench) yield* Effect.log(line)
  }
  if (only === "httpcost") {
    for (const line of yield* httpCostBench) yield* Effect.log(line)
  }
  if (only === "stackfloor") {
    for (const line of yield* stackFloorRunsBench) yield* Effect.log(line)
  }
  if (only === undefined || only === "hitl") {
    for (const line of yield* hitlBench) yield* Effect.log(line)
  }
  if (only === undefined || only === "triggers") {
    for (const line of yield* triggersBench) yield* Effect.log(line)
  }
  if (only === undefined || only === "integrations") {
    for (const line of yield* integrationsBench) yield* Effect.log(line)
  }
  if (only === undefined || only === "eval") {
    for (const line of yield* evalBench) yield* Effect.log(line)
  }
  if (only === undefined || only === "ticketing") {
    for (const line of yield* ticketingBench) yield* Effect.log(line)
  }
  if (only === undefined || only === "load") {
    for (const line of yield* loadBench) yield* Effect.log(line)
  }
  if (only === undefined || only === "hostile") {
    for (const line of yield* hostileBench) yield* Effect.log(line)
  }
  if (only === undefined || only === "streams") {
    for (const line of yield* streamsBench) yield* Effect.log(line)
  }
  if (only === undefined || only === "chat") {
    for (const line of yield* chatBench) yield* Effect.log(line)
  }
  if (only === undefined || only === "operations") {
    for (const line of yield* operationsBench) yield* Effect.log(line)
  }
  if (only === undefined || only === "console") {
    for (const line of yield* consoleBench) yield* Effect.log(line)
  }
})

Effect.runPromise(main.pipe(Logger.withMinimumLogLevel(LogLevel.Info))).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
