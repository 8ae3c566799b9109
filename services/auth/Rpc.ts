import { AuthRpcs } from "../../schemas/rpc/AuthRpcs.js"
import { Credentials } from "./Credentials.js"
import { Effect } from "effect"

export const AuthRpcHandlers = AuthRpcs.toLayer(
  Effect.gen(function*() {
    const credentials = yield* Credentials
    return {
      VerifyCredential: (input) => credentials.authenticate(input)
    }
  })
)
