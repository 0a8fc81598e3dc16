// The core embedded in a plain Node ESM host, on the testkit's memory layers: create an account,
// give it a service key, authenticate with the key's secret. The region between the markers is
// the block of docs/embedding.md's "The core on the memory layers", verbatim (scripts/examples.mjs
// and packages/testkit/test/Embedding.test.ts check they are equal).
import assert from "node:assert/strict"
// --- embedding example start ---
import { Accounts, Credentials, SwitchboardCore } from "@switchboard/core"
import { TestkitLive } from "@switchboard/testkit"
import { Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const account = yield* (yield* Accounts.Accounts).create({ email: "ada@example.com" })
  const { secret } = yield* (yield* Credentials.AccountServiceKeys).create({ accountId: account.accountId, name: "ci", expiresAt: null })
  const principal = yield* (yield* Credentials.Authenticator).authenticate(secret)
  return { account, principal }
})
const { account, principal } = await Effect.runPromise(program.pipe(Effect.provide(SwitchboardCore.pipe(Layer.provideMerge(TestkitLive)))))
// --- embedding example end ---

assert.equal(principal._tag, "Account")
assert.equal(principal.accountId, account.accountId)
assert.equal(account.email, "ada@example.com")
console.log(`core-node-esm: authenticated ${principal.accountId} (${principal._tag}) with its service key`)
