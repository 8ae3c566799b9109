import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { corpus, queries } from "../support/Corpus.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { eventually, RunPlatformLive } from "../support/RunPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"

const base = "/api/v1/ingestion/knowledge-bases"

/** An embeddings model that knows a few synonyms: each dimension is a concept. */
const concepts: ReadonlyArray<ReadonlyArray<string>> = [
  ["refund", "refunds", "money", "returned", "repaid"],
  ["parental", "parents", "birth", "adoption", "newborn", "baby"],
  ["phishing", "security", "incident", "trick", "scam"],
  ["invoice", "invoices", "billing", "charged", "bill"]
]
const conceptEmbedder = (text: string) => {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? []
  return concepts.map((c) => words.filter((w) => c.includes(w)).length)
}

/** Questions that share no word with their document: only the vectors can find them. */
const paraphrases: ReadonlyArray<[string, string]> = [
  ["can I get my money returned", "Refund policy"],
  ["time off to care for a newborn", "Parental leave"],
  ["someone tried to trick me into revealing secrets", "Security incidents"],
  ["I need a copy of what I was charged", "Invoice download"]
]

const search = (token: string, kb: string, query: string) =>
  http("POST", `${base}/${kb}/search`, { token, body: { query, top_k: 3 } }).pipe(
    Effect.map((r) => r.body.items as Array<{ title: string; score: number }>)
  )

const newKb = (token: string, name: string) => http("POST", base, { token, body: { name, description: "" } }).pipe(Effect.map((r) => r.body.id as string))

layer(RunPlatformLive({ LLM_EMBEDDING_MODEL: "test-embed", EMBEDDING_BACKFILL_SECONDS: "1" }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("knowledge bases with an embeddings model", (it) => {
  it.effect("blended search finds paraphrases that share no word with the document; word queries still rank first", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setEmbedder(conceptEmbedder)
      const kb = yield* newKb(token, "Corpus")
      for (const [title, content] of corpus) {
        assert.strictEqual((yield* http("POST", `${base}/${kb}/documents`, { token, body: { title, content } })).status, 201)
      }
      // Every chunk was embedded (title and text), with the configured model.
      const embedded = new Set(model.embeddingRequests.flatMap((r) => r.input).filter((t) => t.includes("\n")).map((t) => t.split("\n")[0]))
      assert.deepStrictEqual(corpus.map(([title]) => title).filter((t) => !embedded.has(t)), [])
      assert.isTrue(model.embeddingRequests.every((r) => r.model === "test-embed"))
      for (const [query, expected] of paraphrases) {
        const items = yield* search(token, kb, query)
        assert.strictEqual(items[0]?.title, expected, `"${query}" -> ${JSON.stringify(items.map((i) => i.title))}`)
        assert.isAbove(items[0].score, 0.5)
      }
      for (const [query, expected] of queries) {
        const items = yield* search(token, kb, query)
        assert.strictEqual(items[0]?.title, expected, `"${query}" -> ${JSON.stringify(items.map((i) => i.title))}`)
      }

      // search_respond cites what the blended search found.
      model.setScript(() => ({ text: "Yes, within 30 days [1]." }))
      const answer = yield* http("POST", "/api/v1/agent/agents/test-execute", {
        token,
        body: {
          agent_config: { agent_type: "search_respond", system_prompt_template: "Answer." },
          inputs: { query: "can I get my money returned" },
          knowledge_bases: [kb]
        }
      })
      assert.strictEqual(answer.body.output.citations[0].title, "Refund policy")
    }))

  it.effect("when the embeddings call fails the upload still lands and search falls back to words; the backfill embeds it later", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setEmbedder(conceptEmbedder)
      const kb = yield* newKb(token, "Flaky")
      model.failEmbeddings(400)
      const doc = yield* http("POST", `${base}/${kb}/documents`, { token, body: { title: "Refund policy", content: corpus[0][1] } })
      assert.strictEqual(doc.status, 201)
      yield* http("POST", `${base}/${kb}/documents`, { token, body: { title: "Onboarding checklist", content: corpus[11][1] } })
      // The query cannot be embedded either: full-text only, which matches "get" in the onboarding text.
      assert.deepStrictEqual((yield* search(token, kb, "can I get my money returned")).map((i) => i.title), ["Onboarding checklist"])
      model.failEmbeddings(undefined)
      const found = yield* eventually(
        search(token, kb, "can I get my money returned").pipe(Effect.map((items) => (items[0]?.title === "Refund policy" ? items : undefined))),
        "the backfill to embed the refund policy"
      )
      assert.strictEqual(found[0].title, "Refund policy")
    }))
})
