/**
 * First-start bootstrap of the standalone server and `switchboard admin create-account`: an
 * account with a password and a never-expiring service key, returned once for printing.
 */
import { Effect, Option, Redacted } from "effect"
import { encodeBase32 } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { Secrets } from "../shared/Secrets.js"
import { Accounts } from "./Accounts.js"
import { AccountServiceKeys } from "../credentials/AccountServiceKeys.js"
import { fn } from "../internal/Traced.js"

export interface ProvisionedAccount {
  readonly accountId: string
  readonly email: string
  readonly password: Redacted.Redacted<string>
  readonly serviceKey: Redacted.Redacted<string>
}

/** A generated password: 20 bytes of CSPRNG as 32 base32 characters. */
export const generatePassword = Effect.flatMap(Secrets, (s) => s.randomBytes(20)).pipe(
  Effect.map((b) => Redacted.make(encodeBase32(b)))
)

/** Creates an account with a password (generated when absent) and a service key named `name`. */
export const provisionAccount = fn("Bootstrap.provisionAccount")(function*(input: {
  readonly email: string
  readonly password: Option.Option<Redacted.Redacted<string>>
  readonly keyName: string
}) {
  const accounts = yield* Accounts
  const keys = yield* AccountServiceKeys
  const tx = yield* Transactor
  const password = Option.isSome(input.password) ? input.password.value : yield* generatePassword
  // One transaction: never an account without its key (bootstrap would not run again).
  const { account, created } = yield* tx.withTransaction(Effect.gen(function*() {
    const account = yield* accounts.create({ email: input.email, password })
    const created = yield* keys.create({ accountId: account.accountId, name: input.keyName, expiresAt: null })
    return { account, created }
  }))
  return {
    accountId: account.accountId,
    email: account.email,
    password,
    serviceKey: created.secret
  } satisfies ProvisionedAccount
})

/**
 * On an empty store: provision the bootstrap account and return it (once). Otherwise none — also
 * when another process won the race to bootstrap the same empty store.
 */
export const bootstrapIfEmpty = fn("Bootstrap.ifEmpty")(function*(input: {
  readonly email: string
  readonly password: Option.Option<Redacted.Redacted<string>>
}) {
  const accounts = yield* Accounts
  if (!(yield* accounts.isEmpty)) return Option.none<ProvisionedAccount>()
  return yield* provisionAccount({ ...input, keyName: "bootstrap" }).pipe(
    Effect.map(Option.some),
    Effect.catchTag("EmailTaken", () => Effect.succeed(Option.none<ProvisionedAccount>()))
  )
})
