import { Either, Schema } from "effect"

/**
 * The parts of a saved DAG (`dag_definition`) that a drawing needs, read leniently: a node of a
 * type this console does not know still has an id and a type, and an unfinished DAG still draws.
 */
const DrawnNode = Schema.Struct({ id: Schema.String, type: Schema.String, name: Schema.optional(Schema.String) })
const DrawnEdge = Schema.Struct({ from: Schema.String, to: Schema.String, condition: Schema.optional(Schema.Unknown) })

const decodeNode = Schema.decodeUnknownEither(DrawnNode)
const decodeEdge = Schema.decodeUnknownEither(DrawnEdge)

export type DrawnNode = typeof DrawnNode.Type
export type DrawnEdge = typeof DrawnEdge.Type

const each = <A>(items: unknown, decode: (u: unknown) => Either.Either<A, unknown>) =>
  (Array.isArray(items) ? items : []).flatMap((i) => Either.match(decode(i), { onLeft: () => [], onRight: (a) => [a] }))

export const dagShape = (dag: Readonly<Record<string, unknown>>) => ({
  nodes: each(dag.nodes, decodeNode),
  edges: each(dag.edges, decodeEdge),
  inputSchema: dag.input_schema
})
