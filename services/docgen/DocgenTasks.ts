import { workerTask } from "../../platform/workers/WorkerPool.js"
import type * as HtmlTasks from "./HtmlTasks.js"
import type * as OfficeTasks from "./OfficeTasks.js"

/** Docgen's work on tenant files and markup, run by the worker pool. */
const html = new URL("./HtmlTasks.js", import.meta.url)
const office = new URL("./OfficeTasks.js", import.meta.url)

export const DocgenTasks = {
  sanitize: workerTask<typeof HtmlTasks, "sanitizeHtml">(html, "sanitizeHtml"),
  update: workerTask<typeof HtmlTasks, "updateHtml">(html, "updateHtml"),
  sections: workerTask<typeof HtmlTasks, "sections">(html, "sections"),
  outline: workerTask<typeof HtmlTasks, "outline">(html, "outline"),
  readTemplate: workerTask<typeof OfficeTasks, "readTemplate">(office, "readTemplate"),
  slides: workerTask<typeof OfficeTasks, "slides">(office, "slides"),
  rewriteSlides: workerTask<typeof OfficeTasks, "rewriteSlides">(office, "rewriteSlides"),
  thumbnail: workerTask<typeof OfficeTasks, "thumbnail">(office, "thumbnail")
}
