/** Shared setup of the voice service tests: core on the testkit's memory store, a project, its lines. */
import { SwitchboardCore } from "@switchboard/core"
import { Accounts } from "@switchboard/core/accounts"
import { TestkitLive } from "@switchboard/testkit"
import { Effect, Layer, TestClock } from "effect"
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
export type ProjectCtx = Effect.Effect.Success<typeof setupProject>

/** The Left of an effect, or undefined when it succeeded. */
export const failureOf = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(self), (r) => (r._tag === "Left" ? r.left : undefined))
