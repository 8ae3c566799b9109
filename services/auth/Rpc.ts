import { Effect } from "effect"
import { AuthRpcs } from "../../schemas/rpc/AuthRpcs.js"
import { Credentials } from "./Credentials.js"

export const AuthRpcHandlers = AuthRpcs.toLayer(
  Effect.gen(function*() {
    const credentials = yield* Credentials
    return {
      VerifyCredential: (input) => credentials.authenticate(input)
    }
  })
)
