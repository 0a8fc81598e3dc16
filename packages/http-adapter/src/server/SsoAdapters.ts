/**
 * The SSO feature's adapters for the standalone server (docs/sso.md): the operator's `SsoPolicy`
 * (callback URL, allowed `returnTo` origins) and the outbound calls to identity providers and DNS.
 *
 * Outbound rules, as for webhooks: `https://` only, and every address a provider's name resolves
 * to must be public — checked in the socket's own `lookup` (`guardedLookup`) — unless the operator
 * sets ALLOW_PRIVATE_SSO_PROVIDERS=true (local testing against a loopback provider, which also
 * allows `http://`). Redirects are not followed; every call has a deadline (SSO_TIMEOUT_MS, 10 s by
 * default) after which it fails as `UPSTREAM_TIMEOUT`, and at most 256 KiB of an answer is read.
 */
import { isIpLiteral, isPublicAddress } from "@switchboard/core/events"
import {
  DnsTxtResolver,
  type OidcProviderMetadata,
  SsoOutbound,
  SsoPolicy,
  SsoUpstreamFailure
} from "@switchboard/core/sso"
import { Duration, Effect, Layer, Schema } from "effect"
import { Resolver } from "node:dns/promises"
import { type IncomingMessage, request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import type { ServerConfigShape } from "../http/ServerConfig.js"
import { guardedLookup } from "./WebhooksAdapters.js"

const MAX_ANSWER_BYTES = 256 * 1024

const failure = (message: string, timedOut = false) => new SsoUpstreamFailure({ message, timedOut })

/** One guarded HTTP exchange returning the status and the (bounded) body. */
export const guardedHttp = (options: { readonly allowPrivate: boolean; readonly timeoutMs: number }) => {
  const lookup = guardedLookup(options.allowPrivate)
  return (req: { readonly url: string; readonly method: "GET" | "POST"; readonly headers?: Record<string, string>; readonly body?: string }) =>
    Effect.callback<{ readonly status: number; readonly body: string }, SsoUpstreamFailure>((resume) => {
      let url: URL
      try {
        url = new URL(req.url)
      } catch {
        return resume(Effect.fail(failure(`${req.url} is not a URL`)))
      }
      const secure = url.protocol === "https:"
      if (!secure && !(options.allowPrivate && url.protocol === "http:")) {
        return resume(Effect.fail(failure(`${url.protocol}// identity providers are not allowed (https only)`)))
      }
      const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
      if (!options.allowPrivate && isIpLiteral(host) && !isPublicAddress(host)) {
        return resume(Effect.fail(failure(`${host} is not a public address`)))
      }
      let done = false
      const finish = (outcome: Effect.Effect<{ status: number; body: string }, SsoUpstreamFailure>) => {
        if (done) return
        done = true
        clearTimeout(timer)
        resume(outcome)
      }
      const body = req.body === undefined ? undefined : Buffer.from(req.body, "utf8")
      const request = (secure ? httpsRequest : httpRequest)(url, {
        method: req.method,
        headers: { accept: "application/json", ...req.headers, ...(body === undefined ? {} : { "content-length": String(body.length) }) },
        lookup: lookup as never
      }, (res: IncomingMessage) => {
        const chunks: Array<Buffer> = []
        let read = 0
        res.on("data", (chunk: Buffer) => {
          read += chunk.length
          if (read > MAX_ANSWER_BYTES) {
            res.destroy()
            return finish(Effect.fail(failure(`${url.origin} answered more than ${MAX_ANSWER_BYTES} bytes`)))
          }
          chunks.push(chunk)
        })
        res.on("end", () => finish(Effect.succeed({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") })))
        res.on("error", (e) => finish(Effect.fail(failure(`${url.origin}: ${e.message}`))))
      })
      const timer = setTimeout(() => {
        finish(Effect.fail(failure(`${url.origin} did not answer within ${options.timeoutMs} ms`, true)))
        request.destroy()
      }, options.timeoutMs)
      request.on("error", (e: NodeJS.ErrnoException) =>
        finish(Effect.fail(failure(`${url.origin}: ${e.code === undefined ? e.message : `${e.code} ${e.message}`}`))))
      request.end(body)
      return Effect.sync(() => {
        done = true
        clearTimeout(timer)
        request.destroy()
      })
    }).pipe(
      Effect.tap((answer) => Effect.annotateCurrentSpan("http.response.status_code", answer.status)),
      // A span of its own while a tracer exports them (docs/operations.md#observability): the host and path, never the query.
      Effect.withSpan("sso.provider", { kind: "client", attributes: { "http.request.method": req.method, ...urlAttributes(req.url) } })
    )
}

const urlAttributes = (text: string): Record<string, string> => {
  try {
    const url = new URL(text)
    return { "server.address": url.hostname, "url.path": url.pathname }
  } catch {
    return {}
  }
}

const Discovery = Schema.Struct({
  issuer: Schema.String,
  authorization_endpoint: Schema.String,
  token_endpoint: Schema.String,
  jwks_uri: Schema.String
})
const Jwks = Schema.Struct({ keys: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)) })
const TokenAnswer = Schema.Struct({ id_token: Schema.String })

const json = <A>(schema: Schema.Decoder<A>, what: string) => (answer: { readonly status: number; readonly body: string }) =>
  answer.status < 200 || answer.status >= 300
    ? Effect.fail(failure(`${what} answered HTTP ${answer.status}: ${answer.body.slice(0, 200)}`))
    : Effect.try({ try: () => JSON.parse(answer.body) as unknown, catch: () => failure(`${what} did not answer JSON`) }).pipe(
      Effect.flatMap((body) => Schema.decodeUnknownEffect(schema)(body)),
      Effect.mapError((e) => (e._tag === "SsoUpstreamFailure" ? e : failure(`${what} answered an unexpected document`)))
    )

/** The outbound port over `guardedHttp`. */
export const makeSsoOutbound = (options: { readonly allowPrivate: boolean; readonly timeoutMs: number }) => {
  const http = guardedHttp(options)
  return SsoOutbound.of({
    discover: (issuer) =>
      http({ url: `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`, method: "GET" }).pipe(
        Effect.flatMap(json(Discovery, "The provider's discovery document")),
        Effect.flatMap((d): Effect.Effect<OidcProviderMetadata, SsoUpstreamFailure> =>
          d.issuer.replace(/\/+$/, "") !== issuer.replace(/\/+$/, "")
            ? Effect.fail(failure(`The provider's discovery document names the issuer ${d.issuer}, not ${issuer}`))
            : Effect.succeed({
              issuer: d.issuer,
              authorizationEndpoint: d.authorization_endpoint,
              tokenEndpoint: d.token_endpoint,
              jwksUri: d.jwks_uri
            }))
      ),
    jwks: (uri) => Effect.flatMap(http({ url: uri, method: "GET" }), json(Jwks, "The provider's JWKS")),
    exchangeCode: (args) =>
      http({
        url: args.tokenEndpoint,
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${
            Buffer.from(`${encodeURIComponent(args.clientId)}:${encodeURIComponent(args.clientSecret)}`).toString("base64")
          }`
        },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: args.code,
          code_verifier: args.codeVerifier,
          redirect_uri: args.redirectUri
        }).toString()
      }).pipe(
        Effect.flatMap(json(TokenAnswer, "The provider's token endpoint")),
        Effect.map((t) => ({ idToken: t.id_token }))
      )
  })
}

/** DNS TXT lookups with one try and the SSO deadline. */
export const makeDnsTxtResolver = (timeoutMs: number) =>
  DnsTxtResolver.of({
    resolveTxt: (name) =>
      Effect.tryPromise({
        try: (signal) => {
          const resolver = new Resolver({ timeout: timeoutMs, tries: 1 })
          signal.addEventListener("abort", () => resolver.cancel())
          return resolver.resolveTxt(name)
        },
        catch: (e) => e as NodeJS.ErrnoException
      }).pipe(
        Effect.map((records) => records.map((chunks) => chunks.join(""))),
        Effect.catch((e) =>
          e.code === "ENOTFOUND" || e.code === "ENODATA"
            ? Effect.succeed([])
            : Effect.fail(failure(`DNS lookup of ${name} failed (${e.code ?? e.message})`, e.code === "ETIMEOUT"))),
        Effect.timeoutOrElse({ duration: Duration.millis(timeoutMs + 100), orElse: () => Effect.fail(failure(`DNS lookup of ${name} timed out`, true)) })
      )
  })

/** The SSO settings from the server configuration. */
export const ssoPolicyOf = (config: ServerConfigShape) => ({
  callbackUrl: `${config.dashboardUrl}/api/auth/sso/callback`,
  dashboardUrl: config.dashboardUrl,
  returnToOrigins: config.ssoReturnToOrigins,
  loginTtl: Duration.minutes(10),
  entitlement: "organization_sso"
})

export const SsoServerAdapters = (config: ServerConfigShape) =>
  Layer.mergeAll(
    Layer.succeed(SsoOutbound, makeSsoOutbound({ allowPrivate: config.allowPrivateSsoProviders, timeoutMs: config.ssoTimeoutMs })),
    Layer.succeed(DnsTxtResolver, makeDnsTxtResolver(config.ssoTimeoutMs)),
    Layer.succeed(SsoPolicy, ssoPolicyOf(config))
  )
