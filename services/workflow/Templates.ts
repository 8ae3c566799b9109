import type { InteractionType } from "../../schemas/Workflow.js"

export interface BuiltInTemplate {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly interaction_type: InteractionType
  readonly category: string
  readonly dag_definition: Record<string, unknown>
}

/** Templates every tenant sees. */
export const builtInTemplates: ReadonlyArray<BuiltInTemplate> = [
  {
    id: "6f1c1a52-2f0e-4f55-9d43-0c8a3c3f6a01",
    name: "Knowledge-base answerer",
    description: "Answers questions from the attached knowledge bases, with citations.",
    interaction_type: "chat",
    category: "Support",
    dag_definition: {
      input_schema: { type: "object", properties: { message: { type: "string" } } },
      nodes: [{
        id: "answer",
        type: "agent",
        name: "Answer from knowledge",
        agent_config: {
          agent_type: "search_respond",
          type_version: "v1",
          // Made with the Search & Respond preset, no longer offered for new steps; the template keeps it.
          preset: "search_and_respond",
          system_prompt_template: "Answer the question using only the knowledge base. Cite your sources.\nQuestion: {{chat.message}}",
          inputs: { query: "{{chat.message}}" }
        }
      }],
      edges: [],
      outputs: [{ name: "response", value: "{{nodes.answer.output.text}}", exposed: true }]
    }
  },
  {
    id: "6f1c1a52-2f0e-4f55-9d43-0c8a3c3f6a02",
    name: "Ticket triage",
    description: "Classifies an incoming ticket by intent and drafts the reply for its branch.",
    interaction_type: "form",
    category: "Operations",
    dag_definition: {
      input_schema: {
        type: "object",
        properties: { subject: { type: "string" }, body: { type: "string" } },
        required: ["body"]
      },
      nodes: [
        {
          id: "classify",
          type: "agent",
          name: "Classify intent",
          agent_config: {
            agent_type: "intent_classification",
            type_version: "v1",
            system_prompt_template: "Classify this ticket.\nSubject: {{workflow_input.subject}}\n{{workflow_input.body}}",
            inputs: { text: "{{workflow_input.body}}" },
            type_config: {
              intents: [
                { name: "billing", description: "Invoices, payments, refunds" },
                { name: "technical", description: "Errors, outages, how-to questions" },
                { name: "other" }
              ]
            }
          }
        },
        {
          id: "billing_reply",
          type: "agent",
          name: "Billing reply",
          agent_config: {
            agent_type: "respond",
            type_version: "v1",
            system_prompt_template: "Draft a reply to this billing ticket: {{workflow_input.body}}"
          }
        },
        {
          id: "technical_reply",
          type: "agent",
          name: "Technical reply",
          agent_config: {
            agent_type: "respond",
            type_version: "v1",
            system_prompt_template: "Draft a troubleshooting reply to: {{workflow_input.body}}"
          }
        },
        {
          id: "general_reply",
          type: "agent",
          name: "General reply",
          agent_config: {
            agent_type: "respond",
            type_version: "v1",
            system_prompt_template: "Acknowledge this request and say who will follow up: {{workflow_input.body}}"
          }
        }
      ],
      edges: [
        { from: "classify", to: "billing_reply", condition: { ref: "nodes.classify.output.intent", op: "eq", value: "billing" } },
        {
          from: "classify",
          to: "technical_reply",
          condition: { ref: "nodes.classify.output.intent", op: "eq", value: "technical" }
        },
        {
          from: "classify",
          to: "general_reply",
          condition: { ref: "nodes.classify.output.intent", op: "not_in", value: ["billing", "technical"] }
        }
      ],
      outputs: [
        { name: "intent", value: "{{nodes.classify.output.intent}}", exposed: true },
        { name: "billing", value: "{{nodes.billing_reply.output.text}}", exposed: true },
        { name: "technical", value: "{{nodes.technical_reply.output.text}}", exposed: true },
        { name: "general", value: "{{nodes.general_reply.output.text}}", exposed: true }
      ]
    }
  },
  {
    id: "6f1c1a52-2f0e-4f55-9d43-0c8a3c3f6a03",
    name: "Approval flow",
    description: "Drafts a message, waits for a builder admin's approval, then sends it.",
    interaction_type: "form",
    category: "Approvals",
    dag_definition: {
      input_schema: {
        type: "object",
        properties: { request: { type: "string" }, requester_email: { type: "string" } },
        required: ["request", "requester_email"]
      },
      nodes: [
        {
          id: "draft",
          type: "agent",
          name: "Draft the answer",
          agent_config: {
            agent_type: "respond",
            type_version: "v1",
            system_prompt_template: "Draft a short, polite answer to this request: {{workflow_input.request}}"
          }
        },
        {
          id: "send",
          type: "send_email",
          name: "Send once approved",
          hitl: { type: "approval", prompt: "Send this answer?", assignee: { role: "builder_admin" } },
          send_email_config: {
            to: "{{workflow_input.requester_email}}",
            subject: "Your request",
            body_text: "{{nodes.draft.output.text}}"
          }
        }
      ],
      edges: [{ from: "draft", to: "send" }],
      outputs: [{ name: "answer", value: "{{nodes.draft.output.text}}", exposed: true }]
    }
  }
]
