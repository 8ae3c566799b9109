import { Context, Effect, Layer } from "effect"

/**
 * Builds `layer` seeing only the services of `tags`, not everything the composition root
 * has built below it. Machinery that keeps the context it was built in and copies, merges or
 * compares it per message (the cluster's entity managers, every span and fork on their fibers)
 * then handles a handful of services instead of the platform's hundred-odd: `Layer.provide`
 * would let the whole ambient context through.
 *
 * Layers are still shared with the rest of the build (the same memo map), but one first built in
 * here sees only `tags` too.
 */
/** Any tag, as `Context.isTag` narrows to it (tags are invariant in both parameters: no narrower type fits every tag). */
type AnyTag = typeof Context.isTag extends (input: unknown) => input is infer T ? T : never

export const isolated = <ROut, E, const Tags extends ReadonlyArray<AnyTag>>(
  layer: Layer.Layer<ROut, E, Context.Tag.Identifier<Tags[number]>>,
  ...tags: Tags
): Layer.Layer<ROut, E, Context.Tag.Identifier<Tags[number]>> =>
  Layer.scopedContext(
    Effect.gen(function*() {
      const context = Context.pick(...tags)(yield* Effect.context<Context.Tag.Identifier<Tags[number]>>())
      // Not Effect.provide: that merges into the ambient context instead of replacing it.
      return yield* Layer.buildWithMemoMap(layer, yield* Layer.CurrentMemoMap, yield* Effect.scope).pipe(
        Effect.mapInputContext((_: typeof context) => context)
      )
    })
  )
