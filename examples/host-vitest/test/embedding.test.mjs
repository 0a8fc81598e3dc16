// The host's own test of its integration: the core on the testkit's memory layers.
import { describe, expect, it } from "@effect/vitest"
import { Accounts, Credentials, SwitchboardCore } from "@switchboard/core"
import { TestkitLive } from "@switchboard/testkit"
import { Effect, Layer, Redacted } from "effect"

const Env = SwitchboardCore.pipe(Layer.provideMerge(TestkitLive))

describe("the core on the memory layers", () => {
  it.effect("a service key authenticates as its account", () =>
    Effect.gen(function*() {
      const account = yield* (yield* Accounts.Accounts).create({ email: "lin@example.com" })
      const { secret } = yield* (yield* Credentials.AccountServiceKeys).create({ accountId: account.accountId, name: "ci", expiresAt: null })
      const principal = yield* (yield* Credentials.Authenticator).authenticate(secret)
      expect(principal).toMatchObject({ _tag: "Account", accountId: account.accountId })
    }).pipe(Effect.provide(Env)))

  it.effect("a made-up key is refused", () =>
    Effect.gen(function*() {
      const result = yield* Effect.result((yield* Credentials.Authenticator).authenticate(Redacted.make("sb_ask_not_a_key")))
      expect(result._tag).toBe("Failure")
    }).pipe(Effect.provide(Env)))
})
