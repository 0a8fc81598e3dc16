/**
 * Device authorization (RFC 8628) — its store port, policy and user codes. A command-line tool asks
 * for a device code and a short user code; the user enters the user code on the verification page
 * while signed in, and approves or denies with the consent screen; the tool polls the token endpoint
 * meanwhile. Both codes are stored as their SHA-256 only; the user code is normalized first (upper
 * case, separators dropped), so `bdfg-hjkl`, `BDFGHJKL` and `BDFG HJKL` are one code.
 */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { AccountId } from "../shared/Identifiers.js"
import { Setting } from "../internal/Settings.js"

/** How long device codes live and how often a tool may poll (RFC 8628 §3.2 `expires_in`, `interval`). */
export interface DeviceFlowPolicyShape {
  /** Lifetime of a device code, in milliseconds. */
  readonly lifetimeMs: number
  /** The minimum polling interval first given out, in seconds (RFC 8628 default: 5). */
  readonly intervalSeconds: number
}

export class DeviceFlowPolicy extends Setting<DeviceFlowPolicy>()("core/DeviceFlowPolicy", {
  defaultValue: (): DeviceFlowPolicyShape => ({ lifetimeMs: 10 * 60_000, intervalSeconds: 5 })
}) {}

/** What `slow_down` adds to the interval (RFC 8628 §3.5). */
export const SLOW_DOWN_SECONDS = 5

/** RFC 8628 §6.1: consonants only (no vowels: no words; no look-alikes such as 0/O, 1/I). */
export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"
/** 20^8 ≈ 2^34.6 codes: with attempts rate limited, guessing a live one is hopeless. */
export const USER_CODE_LENGTH = 8

/** A user code as typed to its canonical form, or undefined when it cannot be one. */
export const normalizeUserCode = (typed: string): string | undefined => {
  if (typed.length > 32) return undefined
  const code = typed.toUpperCase().replace(/[\s-]/g, "")
  if (code.length !== USER_CODE_LENGTH) return undefined
  for (const c of code) if (!USER_CODE_ALPHABET.includes(c)) return undefined
  return code
}

/** The canonical form as shown: `BDFG-HJKL`. */
export const formatUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`

/** A user code from random bytes (each byte below 240 picks a letter, without bias). */
export const userCodeFromBytes = (bytes: Uint8Array): string | undefined => {
  let code = ""
  for (const b of bytes) {
    if (b >= 240) continue
    code += USER_CODE_ALPHABET[b % USER_CODE_ALPHABET.length]
    if (code.length === USER_CODE_LENGTH) return code
  }
  return undefined
}

export type DeviceCodeStatus = "pending" | "approved" | "denied" | "consumed"

export interface DeviceCodeRecord {
  readonly deviceCodeHash: string
  readonly userCodeHash: string
  readonly clientId: string
  /** The scopes asked for, in catalog order. */
  readonly scopes: ReadonlyArray<string>
  /** RFC 8707: the API's URL for JWT access tokens, null for opaque ones. */
  readonly resource: string | null
  readonly status: DeviceCodeStatus
  /** Set by the approval (and a denial): who decided. */
  readonly accountId: AccountId | null
  /** Set by the approval: the grant the tokens are issued under. */
  readonly grantId: string | null
  /** Set by the approval: when the approving user signed in. */
  readonly authTime: DateTime.Utc | null
  /** The current minimum polling interval (grows by 5 s on each `slow_down`). */
  readonly intervalSeconds: number
  readonly lastPolledAt: DateTime.Utc | null
  readonly createdAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc
}

/** A decision on a pending code. */
export type DeviceDecision =
  | { readonly _tag: "Approve"; readonly accountId: AccountId; readonly grantId: string; readonly authTime: DateTime.Utc }
  | { readonly _tag: "Deny"; readonly accountId: AccountId }

/** What one poll found: the code as it was before the poll, and whether it was polled too soon. */
export interface DevicePoll {
  readonly code: DeviceCodeRecord
  /** Polled sooner than its interval while pending: the stored interval grew by `SLOW_DOWN_SECONDS`. */
  readonly slowDown: boolean
}

export class DeviceCodesRepo extends Context.Service<DeviceCodesRepo, {
  /** Stores a new code; false (nothing stored) when its user code is already taken by a live code. */
  readonly insert: (code: DeviceCodeRecord) => Effect.Effect<boolean>
  readonly findByUserCode: (userCodeHash: string) => Effect.Effect<Option.Option<DeviceCodeRecord>>
  /**
   * Decides a code, atomically: only a `pending` code that has not expired at `now` changes
   * (to `approved` with the account, grant and sign-in time, or `denied`). Of concurrent decisions
   * exactly one succeeds; the others (and decisions on expired or decided codes) change nothing.
   */
  readonly decide: (args: {
    readonly userCodeHash: string
    readonly decision: DeviceDecision
    readonly now: DateTime.Utc
  }) => Effect.Effect<boolean>
  /**
   * Records a poll at `now`, atomically: when the code is pending and was polled less than its
   * interval ago, its interval grows by `SLOW_DOWN_SECONDS` (`slowDown`). None for an unknown code.
   */
  readonly poll: (args: { readonly deviceCodeHash: string; readonly now: DateTime.Utc }) => Effect.Effect<Option.Option<DevicePoll>>
  /** Marks an approved code consumed, atomically: of concurrent calls exactly one is true. */
  readonly consume: (args: { readonly deviceCodeHash: string; readonly now: DateTime.Utc }) => Effect.Effect<boolean>
  /** Deletes codes that expired before `before`; how many went. */
  readonly sweep: (args: { readonly before: DateTime.Utc }) => Effect.Effect<number>
}>()("core/DeviceCodesRepo") {}
