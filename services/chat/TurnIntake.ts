import { Effect, Option } from "effect"
import { Idempotency } from "../../platform/Idempotency.js"
import { traced } from "../../platform/Traced.js"
import { RunModule } from "../../runtime/run/RunModule.js"
import { requireReader } from "../../schemas/Authorization.js"
import { MessageAccepted as MessageAcceptedSchema } from "../../schemas/Chat.js"
import { conflict } from "../../schemas/Errors.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { AiEmployees } from "../ports/AiEmployees.js"
import { RunAccess } from "../ports/RunAccess.js"
import { ChatTurns } from "./ChatTurns.js"
import { PiiVault } from "./PiiVault.js"
import type { SessionRow } from "./SessionsRepo.js"

export interface Turn {
  /** Who speaks: the run is recorded for them. */
  readonly principal: Principal
  readonly workflowId: WorkflowId
  /** The session, found or created only once the request is known to be new (an idempotent retry creates none). */
  readonly session: Effect.Effect<SessionRow>
  readonly content: string
  readonly isDryRun: boolean
  /** The identity and context passed to the run, before tokenization. */
  readonly userContext: Record<string, unknown> | undefined
  /** The credential the request came with decides trigger_type (api or ui). */
  readonly via: Principal
  readonly idempotency: { readonly key: string | undefined; readonly operation: string; readonly request: unknown }
}

/** What every way of sending a chat message shares: checks, tokenization, idempotency, the turn. */
export class TurnIntake extends Effect.Service<TurnIntake>()("TurnIntake", {
  dependencies: [PiiVault.Default],
  effect: Effect.gen(function*() {
    const workflows = yield* AiEmployees
    const turns = yield* ChatTurns
    const vault = yield* PiiVault
    const idempotency = yield* Idempotency
    const modules = yield* RunModule
    const runs = yield* RunAccess

    const post = (t: Turn) =>
      Effect.gen(function*() {
        yield* requireReader(t.principal)
        const workflow = yield* workflows.visible(t.principal, t.workflowId)
        if (workflow.active_version === null) {
          return yield* conflict("NOT_PUBLISHED", "This AI Employee has no published version to chat with")
        }
        const version = workflow.active_version
        // Every message starts a run (at once or after the turn before it): paced as run starts are.
        yield* runs.admitStart(t.principal)
        const accept = Effect.gen(function*() {
          const session = yield* t.session
          if (session.status === "transferred") {
            return yield* conflict("SESSION_TRANSFERRED", "This conversation was handed to a person; the AI Employee no longer answers it")
          }
          const userContext = t.userContext === undefined ? null : (yield* vault.tokenize(session.id, t.userContext)).value
          return yield* turns.accept({
            principal: t.principal,
            session,
            workflowName: workflow.name,
            version,
            content: t.content,
            isDryRun: t.isDryRun,
            userContext,
            triggerType: t.via.authMethod === "api_key" ? "api" : "ui"
          })
        })
        // The message, its run and the key's record commit together; the run starts once they have.
        const accepted = yield* idempotency.run({
          principal: t.via,
          key: Option.fromNullable(t.idempotency.key),
          operation: t.idempotency.operation,
          request: t.idempotency.request,
          response: MessageAcceptedSchema,
          effect: accept
        })
        if (accepted.status === "running") yield* modules.launch(accepted.run_id)
        return accepted
      }).pipe(Effect.withSpan("Chat.postTurn"))

    return traced("TurnIntake", { post })
  })
}) {}
