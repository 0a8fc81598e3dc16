/**
 * One webhook delivery attempt, start to outcome (nothing per attempt that need not
 * be): the signed request — the body built directly (`envelopeJson`), signed synchronously once the
 * endpoint's keys are unsealed (cached while its sealed secrets stay the same, so a rotation or a
 * new secret is never signed with a stale key) — sent through the `WebhookSender`, and the record
 * to write: delivered, pending until the next attempt (jitter drawn only for a retry), or
 * dead-lettered. Used by `WebhookDeliveryEngine`.
 */
import { type Clock, DateTime, Effect } from "effect"
import type { Secrets } from "../shared/Secrets.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { afterAttempt, classify, describeOutcome, type SendOutcome, unitOf, type Verdict, type WebhookPolicyShape } from "./DeliveryPolicy.js"
import { signingKeys } from "./Endpoints.js"
import { envelopeJson } from "./EnvelopeJson.js"
import { type HmacSha256, managementHeadersSync, standardHeadersSync } from "./Signing.js"
import type { AttemptRecord, ClaimedDelivery, OutboundRequest, WebhookEndpoint, WebhookSender } from "./WebhookPorts.js"

const td = new TextDecoder()

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** A finished attempt: what to record, and the delivery it was made for. */
export interface AttemptResult {
  readonly record: AttemptRecord
  readonly claimed: ClaimedDelivery
}

export const makeWebhookAttempts = (deps: {
  readonly policy: WebhookPolicyShape
  readonly secrets: Secrets["Service"]
  readonly serverSecret: ServerSecret["Service"]
  /** The HMAC to sign with (`WebhookHmac`). */
  readonly hmac: HmacSha256
}) => {
  const { hmac, policy, secrets, serverSecret } = deps
  /**
   * Unsealed signing keys per endpoint, while its sealed secrets stay the same (a rotation or a
   * new secret changes them, so the cache can never sign with a stale key). Bounded.
   */
  interface CachedKeys {
    readonly endpoint: WebhookEndpoint
    readonly secret: Uint8Array
    /** The previous secret while it still signs, else null. */
    readonly previous: Uint8Array | null
    readonly keys: ReadonlyArray<Uint8Array>
  }
  const keyCache = new Map<string, CachedKeys>()
  const previousAt = (e: WebhookEndpoint, nowMillis: number) =>
    e.previousSecret !== null && e.previousSecretExpiresAt !== null && DateTime.toEpochMillis(e.previousSecretExpiresAt) > nowMillis
      ? e.previousSecret
      : null
  /** The cached keys of the endpoint, if its sealed secrets are still those they were unsealed from. */
  const cachedKeys = (endpoint: WebhookEndpoint, nowMillis: number): ReadonlyArray<Uint8Array> | undefined => {
    const cached = keyCache.get(endpoint.endpointId)
    if (cached === undefined) return undefined
    const previous = previousAt(endpoint, nowMillis)
    if (cached.endpoint === endpoint && (previous === null) === (cached.previous === null)) return cached.keys
    return sameBytes(cached.secret, endpoint.secret) &&
        (previous === null ? cached.previous === null : cached.previous !== null && sameBytes(cached.previous, previous))
      ? cached.keys
      : undefined
  }
  const unsealKeys = (endpoint: WebhookEndpoint, nowMillis: number) =>
    Effect.gen(function*() {
      const keys = yield* signingKeys(endpoint, DateTime.makeUnsafe(nowMillis) as DateTime.Utc).pipe(
        Effect.provideService(ServerSecret, serverSecret)
      )
      if (keys === undefined || keys.length === 0) return undefined
      if (keyCache.size >= 10_000) keyCache.clear()
      keyCache.set(endpoint.endpointId, { endpoint, secret: endpoint.secret, previous: previousAt(endpoint, nowMillis), keys })
      return keys as ReadonlyArray<Uint8Array>
    })

  type Prepared =
    | { readonly _tag: "Refused"; readonly reason: string }
    | { readonly _tag: "Request"; readonly request: OutboundRequest }
  const unsealable: Prepared = { _tag: "Refused", reason: "the signing secret cannot be unsealed (was SECRET_KEY changed?)" }

  /** The request of one attempt (pure, given the keys): the envelope as the body, signed per the endpoint's kind. */
  const requestOf = (claimed: ClaimedDelivery, keys: ReadonlyArray<Uint8Array>, nowMillis: number): Prepared => {
    const body = envelopeJson(claimed.event)
    if (body === undefined) return { _tag: "Refused", reason: "the event does not encode" }
    const timestampSeconds = Math.floor(nowMillis / 1000)
    const headers = claimed.endpoint.kind === "management"
      ? managementHeadersSync({
        secret: td.decode(keys[0]),
        webhookId: claimed.endpoint.endpointId,
        eventType: claimed.event.type,
        timestampSeconds,
        body,
        userAgent: policy.userAgent
      }, hmac)
      : standardHeadersSync({ keys, messageId: claimed.event.id, timestampSeconds, body, userAgent: policy.userAgent }, hmac)
    return { _tag: "Request", request: { url: claimed.endpoint.url, headers, body, timeoutMs: policy.timeoutMs } }
  }

  /** The signed request while the endpoint's keys are cached (every delivery but its first), else undefined. */
  const prepareSync = (claimed: ClaimedDelivery, nowMillis: number): Prepared | undefined => {
    const keys = cachedKeys(claimed.endpoint, nowMillis)
    return keys === undefined ? undefined : requestOf(claimed, keys, nowMillis)
  }

  /** The signed request: synchronous while the endpoint's keys are cached (every delivery but its first). */
  const prepare = (claimed: ClaimedDelivery, nowMillis: number): Effect.Effect<Prepared> => {
    const keys = cachedKeys(claimed.endpoint, nowMillis)
    if (keys !== undefined) return Effect.succeed(requestOf(claimed, keys, nowMillis))
    return Effect.map(unsealKeys(claimed.endpoint, nowMillis), (k) => (k === undefined ? unsealable : requestOf(claimed, k, nowMillis)))
  }

  /** The record of an attempt with its verdict, `unit` being the jitter's uniform draw (used by a retry only). */
  const finish = (
    claimed: ClaimedDelivery,
    startedMillis: number,
    outcome: SendOutcome,
    nowMillis: number,
    verdict: Verdict,
    unit: number
  ): AttemptResult => {
    const attemptCount = claimed.delivery.attemptCount + 1
    const now = DateTime.makeUnsafe(nowMillis) as DateTime.Utc
    const next = afterAttempt(policy, attemptCount, verdict, now, unit)
    const record: AttemptRecord = {
      deliveryId: claimed.delivery.deliveryId,
      claimSeq: claimed.delivery.claimSeq,
      status: next.status,
      attemptCount,
      nextAttemptAt: next.status === "pending" ? next.nextAttemptAt : now,
      lastAttemptAt: DateTime.makeUnsafe(startedMillis) as DateTime.Utc,
      lastError: verdict === "delivered" ? null : describeOutcome(outcome),
      lastResponseStatus: outcome._tag === "Response" ? outcome.status : null,
      deliveredAt: next.status === "delivered" ? now : null
    }
    return { record, claimed }
  }

  /** What to record of an attempt that ended with `outcome` (jitter is drawn only for a retry). */
  const recordOf = (claimed: ClaimedDelivery, startedMillis: number, outcome: SendOutcome, nowMillis: number) => {
    const verdict = classify(outcome)
    return verdict === "retry"
      ? Effect.map(secrets.randomBytes(4), (bytes) => finish(claimed, startedMillis, outcome, nowMillis, verdict, unitOf(bytes)))
      : Effect.succeed(finish(claimed, startedMillis, outcome, nowMillis, verdict, 0))
  }

  /**
   * `recordOf` without an effect when the attempt is not to be retried (no jitter to draw: the
   * engine's common case, delivered); undefined for a retry, which takes `recordOf`.
   */
  const recordSync = (claimed: ClaimedDelivery, startedMillis: number, outcome: SendOutcome, nowMillis: number) => {
    const verdict = classify(outcome)
    return verdict === "retry" ? undefined : finish(claimed, startedMillis, outcome, nowMillis, verdict, 0)
  }

  /** One attempt, start to outcome, with the clock given (the engine's own). */
  const attemptWith = (sender: WebhookSender["Service"], clock: Clock.Clock, claimed: ClaimedDelivery) =>
    Effect.suspend(() => {
      const started = clock.currentTimeMillisUnsafe()
      return Effect.flatMap(prepare(claimed, started), (prepared) =>
        Effect.flatMap(
          prepared._tag === "Refused" ? Effect.succeed<SendOutcome>(prepared) : sender.send(prepared.request),
          (outcome) => recordOf(claimed, started, outcome, clock.currentTimeMillisUnsafe())
        ))
    })

  return { attemptWith, prepareSync, recordOf, recordSync } as const
}
