import { Context, Effect, Either, Layer, Schema } from "effect"
import { type DagNode, DagNode as DagNodeSchema, type Edge, Edge as EdgeSchema } from "../../schemas/Dag.js"
import { defaultWorkflowConfig, type WorkflowConfig } from "../../schemas/Workflow.js"
import { asRecord } from "../../schemas/Records.js"
import { RunnableWorkflows } from "./Ports.js"

/** A version as the interpreter runs it: decoded once, kept while it is used. */
export interface RunnableVersion {
  readonly nodes: ReadonlyArray<DagNode>
  readonly byId: ReadonlyMap<string, DagNode>
  readonly edges: ReadonlyArray<Edge>
  readonly outputs: ReadonlyArray<{ readonly name: string; readonly value: string }>
  readonly inputSchema: unknown
  readonly config: WorkflowConfig
}

const decodeAll = <A, I>(schema: Schema.Schema<A, I>, items: unknown): ReadonlyArray<A> =>
  (Array.isArray(items) ? items : []).flatMap((item) => {
    const decoded = Schema.decodeUnknownEither(schema)(item)
    return Either.isRight(decoded) ? [decoded.right] : []
  })

export const runnableVersion = (dagValue: unknown, configValue: unknown): RunnableVersion => {
  const dag = asRecord(dagValue)
  const nodes = decodeAll(DagNodeSchema, dag.nodes)
  return {
    nodes,
    byId: new Map(nodes.map((n) => [n.id, n])),
    edges: decodeAll(EdgeSchema, dag.edges),
    outputs: (Array.isArray(dag.outputs) ? dag.outputs : []).flatMap((o: unknown) => {
      const out = asRecord(o)
      return typeof out.name === "string" && typeof out.value === "string" ? [{ name: out.name, value: out.value }] : []
    }),
    inputSchema: dag.input_schema,
    config: { ...defaultWorkflowConfig, ...asRecord(configValue) } as WorkflowConfig
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
            const version = runnableVersion(found.dag, found.config)
            if (!found.fixed) return version
            cache.set(key, version)
            if (cache.size > CAPACITY) cache.delete(cache.keys().next().value!)
            return version
          })
      }
    })
  )
}
