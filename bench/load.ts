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

const argsOf = (options: Parameters<typeof loadInChild>[0]): Array<string> => {
  const args = [autocannonBin, "-j", "-c", String(options.connections), "-d", String(options.seconds), "-t", "10", "-m", options.method ?? "GET"]
  for (const [k, v] of Object.entries(options.headers)) args.push("-H", `${k}=${v}`)
  if (options.body !== undefined) args.push("-b", options.body)
  args.push(options.url)
  return args
}

/** Runs `node <args>` and collects its exit code and whole output. */
export const runChild = (args: ReadonlyArray<string>, label: string): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", (e) => reject(new BenchFailure(`${label}: ${e.message}`)))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

export const loadInChild = async (options: {
  readonly url: string
  readonly method?: "GET" | "POST"
  readonly headers: Record<string, string>
  readonly body?: string
  readonly connections: number
  readonly seconds: number
  readonly label?: string
}): Promise<LoadResult> => {
  const label = options.label ?? options.url
  const { code, stdout, stderr } = await runChild(argsOf(options), label)
  let r: any
  try {
    r = JSON.parse(stdout)
  } catch {
    throw new BenchFailure(`${label}: autocannon exited ${code}: ${stderr.slice(0, 500)}`)
  }
  const problems: Array<string> = []
  if (r.non2xx > 0) problems.push(`${r.non2xx} non-2xx responses`)
  if (r.errors > 0) problems.push(`${r.errors} connection errors (${r.timeouts} timeouts)`)
  if (r["2xx"] === 0) problems.push("no successful responses at all")
  if (problems.length > 0) throw new BenchFailure(`${label}: ${problems.join("; ")}`)
  return { rps: r.requests.total / r.duration, requests: r.requests.total, p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max }
}
