import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, PayloadTooLarge, Unprocessable } from "./Errors.js"
import * as E from "./Eval.js"
import { IdempotencyHeaders } from "./Idempotency.js"
import { Page, PageParams } from "./Pagination.js"
import * as Security from "./Security.js"

const id = HttpApiSchema.param("id", Schema.UUID)
const byWorkflow = Schema.Struct({ workflow_id: Schema.optional(Schema.UUID) })

/** Datasets, rubrics, configs, runs and results of evaluation. */
export class EvalApi extends HttpApiGroup.make("eval")
  .add(
    HttpApiEndpoint.post("createDataset", "/datasets")
      .addSuccess(E.Dataset, { status: 201 })
      .annotate(
        OpenApi.Description,
        "multipart/form-data with `file` (a CSV with a header line), `name` and `workflow_id`; 201 with the parsed headers. " +
          "Over 5 MiB is 413 DATASET_TOO_LARGE, over 10,000 rows 422 DATASET_TOO_MANY_ROWS, a malformed CSV 400 INVALID_CSV with its line."
      )
  )
  .add(HttpApiEndpoint.post("mapDataset")`/datasets/${id}/mapping`.setPayload(E.MappingRequest).addSuccess(E.Dataset))
  .add(HttpApiEndpoint.get("datasets", "/datasets").setUrlParams(byWorkflow).addSuccess(E.DatasetList))
  .add(HttpApiEndpoint.get("dataset")`/datasets/${id}`.addSuccess(E.Dataset))
  .add(HttpApiEndpoint.del("deleteDataset")`/datasets/${id}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.get("rows")`/datasets/${id}/rows`.setUrlParams(PageParams).addSuccess(Page(E.DatasetRow)))
  .add(HttpApiEndpoint.post("createRubric", "/rubrics").setPayload(E.RubricRequest).addSuccess(E.Rubric, { status: 201 }))
  .add(HttpApiEndpoint.post("generateRubric", "/rubrics/generate").setPayload(E.RubricGenerateRequest).addSuccess(E.RubricDraft))
  .add(HttpApiEndpoint.get("rubrics", "/rubrics").setUrlParams(byWorkflow).addSuccess(E.RubricList))
  .add(HttpApiEndpoint.get("rubric")`/rubrics/${id}`.addSuccess(E.Rubric))
  .add(HttpApiEndpoint.put("replaceRubric")`/rubrics/${id}`.setPayload(E.RubricRequest).addSuccess(E.Rubric))
  .add(HttpApiEndpoint.del("deleteRubric")`/rubrics/${id}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.post("createConfig", "/configs").setPayload(E.ConfigRequest).addSuccess(E.Config, { status: 201 }))
  .add(HttpApiEndpoint.get("configs", "/configs").setUrlParams(byWorkflow).addSuccess(E.ConfigList))
  .add(HttpApiEndpoint.get("config")`/configs/${id}`.addSuccess(E.Config))
  .add(HttpApiEndpoint.put("replaceConfig")`/configs/${id}`.setPayload(E.ConfigRequest).addSuccess(E.Config))
  .add(HttpApiEndpoint.del("deleteConfig")`/configs/${id}`.addSuccess(HttpApiSchema.NoContent))
  .add(
    HttpApiEndpoint.post("createRun", "/runs")
      .setPayload(E.EvalRunRequest)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(E.EvalRun, { status: 202 })
      .annotate(
        OpenApi.Description,
        "Scores the dataset's rows (a preview: the first 5) asynchronously and durably; poll the run for progress. An Idempotency-Key makes a retry with the same body answer the first run (another body is 422)"
      )
  )
  .add(HttpApiEndpoint.get("runs", "/runs").setUrlParams(E.EvalRunFilters).addSuccess(Page(E.EvalRun)))
  .add(
    HttpApiEndpoint.get("compare", "/runs/compare")
      .setUrlParams(E.CompareParams)
      .addSuccess(E.Comparison)
      .annotate(OpenApi.Description, "Results paired by dataset row; 422 EVAL_DATASET_MISMATCH for runs on different datasets")
  )
  .add(HttpApiEndpoint.get("run")`/runs/${id}`.addSuccess(E.EvalRun))
  .add(
    HttpApiEndpoint.post("cancelRun")`/runs/${id}/cancel`.addSuccess(E.EvalRun).annotate(
      OpenApi.Description,
      "409 EVAL_RUN_TERMINAL for a completed, failed or cancelled run"
    )
  )
  .add(HttpApiEndpoint.get("results")`/runs/${id}/results`.setUrlParams(E.ResultFilters).addSuccess(Page(E.EvalResult)))
  .add(HttpApiEndpoint.get("result")`/results/${id}`.addSuccess(E.EvalResult))
  .addError(Conflict)
  .addError(Unprocessable)
  .addError(PayloadTooLarge)
  .middleware(Security.Authentication)
  .prefix("/api/v1/eval")
{}
