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
export const EvalLive = Layer.mergeAll(EvalRuns.Default, EvalWorkerLive, Configs.Default, Datasets.Default, Rubrics.Default)

export const EvalHttpLive = isolated(EvalHttp, Authentication, Rubrics, Configs, Datasets, EvalRuns)
