import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { RpcClient, RpcSerialization } from "@effect/rpc"
import { Context, Effect, Layer } from "effect"
import type { Forbidden, Unauthorized } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import { AuthRpcs } from "../../schemas/rpc/AuthRpcs.js"
import { type CredentialInput, Credentials } from "../auth/Credentials.js"

/** How the gateway asks the auth service who is calling. */
export class AuthClient extends Context.Tag("AuthClient")<AuthClient, {
  readonly verify: (input: CredentialInput) => Effect.Effect<Principal, Unauthorized | Forbidden>
}>() {
  /** Same process: the auth service is called directly (what the RPC handler calls). */
  static readonly inProcess: Layer.Layer<AuthClient, never, Credentials> = Layer.effect(
    AuthClient,
    Effect.map(Credentials, (credentials) => ({ verify: credentials.authenticate }))
  )

  /** Split deployment (`AUTH_RPC_URL`): the same calls over HTTP. */
  static readonly http = (url: string, internalToken: string | undefined): Layer.Layer<AuthClient> =>
    Layer.scoped(
      AuthClient,
      RpcClient.make(AuthRpcs).pipe(
        Effect.map((client) => ({
          verify: (input: CredentialInput) =>
            client.VerifyCredential(input).pipe(
              Effect.catchTag("RpcClientError", (e) => Effect.die(e))
            )
        }))
      )
    ).pipe(
      Layer.provide(RpcClient.layerProtocolHttp({
        url,
        transformClient: (client) =>
          internalToken === undefined
            ? client
            : HttpClient.mapRequest(client, HttpClientRequest.setHeader("x-internal-token", internalToken))
      })),
      Layer.provide([FetchHttpClient.layer, RpcSerialization.layerNdjson])
    )
}
