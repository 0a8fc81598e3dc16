/**
 * The Node HTTP and HTTPS servers the application is served on, made in one place for the
 * standalone server and the tests: the header limit (MAX_HEADER_BYTES) is configured, and what Node
 * refuses before the application sees a request — headers over the limit (431), a malformed
 * request line (400) — is answered in the format of the surface the request was for, with an
 * `X-Request-ID`, instead of Node's empty body.
 */
import { formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import { makeProblem } from "../http/Problem.js"
import { randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import type { Duplex } from "node:stream"
import { surfaceOf } from "../http/Surfaces.js"

export interface NodeServerOptions {
  readonly maxHeaderBytes: number
  readonly docsUrl: string
}

const reasons: Record<number, string> = { 400: "Bad Request", 431: "Request Header Fields Too Large" }

/** The answer to a request Node refused while parsing it. */
export const clientErrorResponse = (error: { code?: string; rawPacket?: Buffer }, docsUrl: string): string => {
  const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400
  const requestId = formatTypeId(IdKinds.request, uuidv7Bytes(Date.now(), randomBytes(16)))
  // The request line, if it arrived: which surface the client was talking to.
  const line = error.rawPacket?.subarray(0, 2048).toString("latin1").split("\r\n")[0] ?? ""
  const path = /^[A-Z]+ (\S+) HTTP\//.exec(line)?.[1]?.split("?")[0] ?? "/v1"
  const surface = surfaceOf(path)
  const message = status === 431
    ? "The request headers are larger than this server accepts; send fewer or shorter headers."
    : "The request could not be parsed as HTTP."
  const code = status === 431 ? "REQUEST_HEADERS_TOO_LARGE" as const : "HTTP_ERROR" as const
  const [contentType, body] = surface === "v1"
    ? ["application/problem+json", JSON.stringify(makeProblem(docsUrl, code, { detail: message, requestId }))]
    : surface === "oauth"
    ? ["application/json", JSON.stringify({ error: "invalid_request", error_description: message })]
    : ["application/json", JSON.stringify({ succeed: false, code, message })]
  return [
    `HTTP/1.1 ${status} ${reasons[status]}`,
    `content-type: ${contentType}`,
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    "cache-control: no-store",
    "connection: close",
    "",
    body
  ].join("\r\n")
}

const onClientError = (docsUrl: string) => (error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex) => {
  if (!socket.writable || (error.code !== "HPE_HEADER_OVERFLOW" && !String(error.code ?? "").startsWith("HPE_"))) {
    socket.destroy()
    return
  }
  socket.end(clientErrorResponse(error, docsUrl))
}

/** A plain HTTP server for the application. */
export const makeHttpServer = (o: NodeServerOptions): Server => {
  const server = createServer({ maxHeaderSize: o.maxHeaderBytes })
  server.on("clientError", onClientError(o.docsUrl))
  return server
}

/** An HTTPS server for the application (typed as `Server`, as NodeHttpServer.layer expects). */
export const makeHttpsServer = (o: NodeServerOptions & { readonly cert: string; readonly key: string }): Server => {
  const server = createHttpsServer({ cert: o.cert, key: o.key, maxHeaderSize: o.maxHeaderBytes })
  server.on("clientError", onClientError(o.docsUrl))
  return server as unknown as Server
}
