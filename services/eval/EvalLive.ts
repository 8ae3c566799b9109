import { Layer } from "effect"
import { isolated } from "../../platform/Isolated.js"
import { Authentication } from "../../schemas/Security.js"
import { Configs } from "./Configs.js"
import { Datasets } from "./Datasets.js"
import { EvalRuns } from "./EvalRuns.js"
import { EvalWorkerLive } from "./EvalWorker.js"
import { EvalHttp } from "./http/EvalHttp.js"
import { Rubrics } from "./Rubrics.js"

/** Evaluation: datasets, rubrics, configs, runs, and the worker that scores their rows (over the run kernel and the agent runner). */
// The worker shares the runs service (one instance) to be woken by the runs created here.
export const EvalLive = Layer.mergeAll(EvalWorkerLive.pipe(Layer.provideMerge(EvalRuns.Default)), Configs.Default, Datasets.Default, Rubrics.Default)

export const EvalHttpLive = isolated(EvalHttp, Authentication, Rubrics, Configs, Datasets, EvalRuns)
