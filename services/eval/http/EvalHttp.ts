import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { readMultipartUpload } from "../../../platform/MultipartUpload.js"
import { PlatformApi } from "../../../schemas/Api.js"
import { badRequest } from "../../../schemas/Errors.js"
import { asCaller } from "../../../schemas/Principal.js"
import { Configs } from "../Configs.js"
import { Datasets, MAX_DATASET_BYTES } from "../Datasets.js"
import { EvalRuns } from "../EvalRuns.js"
import { Rubrics } from "../Rubrics.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The dataset upload: multipart with `file` (CSV), `name` and `workflow_id`. */
const readDataset = Effect.gen(function*() {
  const { bytes, fields, filename } = yield* readMultipartUpload(MAX_DATASET_BYTES, { code: "DATASET_TOO_LARGE", message: "Datasets are limited to 5 MiB" })
  const workflowId = fields.workflow_id ?? ""
  if (!UUID.test(workflowId)) return yield* badRequest("VALIDATION_ERROR", "workflow_id is required (a UUID)", [{ path: ["workflow_id"], message: "required" }])
  return { name: fields.name || filename, workflowId, csv: Buffer.from(bytes).toString("utf8") }
})

export const EvalHttp = HttpApiBuilder.group(PlatformApi, "eval", (handlers) =>
  Effect.gen(function*() {
    const datasets = yield* Datasets
    const rubrics = yield* Rubrics
    const configs = yield* Configs
    const runs = yield* EvalRuns
    return handlers
      .handleRaw("createDataset", () => asCaller((p) => Effect.flatMap(readDataset, (upload) => datasets.create(p, upload))))
      .handle("mapDataset", ({ path, payload }) => asCaller((p) => datasets.map(p, path.id, payload)))
      .handle("datasets", ({ urlParams }) => asCaller((p) => datasets.list(p, urlParams.workflow_id)))
      .handle("dataset", ({ path }) => asCaller((p) => datasets.get(p, path.id)))
      .handle("deleteDataset", ({ path }) => asCaller((p) => datasets.remove(p, path.id)))
      .handle("rows", ({ path, urlParams }) => asCaller((p) => datasets.rows(p, path.id, urlParams)))
      .handle("createRubric", ({ payload }) => asCaller((p) => rubrics.create(p, payload)))
      .handle("generateRubric", ({ payload }) => asCaller((p) => rubrics.generate(p, payload)))
      .handle("rubrics", ({ urlParams }) => asCaller((p) => rubrics.list(p, urlParams.workflow_id)))
      .handle("rubric", ({ path }) => asCaller((p) => rubrics.get(p, path.id)))
      .handle("replaceRubric", ({ path, payload }) => asCaller((p) => rubrics.replace(p, path.id, payload)))
      .handle("deleteRubric", ({ path }) => asCaller((p) => rubrics.remove(p, path.id)))
      .handle("createConfig", ({ payload }) => asCaller((p) => configs.create(p, payload)))
      .handle("configs", ({ urlParams }) => asCaller((p) => configs.list(p, urlParams.workflow_id)))
      .handle("config", ({ path }) => asCaller((p) => configs.get(p, path.id)))
      .handle("replaceConfig", ({ path, payload }) => asCaller((p) => configs.replace(p, path.id, payload)))
      .handle("deleteConfig", ({ path }) => asCaller((p) => configs.remove(p, path.id)))
      .handle("createRun", ({ headers, payload }) => asCaller((p) => runs.create(p, payload, headers["idempotency-key"])))
      .handle("runs", ({ urlParams }) => asCaller((p) => runs.list(p, urlParams)))
      .handle("compare", ({ urlParams }) => asCaller((p) => runs.compare(p, urlParams.run_id_1, urlParams.run_id_2)))
      .handle("run", ({ path }) => asCaller((p) => runs.get(p, path.id)))
      .handle("cancelRun", ({ path }) => asCaller((p) => runs.cancel(p, path.id)))
      .handle("results", ({ path, urlParams }) => asCaller((p) => runs.results(p, path.id, urlParams)))
      .handle("result", ({ path }) => asCaller((p) => runs.result(p, path.id)))
  }))
