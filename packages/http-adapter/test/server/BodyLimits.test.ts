/**
 * Body limits with no declared length (chunked uploads): an oversized body is answered with the
 * surface's 413 — the client reads it, the connection is not dropped — and a body within the
 * limit is read whole.
 */
import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/** POSTs `size` bytes in 1 KiB chunks with `Transfer-Encoding: chunked`. */
const postChunked = (url: string, headers: Record<string, string>, body: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { ...headers, "transfer-encoding": "chunked" } }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (c) => (text += c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
      res.on("error", reject)
    })
    req.on("error", reject)
    for (let i = 0; i < body.length; i += 1024) req.write(body.slice(i, i + 1024))
    req.end()
  })

describe("chunked bodies over the limit (pglite)", () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer("pglite", { maxBodyBytes: 4096 })
  })
  afterAll(() => s.close())

  it("/v1: 413 PAYLOAD_TOO_LARGE as a problem; within the limit the request runs", async () => {
    const headers = { authorization: `Bearer ${s.serviceKey}`, "content-type": "application/json", "idempotency-key": "chunked-1" }
    const big = JSON.stringify({ name: "x", expiresAt: null, pad: "a".repeat(50_000) })
    const refused = await postChunked(`${s.baseUrl}/v1/account/service-keys`, headers, big)
    expect(refused.status).toBe(413)
    expect(JSON.parse(refused.body)).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 })
    const ok = await postChunked(`${s.baseUrl}/v1/account/service-keys`, { ...headers, "idempotency-key": "chunked-2" },
      JSON.stringify({ name: "chunked", expiresAt: null }))
    expect(ok.status).toBe(201)
    expect(JSON.parse(ok.body).serviceKey.name).toBe("chunked")
  })

  it("OAuth token endpoint: 413 with an RFC 6749 error body", async () => {
    const refused = await postChunked(`${s.baseUrl}/api/auth/oauth2/token`, { "content-type": "application/x-www-form-urlencoded" },
      `grant_type=authorization_code&code=${"a".repeat(100_000)}`)
    expect(refused.status).toBe(413)
    expect(JSON.parse(refused.body)).toMatchObject({ error: "invalid_request" })
    // The server still answers afterwards.
    const health = await fetch(`${s.baseUrl}/api/health`)
    expect(health.status).toBe(200)
  })
})
