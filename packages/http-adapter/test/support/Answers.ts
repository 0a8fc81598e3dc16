/**
 * The problems the HTTP suite saw each /v1 endpoint answer, checked against what the endpoints
 * declare (`problems(...)` in their declarations, v1/Declare.ts). Every test server records each
 * problem document it sends on /v1 — method, path, status, code — into a directory shared by the
 * run's test processes; after every other test file, `DeclaredProblems.test.ts` (the "answers"
 * project, vitest.config.ts) reads the records and fails on any answer its endpoint does not declare.
 */
import { HttpApi } from "effect/http-api"
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import type { Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { V1Api } from "../../src/Features.js"
import { declaredProblems } from "../../src/v1/Declare.js"

/**
 * The run's directory: test files run in processes forked by one vitest process, whose pid
 * names it (the check runs in such a process too).
 */
export const answersDir = join(tmpdir(), "switchboard-answers", String(process.ppid))

export interface Answer {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly code: string
}

const problemOf = (chunk: unknown): { readonly status: number; readonly code: string } | undefined => {
  if (chunk === undefined || chunk === null || typeof chunk === "function") return undefined
  const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array ? Buffer.from(chunk).toString("utf8") : undefined
  if (text === undefined || !text.startsWith("{")) return undefined
  try {
    const body = JSON.parse(text)
    return typeof body?.code === "string" && typeof body.status === "number" && typeof body.type === "string" && body.type.includes("/problems/")
      ? { status: body.status, code: body.code }
      : undefined
  } catch {
    return undefined
  }
}

/** Records every problem `server` answers on /v1 (installed before the application's own listener). */
export const recordAnswers = (server: Server) => {
  const file = join(answersDir, `${process.pid}.jsonl`)
  let ready = false
  server.prependListener("request", (req, res) => {
    const url = req.url ?? ""
    if (!url.startsWith("/v1/")) return
    const path = url.split("?")[0]!
    const end = res.end.bind(res) as (...args: Array<unknown>) => typeof res
    res.end = ((...args: Array<unknown>) => {
      const problem = problemOf(args[0])
      if (problem !== undefined) {
        if (!ready) {
          mkdirSync(answersDir, { recursive: true })
          ready = true
        }
        const answer: Answer = { method: req.method ?? "GET", path, ...problem }
        appendFileSync(file, `${JSON.stringify(answer)}\n`)
      }
      return end(...args)
    }) as typeof res.end
  })
}

/** Every answer recorded in this run so far. */
export const recordedAnswers = (): ReadonlyArray<Answer> => {
  let files: Array<string>
  try {
    files = readdirSync(answersDir)
  } catch {
    return []
  }
  return files.flatMap((f) =>
    readFileSync(join(answersDir, f), "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Answer)
  )
}

interface Declared {
  readonly method: string
  readonly operationId: string
  readonly pattern: RegExp
  readonly params: number
  readonly problems: ReadonlySet<string>
}

const declared: ReadonlyArray<Declared> = (() => {
  const out: Array<Declared> = []
  HttpApi.reflect(V1Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) => {
      const segments = endpoint.path.split("/")
      out.push({
        method: endpoint.method,
        operationId: `${group.identifier}.${endpoint.identifier}`,
        pattern: new RegExp(`^${segments.map((s) => s.startsWith(":") ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("/")}$`),
        params: segments.filter((s) => s.startsWith(":")).length,
        problems: new Set(declaredProblems(endpoint))
      })
    }
  })
  return out
})()

/** The endpoint an answer came from: method and path, a literal segment winning over a parameter. */
export const endpointOf = (answer: Pick<Answer, "method" | "path">): Declared | undefined => {
  let best: Declared | undefined
  for (const d of declared) {
    if (d.method !== answer.method || !d.pattern.test(answer.path)) continue
    if (best === undefined || d.params < best.params) best = d
  }
  return best
}

/**
 * The answers whose endpoint does not declare their problem, one line each (`operationId CODE
 * (status) e.g. METHOD path`). Answers of no endpoint (no route took the request) are not an
 * endpoint's to declare.
 */
export const undeclaredAnswers = (answers: ReadonlyArray<Answer>): ReadonlyArray<string> => {
  const out = new Map<string, string>()
  for (const a of answers) {
    const endpoint = endpointOf(a)
    if (endpoint === undefined || endpoint.problems.has(a.code)) continue
    const key = `${endpoint.operationId} ${a.code}`
    if (!out.has(key)) out.set(key, `${key} (${a.status}) e.g. ${a.method} ${a.path}`)
  }
  return [...out.values()].sort()
}
