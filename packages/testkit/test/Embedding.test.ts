// The README's "Embed the core" example, verbatim: it must keep working.
import { expect, it } from "vitest"

it("README embedding example runs against the testkit layers", async () => {
  // --- README example start ---
  const { Accounts, AccountServiceKeys, Authenticator, SwitchboardCore } = await import("@switchboard/core")
  const { TestkitLive } = await import("@switchboard/testkit")
  const { Effect, Layer } = await import("effect")

  const program = Effect.gen(function*() {
    const account = yield* (yield* Accounts).create({ email: "ada@example.com" })
    const { secret } = yield* (yield* AccountServiceKeys).create({ accountId: account.accountId, name: "ci", expiresAt: null })
    return yield* (yield* Authenticator).authenticate(secret) // → Principal.Account
  })
  const principal = await Effect.runPromise(program.pipe(Effect.provide(SwitchboardCore.pipe(Layer.provideMerge(TestkitLive)))))
  // --- README example end ---
  expect(principal._tag).toBe("Account")
})
