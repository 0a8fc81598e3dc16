/**
 * The in-memory store: named tables (Maps) that every memory repository takes from one shared
 * state, and a `Transactor` that snapshots all of them — a failed transaction restores every table
 * in place, so the memory layers pass the same contract suite as the SQL ones. Transactions run one
 * at a time (re-entrant when nested), so a rollback never undoes another's commit.
 */
import { Transactor } from "@switchboard/core/shared"
import { Context, Effect, Exit, FiberRef, Layer } from "effect"

export class MemoryState extends Context.Tag("testkit/MemoryState")<MemoryState, {
  /** The table of that name (created empty on first use); its contents roll back with transactions. */
  readonly table: <K, V>(name: string) => Map<K, V>
}>() {}

export const MemoryStateLive: Layer.Layer<MemoryState | Transactor> = Layer.unwrapEffect(Effect.gen(function*() {
  const tables = new Map<string, Map<unknown, unknown>>()
  const lock = yield* Effect.makeSemaphore(1)
  const inTransaction = FiberRef.unsafeMake(false)

  const snapshot = () => [...tables].map(([name, t]) => [name, new Map(t)] as const)
  const restore = (saved: ReturnType<typeof snapshot>) => {
    const byName = new Map(saved)
    for (const [name, t] of tables) {
      t.clear()
      for (const [k, v] of byName.get(name) ?? []) t.set(k, v)
    }
  }

  const transactor = Transactor.of({
    withTransaction: (self) => {
      const run = Effect.suspend(() => {
        const saved = snapshot()
        return Effect.onExit(Effect.locally(self, inTransaction, true), (exit) =>
          Effect.sync(() => {
            if (Exit.isFailure(exit)) restore(saved)
          }))
      })
      return Effect.flatMap(FiberRef.get(inTransaction), (nested) => (nested ? run : lock.withPermits(1)(run)))
    }
  })

  const state = MemoryState.of({
    table: <K, V>(name: string) => {
      let t = tables.get(name)
      if (t === undefined) {
        t = new Map()
        tables.set(name, t)
      }
      return t as Map<K, V>
    }
  })
  return Layer.mergeAll(Layer.succeed(Transactor, transactor), Layer.succeed(MemoryState, state))
}))
