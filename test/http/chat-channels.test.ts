import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { answerOf, apiKey, chatDag, chatWorkflow, conversationOf, isTitleRequest, messagesOf, newSession, query, send, setTenantFlag } from "../support/Chat.js"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { readUntil, waitForStatus } from "../support/Runs.js"
import { lastUser, ScriptedModel } from "../support/ScriptedModel.js"
import { respondNode } from "../support/Workflows.js"

const kbBase = "/api/v1/ingestion/knowledge-bases"

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "90 seconds" })("chat channels", (it) => {
  it.effect("an answer cites its documents once each, with the buttons the AI Employee offers", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => isTitleRequest(r) ? { text: "Refunds" } : { text: "Refunds take 30 days [1][2]." })
      const kb = (yield* http("POST", kbBase, { token, body: { name: "Policies" } })).body.id as string
      const long = Array.from({ length: 8 }, (_, i) => `Refund rule ${i}: refunds are paid back within 30 days to the card.`).join("\n\n")
      yield* http("POST", `${kbBase}/${kb}/documents`, { token, body: { title: "Refund policy", content: long.repeat(3) } })
      yield* http("POST", `${kbBase}/${kb}/documents`, { token, body: { title: "Refund FAQ", content: "Refunds: ask support for a refund." } })
      const dag = {
        input_schema: { type: "object", properties: { message: { type: "string" } } },
        nodes: [{
          id: "search",
          type: "agent",
          agent_config: {
            agent_type: "search_respond",
            type_version: "v1",
            system_prompt_template: "Answer from the policies.",
            knowledge_base_ids: [kb],
            type_config: { top_k: 8 }
          }
        }],
        edges: [],
        outputs: [
          { name: "response", value: "{{nodes.search.output.text}}" },
          { name: "response_buttons", value: "[\"Talk to a person\", \"Thanks\"]" }
        ]
      }
      const wf = yield* chatWorkflow(token, dag)
      const session = yield* newSession(token, wf)
      const sent = yield* send(token, session.id, { content: "how do refunds work" })
      const answer = yield* answerOf(token, session.id, sent.body.assistant_message_id)
      assert.strictEqual(answer.content, "Refunds take 30 days [1][2].")
      const run = yield* http("GET", `/api/v1/workflow/runs/${sent.body.run_id}/steps`, { token })
      const citations = run.body.items[0].output.citations as Array<{ document_id: string }>
      assert.isAbove(citations.length, new Set(citations.map((c) => c.document_id)).size)
      assert.deepStrictEqual(answer.sources.map((s) => s.title).sort(), ["Refund FAQ", "Refund policy"])
      assert.deepStrictEqual(answer.response_buttons, [
        { label: "Talk to a person", value: "Talk to a person" },
        { label: "Thanks", value: "Thanks" }
      ])
    }))

  it.effect("feedback: sentiment and category overwrite, a comment needs a sentiment, the feedback workflow runs", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => isTitleRequest(r) ? { text: "T" } : { text: `ok: ${lastUser(r).slice(0, 40)}` })
      const triage = yield* publishedWorkflow(token, {
        input_schema: { type: "object", properties: { sentiment: { type: "string" } }, required: ["sentiment"] },
        nodes: [respondNode("triage", "Triage {{workflow_input.sentiment}} feedback on: {{workflow_input.message}}")],
        edges: []
      })
      const wf = yield* chatWorkflow(token)
      const config = yield* http("PUT", `/api/v1/workflow/workflows/${wf}/config`, {
        token,
        body: {
          welcome_message: "Hi! Ask me anything.",
          welcome_buttons: [{ label: "Track my order", value: "Where is my order?" }],
          feedback_enabled: true,
          feedback_categories: ["wrong", "rude", "slow"],
          feedback_workflow_id: triage
        }
      })
      assert.strictEqual(config.status, 200, config.text)
      const embed = yield* http("GET", `/api/v1/chat/workflows/${wf}`, { token })
      assert.deepStrictEqual(embed.body, {
        workflow_id: wf,
        name: "Concierge",
        interaction_type: "chat",
        published: true,
        welcome_message: "Hi! Ask me anything.",
        welcome_buttons: [{ label: "Track my order", value: "Where is my order?" }],
        feedback_pills: { enabled: true, categories: ["wrong", "rude", "slow"] }
      })

      const session = yield* newSession(token, wf)
      const sent = yield* send(token, session.id, { content: "Where is my order?" })
      const answer = yield* answerOf(token, session.id, sent.body.assistant_message_id)
      const path = `/api/v1/chat/messages/${answer.id}/feedback`
      const early = yield* http("PATCH", path, { token, body: { feedback_text: "meh" } })
      assert.strictEqual(early.status, 409)
      assert.strictEqual(early.body.code, "FEEDBACK_SENTIMENT_REQUIRED")
      assert.strictEqual((yield* http("POST", path, { token, body: { sentiment: "negative", category: "nope" } })).body.code, "UNKNOWN_FEEDBACK_CATEGORY")
      assert.strictEqual((yield* http("POST", path, { token, body: { sentiment: "meh" } })).status, 400)
      const onUser = yield* http("POST", `/api/v1/chat/messages/${sent.body.message_id}/feedback`, { token, body: { sentiment: "positive" } })
      assert.strictEqual(onUser.body.code, "NOT_AN_ASSISTANT_MESSAGE")

      const rated = yield* http("POST", path, { token, body: { sentiment: "negative", category: "slow" } })
      assert.strictEqual(rated.status, 200, rated.text)
      assert.strictEqual(rated.body.feedback.sentiment, "negative")
      assert.strictEqual(rated.body.feedback.category, "slow")
      assert.isString(rated.body.run_id)
      const feedbackRun = yield* waitForStatus(token, rated.body.run_id, ["completed", "failed"])
      assert.strictEqual(feedbackRun.status, "completed")
      assert.strictEqual(feedbackRun.trigger_type, "feedback")
      assert.strictEqual(feedbackRun.workflow_id, triage)
      assert.strictEqual(feedbackRun.input_params.sentiment, "negative")
      assert.strictEqual(feedbackRun.input_params.message_id, answer.id)
      assert.strictEqual(feedbackRun.input_params.message, answer.content)

      const same = yield* http("POST", path, { token, body: { sentiment: "negative", category: "slow" } })
      assert.strictEqual(same.status, 200)
      assert.isUndefined(same.body.run_id)
      const flipped = yield* http("POST", path, { token, body: { sentiment: "positive" } })
      assert.strictEqual(flipped.body.feedback.sentiment, "positive")
      assert.isUndefined(flipped.body.feedback.category)
      assert.isString(flipped.body.run_id)
      assert.notStrictEqual(flipped.body.run_id, rated.body.run_id)
      const commented = yield* http("PATCH", path, { token, body: { feedback_text: "Actually fine" } })
      assert.strictEqual(commented.status, 200, commented.text)
      assert.strictEqual(commented.body.feedback.feedback_text, "Actually fine")
      assert.strictEqual(commented.body.feedback.sentiment, "positive")
      const listed = (yield* messagesOf(token, session.id)).find((m) => m.id === answer.id)!
      assert.strictEqual(listed.feedback!.feedback_text, "Actually fine")
      const feedbackRuns = yield* http("GET", `/api/v1/workflow/workflows/${triage}/runs?trigger_type=feedback`, { token })
      assert.strictEqual(feedbackRuns.body.total, 3)

      const member = yield* createMember(token, "user")
      const memberToken = yield* loginToken(member.email, member.password)
      assert.strictEqual((yield* http("POST", path, { token: memberToken, body: { sentiment: "positive" } })).status, 404)
    }))

  it.effect("external/trigger speaks for the user a bearer token names; conversation_id threads the turns", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => isTitleRequest(r) ? { text: "T" } : { text: `re: ${lastUser(r)}` })
      const wf = yield* chatWorkflow(token, chatDag("Help {{workflow_input.user_context.user_id}}"))
      const key = yield* apiKey(token)
      const member = yield* createMember(token, "user")
      const memberToken = yield* loginToken(member.email, member.password)
      const body = { bearer_token: memberToken, workflow_id: wf, channel_type: "slack", message: "first", conversation_id: "C1/T1" }
      const first = yield* http("POST", "/api/v1/chat/external/trigger", { apiKey: key, body })
      assert.strictEqual(first.status, 202, first.text)
      assert.isString(first.body.session_id)
      yield* answerOf(memberToken, first.body.session_id, first.body.assistant_message_id)
      const session = yield* http("GET", `/api/v1/chat/sessions/${first.body.session_id}`, { token: memberToken })
      assert.strictEqual(session.body.user_id, member.id)
      assert.strictEqual(session.body.channel, "slack")
      assert.strictEqual(session.body.conversation_id, "C1/T1")
      const run = yield* http("GET", `/api/v1/workflow/runs/${first.body.run_id}`, { token })
      assert.strictEqual(run.body.trigger_type, "api")
      const identity = run.body.input_params.user_context
      assert.strictEqual(identity.user_id, member.id)
      assert.strictEqual(identity.channel_type, "slack")
      assert.match(identity.email, /^\[PII_EMAIL_[0-9a-f]{10}\]$/)
      assert.notInclude(JSON.stringify(run.body.input_params), member.email)

      const second = yield* http("POST", "/api/v1/chat/external/trigger", { apiKey: key, body: { ...body, message: "second" } })
      assert.strictEqual(second.body.session_id, first.body.session_id)
      yield* answerOf(memberToken, first.body.session_id, second.body.assistant_message_id)
      const call = model.requests.filter((r) => !isTitleRequest(r)).at(-1)!
      assert.deepStrictEqual(conversationOf(call), ["user: first", "assistant: re: first", "user: second"])
      assert.include(call.messages[0].content!, member.id)
      const followed = yield* readUntil(memberToken, second.body.run_id, "run_completed")
      assert.isTrue(followed.some((e) => e.data.type === "assistant_message"))
      const streamed = yield* http("GET", `/api/v1/chat/runs/${second.body.run_id}/stream`, { apiKey: key })
      assert.strictEqual(streamed.status, 200)
      assert.include(streamed.text, "assistant_message")

      const other = yield* http("POST", "/api/v1/chat/external/trigger", { apiKey: key, body: { ...body, conversation_id: "C2" } })
      assert.notStrictEqual(other.body.session_id, first.body.session_id)
      const viaJwt = yield* http("POST", "/api/v1/chat/external/trigger", { token, body })
      assert.strictEqual(viaJwt.status, 403)
      assert.strictEqual(viaJwt.body.code, "API_KEY_REQUIRED")
      const badToken = yield* http("POST", "/api/v1/chat/external/trigger", { apiKey: key, body: { ...body, bearer_token: "nope" } })
      assert.strictEqual(badToken.status, 422)
      assert.strictEqual(badToken.body.code, "INVALID_BEARER_TOKEN")
      const override = yield* http("POST", "/api/v1/chat/external/trigger", {
        apiKey: key,
        body: { ...body, user_context_override: { plan: "gold" } }
      })
      assert.strictEqual(override.status, 403)
    }))

  it.effect("external/chat: an identity is required; conversation_id threads turns; without it each call stands alone", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => isTitleRequest(r) ? { text: "T" } : { text: `re: ${lastUser(r)}` })
      const wf = yield* chatWorkflow(token)
      const key = yield* apiKey(token)
      const none = yield* http("POST", "/api/v1/chat/external/chat", { apiKey: key, body: { workflow_id: wf, message: "hi" } })
      assert.strictEqual(none.status, 422)
      assert.strictEqual(none.body.code, "IDENTITY_REQUIRED")
      const thread = { workflow_id: wf, external_user_id: "visitor-42", conversation_id: "web-1" }
      const a = yield* http("POST", "/api/v1/chat/external/chat", { apiKey: key, body: { ...thread, message: "one" } })
      assert.strictEqual(a.status, 202, a.text)
      const done = yield* waitForStatus(token, a.body.run_id, ["completed", "failed"])
      assert.strictEqual(done.status, "completed")
      const answer = yield* answerOf(key, a.body.session_id, a.body.assistant_message_id, "apiKey")
      assert.strictEqual(answer.content, "re: one")
      const b = yield* http("POST", "/api/v1/chat/external/chat", { apiKey: key, body: { ...thread, message: "two" } })
      assert.strictEqual(b.body.session_id, a.body.session_id)
      yield* answerOf(key, a.body.session_id, b.body.assistant_message_id, "apiKey")
      assert.deepStrictEqual(conversationOf(model.requests.filter((r) => !isTitleRequest(r)).at(-1)!), [
        "user: one",
        "assistant: re: one",
        "user: two"
      ])
      const otherVisitor = yield* http("POST", "/api/v1/chat/external/chat", {
        apiKey: key,
        body: { ...thread, external_user_id: "visitor-43", message: "hello" }
      })
      assert.notStrictEqual(otherVisitor.body.session_id, a.body.session_id)
      const key1 = { "idempotency-key": `ext-${Date.now()}` }
      const once = yield* http("POST", "/api/v1/chat/external/chat", { apiKey: key, headers: key1, body: { ...thread, message: "three" } })
      const retried = yield* http("POST", "/api/v1/chat/external/chat", { apiKey: key, headers: key1, body: { ...thread, message: "three" } })
      assert.strictEqual(retried.status, 202)
      assert.deepStrictEqual(retried.body, once.body)
      yield* answerOf(key, a.body.session_id, once.body.assistant_message_id, "apiKey")
      assert.strictEqual((yield* messagesOf(key, a.body.session_id, "apiKey")).length, 6)
      const byEmail = { workflow_id: wf, user_context: { email: "Pat@Example.test" } }
      const s1 = yield* http("POST", "/api/v1/chat/external/chat", { apiKey: key, body: { ...byEmail, message: "single one" } })
      const s2 = yield* http("POST", "/api/v1/chat/external/chat", { apiKey: key, body: { ...byEmail, message: "single two" } })
      assert.strictEqual(s1.status, 202, s1.text)
      assert.notStrictEqual(s1.body.session_id, s2.body.session_id)
      yield* answerOf(key, s2.body.session_id, s2.body.assistant_message_id, "apiKey")
      assert.deepStrictEqual(conversationOf(model.requests.filter((r) => !isTitleRequest(r)).at(-1)!), ["user: single two"])
      const stored = yield* query<{ external_subject: string }>("SELECT external_subject FROM chat_sessions WHERE id = $1", [s1.body.session_id])
      assert.notInclude(stored[0].external_subject.toLowerCase(), "pat@example.test")
    }))

  it.effect("per-turn user_context and impersonation need the tenant flag; PII is tokenized and kept sealed", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => isTitleRequest(r) ? { text: "T" } : { text: `Noted, ${/\[PII_NAME_[0-9a-f]+\]/.exec(r.messages[0].content!)?.[0]}` })
      const wf = yield* chatWorkflow(token, chatDag("Customer {{workflow_input.user_context.name}} ({{workflow_input.user_context.note}})"))
      const session = yield* newSession(token, wf)
      const context = { name: "Ada Lovelace", note: "call +44 20 7946 0958 or mail ada@analytical.test", tier: "gold" }
      const off = yield* send(token, session.id, { content: "hi", user_context: context })
      assert.strictEqual(off.status, 403)
      assert.strictEqual(off.body.code, "CHAT_IMPERSONATION_DISABLED")
      const offImpersonate = yield* send(token, session.id, { content: "hi", impersonation_request: { user_email: "x@y.test" } })
      assert.strictEqual(offImpersonate.status, 403)

      yield* setTenantFlag(token, { chat_impersonation: true })
      const on = yield* send(token, session.id, { content: "hi", user_context: context })
      assert.strictEqual(on.status, 202, on.text)
      const answer = yield* answerOf(token, session.id, on.body.assistant_message_id)
      assert.strictEqual(answer.content, "Noted, Ada Lovelace")
      const prompt = model.requests.filter((r) => !isTitleRequest(r)).at(-1)!.messages[0].content!
      // The phone as written (its digits alone could occur in a token's hex).
      for (const secret of ["Ada Lovelace", "20 7946 0958", "ada@analytical.test"]) assert.notInclude(prompt, secret)
      assert.match(prompt, /\[PII_NAME_[0-9a-f]{10}\] \(call \[PII_PHONE_[0-9a-f]{10}\] or mail \[PII_EMAIL_[0-9a-f]{10}\]\)/)
      const stored = yield* query<{ user_context: unknown; input_params: unknown }>(
        "SELECT m.user_context, r.input_params FROM chat_messages m JOIN runs r ON r.id = m.run_id WHERE m.id = $1",
        [on.body.message_id]
      )
      const raw = JSON.stringify(stored)
      for (const secret of ["Ada Lovelace", "20 7946 0958", "ada@analytical"]) assert.notInclude(raw, secret)
      assert.include(raw, "gold")
      const assistantRaw = yield* query<{ content: string }>("SELECT content FROM chat_messages WHERE id = $1", [answer.id])
      assert.match(assistantRaw[0].content, /^Noted, \[PII_NAME_/)
      const sealed = yield* query<{ sealed_value: string; kind: string }>(
        "SELECT kind, sealed_value FROM chat_pii_tokens WHERE session_id = $1 ORDER BY kind",
        [session.id]
      )
      assert.deepStrictEqual(sealed.map((s) => s.kind), ["EMAIL", "NAME", "PHONE"])
      for (const s of sealed) assert.match(s.sealed_value, /^v1:/)

      const member = yield* createMember(token, "user")
      const impersonated = yield* send(token, session.id, { content: "as them", impersonation_request: { user_id: member.id } })
      assert.strictEqual(impersonated.status, 202, impersonated.text)
      const run = yield* waitForStatus(token, impersonated.body.run_id, ["completed", "failed"])
      assert.strictEqual(run.input_params.user_context.user_id, member.id)
      assert.match(run.input_params.user_context.email, /^\[PII_EMAIL_/)
      const audit = yield* http("GET", "/api/v1/auth/audit-events?page_size=100", { token })
      assert.isTrue(audit.body.items.some((e: { action: string }) => e.action === "chat.impersonation"))
      const unknown = yield* send(token, session.id, { content: "x", impersonation_request: { user_email: "ghost@nowhere.test" } })
      assert.strictEqual(unknown.status, 422)
      const memberToken = yield* loginToken(member.email, member.password)
      const theirs = yield* newSession(memberToken, wf)
      const notAdmin = yield* send(memberToken, theirs.id, { content: "x", impersonation_request: { user_id: member.id } })
      assert.strictEqual(notAdmin.status, 403)
      yield* setTenantFlag(token, { chat_impersonation: false })
    }))

  it.effect("chat HITL respond: the request must belong to the session's AI Employee; then the run resumes", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => isTitleRequest(r) ? { text: "T" } : { text: `final: ${r.messages[0].content}` })
      const dag = {
        nodes: [{
          ...respondNode("answer", "Use {{nodes.answer.hitl.value}}"),
          hitl: { type: "ask_human", prompt: "Which plan?", choices: ["basic", "pro"], assignee: { role: "user" } }
        }],
        edges: []
      }
      const wf = yield* chatWorkflow(token, dag)
      const other = yield* chatWorkflow(token)
      const session = yield* newSession(token, wf)
      const otherSession = yield* newSession(token, other)
      const sent = yield* send(token, session.id, { content: "upgrade me" })
      const paused = yield* readUntil(token, sent.body.run_id, "run_paused")
      const requestId = paused.find((e) => e.data.type === "run_paused")!.data.request_id as string
      const wrong = yield* http("POST", `/api/v1/chat/hitl/${requestId}/respond`, {
        token,
        body: { session_id: otherSession.id, response: { type: "choice", value: "pro" } }
      })
      assert.strictEqual(wrong.status, 404)
      const bad = yield* http("POST", `/api/v1/chat/hitl/${requestId}/respond`, {
        token,
        body: { session_id: session.id, response: { type: "choice", value: "platinum" } }
      })
      assert.strictEqual(bad.status, 400)
      const member = yield* createMember(token, "user")
      const memberToken = yield* loginToken(member.email, member.password)
      const notOwner = yield* http("POST", `/api/v1/chat/hitl/${requestId}/respond`, {
        token: memberToken,
        body: { session_id: session.id, response: { type: "choice", value: "pro" } }
      })
      assert.strictEqual(notOwner.status, 404)
      const ok = yield* http("POST", `/api/v1/chat/hitl/${requestId}/respond`, {
        token,
        body: { session_id: session.id, response: { type: "choice", value: "pro" } }
      })
      assert.strictEqual(ok.status, 200, ok.text)
      assert.strictEqual(ok.body.status, "completed")
      const answer = yield* answerOf(token, session.id, sent.body.assistant_message_id)
      assert.strictEqual(answer.content, "final: Use pro")
      yield* eventually(
        messagesOf(token, session.id).pipe(Effect.map((items) => items[0]?.status === "answered" ? true : undefined)),
        "the turn answered"
      )
    }))
})
