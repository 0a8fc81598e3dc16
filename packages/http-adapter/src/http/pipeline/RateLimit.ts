/**
 * The rate-limit step, on /v1 only: limits are per credential (the presented one, or the client
 * address when none is sent). Every /v1 response carries the policy and its state
 * (`RateLimit-Policy`, `RateLimit`); over the quota the request answers 429 with `Retry-After`.
 * The hit runs inside the guarded work, so a limiter that cannot reach its store fails like any
 * other use of the database (503 + Retry-After), never as an empty 500.
 */
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { sha256HexSync } from "@switchboard/core/internal"
import type { RateLimiter, RateLimitPolicy } from "@switchboard/core/shared"
import { policyHeader, stateHeader } from "../RateLimitHeaders.js"
import { Clock, type Context, DateTime, Effect, type Fiber, Option } from "effect"
import { problem } from "../../v1/ProblemFailure.js"
import { addHeader, type Served } from "./Served.js"

/**
 * The rate-limit key of a /v1 request (or of an upgrade of `/v1/subscribe`, ChannelServer.ts): the
 * presented credential (its hash), or the client address when none was sent. Remembered by the
 * whole `Authorization` value, so a credential seen recently costs one map lookup (no parsing, no
 * hashing per request).
 */
export const rateLimitKeyOf = (authorization: string | undefined, remoteAddress: string | undefined, memo: Map<string, string>): string => {
  if (authorization !== undefined) {
    const known = memo.get(authorization)
    if (known !== undefined) return known
  }
  const bearer = /^Bearer[ ]+(\S{1,8192})\s*$/i.exec(authorization ?? "")?.[1]
  if (bearer === undefined) return `ip:${remoteAddress ?? "unknown"}`
  if (memo.size >= RATE_LIMIT_KEY_MEMO) memo.clear()
  const key = `credential:${sha256HexSync(bearer).slice(0, 40)}`
  memo.set(authorization!, key)
  return key
}

const rateLimitKey = (request: HttpServerRequest.HttpServerRequest, memo: Map<string, string>): string =>
  rateLimitKeyOf(request.headers["authorization"], Option.getOrUndefined(request.remoteAddress), memo)

/** The per-client policy of /v1 (RATE_LIMIT_QUOTA requests per RATE_LIMIT_WINDOW_SECONDS). */
export const clientPolicy = (settings: { readonly rateLimitQuota: number; readonly rateLimitWindowSeconds: number }): RateLimitPolicy => ({
  name: "default",
  quota: settings.rateLimitQuota,
  windowSeconds: settings.rateLimitWindowSeconds
})

/** The 429 answer's detail for the per-client policy. */
export const overQuotaDetail = (policy: RateLimitPolicy) => `At most ${policy.quota} requests per ${policy.windowSeconds} s for this credential.`

const RATE_LIMIT_KEY_MEMO = 10_000

/**
 * The step for one policy: `next` behind the limiter on /v1 paths, `next` itself elsewhere. The
 * clock is the fiber's (a test clock moves it), read without an effect.
 */
export const makeRateLimit = (
  limiter: Context.Service.Shape<typeof RateLimiter>,
  settings: { readonly rateLimitQuota: number; readonly rateLimitWindowSeconds: number }
) => {
  const policy = clientPolicy(settings)
  const policyValue = policyHeader(policy)
  const keys = new Map<string, string>()
  const overQuota = (resetSeconds: number) =>
    Effect.fail(problem("RATE_LIMITED", overQuotaDetail(policy), {
      headers: { "retry-after": String(resetSeconds) }
    }))
  return <R>(
    served: Served,
    fiber: Fiber.Fiber<unknown, unknown>,
    next: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R> => {
    const path = served.path
    if (path !== "/v1" && !path.startsWith("/v1/")) return next
    return Effect.flatMap(
      limiter.hit(
        rateLimitKey(served.request, keys),
        policy,
        DateTime.makeUnsafe(fiber.getRef(Clock.Clock).currentTimeMillisUnsafe())
      ),
      (state) => {
        addHeader(served, "ratelimit-policy", policyValue)
        addHeader(served, "ratelimit", stateHeader(policy, state))
        return state.allowed ? next : overQuota(state.resetSeconds)
      }
    )
  }
}
