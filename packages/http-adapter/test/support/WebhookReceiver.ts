/**
 * A real webhook receiver on loopback for the delivery tests: records every request (headers and
 * the raw body, exactly as sent) and answers as the test says — a status, or "hang" (accept and
 * never answer, as a stuck receiver does).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: string
}

export type Answer = { readonly status: number; readonly body?: string; readonly headers?: Record<string, string> } | "hang"

export interface Receiver {
  readonly port: number
  readonly url: (path?: string) => string
  readonly received: Array<Received>
  /** Decides the answer to each request (default 204). */
  answer: (r: Received, index: number) => Answer
  /** Resolves once `predicate` holds over what was received (checked every 20 ms), or rejects after `timeoutMs`. */
  readonly waitFor: (predicate: (received: ReadonlyArray<Received>) => boolean, timeoutMs?: number) => Promise<void>
  readonly close: () => Promise<void>
}

export const waitUntil = async (what: string, predicate: () => boolean | Promise<boolean>, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

export const startReceiver = (port = 0): Promise<Receiver> =>
  new Promise((resolve, reject) => {
    const received: Array<Received> = []
    const hanging: Array<ServerResponse> = []
    const receiver: Receiver = {
      port: 0,
      url: (path = "/hook") => `http://127.0.0.1:${receiver.port}${path}`,
      received,
      answer: () => ({ status: 204 }),
      waitFor: (predicate, timeoutMs = 30_000) =>
        waitUntil(`the receiver (got ${received.length} requests)`, () => predicate(received), timeoutMs),
      close: () =>
        new Promise<void>((done) => {
          for (const res of hanging) res.destroy()
          server.closeAllConnections()
          server.close(() => done())
        })
    }
    const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const headers: Record<string, string> = {}
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v
        const r: Received = { path: req.url ?? "/", headers, body: Buffer.concat(chunks).toString("utf8") }
        received.push(r)
        const answer = receiver.answer(r, received.length - 1)
        if (answer === "hang") {
          hanging.push(res)
          return
        }
        res.writeHead(answer.status, answer.headers ?? {})
        res.end(answer.body ?? "")
      })
    })
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => {
      ;(receiver as { port: number }).port = (server.address() as AddressInfo).port
      resolve(receiver)
    })
  })

/** A loopback port nobody listens on (for a receiver that is down). */
export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port
      s.close(() => resolve(port))
    })
  })
