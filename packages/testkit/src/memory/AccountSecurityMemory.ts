/**
 * The AccountSecurity feature in memory: its repositories over `MemoryState` (profile writes go to
 * the same `"accounts"` table as `AccountsMemory`), and an SMS sender that keeps an inbox tests read.
 */
import {
  type AccountRecord,
  AccountProfileRepo,
  type PhoneVerificationRecord,
  PhoneVerificationsRepo,
  SmsDeliveryFailed,
  SmsSender,
  type TotpFactorRecord,
  TotpFactorsRepo
} from "@switchboard/core/accounts"
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const accounts = state.table<string, AccountRecord>("accounts")
  const phones = state.table<string, PhoneVerificationRecord>("phone_verifications")
  const factors = state.table<string, TotpFactorRecord>("totp_factors")

  /** Applies `change` to a live account and returns the new record. */
  const updateLive = (accountId: string, change: (a: AccountRecord) => AccountRecord) =>
    Effect.sync(() => {
      const current = accounts.get(accountId)
      if (current === undefined || current.deletedAt !== null) return Option.none<AccountRecord>()
      const next = change(current)
      accounts.set(accountId, next)
      return Option.some(next)
    })

  const profiles = AccountProfileRepo.of({
    // Memory transactions run one at a time, so there is nothing to lock.
    lock: (accountId) => Effect.sync(() => Option.fromNullishOr(accounts.get(accountId))),
    updateNames: ({ accountId, now, ...names }) =>
      updateLive(accountId, (a) => ({
        ...a,
        ...(names.firstName === undefined ? {} : { firstName: names.firstName }),
        ...(names.lastName === undefined ? {} : { lastName: names.lastName }),
        updatedAt: now
      })),
    bindPhone: ({ accountId, now, phoneNumber }) =>
      updateLive(accountId, (a) => ({ ...a, phoneNumber, phoneVerifiedAt: now, updatedAt: now })),
    markDeleted: ({ accountId, now }) =>
      Effect.sync(() => {
        const current = accounts.get(accountId)
        if (current === undefined) return Option.none()
        if (current.deletedAt !== null) return Option.some(current)
        const tombstone = { ...current, deletedAt: now, updatedAt: now }
        accounts.set(accountId, tombstone)
        return Option.some(tombstone)
      })
  })

  const verifications = PhoneVerificationsRepo.of({
    find: (accountId) => Effect.sync(() => Option.fromNullishOr(phones.get(accountId))),
    put: (record) => Effect.sync(() => void phones.set(record.accountId, record)),
    recordFailedAttempt: (accountId) =>
      Effect.sync(() => {
        const current = phones.get(accountId)
        if (current === undefined) return Option.none()
        phones.set(accountId, { ...current, attempts: current.attempts + 1 })
        return Option.some(current.attempts + 1)
      }),
    remove: (accountId) => Effect.sync(() => void phones.delete(accountId))
  })

  const totp = TotpFactorsRepo.of({
    insert: (factor) => Effect.sync(() => void factors.set(factor.factorId, factor)),
    find: (factorId) => Effect.sync(() => Option.fromNullishOr(factors.get(factorId))),
    listVerified: (accountId) =>
      Effect.sync(() =>
        [...factors.values()]
          .filter((f) => f.accountId === accountId && f.verifiedAt !== null && f.deletedAt === null)
          .sort((a, b) => DateTime.toEpochMillis(a.createdAt) - DateTime.toEpochMillis(b.createdAt) || (a.factorId < b.factorId ? -1 : 1))
      ),
    useStep: ({ factorId, now, step }) =>
      Effect.sync(() => {
        const f = factors.get(factorId)
        if (f === undefined || f.deletedAt !== null || (f.lastUsedStep !== null && f.lastUsedStep >= step)) return false
        factors.set(factorId, { ...f, lastUsedStep: step, verifiedAt: f.verifiedAt ?? now })
        return true
      }),
    softDelete: ({ accountId, factorId, now }) =>
      Effect.sync(() => {
        const f = factors.get(factorId)
        if (f === undefined || f.accountId !== accountId) return Option.none()
        const deleted = { ...f, secretSealed: null, deletedAt: f.deletedAt ?? now }
        factors.set(factorId, deleted)
        return Option.some(deleted)
      }),
    removePending: (accountId) =>
      Effect.sync(() => {
        for (const [id, f] of factors) {
          if (f.accountId === accountId && f.verifiedAt === null && f.deletedAt === null) factors.delete(id)
        }
      }),
    softDeleteAll: ({ accountId, now }) =>
      Effect.sync(() => {
        for (const [id, f] of factors) {
          if (f.accountId === accountId) factors.set(id, { ...f, secretSealed: null, deletedAt: f.deletedAt ?? now })
        }
      })
  })

  return Layer.mergeAll(
    Layer.succeed(AccountProfileRepo, profiles),
    Layer.succeed(PhoneVerificationsRepo, verifications),
    Layer.succeed(TotpFactorsRepo, totp)
  )
})

/** One text message handed to the SMS sender. */
export interface SentSms {
  readonly phoneNumber: string
  readonly text: string
}

/** What an in-memory SMS sender was asked to send, newest last. */
export interface SmsInboxShape {
  readonly messages: ReadonlyArray<SentSms>
  /** The six-digit code of the newest message to `phoneNumber` (normalised form), if any. */
  readonly lastCode: (phoneNumber: string) => string | undefined
  /** Makes the next `send` fail (an unreachable provider). */
  readonly failNext: (message?: string) => void
}

/** The inbox of the testkit's SMS sender, for tests that run against `TestkitLive`. */
export class SmsInbox extends Context.Service<SmsInbox, SmsInboxShape>()("testkit/SmsInbox") {}

/**
 * A fresh in-memory SMS sender and its inbox. Pass `layer` where an `SmsSender` is needed (e.g. as
 * the `adapters` of an HTTP test server) and read the codes from the returned inbox.
 */
export const makeSmsInbox = (): SmsInboxShape & { readonly layer: Layer.Layer<SmsSender | SmsInbox> } => {
  const messages: Array<SentSms> = []
  let failure: string | undefined
  const inbox: SmsInboxShape = {
    messages,
    lastCode: (phoneNumber) => {
      for (let i = messages.length - 1; i >= 0; i--) {
        const m = messages[i]!
        if (m.phoneNumber === phoneNumber) return /\b(\d{6})\b/.exec(m.text)?.[1]
      }
      return undefined
    },
    failNext: (message = "the SMS provider is unreachable") => {
      failure = message
    }
  }
  const sender = SmsSender.of({
    send: (phoneNumber, text) =>
      Effect.suspend(() => {
        if (failure !== undefined) {
          const message = failure
          failure = undefined
          return Effect.fail(new SmsDeliveryFailed({ message }))
        }
        messages.push({ phoneNumber, text })
        return Effect.void
      })
  })
  return { ...inbox, layer: Layer.mergeAll(Layer.succeed(SmsSender, sender), Layer.succeed(SmsInbox, inbox)) }
}

/** An in-memory SMS sender with a fresh inbox each time the layer is built (read it through `SmsInbox`). */
export const SmsSenderMemory: Layer.Layer<SmsSender | SmsInbox> = Layer.suspend(() => makeSmsInbox().layer)

/** Account security's repositories over the shared memory state, and an SMS sender with a fresh inbox. */
export const AccountSecurityMemory: Layer.Layer<
  AccountProfileRepo | PhoneVerificationsRepo | TotpFactorsRepo | SmsSender | SmsInbox,
  never,
  MemoryState
> = Layer.merge(Layer.unwrap(make), SmsSenderMemory)
