/** Shared setup of the voice service tests: core on the testkit's memory store, a project, its lines. */
import { SwitchboardCore } from "@switchboard/core"
import { Accounts } from "@switchboard/core/accounts"
import { TestkitLive } from "@switchboard/testkit"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { organizationWithProject, T0 } from "../ProjectFixtures.js"

export { at, T0 } from "../ProjectFixtures.js"
export const iso = (ms: number) => new Date(ms).toISOString()
export const Env = SwitchboardCore.pipe(Layer.provideMerge(TestkitLive))

let n = 0
/** At T0: an account owning an organization with one project; the account acts through a service key. */
export const setupProject = Effect.gen(function*() {
  yield* TestClock.setTime(T0)
  n += 1
  const account = yield* (yield* Accounts).create({ email: `voice${n}.${Date.now()}@example.com` })
  return yield* organizationWithProject(account.accountId, { name: "Voice", slug: `voice-${n}-${Date.now().toString(36)}` })
})
export type ProjectCtx = Effect.Success<typeof setupProject>

/** The Left of an effect, or undefined when it succeeded. */
export const failureOf = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.result(self), (r) => (r._tag === "Failure" ? r.failure : undefined))
