import * as Either from "effect/Either"
import { refuse } from "../../platform/workers/TaskRefusal.js"
import { applyUpdate, sanitize, sectionsOf, type UpdateProblem } from "./HtmlUpdate.js"
import { outlineFromHtml, outlineFromMarkdown } from "./Outline.js"

// Runs on a thread of the worker pool (platform/workers): parsing and sanitising tenant HTML of
// up to the body limit takes seconds on deeply nested markup, never on the event loop.

/** Markup nested deeper than the thread's stack can walk is refused as such, not as a crash. */
const withinDepth = <A>(f: () => A): A => {
  try {
    return f()
  } catch (error) {
    if (error instanceof RangeError) return refuse("VALIDATION_ERROR", "The markup is nested too deeply to process")
    throw error
  }
}

export const sanitizeHtml = ({ html }: { readonly html: string }) => withinDepth(() => sanitize(html))

export type UpdateOutcome = { readonly html: string } | { readonly problem: UpdateProblem }

export const updateHtml = (input: { readonly current: string; readonly content: string; readonly sectionId: string | undefined }): UpdateOutcome =>
  withinDepth(() =>
    Either.match(applyUpdate(input.current, input.content, input.sectionId), { onLeft: (problem) => ({ problem }), onRight: (html) => ({ html }) })
  )

export const sections = ({ html }: { readonly html: string }) => withinDepth(() => sectionsOf(html))

export const outline = (input: { readonly format: "html" | "markdown"; readonly content: string }) =>
  withinDepth(() => input.format === "html" ? outlineFromHtml(input.content) : outlineFromMarkdown(input.content))
