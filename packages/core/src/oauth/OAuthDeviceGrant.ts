/**
 * The device authorization grant (RFC 8628; oauth/DeviceCodes.ts): a client (a public one such as
 * a command-line tool, or a confidential one with its secret) asks for a device code and a user
 * code; the signed-in user enters the user code on the verification page and approves (the grant
 * gains the scopes, as on the consent screen) or denies; the client polls with the device code:
 * `authorization_pending` until then, `slow_down` (+5 s) when it polls sooner than its interval,
 * `access_denied`, `expired_token`, and the tokens exactly once — a used code is `invalid_grant`.
 * Tokens are minted as for a code exchange: a new token family under the grant, a rotating refresh
 * token with `offline_access`, a JWT for the API when `resource` names it.
 */
import { DateTime, Effect, Option, type Redacted } from "effect"
import { sha256Hex } from "../internal/Crypto.js"
import { fn } from "../internal/Traced.js"
import { type AccountId, IdKinds, SVC } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import { RateLimiter } from "../shared/RateLimit.js"
import { Secrets } from "../shared/Secrets.js"
import { parseScopeParam } from "./AuthorizationRequest.js"
import {
  type DeviceCodeRecord,
  DeviceCodesRepo,
  DeviceFlowPolicy,
  formatUserCode,
  normalizeUserCode,
  userCodeFromBytes
} from "./DeviceCodes.js"
import { oauthError } from "./OAuthErrors.js"
import { MAX_OPAQUE_TOKEN_LENGTH } from "./OAuthGrants.js"
import { OAuthGrantsRepo, OAuthTokensRepo, type TokenFamilyRecord } from "./OAuthProviderPorts.js"
import { catalogOrder, type OAuthApp } from "./OAuthSchema.js"
import type { IssuedTokens, OAuthTokenMinting } from "./OAuthTokenMinting.js"
import { isOauthScope } from "./Scopes.js"

export const DEVICE_CODE_PREFIX = `${SVC}_odc_`

/** User-code lookups per account on the verification page (RFC 8628 §5.1: brute force). */
export const USER_CODE_ENTRY_POLICY = { name: "device-user-code", quota: 20, windowSeconds: 300 } as const

/** What the verification page shows for a user code. */
export type DeviceRequestLookup =
  | { readonly _tag: "Found"; readonly userCode: string; readonly app: OAuthApp; readonly scopes: ReadonlyArray<string> }
  /** Unknown, expired, already decided, or its app removed: the page cannot tell which. */
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "Limited"; readonly retryAfterSeconds: number }

/** A started device authorization (RFC 8628 §3.2, without the URIs, which the adapter knows). */
export interface DeviceAuthorization {
  readonly deviceCode: Redacted.Redacted<string>
  /** As shown: `BDFG-HJKL`. */
  readonly userCode: string
  readonly expiresIn: number
  readonly interval: number
}

export const makeOAuthDeviceGrant = (
  minting: OAuthTokenMinting,
  resourceUrl: string,
  findClient: (clientId: string) => Effect.Effect<Option.Option<OAuthApp>>
) =>
  Effect.gen(function*() {
    const repo = yield* DeviceCodesRepo
    const grantsRepo = yield* OAuthGrantsRepo
    const tokens = yield* OAuthTokensRepo
    const ids = yield* Ids
    const tx = yield* Transactor
    const secrets = yield* Secrets
    const limiter = yield* RateLimiter
    const { hashOf, liveAccount, mintTokens, opaque } = minting

    const newUserCode: Effect.Effect<string> = Effect.flatMap(secrets.randomBytes(16), (bytes) => {
      const code = userCodeFromBytes(bytes)
      return code === undefined ? newUserCode : Effect.succeed(code)
    })

    /** RFC 8628 §3.1–3.2 for an authenticated client; no `scope`: every scope the app may ask for. */
    const startDevice = fn("OAuthProvider.startDevice")(function*(args: {
      readonly client: OAuthApp
      readonly scope?: string | undefined
      readonly resource?: string | undefined
    }) {
      const { client } = args
      let scopes: ReadonlyArray<string> = client.scopes
      if (args.scope !== undefined) {
        const requested = parseScopeParam(args.scope)
        if (requested === undefined) return yield* oauthError("invalid_scope", "scope is not a list of scopes.")
        const unknown = requested.filter((s) => !isOauthScope(s))
        if (unknown.length > 0) return yield* oauthError("invalid_scope", `Unknown scopes: ${unknown.join(" ").slice(0, 200)}.`)
        const beyond = requested.filter((s) => !client.scopes.includes(s))
        if (beyond.length > 0) return yield* oauthError("invalid_scope", `The client may not request: ${beyond.join(" ").slice(0, 200)}.`)
        scopes = requested
      }
      if (args.resource !== undefined && args.resource !== resourceUrl) {
        return yield* oauthError("invalid_target", `The only resource available is ${resourceUrl}.`)
      }
      const policy = yield* DeviceFlowPolicy
      const now = yield* DateTime.now
      const deviceCode = yield* opaque(DEVICE_CODE_PREFIX)
      const deviceCodeHash = yield* hashOf(deviceCode)
      // A user code taken by a live code (about one in 2^34 per live code) is drawn again.
      for (let attempt = 0; attempt < 5; attempt++) {
        const userCode = yield* newUserCode
        const record: DeviceCodeRecord = {
          deviceCodeHash,
          userCodeHash: yield* sha256Hex(userCode),
          clientId: client.clientId,
          scopes: catalogOrder(scopes),
          resource: args.resource ?? null,
          status: "pending",
          accountId: null,
          grantId: null,
          authTime: null,
          intervalSeconds: policy.intervalSeconds,
          lastPolledAt: null,
          createdAt: now,
          expiresAt: DateTime.makeUnsafe(DateTime.toEpochMillis(now) + policy.lifetimeMs) as DateTime.Utc
        }
        if (yield* repo.insert(record)) {
          return {
            deviceCode,
            userCode: formatUserCode(userCode),
            expiresIn: Math.max(1, Math.ceil(policy.lifetimeMs / 1000)),
            interval: policy.intervalSeconds
          } satisfies DeviceAuthorization
        }
      }
      return yield* oauthError("temporarily_unavailable", "No user code could be allocated; retry.")
    })

    /** The pending request of a live user code, for the verification page (rate limited per account). */
    const findPending = (userCode: string) =>
      Effect.gen(function*() {
        const normalized = normalizeUserCode(userCode)
        if (normalized === undefined) return Option.none<{ readonly code: DeviceCodeRecord; readonly app: OAuthApp; readonly userCode: string }>()
        const found = yield* repo.findByUserCode(yield* sha256Hex(normalized))
        const now = yield* DateTime.now
        if (Option.isNone(found) || found.value.status !== "pending" || !DateTime.isGreaterThan(found.value.expiresAt, now)) {
          return Option.none()
        }
        const app = yield* findClient(found.value.clientId)
        if (Option.isNone(app)) return Option.none()
        return Option.some({ code: found.value, app: app.value, userCode: formatUserCode(normalized) })
      })

    const lookupDevice = fn("OAuthProvider.lookupDevice")(function*(args: { readonly userCode: string; readonly accountId: AccountId }) {
      const now = yield* DateTime.now
      const state = yield* limiter.hit(`${USER_CODE_ENTRY_POLICY.name}:${args.accountId}`, USER_CODE_ENTRY_POLICY, now)
      if (!state.allowed) return { _tag: "Limited", retryAfterSeconds: state.resetSeconds } satisfies DeviceRequestLookup as DeviceRequestLookup
      const found = yield* findPending(args.userCode)
      if (Option.isNone(found)) return { _tag: "Unknown" } as DeviceRequestLookup
      const { app, code, userCode } = found.value
      return { _tag: "Found", userCode, app, scopes: code.scopes } as DeviceRequestLookup
    })

    /**
     * The signed-in user's answer on the verification page. Approving records consent to the scopes
     * (the grant gains them) and the code's approval in one transaction. The app asking when the
     * answer was recorded; none when the code is unknown, expired or already decided (nothing changes).
     */
    const decideDevice = fn("OAuthProvider.decideDevice")(function*(args: {
      readonly userCode: string
      readonly accountId: AccountId
      readonly authTime: DateTime.Utc
      readonly approve: boolean
    }) {
      const found = yield* findPending(args.userCode)
      if (Option.isNone(found)) return Option.none<OAuthApp>()
      const { app, code } = found.value
      const now = yield* DateTime.now
      if (!args.approve) {
        const denied = yield* repo.decide({ userCodeHash: code.userCodeHash, decision: { _tag: "Deny", accountId: args.accountId }, now })
        return denied ? Option.some(app) : Option.none<OAuthApp>()
      }
      return yield* tx.withTransaction(Effect.gen(function*() {
        const grant = yield* grantsRepo.upsertLive({
          grantId: yield* ids.typeId(IdKinds.grant),
          accountId: args.accountId,
          clientId: code.clientId,
          scopes: code.scopes,
          now
        })
        const decided = yield* repo.decide({
          userCodeHash: code.userCodeHash,
          decision: { _tag: "Approve", accountId: args.accountId, grantId: grant.grantId, authTime: args.authTime },
          now
        })
        // Decided meanwhile (or expired): the consent is not recorded either.
        if (!decided) return yield* Effect.fail("NotDecided" as const)
        return Option.some(app)
      })).pipe(Effect.catchIf((e): e is "NotDecided" => e === "NotDecided", () => Effect.succeed(Option.none<OAuthApp>())))
    })

    /** `grant_type=urn:ietf:params:oauth:grant-type:device_code` for an authenticated client (RFC 8628 §3.4–3.5). */
    const pollDevice = fn("OAuthProvider.pollDevice")(function*(args: { readonly client: OAuthApp; readonly deviceCode: string }) {
      const { client } = args
      const invalid = () => oauthError("invalid_grant", "The device code is not valid.")
      if (args.deviceCode.length === 0 || args.deviceCode.length > MAX_OPAQUE_TOKEN_LENGTH) return yield* invalid()
      const deviceCodeHash = yield* sha256Hex(args.deviceCode)
      const now = yield* DateTime.now
      const polled = yield* repo.poll({ deviceCodeHash, now })
      if (Option.isNone(polled)) return yield* invalid()
      const { code, slowDown } = polled.value
      if (code.clientId !== client.clientId) return yield* oauthError("invalid_grant", "The device code was issued to another client.")
      if (code.status === "consumed") return yield* oauthError("invalid_grant", "The device code was already used.")
      if (!DateTime.isGreaterThan(code.expiresAt, now)) return yield* oauthError("expired_token", "The device code has expired; start again.")
      switch (code.status) {
        case "denied":
          return yield* oauthError("access_denied", "The user denied the request.")
        case "pending":
          return yield* slowDown
            ? oauthError("slow_down", `Polling too fast: wait at least ${code.intervalSeconds + 5} seconds between requests.`)
            : oauthError("authorization_pending", "The user has not answered yet.")
        case "approved":
          break
      }
      if (code.grantId === null || code.accountId === null || code.authTime === null) return yield* invalid()
      const grant = yield* grantsRepo.findById(code.grantId)
      if (Option.isNone(grant) || grant.value.revokedAt !== null) return yield* oauthError("invalid_grant", "The grant was withdrawn.")
      const account = yield* liveAccount(code.accountId)
      if (Option.isNone(account)) return yield* oauthError("invalid_grant", "The account no longer exists.")
      const family: TokenFamilyRecord = {
        familyId: yield* ids.uuidv7(),
        grantId: code.grantId,
        clientId: client.clientId,
        accountId: code.accountId,
        resource: code.resource,
        authTime: code.authTime,
        createdAt: now,
        revokedAt: null
      }
      const minted = yield* mintTokens({ client, account: account.value, family, scopes: code.scopes, refreshScopes: code.scopes, nonce: null })
      const issued = yield* tx.withTransaction(Effect.gen(function*() {
        // Of concurrent polls of an approved code exactly one stores (and answers) its tokens.
        if (!(yield* repo.consume({ deviceCodeHash, now }))) return false
        yield* tokens.insertFamily(family)
        for (const record of minted.records) yield* tokens.insertToken(record)
        return true
      }))
      if (!issued) return yield* oauthError("invalid_grant", "The device code was already used.")
      return { ...minted.response, account: account.value } satisfies IssuedTokens
    })

    return { startDevice, lookupDevice, decideDevice, pollDevice } as const
  })
