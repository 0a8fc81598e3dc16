/**
 * The access log (ACCESS_LOG, LOG_FORMAT): one line per request with method, path template, status,
 * duration and request id, as JSON or a readable line; none at all with ACCESS_LOG=off (decided
 * once: the middleware gets no writer). LOG_FORMAT=json also makes the server's other log lines
 * JSON (here: the SMS the log sender "sends"). The server runs as a child process, as operators run it.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { makeAccessLog } from "../../src/http/AccessLog.js"
import { routeTable } from "../../src/Http.js"
import { bootstrapOf, cliEnv, startServer, stopServer } from "../support/CliProcess.js"

const dataDir = mkdtempSync(join(tmpdir(), "switchboard-access-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

interface AccessLine {
  readonly level: string
  readonly message: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly durationMs: number
  readonly requestId: string
}
const accessLines = (out: string) =>
  out.split("\n").filter((l) => l.startsWith("{\"time\"")).map((l) => JSON.parse(l) as AccessLine).filter((l) => l.message === "request")

describe("the access log", { timeout: 180_000 }, () => {
  it("off: no writer at all; on: the declared route as the path, in either format", () => {
    expect(makeAccessLog({ accessLog: "off", logLevel: "debug", logFormat: "json" }, routeTable)).toBeUndefined()
    // A level below LOG_LEVEL is as good as off: no writer.
    expect(makeAccessLog({ accessLog: "debug", logLevel: "info", logFormat: "json" }, routeTable)).toBeUndefined()
    expect(makeAccessLog({ accessLog: "info", logLevel: "warning", logFormat: "pretty" }, routeTable)).toBeUndefined()
    const written: Array<string> = []
    const json = makeAccessLog({ accessLog: "info", logLevel: "info", logFormat: "json" }, routeTable, (l) => written.push(l))!
    json("GET", "/problems/rate-limited", 200, "req_1", performance.now())
    json("HEAD", "/api/health", 200, "req_2", performance.now())
    json("GET", "/nowhere", 404, "req_3", performance.now())
    json("PROPFIND", "/ingress/some-secret", 202, "req_3b", performance.now())
    const parsed = written.map((l) => JSON.parse(l) as AccessLine)
    expect(parsed.map((l) => [l.method, l.path, l.status, l.requestId])).toEqual([
      ["GET", "/problems/:slug", 200, "req_1"],
      ["HEAD", "/api/health", 200, "req_2"],
      ["GET", "-", 404, "req_3"],
      ["PROPFIND", "/ingress/:secret", 202, "req_3b"]
    ])
    expect(written.every((l) => l.endsWith("}\n"))).toBe(true)
    const pretty: Array<string> = []
    makeAccessLog({ accessLog: "info", logLevel: "info", logFormat: "pretty" }, routeTable, (l) => pretty.push(l))!("POST", "/v1/account/service-keys", 201, "req_4", performance.now())
    expect(pretty[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+Z INFO POST \/v1\/account\/service-keys 201 \d+(\.\d)?ms req_4\n$/)
    // The level the lines are written at is the one ACCESS_LOG names.
    makeAccessLog({ accessLog: "warning", logLevel: "warning", logFormat: "pretty" }, routeTable, (l) => pretty.push(l))!("GET", "/api/health", 200, "req_5", performance.now())
    expect(pretty[1]).toMatch(/^\S+Z WARNING GET \/api\/health 200 \S+ms req_5\n$/)
    const debug: Array<string> = []
    makeAccessLog({ accessLog: "debug", logLevel: "debug", logFormat: "json" }, routeTable, (l) => debug.push(l))!("GET", "/api/health", 200, "req_6", performance.now())
    expect((JSON.parse(debug[0]!) as AccessLine).level).toBe("debug")
  })

  it("a running server writes one line per request with the response's request id, and none when off", async () => {
    const on = await startServer(cliEnv(dataDir, { TLS_PORT: "0", ACCESS_LOG: "info", LOG_FORMAT: "json" }))
    const requestIds: Array<string | null> = []
    try {
      for (const path of ["/api/health", "/problems/rate-limited", "/v1/account", "/no/such/route"]) {
        const r = await fetch(`${on.baseUrl}${path}`)
        await r.arrayBuffer()
        requestIds.push(r.headers.get("x-request-id"))
      }
      // The channel's upgrades are requests too: one line each, the 101 or the refusal.
      for (const protocol of ["fusor.v1.json", "no.such.protocol"]) {
        requestIds.push(await new Promise<string | null>((resolve, reject) => {
          const ws = new WebSocket(`${on.baseUrl.replace(/^http/, "ws")}/v1/subscribe`, protocol)
          ws.on("upgrade", (res) => {
            resolve(String(res.headers["x-request-id"]))
            ws.close()
          })
          ws.on("unexpected-response", (_req, res) => {
            resolve(String(res.headers["x-request-id"]))
            res.resume()
          })
          ws.on("error", reject)
        }))
      }
      // The access line of a 101 is written when the upgrade completes: wait for it before stopping.
      for (let i = 0; i < 100 && accessLines(on.output()).length < 6; i++) await new Promise((r) => setTimeout(r, 50))
    } finally {
      await stopServer(on)
    }
    const lines = accessLines(on.output())
    expect(lines.map((l) => [l.method, l.path, l.status])).toEqual([
      ["GET", "/api/health", 200],
      ["GET", "/problems/:slug", 200],
      ["GET", "/v1/account", 401],
      ["GET", "-", 404],
      ["GET", "/v1/subscribe", 101],
      ["GET", "/v1/subscribe", 400]
    ])
    expect(lines.map((l) => l.requestId)).toEqual(requestIds)
    expect(lines.every((l) => l.level === "info" && typeof l.durationMs === "number" && l.durationMs >= 0)).toBe(true)

    const off = await startServer(cliEnv(dataDir, { TLS_PORT: "0", ACCESS_LOG: "off", LOG_FORMAT: "json" }))
    try {
      await (await fetch(`${off.baseUrl}/api/health`)).arrayBuffer()
    } finally {
      await stopServer(off)
    }
    expect(accessLines(off.output())).toEqual([])
    expect(off.output()).not.toContain("/api/health 200")
  })

  it("LOG_FORMAT=json writes the server's other log lines as JSON too; pretty writes them as text; LOG_LEVEL drops the less severe", async () => {
    let output = ""
    const smsLines = async (format: "json" | "pretty", logLevel = "info") => {
      const dir = join(dataDir, `log-${format}-${logLevel}`)
      const server = await startServer(cliEnv(dir, { TLS_PORT: "0", ACCESS_LOG: logLevel === "info" ? "off" : "info", LOG_FORMAT: format, LOG_LEVEL: logLevel }), 120_000)
      const phoneNumber = format === "pretty" ? "+14155550102" : logLevel === "info" ? "+14155550101" : "+14155550103"
      try {
        const key = bootstrapOf(server.output())!["serviceKey"]!
        const r = await fetch(`${server.baseUrl}/v1/account/phone/verifications`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ phoneNumber })
        })
        expect(r.status, await r.text()).toBe(201)
      } finally {
        await stopServer(server)
      }
      output = server.output()
      return output.split("\n").filter((l) => l.includes("SMS (not sent"))
    }
    const json = await smsLines("json")
    expect(json).toHaveLength(1)
    const line = JSON.parse(json[0]!) as { message: unknown; logLevel: string; annotations: Record<string, unknown> }
    expect(line.logLevel).toBe("INFO")
    expect(String(line.message)).toContain("SMS (not sent: no SMS provider configured)")
    expect(line.annotations["to"]).toBe("+14155550101")
    const pretty = await smsLines("pretty")
    expect(pretty).toHaveLength(1)
    expect(() => JSON.parse(pretty[0]!)).toThrow()
    expect(pretty[0]).toContain("+14155550102")
    // LOG_LEVEL=warning: neither the SMS line (info) nor the access lines (ACCESS_LOG=info) are written;
    // the start banner is not a log line and is still printed.
    expect(await smsLines("json", "warning")).toEqual([])
    expect(accessLines(output)).toEqual([])
    expect(output).toContain("Switchboard listening on")
  }, 360_000) // three servers, each starting on a fresh embedded database
})
