import { readdirSync, readFileSync } from "node:fs"

/** CPU milliseconds used so far by every process named `postgres*` (the server and its backends). */
export const postgresCpuMs = () => {
  let total = 0
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))
      if (!name.startsWith("postgres")) continue
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      total += (Number(fields[11]) + Number(fields[12])) * 10 // USER_HZ 100
    } catch {
      // the process ended meanwhile
    }
  }
  return total
}

/** CPU milliseconds used so far by one process (all its threads). */
export const processCpuMs = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10 // USER_HZ 100
}

/** This process's CPU milliseconds so far. */
export const selfCpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/**
 * Read and write system calls made so far by one process (all its threads; sockets included):
 * `syscr` and `syscw` of /proc/<pid>/io, readable by the process's own user.
 */
export const processSyscalls = (pid: number) => {
  const io = readFileSync(`/proc/${pid}/io`, "utf8")
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(io)?.[1] ?? Number.NaN)
  return { reads: field("syscr"), writes: field("syscw") }
}
