import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Audit } from "../../../platform/Audit.js"
import { PlatformApi } from "../../../schemas/Api.js"
import { Publishing } from "../Publishing.js"
import { Workflows } from "../Workflows.js"
import { auditedWrites } from "./AuditedWrites.js"

/** The /api/v1/ai-employees alias: the workflow operations, each write recorded in the audit trail. */
export const AiEmployeesHttp = HttpApiBuilder.group(PlatformApi, "aiEmployees", (handlers) =>
  Effect.gen(function*() {
    const workflows = yield* Workflows
    const publishing = yield* Publishing
    const audit = yield* Audit

    const { audited, read } = auditedWrites(audit, "ai_employee")

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
      .handle("clone", ({ path, payload }) =>
        audited(
          "cloned",
          (w: { readonly id: string }) =>
            w.id,
          { source_id: path.id },
          (p) => workflows.clone(p, path.id, payload.name)
        ))
      .handle("share", ({ path, payload }) =>
        audited("shared", path.id, { target_tenant_id: payload.target_tenant_id }, (p) =>
          workflows.share(p, path.id, payload.target_tenant_id)))
      .handle("publish", ({ path }) =>
        audited("published", path.id, undefined, (p) =>
          publishing.publish(p, path.id)))
      .handle("versions", ({ path, urlParams }) => read((p) => publishing.list(p, path.id, urlParams)))
      .handle("version", ({ path }) => read((p) => publishing.get(p, path.id, path.version)))
      .handle("updateVersion", ({ path, payload }) =>
        audited("version_updated", path.id, { version: path.version }, (p) =>
          publishing.update(p, path.id, path.version, payload)))
      .handle("deleteVersion", ({ path }) =>
        audited("version_deleted", path.id, { version: path.version }, (p) => publishing.remove(p, path.id, path.version)))
      .handle("revert", ({ path }) => audited("reverted", path.id, { to_version: path.version }, (p) => publishing.revert(p, path.id, path.version)))
      .handle("promote", ({ path }) => audited("promoted", path.id, { version: path.version }, (p) => publishing.promote(p, path.id, path.version)))
      .handle("documentDiff", ({ path, urlParams }) => read((p) => publishing.documentDiff(p, path.id, path.version, urlParams.compare_to)))
  }))
