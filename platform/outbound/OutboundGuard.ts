import { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Context, Data, Effect, Layer } from "effect"
import { lookup } from "node:dns/promises"
import { isIP } from "node:net"
import { Agent, buildConnector, type Dispatcher, interceptors } from "undici"
import { AppConfig } from "../Config.js"
import { type Allowlist, parseAllowlist, refusalReason } from "./AddressPolicy.js"

/** A tenant-supplied URL led to an address that outbound requests may not reach. */
export class OutboundAddressRefused extends Data.TaggedError("OutboundAddressRefused")<{
  readonly host: string
  readonly address: string
  readonly reason: string
}> {
  get code() {
    return "OUTBOUND_ADDRESS_REFUSED" as const
  }
  override get message() {
    const via = this.host === this.address ? this.host : `${this.host} (${this.address})`
    return `Outbound requests may not reach ${via}: ${this.reason} address. An operator may allow it with OUTBOUND_ALLOWED_HOSTS.`
  }
}

const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, "")

/**
 * The address to connect to for `hostname`, once every address it resolves to is allowed: a
 * literal IP is checked as it is, a name is resolved and all its answers checked (a name that
 * mixes public and private answers is refused). Allowed names and ranges skip the check.
 */
export const checkedAddress = (allowlist: Allowlist, hostname: string) =>
  Effect.gen(function*() {
    const host = bare(hostname)
    if (isIP(host) !== 0) {
      const reason = refusalReason(host)
      if (reason !== undefined && !allowlist.allowsAddress(host)) return yield* new OutboundAddressRefused({ host, address: host, reason })
      return host
    }
    const answers = yield* Effect.tryPromise(() => lookup(host, { all: true, verbatim: true }))
    if (allowlist.allowsHost(host)) return answers[0].address
    for (const answer of answers) {
      const reason = refusalReason(answer.address)
      if (reason !== undefined && !allowlist.allowsAddress(answer.address)) {
        return yield* new OutboundAddressRefused({ host, address: answer.address, reason })
      }
    }
    return answers[0].address
  })

export interface OutboundGuardShape {
  /**
   * For registration: refuses a URL whose host is, or resolves to, a refused address. A name
   * that does not resolve now is accepted (every connection is checked again anyway).
   */
  readonly checkUrl: (url: string) => Effect.Effect<void, OutboundAddressRefused>
  /**
   * An HTTP client for tenant-supplied URLs: every connection, redirects included, is made to an
   * address checked at connect time (so a DNS answer that changes after registration is caught).
   */
  readonly client: HttpClient.HttpClient
  /** The same guarded connections as an undici dispatcher (redirects followed, each one checked). */
  readonly dispatcher: Dispatcher
}

/** The one way to reach addresses that tenants supply (00-decisions section 8). */
export class OutboundGuard extends Context.Tag("OutboundGuard")<OutboundGuard, OutboundGuardShape>() {
  static readonly make = (allowlist: Allowlist) =>
    Effect.gen(function*() {
      const connector = buildConnector({ timeout: 10_000 })
      const agent = yield* Effect.acquireRelease(
        Effect.sync(() =>
          new Agent({
            connect: (options, callback) => {
              Effect.runPromise(Effect.either(checkedAddress(allowlist, options.hostname))).then((result) => {
                if (result._tag === "Left") {
                  const error = result.left
                  return callback(error instanceof Error ? error : new Error(String(error)), null)
                }
                const servername = options.servername ?? (isIP(bare(options.hostname)) === 0 ? bare(options.hostname) : undefined)
                connector({ ...options, hostname: result.right, ...(servername !== undefined ? { servername } : {}) }, callback)
              }, (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null))
            }
          })
        ),
        (agent) => Effect.promise(() => agent.close())
      )
      const checkUrl = (url: string) =>
        Effect.gen(function*() {
          const parsed = new URL(url)
          yield* checkedAddress(allowlist, parsed.hostname).pipe(Effect.catchTag("UnknownException", () => Effect.void))
        })
      return {
        checkUrl,
        client: NodeHttpClient.makeUndici(agent).pipe(HttpClient.followRedirects(5)),
        dispatcher: agent.compose(interceptors.redirect({ maxRedirections: 5 }))
      } satisfies OutboundGuardShape
    })

  static readonly layer = Layer.scoped(
    OutboundGuard,
    Effect.flatMap(AppConfig, (config) => OutboundGuard.make(parseAllowlist(config.outboundAllowedHosts)))
  )
}

/** The refusal inside a failed call's cause chain, if that is why it failed. */
export const refusalIn = (error: unknown): OutboundAddressRefused | undefined => {
  let current: unknown = error
  for (let i = 0; i < 8 && current !== undefined && current !== null; i++) {
    if (current instanceof OutboundAddressRefused) return current
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}
