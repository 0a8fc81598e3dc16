/**
 * The event channel and external-webhook ingress, the parts with no transport:
 *
 * - `StreamTokens` mints and checks the channel's short-lived EdDSA JWTs (`typ` `fusor+jwt`,
 *   audience `{API_URL}/v1/subscribe`, subject the project id), signed by the OAuth provider's
 *   rotating keys — a token of this kind is never an access token (its `typ` differs) and the
 *   reverse.
 * - `Ingress` manages ingress endpoints (secret shown once, stored as SHA-256; listed, created and
 *   revoked only by a caller the project gate lets see the project) and records what a
 *   third party posts to one as an `external-webhook.received` event, and waits (bounded) for the
 *   reply a `fusor.v1.json` session relays back, on any process.
 */
import { Clock, Context, DateTime, Deferred, Duration, Effect, Layer, Option, Schema, Stream } from "effect"
import * as jose from "jose"
import { base64url, sha256HexSync } from "../internal/Crypto.js"
import { fn } from "../internal/Traced.js"
import { SigningKeys } from "../oauth/SigningKeys.js"
import { SIGNING_ALG } from "../oauth/SigningKeyMaterial.js"
import { TokenAudience } from "../oauth/TokenAudience.js"
import type { Principal } from "../credentials/Access.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { IdKinds, type ProjectId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { EventChannelStore, type IngressEndpointRecord, IngressEndpointsRepo, type RelayedReply } from "./ChannelPorts.js"
import { EVENT_API_VERSION, EXTERNAL_WEBHOOK_SERVICE_SEGMENT, type EventEnvelope } from "./Schema.js"
import { Setting } from "../internal/Settings.js"

export * from "./ChannelPorts.js"

export interface ChannelPolicyShape {
  /** Lifetime of a stream token (≤ 1 h, the signing keys' longest token lifetime). */
  readonly tokenTtlSeconds: number
  /** How long an ingress request waits for a session's reply. */
  readonly replyWaitMs: number
  /** How long a session counts as present after it was last seen (a few heartbeats). */
  readonly presenceMs: number
}

export class ChannelPolicy extends Setting<ChannelPolicy>()("core/ChannelPolicy", {
  defaultValue: (): ChannelPolicyShape => ({ tokenTtlSeconds: 900, replyWaitMs: 10_000, presenceMs: 45_000 })
}) {}

export const STREAM_TOKEN_TYP = "fusor+jwt"
export const channelAudience = (apiAudience: string) => `${apiAudience}/v1/subscribe`

/** Why a stream token was refused (the channel answers all of them with `unauthenticated`). */
export type StreamTokenRejection = "malformed" | "expired" | "invalid"

export class StreamTokens extends Context.Service<StreamTokens>()("core/StreamTokens", {
  make: Effect.gen(function*() {
    const keys = yield* SigningKeys
    const mint = fn("StreamTokens.mint")(function*(projectId: string) {
      const { tokenTtlSeconds } = yield* ChannelPolicy
      const { audience } = yield* TokenAudience
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const token = yield* keys.sign(
        { sub: projectId, aud: channelAudience(audience), exp: now + tokenTtlSeconds, scope: "events:stream" },
        { typ: STREAM_TOKEN_TYP }
      )
      return { token, expiresIn: tokenTtlSeconds }
    })

    /** The project and expiry (ms) of a valid token. */
    const verify = (token: string): Effect.Effect<{ projectId: string; expiresAtMs: number }, StreamTokenRejection> =>
      Effect.gen(function*() {
        let header: jose.ProtectedHeaderParameters
        try {
          header = jose.decodeProtectedHeader(token)
        } catch {
          return yield* Effect.fail("malformed" as const)
        }
        if (header.alg !== SIGNING_ALG || header.typ !== STREAM_TOKEN_TYP || typeof header.kid !== "string") {
          return yield* Effect.fail("invalid" as const)
        }
        const key = yield* keys.publicKeyFor(header.kid)
        if (Option.isNone(key)) return yield* Effect.fail("invalid" as const)
        const { audience } = yield* TokenAudience
        const now = yield* Clock.currentTimeMillis
        const result = yield* Effect.tryPromise(() =>
          jose.jwtVerify(token, key.value, {
            algorithms: [SIGNING_ALG],
            audience: channelAudience(audience),
            typ: STREAM_TOKEN_TYP,
            requiredClaims: ["exp", "sub"],
            currentDate: new Date(now)
          })
        ).pipe(Effect.mapError((e) => (String((e.cause as { code?: string } | undefined)?.code) === "ERR_JWT_EXPIRED" ? "expired" as const : "invalid" as const)))
        const sub = result.payload.sub
        if (typeof sub !== "string" || typeof result.payload.exp !== "number") return yield* Effect.fail("invalid" as const)
        return { projectId: sub, expiresAtMs: result.payload.exp * 1000 }
      })
    return { mint, verify } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([SigningKeys.layer]))
}

// ---------------------------------------------------------------------------------------------
// Ingress
// ---------------------------------------------------------------------------------------------

export const IngressPlatform = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[a-z][a-z0-9_-]{0,31}$/u, { message: "platform must be 1-32 of [a-z0-9_-], starting with a letter" }))
).annotate({ identifier: "IngressPlatform" })
export const IngressSourceId = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[a-z0-9_-]{1,64}$/u, { message: "sourceId must be 1-64 of [a-z0-9_-]" }))
).annotate({ identifier: "IngressSourceId" })

/** The most ingress endpoints a project may hold at once. */
export const MAX_INGRESS_ENDPOINTS = 100

export class IngressEndpointLimitReached extends Schema.TaggedError<IngressEndpointLimitReached>()("IngressEndpointLimitReached", {
  limit: Schema.Number
}) {}

/** What the poster is answered. `relayed`: a session's reply; otherwise the default 202. */
export type IngressOutcome =
  | { readonly _tag: "relayed"; readonly eventId: string; readonly reply: RelayedReply }
  | { readonly _tag: "accepted"; readonly eventId: string }

/** The secret of an ingress URL: 32 random bytes, base64url. */
const newSecret = () => base64url(globalThis.crypto.getRandomValues(new Uint8Array(32)))
export const ingressSecretHash = (secret: string) => sha256HexSync(`ingress:${secret}`)

export const base64OfBytes = (bytes: Uint8Array): string => {
  let s = ""
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(s)
}

export class Ingress extends Context.Service<Ingress>()("core/Ingress", {
  make: Effect.gen(function*() {
    const repo = yield* IngressEndpointsRepo
    const store = yield* EventChannelStore
    const ids = yield* Ids
    const gate = yield* makeProjectGate
    // Replies this process waits for, by event id; one subscription to the store's reply signals.
    const waiting = new Map<string, Deferred.Deferred<void>>()
    yield* store.replies.pipe(
      Stream.runForEach((eventId) => Effect.suspend(() => {
        const d = waiting.get(eventId)
        return d === undefined ? Effect.void : Deferred.succeed(d, undefined)
      })),
      Effect.forkScoped({ startImmediately: true })
    )

    const create = fn("Ingress.create")(function*(projectId: ProjectId, principal: Principal, platform: string, sourceId: string) {
      yield* gate.open(projectId, principal, "write")
      const existing = yield* repo.list(projectId)
      if (existing.length >= MAX_INGRESS_ENDPOINTS) return yield* new IngressEndpointLimitReached({ limit: MAX_INGRESS_ENDPOINTS })
      const secret = newSecret()
      const record: IngressEndpointRecord = {
        endpointId: yield* ids.typeId(IdKinds.ingressEndpoint),
        projectId,
        platform,
        sourceId,
        secretHash: ingressSecretHash(secret),
        createdAt: yield* DateTime.now,
        revokedAt: null
      }
      yield* repo.insert(record)
      return { endpoint: record, secret }
    })

    const resolve = (secret: string) =>
      secret.length < 16 || secret.length > 128 ? Effect.succeed(Option.none()) : repo.findBySecretHash(ingressSecretHash(secret))

    /** Commits the request as an event; `waitMs` > 0 when a `fusor.v1.json` session of the project is connected anywhere. */
    const record = fn("Ingress.record")(function*(endpoint: IngressEndpointRecord, rawRequest: Uint8Array) {
      const policy = yield* ChannelPolicy
      const now = yield* DateTime.now
      const present = yield* store.present(endpoint.projectId, "fusor", DateTime.subtractDuration(now, Duration.millis(policy.presenceMs)))
      const eventId = (yield* ids.typeId(IdKinds.event)) as EventEnvelope["id"]
      const event: EventEnvelope = {
        id: eventId,
        type: "external-webhook.received",
        apiVersion: EVENT_API_VERSION,
        source: `${endpoint.sourceId}.external-webhook.${EXTERNAL_WEBHOOK_SERVICE_SEGMENT}`,
        timestamp: now,
        data: { rawRequestBase64: base64OfBytes(rawRequest) }
      }
      const waitMs = present ? policy.replyWaitMs : 0
      yield* store.append({
        projectId: endpoint.projectId,
        event,
        replyUntil: waitMs > 0 ? DateTime.addDuration(now, Duration.millis(waitMs)) : null,
        platform: endpoint.platform
      })
      return { eventId, waitMs }
    })

    /** Waits up to the reply window for the reply to a committed event; then whatever was recorded. */
    const awaitReply = (eventId: string, waitMs: number) =>
      Effect.gen(function*() {
        const signal = yield* Deferred.make<void>()
        waiting.set(eventId, signal)
        // A reply recorded before the signal was registered has no signal of its own: look first.
        // Then the signal, or the window's end; then whatever reply was recorded (a signal may be lost).
        const early = yield* store.takeReply(eventId)
        const reply = Option.isSome(early) ? early : yield* Deferred.await(signal).pipe(
          Effect.timeoutOption(Duration.millis(waitMs)),
          Effect.andThen(store.takeReply(eventId))
        )
        return Option.match(reply, {
          onNone: (): IngressOutcome => ({ _tag: "accepted", eventId }),
          onSome: (r): IngressOutcome => ({ _tag: "relayed", eventId, reply: r })
        })
      }).pipe(Effect.ensuring(Effect.sync(() => waiting.delete(eventId))))

    /**
     * Records one raw HTTP/1.1 request as `external-webhook.received` and, when a `fusor.v1.json`
     * session of the project is connected anywhere, waits up to the reply window for its reply.
     * The request's bytes are dropped once committed: a request waiting for its reply holds only
     * its event id, so the waiting ones take no memory for their bodies, however many and large.
     */
    const receive = (endpoint: IngressEndpointRecord, rawRequest: Uint8Array): Effect.Effect<IngressOutcome> =>
      Effect.flatMap(record(endpoint, rawRequest), ({ eventId, waitMs }) =>
        waitMs > 0
          ? awaitReply(eventId, waitMs)
          : Effect.succeed<IngressOutcome>({ _tag: "accepted", eventId }))

    /** The project's endpoints, to a caller who may see the project. */
    const list = fn("Ingress.list")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read")
      return yield* repo.list(projectId)
    })

    /** Revokes one endpoint of the project (possible while the project closes, like any credential). */
    const revoke = fn("Ingress.revoke")(function*(projectId: ProjectId, principal: Principal, endpointId: string, at: DateTime.Utc) {
      yield* gate.open(projectId, principal, "revoke")
      return yield* repo.revoke(projectId, endpointId, at)
    })

    return { create, list, revoke, resolve, receive } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}

export const ChannelCore = Layer.mergeAll(StreamTokens.layer, Ingress.layer)
export type ChannelPorts = EventChannelStore | IngressEndpointsRepo
