import type { Doc } from "./dagDoc.js"

/**
 * The canvas's undo and redo: every change pushes the DAG it replaced; a run of changes with one
 * `key` (typing in one field) is a single step, so undo does not go back a letter at a time.
 */
export interface History {
  readonly past: ReadonlyArray<Doc>
  readonly present: Doc
  readonly future: ReadonlyArray<Doc>
  readonly lastKey: string | undefined
}

export type HistoryAction =
  | { readonly kind: "change"; readonly doc: Doc; readonly key?: string }
  | { readonly kind: "undo" }
  | { readonly kind: "redo" }
  | { readonly kind: "reset"; readonly doc: Doc }

const LIMIT = 200

export const startHistory = (doc: Doc): History => ({ past: [], present: doc, future: [], lastKey: undefined })

export const historyReducer = (state: History, action: HistoryAction): History => {
  switch (action.kind) {
    case "change":
      if (action.doc === state.present) return state
      if (action.key !== undefined && action.key === state.lastKey) return { ...state, present: action.doc, future: [] }
      return { past: [...state.past.slice(-LIMIT + 1), state.present], present: action.doc, future: [], lastKey: action.key }
    case "undo":
      return state.past.length === 0
        ? state
        : { past: state.past.slice(0, -1), present: state.past[state.past.length - 1], future: [state.present, ...state.future], lastKey: undefined }
    case "redo":
      return state.future.length === 0
        ? state
        : { past: [...state.past, state.present], present: state.future[0], future: state.future.slice(1), lastKey: undefined }
    case "reset":
      return startHistory(action.doc)
  }
}
