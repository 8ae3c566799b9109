import { useBlocker } from "@tanstack/react-router"
import type { Json } from "./dagDoc"

/**
 * Unsaved canvas work kept in this browser (localStorage) until it is saved: a closed tab, a
 * crash or a lost session does not lose it. Keyed by the person and the AI Employee, with the
 * version it was based on, so that a draft made on an older version is offered as such.
 */
export interface LocalDraft {
  readonly dag: Json
  readonly base_version: number
  readonly saved_at: string
}

const keyOf = (userId: string, workflowId: string) => `bp.canvas-draft.${userId}.${workflowId}`

export const readLocalDraft = (userId: string, workflowId: string): LocalDraft | undefined => {
  const text = localStorage.getItem(keyOf(userId, workflowId))
  if (text === null) return undefined
  try {
    const value = JSON.parse(text) as Partial<LocalDraft>
    return typeof value.dag === "object" && value.dag !== null && typeof value.base_version === "number" && typeof value.saved_at === "string"
      ? value as LocalDraft
      : undefined
  } catch {
    return undefined
  }
}

export const writeLocalDraft = (userId: string, workflowId: string, draft: LocalDraft | undefined) => {
  try {
    if (draft === undefined) localStorage.removeItem(keyOf(userId, workflowId))
    else localStorage.setItem(keyOf(userId, workflowId), JSON.stringify(draft))
  } catch {
    // A full or disabled storage: the prompt on leave still guards the work.
  }
}

/** Leaving with unsaved changes asks first: another page of the console, or closing the tab. */
export const useLeaveGuard = (dirty: boolean) => {
  useBlocker({
    shouldBlockFn: () => dirty && !window.confirm("The canvas has unsaved changes (a copy is kept in this browser). Leave anyway?"),
    enableBeforeUnload: () => dirty
  })
}
