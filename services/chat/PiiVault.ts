import { SqlClient } from "@effect/sql"
import { Effect, Redacted, Schema } from "effect"
import { createHmac } from "node:crypto"
import { CredentialsCipher } from "../../platform/CredentialsCipher.js"
import { LocalSecrets } from "../../platform/LocalSecrets.js"
import { decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { type PiiKind, replacePii, TOKEN } from "./PiiDetection.js"

/**
 * Tokenizes what is personal in a session's `user_context` before the workflow or storage sees
 * it. A value gets the same token every time in its session (a keyed hash names it); the values
 * are kept AES-256-GCM sealed per session and token, and only shown back to the session's owner.
 */
export class PiiVault extends Effect.Service<PiiVault>()("PiiVault", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cipher = yield* CredentialsCipher
    const key = Buffer.from(Redacted.value((yield* LocalSecrets).credentialsKey))

    const tokenize = (sessionId: string, value: Record<string, unknown>) =>
      Effect.gen(function*() {
        const found = new Map<string, { kind: PiiKind; original: string; hash: string }>()
        const replaced = replacePii(value, (kind, original) => {
          const hash = createHmac("sha256", key).update(`pii\0${sessionId}\0${kind}\0${original}`).digest("hex")
          const token = `[PII_${kind}_${hash.slice(0, 10)}]`
          found.set(token, { kind, original, hash })
          return token
        }) as Record<string, unknown>
        for (const [token, f] of found) {
          const sealed = yield* cipher.encrypt(f.original, `pii:${sessionId}:${token}`)
          yield* sql`INSERT INTO chat_pii_tokens ${
            sql.insert({ session_id: sessionId, token, kind: f.kind, value_hash: f.hash, sealed_value: sealed })
          } ON CONFLICT DO NOTHING`
        }
        return { value: replaced, tokens: found.size }
      }).pipe(Effect.orDie)

    /** The text with the session's tokens replaced by their values (a token that fails to open stays). */
    const reveal = (sessionId: string, texts: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const tokens = [...new Set(texts.flatMap((t) => t.match(TOKEN) ?? []))]
        if (tokens.length === 0) return texts
        const rows = yield* sql`SELECT token, sealed_value FROM chat_pii_tokens
          WHERE session_id = ${sessionId} AND token IN ${sql.in(tokens)}`.pipe(
          decodeRows("chat_pii_tokens", Schema.Struct({ token: Schema.String, sealed_value: Schema.String }))
        ).pipe(Effect.orDie)
        const values = new Map<string, string>()
        for (const r of rows) {
          const opened = yield* Effect.either(cipher.decrypt(r.sealed_value, `pii:${sessionId}:${r.token}`))
          if (opened._tag === "Right") values.set(r.token, opened.right)
        }
        return texts.map((t) => t.replace(TOKEN, (token) => values.get(token) ?? token))
      })

    return traced("PiiVault", { tokenize, reveal })
  })
}) {}
