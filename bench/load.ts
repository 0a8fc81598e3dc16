/**
 * Load from another process: autocannon's CLI in a child process, so the CPU time this process
 * spends (`process.cpuUsage`) is the server's alone and the generator never shares its event loop.
 */
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { BenchFailure } from "./lib.js"

const autocannonBin = createRequire(import.meta.url).resolve("autocannon/autocannon.js")

export interface LoadResult {
  readonly rps: number
  readonly requests: number
  readonly p50: number
  readonly p99: number
  readonly max: number
}

export const loadInChild = (options: {
  readonly url: string
  readonly method?: "GET" | "POST"
  readonly headers: Record<string, string>
  readonly body?: string
  readonly connections: number
  readonly seconds: number
  readonly label?: string
}): Promise<LoadResult> =>
  new Promise((resolve, reject) => {
    const args = [autocannonBin, "-j", "-c", String(options.connections), "-d", String(options.seconds), "-t", "10", "-m", options.method ?? "GET"]
    for (const [k, v] of Object.entries(options.headers)) args.push("-H", `${k}=${v}`)
    if (options.body !== undefined) args.push("-b", options.body)
    args.push(options.url)
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => {
      const label = options.label ?? options.url
      let r: any
      try {
        r = JSON.parse(stdout)
      } catch {
        return reject(new BenchFailure(`${label}: autocannon exited ${code}: ${stderr.slice(0, 500)}`))
      }
      const problems: Array<string> = []
      if (r.non2xx > 0) problems.push(`${r.non2xx} non-2xx responses`)
      if (r.errors > 0) problems.push(`${r.errors} connection errors (${r.timeouts} timeouts)`)
      if (r["2xx"] === 0) problems.push("no successful responses at all")
      if (problems.length > 0) return reject(new BenchFailure(`${label}: ${problems.join("; ")}`))
      resolve({ rps: r.requests.total / r.duration, requests: r.requests.total, p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max })
    })
  })
