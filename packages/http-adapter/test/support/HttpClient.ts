/** The HTTP test client every /v1 suite shares: calls with a credential, and problem assertions. */
import { problemEntry } from "../../src/http/ProblemCatalog.js"
import { expect } from "vitest"
import type { TestServer } from "./TestServer.js"

export interface CallInit extends RequestInit {
  /** The bearer credential; default the server's admin service key, `null` for none. */
  readonly key?: string | null
  /** An Idempotency-Key header. */
  readonly idem?: string
  /** A JSON body (a string is sent as is), with its Content-Type. */
  readonly json?: unknown
}

export interface CallResult {
  readonly res: Response
  readonly body: any
  readonly text: string
}

/** `call(path, init)` against the server `server()` returns when called (it is set in `beforeAll`). */
export const httpClient = (server: () => TestServer) => async (path: string, init: CallInit = {}): Promise<CallResult> => {
  const s = server()
  const headers = new Headers(init.headers)
  const key = init.key === undefined ? s.serviceKey : init.key
  if (key !== null) headers.set("authorization", `Bearer ${key}`)
  if (init.idem !== undefined) headers.set("idempotency-key", init.idem)
  let body = init.body
  if (init.json !== undefined) {
    headers.set("content-type", "application/json")
    body = typeof init.json === "string" ? init.json : JSON.stringify(init.json)
  }
  const { idem: _idem, json: _json, key: _key, ...rest } = init
  const res = await fetch(`${s.baseUrl}${path}`, { ...rest, headers, body: body ?? null })
  const text = await res.text()
  return { res, text, body: text === "" ? undefined : (JSON.parse(text) as any) }
}

/** The response is the problem `code` with its catalog status and title, and this attempt's request id. */
export const expectProblem = (r: { readonly res: Response; readonly body: any }, status: number, code: string) => {
  expect(r.res.status, JSON.stringify(r.body)).toBe(status)
  expect(r.res.headers.get("content-type")).toBe("application/problem+json")
  expect(r.body.code).toBe(code)
  expect(r.body.status).toBe(status)
  expect(r.body.title).toBe(problemEntry(code as never).title)
  expect(r.body.type).toMatch(new RegExp(`/problems/${problemEntry(code as never).slug}$`))
  expect(r.body.requestId).toBe(r.res.headers.get("x-request-id"))
  expect(r.body).not.toHaveProperty("remediation")
}
