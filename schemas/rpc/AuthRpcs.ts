import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { Forbidden, Unauthorized } from "../Errors.js"
import { Principal } from "../Principal.js"

/** Calls other services make on the auth service: in-process in one program, HTTP when split by ROLE. */
export class AuthRpcs extends RpcGroup.make(
  Rpc.make("VerifyCredential", {
    payload: {
      authorization: Schema.optional(Schema.String),
      apiKey: Schema.optional(Schema.String),
      method: Schema.String,
      path: Schema.String,
      origin: Schema.optional(Schema.String)
    },
    success: Principal,
    error: Schema.Union(Unauthorized, Forbidden)
  })
) {}
