// The README's "Embed the core" example: it is examples/core-node-esm/embed.mjs's marked region
// (npm run examples runs that file from the packed packages); here it runs on the sources.
import { readFileSync } from "node:fs"
import { expect, it } from "vitest"

const root = new URL("../../../", import.meta.url)
const readmeBlock = () =>
  readFileSync(new URL("README.md", root), "utf8").split(/^## /m).find((s) => s.startsWith("Embed the core"))?.match(/```js\n([\s\S]*?)```/)?.[1]
const exampleRegion = () =>
  readFileSync(new URL("examples/core-node-esm/embed.mjs", root), "utf8")
    .match(/\/\/ --- README example start ---\n([\s\S]*?)\/\/ --- README example end ---\n/)?.[1]

it("the README block is the example's marked region", () => {
  expect(exampleRegion()).toBeDefined()
  expect(readmeBlock()).toBe(exampleRegion())
})

it("README embedding example runs against the testkit layers", async () => {
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
