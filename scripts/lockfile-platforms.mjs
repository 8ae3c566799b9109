// npm writes package-lock.json without the other platforms' optional binaries that the registry
// mirror here does not serve (rollup, msgpackr-extract), and `npm ci` then refuses the lockfile.
// This adds a platform-tagged entry for each missing one, so `npm ci` skips them on other
// platforms without fetching. Run after every `npm install`: `npm run lockfile:fix`.
import { readFileSync, writeFileSync } from "node:fs"

const OS = ["darwin", "linux", "win32", "android", "freebsd", "openbsd", "openharmony", "netbsd", "sunos", "aix"]
const CPU = ["arm64", "x64", "arm", "ia32", "loong64", "ppc64", "riscv64", "s390x", "mips64el"]

const platformOf = (name) => {
  const parts = name.split("/").pop().split("-")
  const os = parts.find((p) => OS.includes(p))
  const cpu = parts.find((p) => CPU.includes(p))
  const libc = parts.includes("musl") ? "musl" : parts.includes("gnu") || parts.includes("gnueabihf") ? "glibc" : undefined
  return { os, cpu, libc }
}

const file = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(file, "utf8"))
let added = 0
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path === "" ? "" : `${path}/`}node_modules/${dep}`
    if (lock.packages[nested] !== undefined || lock.packages[`node_modules/${dep}`] !== undefined) continue
    const { os, cpu, libc } = platformOf(dep)
    if (os === undefined || cpu === undefined) continue
    lock.packages[`node_modules/${dep}`] = {
      version,
      cpu: [cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(libc ? { libc: [libc] } : {}),
      optional: true,
      os: [os]
    }
    added++
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))))
writeFileSync(file, JSON.stringify(lock, null, 2) + "\n")
console.log(`lockfile: added ${added} platform-specific optional entries`)
