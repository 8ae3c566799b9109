import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { publishedWorkflow } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { SmtpInbox } from "../support/SmtpInbox.js"
import { TestPlatformLive } from "../support/TestPlatform.js"
import { respondNode } from "../support/Workflows.js"

const Live = Layer.unwrapEffect(
  Effect.all([SmtpInbox, ScriptedModel]).pipe(
    Effect.map(([inbox, model]) =>
      TestPlatformLive({
        env: { SMTP_URL: `smtp://127.0.0.1:${inbox.port}`, LLM_BASE_URL: model.baseUrl, LLM_MODELS: "test-model", OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" }
      })
    )
  )
).pipe(Layer.provideMerge(Layer.merge(SmtpInbox.layer, ScriptedModel.layer)))

const dag = {
  nodes: [
    respondNode("draft", "Draft a reply to {{workflow_input.customer}}"),
    {
      id: "mail",
      type: "send_email",
      send_email_config: {
        to: ["{{workflow_input.email}}"],
        cc: "audit@acme.test",
        subject: "Re: {{workflow_input.customer}}",
        body_text: "{{nodes.draft.output.text}}"
      }
    }
  ],
  edges: [{ from: "draft", to: "mail" }]
}

layer(Live, { excludeTestServices: true, timeout: "60 seconds" })("send_email node", (it) => {
  it.effect("renders its fields against the run and mails them over SMTP; a dry run sends nothing", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      const inbox = yield* SmtpInbox
      model.setScript(() => ({ text: "Your order ships Monday." }))
      const id = yield* publishedWorkflow(admin, dag)
      const before = inbox.messages.length
      const run = yield* startRun(admin, id, { customer: "Ada", email: "ada@customer.test" })
      const done = yield* waitForStatus(admin, run.body.id, ["completed", "failed"])
      assert.strictEqual(done.status, "completed", JSON.stringify(done))
      const mailed = inbox.messages.slice(before)
      assert.strictEqual(mailed.length, 1)
      assert.sameMembers([...mailed[0].to], ["ada@customer.test", "audit@acme.test"])
      assert.include(mailed[0].raw, "Subject: Re: Ada")
      assert.include(mailed[0].raw, "Your order ships Monday.")
      const steps = yield* http("GET", `/api/v1/workflow/runs/${run.body.id}/steps`, { token: admin })
      const mail = steps.body.items.find((s: { node_id: string }) => s.node_id === "mail")
      assert.strictEqual(mail.output.status, "sent")
      assert.deepStrictEqual(mail.output.to, ["ada@customer.test"])

      const dry = yield* http("POST", `/api/v1/workflow/workflows/${id}/dry-run`, {
        token: admin,
        body: { input_params: { customer: "Bob", email: "bob@customer.test" } }
      })
      assert.strictEqual(dry.status, 202)
      assert.strictEqual((yield* waitForStatus(admin, dry.body.id, ["completed", "failed"])).status, "completed")
      assert.strictEqual(inbox.messages.length, before + 1, "a dry run sends nothing")
    }))

  it.effect("with integration_id the message goes through the workspace's mail integration (its server and sender), once per step", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      const inbox = yield* SmtpInbox
      model.setScript(() => ({ text: "Thanks for writing." }))
      const entry = yield* http("POST", "/api/v1/integrations/catalog", { token: admin, body: { name: "desk-mail", category: "email", functions: [] } })
      assert.strictEqual(entry.status, 201, entry.text)
      const install = (yield* http("POST", "/api/v1/integrations/integrations", { token: admin, body: { catalog_id: entry.body.id } })).body.id as string
      yield* http("PUT", `/api/v1/integrations/integrations/${install}/credentials`, {
        token: admin,
        body: { capability: "agent_tool", credentials: { smtp_url: `smtp://127.0.0.1:${inbox.port}`, from: "Help Desk <desk@tenant.test>" } }
      })
      const mailNode = dag.nodes[1] as { send_email_config: Record<string, unknown> }
      const viaIntegration = { ...dag, nodes: [dag.nodes[0], { ...mailNode, send_email_config: { ...mailNode.send_email_config, integration_id: install } }] }
      const id = yield* publishedWorkflow(admin, viaIntegration)
      const before = inbox.messages.length
      const run = yield* startRun(admin, id, { customer: "Cy", email: "cy@customer.test" })
      const done = yield* waitForStatus(admin, run.body.id, ["completed", "failed"])
      assert.strictEqual(done.status, "completed", JSON.stringify(done))
      const mailed = inbox.messages.slice(before)
      assert.strictEqual(mailed.length, 1)
      assert.include(mailed[0].raw, "From: Help Desk <desk@tenant.test>")
      assert.include(mailed[0].raw, "Thanks for writing.")
      const mail = (yield* http("GET", `/api/v1/workflow/runs/${run.body.id}/steps`, { token: admin })).body.items.find((s: { node_id: string }) =>
        s.node_id === "mail"
      )
      assert.deepInclude(mail.output, { status: "sent", integration_id: install, from: "Help Desk <desk@tenant.test>" })

      // A server at an address the guard refuses fails the step; so does an integration that is not for mail.
      yield* http("PUT", `/api/v1/integrations/integrations/${install}/credentials`, {
        token: admin,
        body: { capability: "agent_tool", credentials: { smtp_url: "smtp://10.0.0.9:25" } }
      })
      const refused = yield* waitForStatus(admin, (yield* startRun(admin, id, { customer: "Di", email: "di@customer.test" })).body.id, ["completed", "failed"])
      assert.strictEqual(refused.status, "failed")
      assert.include(refused.error, "OUTBOUND_ADDRESS_REFUSED")
      assert.strictEqual(inbox.messages.length, before + 1)
    }))
})
