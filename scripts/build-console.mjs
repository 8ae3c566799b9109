#!/usr/bin/env node
// Builds the console (console/ -> console/dist) when its sources changed since the last build:
// run by npm install (prepare), npm start (prestart) and the test setup. A hash of what the build
// reads (the console's sources, the API contract in schemas/, the lockfile) is kept in dist.
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"
import { swapIn } from "./swap-in.mjs"

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..")
const consoleDir = path.join(root, "console")
const dist = path.join(consoleDir, "dist")
const stamp = path.join(dist, ".build-hash")

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name.startsWith("dist") || e.name === "node_modules" ? [] : e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]
  )

const sourceHash = () => {
  const hash = createHash("sha256")
  for (const file of [...files(consoleDir), ...files(path.join(root, "schemas")), path.join(root, "package-lock.json")].sort()) {
    hash.update(path.relative(root, file)).update(readFileSync(file))
  }
  return hash.digest("hex")
}

/** The gzipped size of the JavaScript the page loads before anything else (its entry and the chunks the entry imports). */
export const shellSize = () => {
  const html = readFileSync(path.join(dist, "index.html"), "utf8")
  const scripts = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1])
  return scripts.reduce((n, s) => n + gzipSync(readFileSync(path.join(dist, s)), { level: 9 }).byteLength, 0)
}

/** Each text file of the build beside its brotli (`.br`) and gzip (`.gz`) forms at the highest levels, which the gateway serves as they are. */
const precompress = (dir) => {
  for (const file of files(dir)) {
    if (!/\.(js|css|html|svg|json)$/.test(file)) continue
    const raw = readFileSync(file)
    writeFileSync(`${file}.br`, brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }))
    writeFileSync(`${file}.gz`, gzipSync(raw, { level: 9 }))
  }
}

export const buildConsole = async ({ force = false, quiet = false } = {}) => {
  const hash = sourceHash()
  if (!force && existsSync(stamp) && readFileSync(stamp, "utf8") === hash) return { built: false }
  const { build } = await import("vite")
  const started = Date.now()
  // Built beside dist and swapped in whole.
  const next = `${dist}.next-${process.pid}`
  await build({ configFile: path.join(consoleDir, "vite.config.ts"), logLevel: quiet ? "error" : "warn", build: { outDir: next, emptyOutDir: true } })
  await build({ configFile: path.join(consoleDir, "vite.widget.config.ts"), logLevel: quiet ? "error" : "warn", build: { outDir: next, emptyOutDir: false } })
  precompress(next)
  writeFileSync(path.join(next, ".build-hash"), hash)
  swapIn(next, dist)
  const size = shellSize()
  if (!quiet) console.log(`console built in ${((Date.now() - started) / 1000).toFixed(1)} s; the shell's JavaScript is ${(size / 1024).toFixed(1)} KiB gzipped`)
  return { built: true, shellBytes: size }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildConsole({ force: process.argv.includes("--force") }).catch((error) => {
    console.error(`error: the console could not be built: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  })
}

