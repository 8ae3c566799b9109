import { Effect } from "effect"
import { forbidden } from "../../schemas/Errors.js"
import type { WorkflowRow } from "./WorkflowsRepo.js"

/** An adopted AI Employee runs on its own history; the adopting workspace cannot change it. */
export const requireEditable = (row: WorkflowRow) =>
  row.adopted_at === null
    ? Effect.void
    : Effect.fail(forbidden("This AI Employee was adopted from another workspace and cannot be edited here"))
