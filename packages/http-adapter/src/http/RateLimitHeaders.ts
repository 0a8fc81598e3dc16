/**
 * Core's rate-limit policy and state as HTTP headers, after draft-ietf-httpapi-ratelimit-headers:
 * `RateLimit-Policy: "default";q=100;w=10` and `RateLimit: "default";r=97;t=8`.
 */
import type { RateLimitPolicy, RateLimitState } from "@switchboard/core/shared"

export const policyHeader = (p: RateLimitPolicy) => `"${p.name}";q=${p.quota};w=${p.windowSeconds}`
export const stateHeader = (p: RateLimitPolicy, s: RateLimitState) => `"${p.name}";r=${s.remaining};t=${s.resetSeconds}`
