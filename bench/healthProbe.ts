/**
 * A child process of bench/hostile.ts: asks `GET /health` of BASE every 10 ms for DURATION_MS,
 * one request at a time, and prints the latencies' p50, p99 and max (ms) as one JSON line. Apart
 * from the server so that what it measures is the server's event loop, not its own.
 */
const base = process.argv[2] ?? ""
const durationMs = Number(process.argv[3] ?? 5000)
const latencies: Array<number> = []
let failed = 0
const until = Date.now() + durationMs
while (Date.now() < until) {
  const started = performance.now()
  const response = await fetch(`${base}/health`).catch(() => undefined)
  if (response === undefined || !response.ok) failed++
  await response?.arrayBuffer()
  latencies.push(performance.now() - started)
  await new Promise((resolve) => setTimeout(resolve, 10))
}
latencies.sort((a, b) => a - b)
const at = (p: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0) * 10) / 10
console.log(JSON.stringify({ requests: latencies.length, failed, p50: at(0.5), p99: at(0.99), max: at(1) }))
