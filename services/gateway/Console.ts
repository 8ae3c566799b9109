import { HttpServerResponse } from "@effect/platform"
import type { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { readdir, readFile } from "node:fs/promises"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { brotliCompress, constants, gzip } from "node:zlib"

/** Where `npm run build:console` (run by npm install and npm start) puts the console. */
export const CONSOLE_DIST = fileURLToPath(new URL("../../console/dist/", import.meta.url))

/**
 * The console's page and every resource it loads: its own scripts, styles and images only, its
 * API on the same origin, never framed.
 */
export const CONSOLE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8"
}

interface Asset {
  readonly type: string
  readonly raw: Uint8Array
  readonly gzip: Uint8Array
  readonly br: Uint8Array
  readonly cache: string
}

/** Paths the API, its reference and the probes answer: everything else is the console's. */
export const isConsolePath = (path: string) =>
  !path.startsWith("/api/") && path !== "/api" && !path.startsWith("/docs") && path !== "/health" && path !== "/ready" && path !== "/metrics" &&
  !path.startsWith("/internal/")

const brotli = promisify(brotliCompress)
const gzipped = promisify(gzip)

/**
 * A file's compressed twin as the build wrote it (`scripts/build-console.mjs`, at the highest
 * levels), or made now off the event loop at a quick level when the build did not.
 */
const compressed = (file: string, raw: Uint8Array, kind: "br" | "gz") =>
  Effect.promise(() =>
    readFile(`${file}.${kind}`).catch(() => kind === "br" ? brotli(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }) : gzipped(raw, { level: 6 }))
  ).pipe(Effect.map((bytes) => new Uint8Array(bytes)))

/**
 * The built console, read once at start with its compressed forms (brotli, gzip): hashed files
 * under `assets/` are cached for a year, the page itself is revalidated on every visit. A client
 * route (`/runs/...`) answers the page, which routes in the browser.
 */
export const loadConsole = Effect.gen(function*() {
  const files = yield* Effect.promise(() => readdir(CONSOLE_DIST, { recursive: true }).catch(() => [] as Array<string>))
  const assets = new Map<string, Asset>()
  yield* Effect.forEach(files, (file) =>
    Effect.gen(function*() {
      const type = TYPES[path.extname(file)]
      if (type === undefined) return
      const full = path.join(CONSOLE_DIST, file)
      const raw = new Uint8Array(yield* Effect.promise(() => readFile(full)))
      const route = `/${file.split(path.sep).join("/")}`
      assets.set(route, {
        type,
        raw,
        gzip: yield* compressed(full, raw, "gz"),
        br: yield* compressed(full, raw, "br"),
        cache: route.startsWith("/assets/") ? "public, max-age=31536000, immutable" : route === "/index.html" ? "no-cache" : "public, max-age=3600"
      })
    }), { concurrency: 8, discard: true })
  const page = assets.get("/index.html")
  if (page === undefined) yield* Effect.logWarning(`The console is not built (no ${CONSOLE_DIST}index.html): run npm run build:console`)

  const respond = (asset: Asset, request: HttpServerRequest.HttpServerRequest) => {
    const accepted = request.headers["accept-encoding"] ?? ""
    const [body, encoding] = /\bbr\b/.test(accepted) ? [asset.br, "br"] : /\bgzip\b/.test(accepted) ? [asset.gzip, "gzip"] : [asset.raw, undefined]
    return HttpServerResponse.uint8Array(request.method === "HEAD" ? new Uint8Array() : body, {
      contentType: asset.type,
      headers: {
        "cache-control": asset.cache,
        vary: "Accept-Encoding",
        "content-security-policy": CONSOLE_POLICY,
        "x-frame-options": "DENY",
        "referrer-policy": "same-origin",
        ...(encoding !== undefined ? { "content-encoding": encoding } : {})
      }
    })
  }

  /**
   * The console's answer to a GET or HEAD: one of its files, or its page for a browser's navigation
   * to any other path (a client route); undefined leaves the request to the API's own 404.
   */
  const serve = (request: HttpServerRequest.HttpServerRequest, urlPath: string) => {
    const asset = assets.get(urlPath === "/" ? "/index.html" : urlPath)
    if (asset !== undefined) return respond(asset, request)
    const navigation = urlPath === "/" || (request.headers.accept ?? "").includes("text/html")
    if (!navigation || urlPath.startsWith("/assets/")) return undefined
    return page === undefined
      ? HttpServerResponse.text("The console is not built: run npm run build:console", { status: 503 })
      : respond(page, request)
  }

  return { serve, built: page !== undefined }
})
