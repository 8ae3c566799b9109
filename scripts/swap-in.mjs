// Puts a freshly built directory in place of the previous build in one step: two builds at once
// (npm start beside npm test) never leave a half-written tree, and a running process keeps what it read.
import { existsSync, renameSync, rmSync } from "node:fs"

export const swapIn = (next, target) => {
  const old = `${target}.old-${process.pid}`
  try {
    renameSync(target, old)
  } catch (error) {
    if (error?.code !== "ENOENT") throw error
  }
  try {
    renameSync(next, target)
  } catch (error) {
    // Another build swapped its tree in first: built from the same sources, so keep that one.
    if (!existsSync(target)) throw error
    rmSync(next, { recursive: true, force: true })
  }
  rmSync(old, { recursive: true, force: true })
}
