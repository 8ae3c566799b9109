import type { Condition } from "../../schemas/Dag.js"
import { resolvePath, type RunContext } from "./Context.js"

const equal = (a: unknown, b: unknown): boolean =>
  a === b || (typeof a === "object" && a !== null && typeof b === "object" && b !== null && JSON.stringify(a) === JSON.stringify(b))

const comparable = (a: unknown, b: unknown) => (typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string")

/** Whether an edge condition holds on the run context. */
export const holds = (condition: Condition, context: RunContext): boolean => {
  const actual = resolvePath(context, condition.ref)
  const expected = condition.value
  switch (condition.op) {
    case "eq":
      return equal(actual, expected)
    case "neq":
      return !equal(actual, expected)
    case "in":
      return Array.isArray(expected) && expected.some((e) => equal(actual, e))
    case "not_in":
      return Array.isArray(expected) && !expected.some((e) => equal(actual, e))
    case "exists":
      return actual !== undefined && actual !== null
    case "not_exists":
      return actual === undefined || actual === null
    case "gt":
      return comparable(actual, expected) && (actual as number) > (expected as number)
    case "lt":
      return comparable(actual, expected) && (actual as number) < (expected as number)
  }
}
