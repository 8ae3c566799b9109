import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Audit } from "../../../platform/Audit.js"
import { PlatformApi } from "../../../schemas/Api.js"
import { Publishing } from "../Publishing.js"
import { Workflows } from "../Workflows.js"
import { auditedWrites } from "./AuditedWrites.js"

/** /api/v1/workflow/workflows: the AI Employee operations, each write recorded in the audit trail as `workflow.<action>`. */
export const WorkflowsHttp = HttpApiBuilder.group(PlatformApi, "workflows", (handlers) =>
  Effect.gen(function*() {
    const workflows = yield* Workflows
    const publishing = yield* Publishing
    const { audited, read } = auditedWrites(yield* Audit, "workflow")
    return handlers
      .handle("create", ({ payload }) => audited("created", (w: { readonly id: string }) => w.id, { name: payload.name }, (p) => workflows.create(p, payload)))
      .handle("list", ({ urlParams }) => read((p) => workflows.list(p, urlParams)))
      .handle("get", ({ path }) => read((p) => workflows.get(p, path.id)))
      .handle("replace", ({ path, payload }) => audited("saved", path.id, undefined, (p) => workflows.save(p, path.id, payload)))
      .handle("update", ({ path, payload }) => audited("saved", path.id, { fields: Object.keys(payload) }, (p) => workflows.save(p, path.id, payload)))
      .handle("archive", ({ path }) => audited("archived", path.id, undefined, (p) => workflows.archive(p, path.id)))
      .handle("restore", ({ path }) => audited("restored", path.id, undefined, (p) => workflows.restore(p, path.id)))
      .handle("getConfig", ({ path }) => read((p) => workflows.getConfig(p, path.id)))
      .handle("putConfig", ({ path, payload }) => audited("config_replaced", path.id, undefined, (p) => workflows.putConfig(p, path.id, payload)))
      .handle("patchLlmConfig", ({ path, payload }) =>
        audited("llm_config_updated", path.id, { fields: Object.keys(payload) }, (p) => workflows.patchLlmConfig(p, path.id, payload)))
      .handle("publish", ({ path }) =>
        audited("published", path.id, undefined, (p) => publishing.publish(p, path.id)))
      .handle("versions", ({ path, urlParams }) => read((p) => publishing.list(p, path.id, urlParams)))
      .handle("version", ({ path }) => read((p) => publishing.get(p, path.id, path.version)))
      .handle("templates", () => read((p) => workflows.templates(p)))
      .handle("fromTemplate", ({ path }) =>
        audited(
          "created",
          (w: { readonly id: string }) => w.id,
          { template_id: path.id },
          (p) => workflows.fromTemplate(p, path.id)
        ))
  }))
