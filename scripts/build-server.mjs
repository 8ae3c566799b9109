#!/usr/bin/env node
// Compiles the platform's TypeScript (schemas, platform, runtime, otel, services, client) to
// JavaScript in dist/server, file for file, when its sources changed since the last build: run by
// npm install (prepare), npm start (prestart), the test setup and the container build. The
// platform then starts with plain `node` instead of through tsx's loader, whose hooks cost about
// half of a start's CPU. Each file keeps its place in the tree (the JavaScript beside where its
// source would be) so that paths relative to a module hold; console/ is linked in for the same reason.
import { createHash } from "node:crypto"
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { swapIn } from "./swap-in.mjs"

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..")
const SOURCES = ["schemas", "platform", "runtime", "otel", "services", "client"]
export const serverDist = path.join(root, "dist", "server")
/** The platform's entry in the build. */
export const serverEntry = path.join(serverDist, "services", "gateway", "main.js")
const stamp = path.join(serverDist, ".build-hash")

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === "node_modules" ? [] : e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]
  )

const sources = () => SOURCES.flatMap((dir) => files(path.join(root, dir))).sort()

const sourceHash = (list) => {
  const hash = createHash("sha256")
  for (const file of [...list, path.join(root, "tsconfig.json"), path.join(root, "package-lock.json")]) {
    hash.update(path.relative(root, file)).update(readFileSync(file))
  }
  return hash.digest("hex")
}

export const buildServer = async ({ force = false } = {}) => {
  const list = sources()
  const hash = sourceHash(list)
  if (!force && existsSync(stamp) && readFileSync(stamp, "utf8") === hash) return { built: false }
  const { build } = await import("esbuild")
  // Built beside dist/server and swapped in whole.
  const next = `${serverDist}.next-${process.pid}`
  rmSync(next, { recursive: true, force: true })
  await build({
    entryPoints: list.filter((f) => f.endsWith(".ts")),
    outdir: next,
    outbase: root,
    format: "esm",
    platform: "node",
    target: "node20",
    tsconfig: path.join(root, "tsconfig.json"),
    // Stack traces name the TypeScript source (node --enable-source-maps), as they do under tsx.
    sourcemap: "inline",
    sourcesContent: false,
    logLevel: "error"
  })
  for (const file of list.filter((f) => !f.endsWith(".ts"))) {
    const target = path.join(next, path.relative(root, file))
    mkdirSync(path.dirname(target), { recursive: true })
    copyFileSync(file, target)
  }
  symlinkSync(path.join("..", "..", "console"), path.join(next, "console"))
  writeFileSync(path.join(next, ".build-hash"), hash)
  swapIn(next, serverDist)
  return { built: true }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildServer({ force: process.argv.includes("--force") }).catch((error) => {
    console.error(`error: the platform could not be compiled: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  })
}
