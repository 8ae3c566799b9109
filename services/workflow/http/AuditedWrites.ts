import { Effect } from "effect"
import type { Audit } from "../../../platform/Audit.js"
import type { Principal } from "../../../schemas/Principal.js"
import { asCaller } from "../../../schemas/Principal.js"

/**
 * Writes to AI Employees recorded in the audit trail once they succeed, under either path:
 * `workflow.<action>` through /api/v1/workflow, `ai_employee.<action>` through its alias, so that
 * no route writes unrecorded.
 */
export const auditedWrites = (audit: Audit, flavour: "workflow" | "ai_employee") => ({
  audited: <A, E>(action: string, id: string | ((a: A) => string), details: Record<string, unknown> | undefined, run: (p: Principal) => Effect.Effect<A, E>) =>
    asCaller((principal) =>
      Effect.gen(function*() {
        const result = yield* run(principal)
        yield* audit.record(principal, {
          action: `${flavour}.${action}`,
          resourceType: flavour,
          resourceId: typeof id === "string" ? id : id(result),
          details
        })
        return result
      })
    ),
  read: <A, E>(run: (p: Principal) => Effect.Effect<A, E>) => asCaller(run)
})
