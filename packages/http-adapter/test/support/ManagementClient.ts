/**
 * A client of the management API for tests: HTTPS through `node:https`, trusting only the test
 * server's generated certificate (a real TLS handshake with verification), or plaintext HTTP to the
 * server's other listener.
 */
import { request } from "node:https"
import { expect } from "vitest"
import type { TestServer } from "./TestServer.js"

export interface ManagementInit {
  readonly method?: string
  /** Basic credentials, a raw Authorization header value, or none. */
  readonly auth?: { readonly username: string; readonly password: string } | string | null
  readonly json?: unknown
  readonly headers?: Record<string, string>
  /** Send over plain HTTP to the server's non-TLS listener. */
  readonly plaintext?: boolean
}

export interface ManagementResult {
  readonly status: number
  readonly headers: Record<string, string | undefined>
  readonly body: any
}

export const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`, "utf8").toString("base64")}`

const headerMap = (init: ManagementInit) => {
  const headers: Record<string, string> = { ...init.headers }
  if (init.auth !== undefined && init.auth !== null) {
    headers["authorization"] = typeof init.auth === "string" ? init.auth : basic(init.auth.username, init.auth.password)
  }
  if (init.json !== undefined) headers["content-type"] = "application/json"
  return headers
}

const parse = (text: string) => (text === "" ? undefined : JSON.parse(text))

/** HTTPS with the test server's certificate as the only trusted one (`ca`: another one to trust instead). */
export const httpsCall = (url: string, init: ManagementInit & { readonly ca: string | undefined }) =>
  new Promise<ManagementResult>((resolve, reject) => {
    const body = init.json === undefined ? undefined : typeof init.json === "string" ? init.json : JSON.stringify(init.json)
    const req = request(url, {
      method: init.method ?? "GET",
      headers: { ...headerMap(init), ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }) },
      ...(init.ca === undefined ? {} : { ca: init.ca }),
      agent: false
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => {
        try {
          const headers: Record<string, string | undefined> = {}
          for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : v
          resolve({ status: res.statusCode ?? 0, headers, body: parse(text) })
        } catch (e) {
          reject(e)
        }
      })
    })
    req.on("error", reject)
    req.end(body)
  })

/** `call(path, init)` against the management API of the server `server()` returns. */
export const managementClient = (server: () => TestServer) => async (path: string, init: ManagementInit = {}): Promise<ManagementResult> => {
  const s = server()
  if (init.plaintext === true) {
    const body = init.json === undefined ? undefined : typeof init.json === "string" ? init.json : JSON.stringify(init.json)
    const res = await fetch(`${s.baseUrl}${path}`, { method: init.method ?? "GET", headers: headerMap(init), body: body ?? null })
    const headers: Record<string, string | undefined> = {}
    res.headers.forEach((v, k) => (headers[k] = v))
    return { status: res.status, headers, body: parse(await res.text()) }
  }
  if (s.tlsBaseUrl === undefined) throw new Error("start the test server with { tls: true }")
  return httpsCall(`${s.tlsBaseUrl}${path}`, { ...init, ca: s.tlsCa })
}

/** The response is the error envelope with `status` and `code`, and the request's id. */
export const expectEnvelopeError = (r: ManagementResult, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status)
  expect(r.headers["content-type"]).toMatch(/^application\/json/)
  expect(r.body).toMatchObject({ succeed: false, code })
  expect(typeof r.body.message).toBe("string")
  expect(r.body.message.length).toBeGreaterThan(0)
  expect(r.headers["x-request-id"]).toMatch(/^sb_req_/)
}

/** The response is a success envelope with status 200; returns `data`. */
export const expectData = (r: ManagementResult) => {
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  expect(r.headers["content-type"]).toMatch(/^application\/json/)
  expect(r.body.succeed).toBe(true)
  return r.body.data
}
