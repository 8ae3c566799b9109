import { Schema } from "effect"
import type { RunContext } from "../../runtime/dag/Context.js"
import { AgentNode, type NodeEnvelope } from "../../schemas/Dag.js"
import { asRecord } from "../../schemas/Records.js"

export interface ChatSource {
  readonly document_id: string
  readonly chunk_id?: string
  readonly title?: string
  readonly snippet?: string
  readonly score?: number
}

export interface ChatButton {
  readonly label: string
  readonly value: string
}

/** The assistant turn a chat run produces. */
export interface ChatReply {
  readonly text: string
  readonly sources: ReadonlyArray<ChatSource>
  readonly response_buttons: ReadonlyArray<ChatButton>
}

const REPLY_TYPES = ["respond", "search_respond"]

const asText = (u: unknown): string | undefined => typeof u === "string" ? u : u === undefined || u === null ? undefined : JSON.stringify(u)

const parseMaybe = (u: unknown): unknown => {
  if (typeof u !== "string") return u
  try {
    return JSON.parse(u)
  } catch {
    return u
  }
}

/** Buttons from `["Yes", "No"]` or `[{label, value}]` (or the JSON text of either). */
export const toButtons = (u: unknown): ReadonlyArray<ChatButton> => {
  const list = parseMaybe(u)
  if (!Array.isArray(list)) return []
  return list.flatMap((b): Array<ChatButton> => {
    if (typeof b === "string" && b.trim() !== "") return [{ label: b, value: b }]
    const r = asRecord(b)
    const label = typeof r.label === "string" ? r.label : typeof r.value === "string" ? r.value : undefined
    if (label === undefined) return []
    return [{ label, value: typeof r.value === "string" ? r.value : label }]
  }).slice(0, 10)
}

/** Citations deduplicated by document: each document once, with its best-scoring chunk. */
export const dedupeSources = (citations: ReadonlyArray<unknown>): ReadonlyArray<ChatSource> => {
  const best = new Map<string, ChatSource>()
  for (const c of citations) {
    const r = asRecord(c)
    if (typeof r.document_id !== "string") continue
    const source: ChatSource = {
      document_id: r.document_id,
      ...(typeof r.chunk_id === "string" ? { chunk_id: r.chunk_id } : {}),
      ...(typeof r.title === "string" ? { title: r.title } : {}),
      ...(typeof r.snippet === "string" ? { snippet: r.snippet } : {}),
      ...(typeof r.score === "number" ? { score: r.score } : {})
    }
    const seen = best.get(r.document_id)
    if (seen === undefined || (source.score ?? 0) > (seen.score ?? 0)) best.set(r.document_id, source)
  }
  return [...best.values()]
}

/**
 * 00-decisions §3: the output named `response`, else the text of the last completed respond or
 * search_respond step (else of the last completed agent step) is the assistant message; the
 * citations of the search_respond steps behind it become its sources. Buttons come from an
 * output named `response_buttons`, else from that step's `response_buttons`.
 */
const isAgentNode = Schema.is(AgentNode)

export const chatReply = (
  nodes: ReadonlyArray<NodeEnvelope>,
  completionOrder: ReadonlyArray<string>,
  context: RunContext,
  named: Record<string, unknown>
): ChatReply => {
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const agentType = (id: string) => {
    const n = byId.get(id)
    return n !== undefined && isAgentNode(n) ? n.agent_config.agent_type : undefined
  }
  const completed = [...completionOrder].reverse()
  const textOf = (id: string) => asText(asRecord(context.nodes[id]?.output).text)
  const source = completed.find((id) => REPLY_TYPES.includes(agentType(id) ?? "") && textOf(id) !== undefined)
    ?? completed.find((id) => agentType(id) !== undefined && textOf(id) !== undefined)
  const namedText = asText(named.response)
  const text = namedText ?? (source !== undefined ? textOf(source) : undefined) ?? ""
  const citing = namedText !== undefined
    ? completed.filter((id) => agentType(id) === "search_respond")
    : source !== undefined
    ? [source]
    : []
  const citations = citing.flatMap((id) => {
    const c = asRecord(context.nodes[id]?.output).citations
    return Array.isArray(c) ? c : []
  })
  const buttons = named.response_buttons !== undefined
    ? toButtons(named.response_buttons)
    : source !== undefined
    ? toButtons(asRecord(context.nodes[source]?.output).response_buttons)
    : []
  return { text, sources: dedupeSources(citations), response_buttons: buttons }
}
