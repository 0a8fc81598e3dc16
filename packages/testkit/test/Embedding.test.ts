// docs/embedding.md's "The core on the memory layers" example: it is examples/core-node-esm/embed.mjs's marked region
// (npm run examples runs that file from the packed packages); here it runs on the sources.
import { readFileSync } from "node:fs"
import { expect, it } from "vitest"

const root = new URL("../../../", import.meta.url)
const docBlock = () =>
  readFileSync(new URL("docs/embedding.md", root), "utf8").split(/^## /m).find((s) => s.startsWith("The core on the memory layers"))
    ?.match(/```js\n([\s\S]*?)```/)?.[1]
const exampleRegion = () =>
  readFileSync(new URL("examples/core-node-esm/embed.mjs", root), "utf8")
    .match(/\/\/ --- embedding example start ---\n([\s\S]*?)\/\/ --- embedding example end ---\n/)?.[1]

it("the block of docs/embedding.md is the example's marked region", () => {
  expect(exampleRegion()).toBeDefined()
  expect(docBlock()).toBe(exampleRegion())
})

it("the embedding example runs against the testkit layers", async () => {
  const { Accounts, Credentials, SwitchboardCore } = await import("@switchboard/core")
  const { TestkitLive } = await import("@switchboard/testkit")
  const { Effect, Layer } = await import("effect")

  const program = Effect.gen(function*() {
    const account = yield* (yield* Accounts.Accounts).create({ email: "ada@example.com" })
    const { secret } = yield* (yield* Credentials.AccountServiceKeys).create({ accountId: account.accountId, name: "ci", expiresAt: null })
    const principal = yield* (yield* Credentials.Authenticator).authenticate(secret)
    return { account, principal }
  })
  const { account, principal } = await Effect.runPromise(program.pipe(Effect.provide(SwitchboardCore.pipe(Layer.provideMerge(TestkitLive)))))
  expect(principal._tag).toBe("Account")
  expect(principal._tag === "Account" && principal.accountId).toBe(account.accountId)
})
