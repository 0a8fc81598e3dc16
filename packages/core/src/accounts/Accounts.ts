/** Accounts: create and get (the rest of the account lifecycle lives on top of these). */
import { Context, DateTime, Effect, Layer, Option, type Redacted } from "effect"
import { fn } from "../internal/Traced.js"
import { AccountId, IdKinds } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { RecordCache } from "../shared/RecordCache.js"
import { AccountNotFound } from "./Errors.js"
import { type AccountRecord, AccountsRepo, PasswordHasher } from "./Ports.js"
import type { Account } from "./Schema.js"

export interface CreateAccountInput {
  readonly email: string
  readonly firstName?: string | null
  readonly lastName?: string | null
  readonly password?: Redacted.Redacted<string>
}

export class Accounts extends Context.Service<Accounts>()("core/Accounts", {
  make: Effect.gen(function*() {
    const repo = yield* AccountsRepo
    const ids = yield* Ids
    const hasher = yield* PasswordHasher
    const records = yield* RecordCache

    const create = fn("Accounts.create")(function*(input: CreateAccountInput) {
      const now = yield* DateTime.now
      const accountId = AccountId.make(yield* ids.typeId(IdKinds.account))
      const passwordHash = input.password === undefined ? null : yield* hasher.hash(input.password)
      const record: AccountRecord = {
        accountId,
        email: input.email,
        firstName: input.firstName ?? null,
        lastName: input.lastName ?? null,
        phoneNumber: null,
        phoneVerifiedAt: null,
        pictureUrl: null,
        passwordHash,
        createdAt: now,
        updatedAt: now,
        deletedAt: null
      }
      yield* repo.insert(record)
      return record
    })

    const get = fn("Accounts.get")(function*(accountId: AccountId) {
      const found = yield* repo.findById(accountId)
      return yield* Option.match(found, {
        onNone: () => Effect.fail(new AccountNotFound({ accountId })),
        onSome: Effect.succeed
      })
    })

    /**
     * The account for a read answered as is (`GET /v1/account`): served from `RecordCache` for up to
     * the credential TTL. Never use it to read before a write: use `get`.
     */
    const read = (accountId: AccountId) =>
      // The statement is built on a cache miss only.
      Effect.flatMap(records.read("account", accountId, Effect.suspend(() => repo.findById(accountId))), (found) =>
        Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new AccountNotFound({ accountId })))

    return { create, get, read, isEmpty: repo.isEmpty } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}

/** The wire Account of a record; `defaultPictureUrl` stands in while no picture was committed. */
export const toAccount = (record: AccountRecord, defaultPictureUrl: string): Account => ({
  accountId: record.accountId,
  createdAt: record.createdAt,
  deletedAt: record.deletedAt,
  email: record.email,
  firstName: record.firstName,
  lastName: record.lastName,
  phoneNumber: record.phoneNumber,
  phoneVerifiedAt: record.phoneVerifiedAt,
  pictureUrl: record.pictureUrl ?? defaultPictureUrl,
  updatedAt: record.updatedAt
})
