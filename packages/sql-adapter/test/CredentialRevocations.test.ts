/**
 * Two core instances — two server processes, each with its own credential cache and connection
 * pool — on one store: a key revoked through one is refused by the other at once, although the
 * other had it cached (PostgreSQL: pg_notify/LISTEN; PGlite: one process, one in-process channel).
 */
import { SwitchboardCore } from "@switchboard/core"
import { Accounts } from "@switchboard/core/accounts"
import { AccountServiceKeys, Authenticator } from "@switchboard/core/credentials"
import { sharedTestStores, testBackends } from "@switchboard/sql-adapter"
import { TestPorts } from "@switchboard/testkit"
import { Duration, Effect, Result, Layer, Schedule } from "effect"
import { describe, expect, it } from "vitest"

const node = (store: Layer.Layer<any, any, never>) =>
  Layer.build(SwitchboardCore.pipe(Layer.provideMerge(TestPorts), Layer.provideMerge(store)))

for (const backend of testBackends()) {
  describe(`credential revocations across core instances (${backend})`, () => {
    it("a key revoked on one instance is refused by another that had it cached", async () => {
      const program = Effect.scoped(Effect.gen(function*() {
        const [storeA, storeB] = (yield* sharedTestStores(backend, 2)) as [Layer.Layer<any>, Layer.Layer<any>]
        const a = yield* node(storeA)
        const b = yield* node(storeB)
        const onA = <X, E>(eff: Effect.Effect<X, E, any>) => Effect.provide(eff, a) as Effect.Effect<X, E>
        const onB = <X, E>(eff: Effect.Effect<X, E, any>) => Effect.provide(eff, b) as Effect.Effect<X, E>
        const account = yield* onA(Effect.flatMap(Accounts, (s) => s.create({ email: "two@example.com" })))
        const created = yield* onA(Effect.flatMap(AccountServiceKeys, (s) =>
          s.create({ accountId: account.accountId, name: "shared", expiresAt: null })))
        const authB = onB(Effect.flatMap(Authenticator, (s) => Effect.result(s.authenticate(created.secret))))
        expect(Result.isSuccess(yield* authB)).toBe(true) // now cached on B
        // Let B's listener settle before the revocation is announced.
        yield* Effect.sleep(Duration.millis(200))
        yield* onA(Effect.flatMap(AccountServiceKeys, (s) => s.revoke(account.accountId, created.serviceKey.serviceKeyId)))
        const refused = yield* authB.pipe(
          Effect.filterOrFail(Result.isFailure, () => "still accepted" as const),
          Effect.retry(Schedule.spaced("20 millis")),
          Effect.timeout(Duration.seconds(5))
        )
        expect(Result.isFailure(refused) && refused.failure._tag === "InvalidCredential" && refused.failure.reason).toBe("revoked")
      }))
      await Effect.runPromise(program)
    })
  })
}
