/**
 * Whether a request came over TLS, and from which client (docs/api-notes/management-api.md "HTTPS
 * only"). The server terminates TLS itself (a `node:https` listener serving the same application),
 * so the socket says it; behind a TLS-terminating proxy (`TRUST_PROXY=true`) the proxy's
 * `X-Forwarded-Proto` and `X-Forwarded-For` are believed, and otherwise ignored (a client could
 * send them).
 */
import type { HttpServerRequest } from "effect/http"
import { Option } from "effect"

/** The first element of a comma-separated forwarding header: what the client-facing proxy saw. */
const firstForwarded = (value: string | undefined) => value?.split(",")[0]?.trim()

/** True when the request reached us over TLS, or (when proxies are trusted) reached the proxy over TLS. */
export const isHttpsRequest = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): boolean => {
  // NodeHttpServer keeps the Node IncomingMessage as `source`; its socket is a TLSSocket on the HTTPS listener.
  const source = request.source as { readonly socket?: { readonly encrypted?: unknown } } | null | undefined
  if (source?.socket?.encrypted === true) return true
  return trustProxy && firstForwarded(request.headers["x-forwarded-proto"])?.toLowerCase() === "https"
}

/** The client's address: the proxy's `X-Forwarded-For` when proxies are trusted, else the peer. */
export const clientAddressOf = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string => {
  const forwarded = trustProxy ? firstForwarded(request.headers["x-forwarded-for"]) : undefined
  return forwarded !== undefined && forwarded !== "" && forwarded.length <= 64
    ? forwarded
    : Option.getOrElse(request.remoteAddress, () => "unknown")
}
