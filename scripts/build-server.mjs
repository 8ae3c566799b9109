#!/usr/bin/env node
// Compiles the platform's TypeScript (schemas, platform, runtime, otel, services, client) to
// JavaScript in dist/server, file for file, when its sources changed since the last build: run by
// npm install (prepare), npm start (prestart), the test setup and the container build. The
// platform then starts with plain `node` instead of through tsx's loader, whose hooks cost about
// half of a start's CPU. Each file keeps its place in the tree (the JavaScript beside where its
// source would be) so that paths relative to a module hold; console/ is linked in for the same reason.
// The entry (services/gateway/main.js) is then replaced by one bundle of the platform's modules
// with effect and @effect/*, which loads in about half the CPU of their thousand-odd files, and
// with the CommonJS packages every start loads (OpenTelemetry, pg, ioredis: about 0.4 s less of a
// start's CPU than resolving and compiling their files one by one); the worker pool's threads
// still load their task modules from the tree.
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { swapIn } from "./swap-in.mjs"

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..")
const SOURCES = ["schemas", "platform", "runtime", "otel", "services", "client"]
export const serverDist = path.join(root, "dist", "server")
/** The platform's entry in the build. */
export const serverEntry = path.join(serverDist, "services", "gateway", "main.js")
const stamp = path.join(serverDist, ".build-hash")
/** The API reference's script, beside the bundle (see bundleEntry). */
const SCALAR_SCRIPT = "scalar-api-reference.js"
/** The OpenAPI document, derived at build (see writeOpenApiDocument; read by services/gateway/BuiltOpenApi.ts). */
const OPENAPI_DOCUMENT = "openapi-document.json"

/**
 * Packages bundled with the platform's modules; every other package is imported from node_modules
 * as it is (native addons, packages that read files beside themselves, those loaded on demand).
 */
const BUNDLED = /^(effect|@effect\/[^/]+|@opentelemetry\/[^/]+|pg|pg-[a-z-]+|ioredis|find-my-way-ts)(\/|$)/

/**
 * The entry of `tree` replaced by a bundle of everything it imports from the tree and from the
 * bundled packages. A module's `import.meta.url` is rewritten to the URL its file has in the tree,
 * so that paths relative to it (worker task modules, the console) still name files in the tree.
 * The bundled packages' own source maps are left out: stack traces name the platform's
 * TypeScript and the packages' JavaScript, and a start does not read a map per package file.
 */
const bundleEntry = async (build, tree) => {
  const entry = path.join(tree, "services", "gateway", "main.js")
  const bundle = `${entry}.bundle`
  await build({
    entryPoints: [entry],
    outfile: bundle,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Beside the bundle, not inline: with --enable-source-maps Node reads a map as it compiles the
    // module, and an inline one made it parse a 5 MB data URL and scan twice the text (0.1 s).
    sourcemap: "linked",
    sourcesContent: false,
    logLevel: "error",
    // The bundled CommonJS packages `require` Node's modules and the packages left outside: an ES
    // module has no `require`, so the bundle makes one. effect reads a stack trace while its
    // modules initialise (to learn whether function names survive), which made Node parse the
    // whole bundle's source map: 0.16 s of every start. No module needs a trace while the bundle
    // evaluates; the limit is restored before the platform's program runs, and a trace printed
    // later is mapped as before.
    banner: { js: "import { createRequire as __bundleCreateRequire } from \"node:module\"; const require = __bundleCreateRequire(import.meta.url); const __bundleStackTraceLimit = Error.stackTraceLimit; Error.stackTraceLimit = 0;" },
    footer: { js: "Error.stackTraceLimit = __bundleStackTraceLimit;" },
    plugins: [{
      name: "platform-bundle",
      setup(b) {
        // effect's Schema imports its Arbitrary module, which imports fast-check: 0.1-0.2 s of every
        // start's CPU for arbitraries the platform never makes (the tests make theirs from the
        // sources, not from this bundle). Here fast-check is an empty module.
        b.onResolve({ filter: /^fast-check$/ }, () => ({ path: "fast-check", namespace: "left-out" }))
        b.onLoad({ filter: /.*/, namespace: "left-out" }, () => ({ contents: "export {}", loader: "js" }))
        // The API reference's script (Scalar, 3.3 MB) was a string in the bundle that every start
        // scanned and copied (0.1-0.2 s); it is a file beside the bundle, read when /docs is set up.
        b.onLoad({ filter: /[\\/]@effect[\\/]platform[\\/]dist[\\/]esm[\\/]internal[\\/]httpApiScalar\.js$/ }, async (args) => {
          const { javascript } = await import(pathToFileURL(args.path).href)
          writeFileSync(path.join(path.dirname(entry), SCALAR_SCRIPT), javascript)
          return {
            contents: `import { readFileSync } from "node:fs"; export const javascript = readFileSync(new URL(${JSON.stringify(SCALAR_SCRIPT)}, import.meta.url), "utf8")`,
            loader: "js"
          }
        })
        b.onResolve({ filter: /^[^./]/ }, (args) => (BUNDLED.test(args.path) ? undefined : { path: args.path, external: true }))
        b.onLoad({ filter: /\.m?js$/ }, (args) => {
          const source = readFileSync(args.path, "utf8")
          if (!args.path.startsWith(tree + path.sep)) {
            return { contents: source.replace(/^\/\/# sourceMappingURL=.*$/m, ""), loader: "js" }
          }
          const url = JSON.stringify(path.relative(path.dirname(entry), args.path).split(path.sep).join("/"))
          return { contents: source.replaceAll("import.meta.url", `new URL(${url}, import.meta.url).href`), loader: "js", resolveDir: path.dirname(args.path) }
        })
      }
    }]
  })
  // The map is named after the entry the bundle becomes.
  const mapComment = `//# sourceMappingURL=${path.basename(bundle)}.map`
  const source = readFileSync(bundle, "utf8").replace(mapComment, `//# sourceMappingURL=${path.basename(entry)}.map`)
  // Two characters outside ASCII (in a comment of pg's and a regular expression of ours) made Node
  // decode the whole file as UTF-8 the slow way and V8 hold and compile it as a two-byte string:
  // 0.1-0.3 s of every start. Escaped, they mean the same in a string, a regular expression, an
  // identifier or a comment.
  writeFileSync(bundle, /[^\x00-\x7f]/.test(source) ? asciiOnly(source) : source)
  renameSync(`${bundle}.map`, `${entry}.map`)
  renameSync(bundle, entry)
}

/**
 * JavaScript source with each character outside ASCII written as its `\u` escape (a character
 * beyond the BMP as its two surrogates). A character already escaped by an odd run of backslashes
 * (`\“`, the same character) loses that backslash, so that it does not escape the new one.
 */
export const asciiOnly = (source) =>
  source.replace(/(\\*)([^\x00-\x7f])/g, (_, slashes, c) =>
    `${slashes.length % 2 === 1 ? slashes.slice(1) : slashes}\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/**
 * The OpenAPI document of the built API (`openapi-document.json` beside the bundle), which a
 * process started from the build reads instead of deriving it (0.3 s of every start). Derived in a
 * process of its own from the tree's schemas, with @effect/platform's generator.
 */
const writeOpenApiDocument = (tree) => {
  const api = pathToFileURL(path.join(tree, "schemas", "Api.js")).href
  const script = `import { OpenApi } from "@effect/platform"; const { PlatformApi } = await import(${JSON.stringify(api)}); ` +
    "process.stdout.write(JSON.stringify(OpenApi.fromApi(PlatformApi)))"
  const made = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
  if (made.status !== 0) throw new Error(`the OpenAPI document could not be derived: ${made.stderr}`)
  writeFileSync(path.join(tree, "services", "gateway", OPENAPI_DOCUMENT), made.stdout)
}

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === "node_modules" ? [] : e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]
  )

const sources = () => SOURCES.flatMap((dir) => files(path.join(root, dir))).sort()

const sourceHash = (list) => {
  const hash = createHash("sha256")
  // This script too: a change to how the tree is built builds it again; and the patches applied
  // to bundled packages (patches/, by patch-package at install).
  const patches = path.join(root, "patches")
  const patchFiles = existsSync(patches) ? files(patches).sort() : []
  for (const file of [...list, ...patchFiles, path.join(root, "tsconfig.json"), path.join(root, "package-lock.json"), fileURLToPath(import.meta.url)]) {
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
  await bundleEntry(build, next)
  writeOpenApiDocument(next)
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
