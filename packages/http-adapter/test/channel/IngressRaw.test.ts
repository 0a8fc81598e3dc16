/**
 * Ingress records the request as it came (docs/event-channel.md, "Ingress and the reply relay"):
 * raw TCP requests (`node:net`, so the bytes on the wire are the test's own) to a real server, and
 * the recorded `data.rawRequestBase64` read back from the store — header bytes as sent (Latin-1
 * and UTF-8 alike), every method Node's parser takes, a chunked body recorded with its decoding
 * (no `Transfer-Encoding`, a `Content-Length`), and 413 in the /v1 problem format for a body over
 * INGRESS_MAX_BYTES in either framing, the connection then closed.
 */
import { EventChannelStore } from "@switchboard/core/events"
import { testBackends } from "@switchboard/sql-adapter"
import { Effect } from "effect"
import { METHODS } from "node:http"
import { connect as tcpConnect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newChannelProject } from "../support/ChannelClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const MAX = 8 * 1024

interface RawAnswer {
  readonly status: number
  readonly head: string
  readonly body: string
  /** Whether the server ended the connection (FIN) rather than resetting it. */
  readonly ended: boolean
}

/**
 * Sends `parts` (written one after the other) on a new TCP connection to the server and reads
 * until the server closes it; the answer's status line, head and body.
 */
const rawCall = (s: TestServer, parts: ReadonlyArray<Buffer>): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const url = new URL(s.baseUrl)
    const socket = tcpConnect(Number(url.port), url.hostname)
    const received: Array<Buffer> = []
    let ended = false
    socket.on("data", (d) => received.push(d))
    socket.on("end", () => {
      ended = true
    })
    // A write after the server closed (the 413 case) fails; the answer already read is what counts.
    socket.on("error", () => undefined)
    socket.on("close", () => {
      const text = Buffer.concat(received).toString("latin1")
      const split = text.indexOf("\r\n\r\n")
      if (split === -1) return reject(new Error(`no HTTP answer (ended: ${ended}); got ${JSON.stringify(text.slice(0, 500))}`))
      const head = text.slice(0, split)
      resolve({ status: Number(head.split(" ")[1]), head, body: text.slice(split + 4), ended })
    })
    socket.on("connect", async () => {
      for (const p of parts) {
        if (socket.destroyed) return
        await new Promise<void>((done) => socket.write(p, () => done()))
      }
    })
  })

const bytes = (...pieces: Array<string | Buffer>) => Buffer.concat(pieces.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : p)))

for (const backend of testBackends()) {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer(backend, { ingressReplyWaitMs: 0, ingressRateLimitPerMinute: 1_000, ingressMaxBytes: MAX, webhookDeliveryEnabled: false })
  })
  afterAll(async () => {
    await s?.close()
  })

  /** The raw request recorded for `eventId` of the project, as bytes. */
  const recorded = async (projectId: string, eventId: string) => {
    const events = await s.run(Effect.gen(function*() { return yield* (yield* EventChannelStore).read({ projectId, after: 0, limit: 1_000 }) }))
    const event = events.find((e) => e.event.id === eventId)
    expect(event, `event ${eventId} recorded`).toBeDefined()
    return Buffer.from((event!.event.data as { rawRequestBase64: string }).rawRequestBase64, "base64")
  }

  const endpointPath = async () => {
    const p = await newChannelProject(s)
    const endpoint = await p.ingress()
    return { projectId: p.projectId, path: new URL(endpoint.url).pathname }
  }

  /** The event id of a 202 answer. */
  const accepted = (a: RawAnswer) => {
    expect(a.status, a.head + a.body).toBe(202)
    return (JSON.parse(a.body) as { eventId: string }).eventId
  }

  describe(`ingress records the request as it came (${backend})`, () => {
    it("keeps the bytes of header names and values: Latin-1 and UTF-8 alike, names in their case and order", async () => {
      const { path, projectId } = await endpointPath()
      const body = "{\"a\":1}"
      const request = bytes(
        `POST ${path}?x=1 HTTP/1.1\r\nHost: example.test\r\n`,
        "X-Latin: caf", Buffer.from([0xe9]), "\r\n",
        "X-Utf8: caf", Buffer.from([0xc3, 0xa9]), "\r\n",
        "x-MiXeD-Case: Value With  Inner  Spaces\r\n",
        "X-Padded:    padded value   \r\n",
        "X-Tight:tight\r\n",
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`
      )
      const eventId = accepted(await rawCall(s, [request]))
      const raw = await recorded(projectId, eventId)
      // Whitespace around a value is not part of it (RFC 9110 §5.5) and Node's parser does not keep
      // it: each header line is recorded as `name: value`, one space after the colon.
      expect(raw.toString("hex")).toBe(bytes(
        `POST ${path}?x=1 HTTP/1.1\r\nHost: example.test\r\n`,
        "X-Latin: caf", Buffer.from([0xe9]), "\r\n",
        "X-Utf8: caf", Buffer.from([0xc3, 0xa9]), "\r\n",
        "x-MiXeD-Case: Value With  Inner  Spaces\r\n",
        "X-Padded: padded value\r\n",
        "X-Tight: tight\r\n",
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`
      ).toString("hex"))
    })

    it("records a chunked body de-chunked, with Content-Length instead of Transfer-Encoding, and its trailers as header lines", async () => {
      const { path, projectId } = await endpointPath()
      const body = Buffer.concat([Buffer.from("hello "), Buffer.from([0xff, 0x00, 0xc3, 0xa9]), Buffer.from(" world")])
      const answer = await rawCall(s, [
        bytes(`PUT ${path} HTTP/1.1\r\nHost: example.test\r\nX-First: 1\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\nConnection: close\r\n\r\n`),
        bytes("6\r\nhello \r\n"),
        bytes("a\r\n", body.subarray(6), "\r\n"),
        bytes("0\r\nX-Sum: 42\r\n\r\n")
      ])
      const raw = await recorded(projectId, accepted(answer))
      expect(raw.toString("hex")).toBe(bytes(
        `PUT ${path} HTTP/1.1\r\nHost: example.test\r\nX-First: 1\r\nConnection: close\r\nX-Sum: 42\r\nContent-Length: ${body.length}\r\n\r\n`,
        body
      ).toString("hex"))
    })

    it("keeps a transfer coding other than chunked (only the chunked framing is decoded)", async () => {
      const { path, projectId } = await endpointPath()
      const answer = await rawCall(s, [
        bytes(`POST ${path} HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n`)
      ])
      const raw = await recorded(projectId, accepted(answer))
      expect(raw.toString("latin1")).toBe(`POST ${path} HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabc`)
    })

    it("records every method Node's parser accepts (OPTIONS, TRACE, PROPFIND, QUERY, PATCH, …)", async () => {
      const { path, projectId } = await endpointPath()
      const methods = METHODS.filter((m) => m !== "CONNECT")
      for (const m of ["OPTIONS", "TRACE", "PROPFIND", "QUERY", "PATCH"]) expect(methods).toContain(m)
      for (const method of methods) {
        const answer = await rawCall(s, [bytes(`${method} ${path} HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi`)])
        expect(answer.status, `${method}: ${answer.head}\n${answer.body}`).toBe(202)
        // A HEAD answer has no body: find the event by the request line.
        const events = await s.run(Effect.gen(function*() { return yield* (yield* EventChannelStore).read({ projectId, after: 0, limit: 1_000 }) }))
        const lines = events.filter((e) => e.event.type === "external-webhook.received").map((e) => Buffer.from((e.event.data as { rawRequestBase64: string }).rawRequestBase64, "base64").toString("latin1"))
        expect(lines, method).toContain(`${method} ${path} HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi`)
      }
    })

    it("answers 413 in the /v1 problem format, then closes, for a chunked body over INGRESS_MAX_BYTES", async () => {
      const { path, projectId } = await endpointPath()
      const headBefore = await s.run(Effect.gen(function*() { return yield* (yield* EventChannelStore).head(projectId) }))
      const chunk = Buffer.alloc(4096, 0x61)
      const parts = [bytes(`POST ${path} HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n`)]
      // Well past the limit (and past 1 MiB): the server must stop reading and answer.
      for (let i = 0; i < 400; i++) parts.push(bytes("1000\r\n", chunk, "\r\n"))
      parts.push(bytes("0\r\n\r\n"))
      const answer = await rawCall(s, parts)
      expect(answer.status, answer.head + answer.body).toBe(413)
      expect(answer.head.toLowerCase()).toContain("content-type: application/problem+json")
      expect(answer.head.toLowerCase()).toContain("connection: close")
      expect(answer.head.toLowerCase()).toMatch(/x-request-id: \S+/)
      expect(JSON.parse(answer.body)).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE" })
      expect(answer.ended).toBe(true)
      expect(await s.run(Effect.gen(function*() { return yield* (yield* EventChannelStore).head(projectId) }))).toBe(headBefore)
    })

    it("answers 413 for a Content-Length over INGRESS_MAX_BYTES before reading the body", async () => {
      const { path } = await endpointPath()
      const answer = await rawCall(s, [
        bytes(`POST ${path} HTTP/1.1\r\nHost: h\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`),
        Buffer.alloc(64 * 1024, 0x62)
      ])
      expect(answer.status, answer.head + answer.body).toBe(413)
      expect(answer.head.toLowerCase()).toContain("connection: close")
      expect(JSON.parse(answer.body)).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE" })
      expect(answer.ended).toBe(true)
    })
  })
}
