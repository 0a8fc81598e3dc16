/**
 * The in-memory store: named tables (Maps) that every memory repository takes from one shared
 * state, and a `Transactor` that snapshots all of them — a failed transaction restores every table
 * in place, so the memory layers pass the same contract suite as the SQL ones. Transactions run one
 * at a time (re-entrant when nested), so a rollback never undoes another's commit.
 */
import { Transactor } from "@switchboard/core/shared"
import { Context, Effect, Exit, Layer, Option, Semaphore } from "effect"

export class MemoryState extends Context.Service<MemoryState, {
  /** The table of that name (created empty on first use); its contents roll back with transactions. */
  readonly table: <K, V>(name: string) => Map<K, V>
}>()("testkit/MemoryState") {}

/** The stores (by their lock) whose transaction the current fiber is inside, so nesting re-enters; absent outside any. */
class OpenTransactions extends Context.Service<OpenTransactions, ReadonlySet<Semaphore.Semaphore>>()("testkit/MemoryState/OpenTransactions") {}

export const MemoryStateLive: Layer.Layer<MemoryState | Transactor> = Layer.unwrap(Effect.gen(function*() {
  const tables = new Map<string, Map<unknown, unknown>>()
  const lock = yield* Semaphore.make(1)

  const snapshot = () => [...tables].map(([name, t]) => [name, new Map(t)] as const)
  const restore = (saved: ReturnType<typeof snapshot>) => {
    const byName = new Map(saved)
    for (const [name, t] of tables) {
      t.clear()
      for (const [k, v] of byName.get(name) ?? []) t.set(k, v)
    }
  }

  const transactor = Transactor.of({
    withTransaction: (self) =>
      Effect.flatMap(Effect.serviceOption(OpenTransactions), (inside) => {
        const open = Option.getOrElse(inside, () => new Set<Semaphore.Semaphore>())
        const run = Effect.suspend(() => {
          const saved = snapshot()
          return Effect.onExit(Effect.provideService(self, OpenTransactions, new Set([...open, lock])), (exit) =>
            Effect.sync(() => {
              if (Exit.isFailure(exit)) restore(saved)
            }))
        })
        return open.has(lock) ? run : lock.withPermits(1)(run)
      })
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
