import type { DagWarning } from "../../schemas/Dag.js"
import type { ErrorCode } from "../../schemas/ErrorCodes.js"

/** A blocking finding: its code is an error code (a refused publish answers it). */
export const error = (code: ErrorCode, message: string, node_id?: string): DagWarning =>
  node_id === undefined ? { code, severity: "error", message } : { code, severity: "error", message, node_id }

/** Advice: publish goes ahead. */
export const warning = (code: string, message: string, node_id?: string): DagWarning =>
  node_id === undefined ? { code, severity: "warning", message } : { code, severity: "warning", message, node_id }
