// The README's "Embed the core" example, verbatim: it must keep working.
import { expect, it } from "vitest"

it("README embedding example runs against the testkit layers", async () => {
  // --- README example start ---
  const { Accounts, Credentials, SwitchboardCore } = await import("@switchboard/core")
  const { TestkitLive } = await import("@switchboard/testkit")
  const { Effect, Layer } = await import("effect")

  const program = Effect.gen(function*() {
    const account = yield* (yield* Accounts.Accounts).create({ email: "ada@example.com" })
    const { secret } = yield* (yield* Credentials.AccountServiceKeys).create({ accountId: account.accountId, name: "ci", expiresAt: null })
    return yield* (yield* Credentials.Authenticator).authenticate(secret) // → Principal.Account
  })
  const principal = await Effect.runPromise(program.pipe(Effect.provide(SwitchboardCore.pipe(Layer.provideMerge(TestkitLive)))))
  // --- README example end ---
  expect(principal._tag).toBe("Account")
})
