import { Effect } from "effect"
import { asRecord } from "../../../schemas/Records.js"
import { addUsage, type AgentCall, AgentKit, type AgentTypeRun, conversation, instructions, renderedInputs, userTurn } from "../AgentKit.js"
import { KnowledgeSearch, type SearchHit } from "../KnowledgeSearch.js"

/** The query: the chat turn, else `inputs.query`, else the whole user turn. */
const queryOf = (call: AgentCall) => {
  const inputs = asRecord(renderedInputs(call))
  return call.context.chat?.message ?? (typeof inputs.query === "string" ? inputs.query : userTurn(call))
}

const numberOr = (value: unknown, fallback: number) => (typeof value === "number" ? value : fallback)

/** One citation per chunk, in rank order. */
const citationsOf = (hits: ReadonlyArray<SearchHit>) => [...new Map(hits.map((h) => [h.chunk_id, h])).values()]

/**
 * search_respond: retrieval from the step's knowledge bases, then an answer that cites what it
 * used as [n]. Output `{text, citations: [{document_id, chunk_id, title, snippet, score}]}`.
 * With `type_config.answer: false` (the retired Knowledge Search preset) it returns the passages
 * without a model call.
 */
export const searchRespond = Effect.gen(function*() {
  const kit = yield* AgentKit
  const knowledge = yield* KnowledgeSearch
  const run: AgentTypeRun = (call) =>
    Effect.gen(function*() {
      const c = call.agentConfig
      const query = queryOf(call)
      const hits = yield* knowledge.search(call.tenantId, c.knowledge_base_ids ?? [], query, {
        topK: numberOr(c.type_config?.top_k, 5),
        minScore: numberOr(c.type_config?.min_score, 0)
      })
      const citations = citationsOf(hits)
      if (c.type_config?.answer === false) {
        return { output: { text: hits.map((h, i) => `[${i + 1}] ${h.title}\n${h.snippet}`).join("\n\n"), citations }, usage: {} }
      }
      const sources = hits.length === 0
        ? "No relevant documents were found; say so rather than guessing."
        : hits.map((h, i) => `[${i + 1}] ${h.title}\n${h.snippet}`).join("\n\n")
      const r = yield* kit.complete(call, [
        { role: "system", content: `${instructions(call)}\n\nAnswer from these sources only and cite them as [n]:\n\n${sources}` },
        ...conversation(call, query)
      ])
      return { output: { text: r.text, citations }, usage: addUsage({}, r) }
    })
  return run
})
