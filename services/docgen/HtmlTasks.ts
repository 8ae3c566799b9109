import { Either } from "effect"
import { applyUpdate, sanitize, sectionsOf, type UpdateProblem } from "./HtmlUpdate.js"
import { outlineFromHtml, outlineFromMarkdown } from "./Outline.js"

// Runs on a thread of the worker pool (platform/workers): parsing and sanitising tenant HTML of
// up to the body limit takes seconds on deeply nested markup, never on the event loop.

export const sanitizeHtml = ({ html }: { readonly html: string }) => sanitize(html)

export type UpdateOutcome = { readonly html: string } | { readonly problem: UpdateProblem }

export const updateHtml = (input: { readonly current: string; readonly content: string; readonly sectionId: string | undefined }): UpdateOutcome =>
  Either.match(applyUpdate(input.current, input.content, input.sectionId), { onLeft: (problem) => ({ problem }), onRight: (html) => ({ html }) })

export const sections = ({ html }: { readonly html: string }) => sectionsOf(html)

export const outline = (input: { readonly format: "html" | "markdown"; readonly content: string }) =>
  input.format === "html" ? outlineFromHtml(input.content) : outlineFromMarkdown(input.content)
