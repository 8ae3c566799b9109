/**
 * Hostile input and the event loop (BENCH_ONLY=hostile; issue 31, point 2). For each bomb, a
 * child process asks `GET /health` every 10 ms (bench/healthProbe.ts) while this process sends
 * the bomb again and again for BENCH_HOSTILE_SECONDS (5): /health p50 / p99 / max next to the same
 * figure with no bomb, and how the bombs were answered.
 */
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { docxBomb, openApiRefBomb, pptxSlideBomb } from "../test/support/HostileFiles.js"
import { benchDatabase, benchPlatform, json } from "./support.js"

const SECONDS = Number(process.env.BENCH_HOSTILE_SECONDS ?? 5)
const probeFile = fileURLToPath(new URL("./healthProbe.ts", import.meta.url))

const probe = (base: string) =>
  Effect.promise(() => promisify(execFile)(process.execPath, ["--import", "tsx", probeFile, base, String(SECONDS * 1000)]))
    .pipe(Effect.map(({ stdout }) => JSON.parse(stdout) as { requests: number; failed: number; p50: number; p99: number; max: number }))

type Send = () => Promise<number>

/** The probe's figures while `send` runs over and over, `inFlight` at a time, until the probe ends. */
const underLoad = (base: string, send: Send | undefined, inFlight = 1) =>
  Effect.gen(function*() {
    const statuses = new Map<number, number>()
    let running = true
    const loop = async () => {
      while (running && send !== undefined) {
        const status = await send()
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    }
    const loops = Array.from({ length: inFlight }, loop)
    const figures = yield* probe(base)
    running = false
    yield* Effect.promise(() => Promise.all(loops))
    return { ...figures, answers: [...statuses].map(([s, n]) => `${n}x ${s}`).join(", ") || "-" }
  })

export const hostileBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const { base, token } = yield* benchPlatform({ DATABASE_URL: db.url })
  const auth = { authorization: `Bearer ${token}` }
  const post = (path: string, body: unknown): Send => () =>
    fetch(`${base}${path}`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) }).then(async (r) => {
      await r.arrayBuffer()
      return r.status
    })
  const uploadFile = (bytes: Uint8Array, name: string): Send => () => {
    const form = new FormData()
    form.append("file", new Blob([bytes]), name)
    return fetch(`${base}/api/v1/docgen/templates/upload`, { method: "POST", headers: auth, body: form }).then(async (r) => {
      await r.arrayBuffer()
      return r.status
    })
  }
  const entry = yield* json(base, token, "POST", "/api/v1/integrations/catalog", {
    name: "hostile",
    functions: [
      { name: "spin", kind: "script", source: "while (true) {}" },
      {
        name: "overflow",
        kind: "script",
        source: "const a = []; for (let i = 0; i < 300000; i++) a.push({ i, s: 'x' + i }); const f = () => f() + 1; return f()"
      }
    ]
  })
  const install = yield* json(base, token, "POST", "/api/v1/integrations/integrations", { catalog_id: entry.id })
  for (const fn of ["spin", "overflow"]) {
    yield* Effect.promise(() =>
      fetch(`${base}/api/v1/integrations/integrations/${String(install.id)}/functions/${fn}/enable`, { method: "POST", headers: auth })
    )
  }

  const cases: ReadonlyArray<readonly [string, Send | undefined, number]> = [
    ["no bomb", undefined, 1],
    ["OpenAPI: 2^30 schemas by $ref (2.7 KB)", post("/api/v1/integrations/catalog/import-spec", { name: "bomb", spec: openApiRefBomb(30) }), 1],
    ["DOCX: 8 MiB of XML in 25 KiB", uploadFile(docxBomb(8 * 1024 * 1024), "bomb.docx"), 1],
    ["PPTX: one slide listed 2,000 times", uploadFile(pptxSlideBomb(2_000), "bomb.pptx"), 1],
    ["4 endless scripts in parallel", post("/api/v1/integrations/execute", { function_name: "hostile.spin", input: {} }), 4],
    ["scripts that allocate then overflow their stack", post("/api/v1/integrations/execute", { function_name: "hostile.overflow", input: {} }), 1],
    [
      "a document of 100,000 nested elements",
      post("/api/v1/docgen/documents", { title: "Nested", content_html: `<section id="s">${"<div>".repeat(100_000)}</section>` }),
      1
    ]
  ]
  const lines = ["| input | /health p50 | p99 | max | probes | answers |", "|---|---|---|---|---|---|"]
  for (const [name, send, inFlight] of cases) {
    const r = yield* underLoad(base, send, inFlight)
    lines.push(`| ${name} | ${r.p50} ms | ${r.p99} ms | ${r.max} ms | ${r.requests}${r.failed > 0 ? ` (${r.failed} failed)` : ""} | ${r.answers} |`)
  }
  return lines
}))
