import { Context, Effect, Either, Layer, ParseResult, Schema } from "effect"
import { type Edge, Edge as EdgeSchema, type NodeEnvelope } from "../../schemas/Dag.js"
import { asRecord } from "../../schemas/Records.js"
import { defaultWorkflowConfig, type WorkflowConfig } from "../../schemas/Workflow.js"
import { nodeTypesInForce } from "../nodes/Nodes.js"
import type { NodeContract } from "../nodes/NodeType.js"
import { RunnableWorkflows } from "./Ports.js"

/** A version as the interpreter runs it: decoded once, kept while it is used. */
export interface RunnableVersion {
  readonly nodes: ReadonlyArray<NodeEnvelope>
  readonly byId: ReadonlyMap<string, NodeEnvelope>
  readonly edges: ReadonlyArray<Edge>
  readonly outputs: ReadonlyArray<{ readonly name: string; readonly value: string }>
  readonly inputSchema: unknown
  readonly config: WorkflowConfig
  /**
   * The nodes and edges of the stored DAG that do not decode (a draft left unfinished, a shape
   * no schema reads any more), each named: a version with any never runs, since running the
   * rest would end `completed` without them.
   */
  readonly problems: ReadonlyArray<string>
}

const firstLine = (error: ParseResult.ParseError) => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const text = issue === undefined ? error.message : `${issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}${issue.message}`
  return text.length > 300 ? `${text.slice(0, 300)}…` : text
}

const decodeAll = <A>(
  decode: (item: unknown) => Either.Either<A, ParseResult.ParseError | string>,
  items: unknown,
  name: (item: unknown, index: number) => string
) => {
  const problems: Array<string> = []
  const decoded = (Array.isArray(items) ? items : []).flatMap((item, index) =>
    Either.match(decode(item), {
      onLeft: (error) => {
        problems.push(`${name(item, index)}: ${typeof error === "string" ? error : firstLine(error)}`)
        return []
      },
      onRight: (a) => [a]
    })
  )
  return { decoded, problems }
}

const nodeName = (item: unknown, index: number) => {
  const n = asRecord(item)
  return typeof n.id === "string" ? `node '${n.id}'${typeof n.type === "string" ? ` (${n.type})` : ""}` : `node ${index + 1}`
}

const edgeName = (item: unknown, index: number) => {
  const e = asRecord(item)
  return `edge ${index + 1}${typeof e.from === "string" && typeof e.to === "string" ? ` ${e.from} -> ${e.to}` : ""}`
}

const decodeEdge = Schema.decodeUnknownEither(EdgeSchema, { errors: "first" })

export const runnableVersion = (dagValue: unknown, configValue: unknown, nodeTypes: ReadonlyMap<string, NodeContract>): RunnableVersion => {
  const dag = asRecord(dagValue)
  // Each node against its own type's schema, so the message names what is wrong with it.
  const decodeNode = (item: unknown): Either.Either<NodeEnvelope, ParseResult.ParseError | string> => {
    const type = asRecord(item).type
    const contract = typeof type === "string" ? nodeTypes.get(type) : undefined
    return contract === undefined ? Either.left("no such node type") : contract.decode(item)
  }
  const nodes = decodeAll(decodeNode, dag.nodes, nodeName)
  const edges = decodeAll(decodeEdge, dag.edges, edgeName)
  return {
    nodes: nodes.decoded,
    byId: new Map(nodes.decoded.map((n) => [n.id, n])),
    edges: edges.decoded,
    problems: [...nodes.problems, ...edges.problems],
    outputs: (Array.isArray(dag.outputs) ? dag.outputs : []).flatMap((o: unknown) => {
      const out = asRecord(o)
      return typeof out.name === "string" && typeof out.value === "string" ? [{ name: out.name, value: out.value }] : []
    }),
    inputSchema: dag.input_schema,
    config: { ...defaultWorkflowConfig, ...asRecord(configValue) }
  }
}

const CAPACITY = 500

/** Versions by AI Employee and number, decoded once (versions are immutable once saved). */
export class Versions extends Context.Tag("Versions")<Versions, {
  readonly get: (workflowId: string, number: number) => Effect.Effect<RunnableVersion | undefined>
}>() {
  static readonly layer = Layer.effect(
    Versions,
    Effect.gen(function*() {
      const workflows = yield* RunnableWorkflows
      const nodeTypes = yield* nodeTypesInForce
      const cache = new Map<string, RunnableVersion>()
      return {
        get: (workflowId, number) =>
          Effect.gen(function*() {
            const key = `${workflowId}/${number}`
            const cached = cache.get(key)
            if (cached !== undefined) {
              cache.delete(key)
              cache.set(key, cached)
              return cached
            }
            const found = yield* workflows.version(workflowId, number)
            if (found === undefined) return undefined
            const version = runnableVersion(found.dag, found.config, nodeTypes)
            if (!found.fixed) return version
            cache.set(key, version)
            if (cache.size > CAPACITY) cache.delete(cache.keys().next().value!)
            return version
          })
      }
    })
  )
}
