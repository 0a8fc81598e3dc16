/**
 * bench:provisioning (docs/provisioning.md) — operations completed per second through the durable
 * operation worker with instant simulated providers, against a baseline measured in the same run:
 * the same number of plain row updates (one `update platform_operations … where operation_id = $1`
 * each, one statement per row, as the worker's bookkeeping is one small transaction per step).
 *
 *   npx tsx bench/provisioning.ts                      # PGlite, 200 operations
 *   BENCH_BACKEND=postgres DATABASE_URL=… npx tsx bench/provisioning.ts
 *   BENCH_OPERATIONS=800 npx tsx bench/provisioning.ts # at most 1000 (the simulated inventory)
 *
 * Each operation is a number purchase: claimed (pending → running, its event), the provider asked,
 * the number stored as a resource and the operation succeeded (with two events) — three
 * transactions and the claim. Reports wall time, ops/s and CPU µs per operation for both.
 */
import { SqlClient } from "effect/sql"
import { newOperation, OperationsRepo, ProvisioningWorker } from "@switchboard/core/platforms"
import { formatTypeId, IdKinds, Transactor, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect } from "effect"
import { platformTestAdapters } from "../packages/http-adapter/test/support/PlatformsHttp.js"
import { startTestServer } from "../packages/http-adapter/test/support/TestServer.js"
import { backendFromEnv, createProject, fmt, positiveInt, runBench } from "./lib.js"

const main = async () => {
  const backend = backendFromEnv("provisioning")
  const count = Math.min(1000, positiveInt("provisioning", "BENCH_OPERATIONS", 200))
  const server = await startTestServer(backend, {}, platformTestAdapters({ batch: 32 }))
  try {
    const { projectId } = await createProject(server, "prov")
    const insertPending = (label: string) =>
      server.run(Effect.gen(function*() {
        const repo = yield* OperationsRepo
        const tx = yield* Transactor
        const now = yield* DateTime.now
        const ids: Array<string> = []
        yield* tx.withTransaction(Effect.forEach(Array.from({ length: count }), () => {
          const operationId = formatTypeId(IdKinds.operation, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10))))
          ids.push(operationId)
          return repo.insert({
            ...newOperation({ operationId, projectId, type: "resource.provision", resourceType: "sms_number", params: { countryCode: "US", label }, now }),
            subject: null
          })
        }, { discard: true }))
        return ids
      }))
    const measure = async (run: () => Promise<void>) => {
      const cpu0 = process.cpuUsage()
      const t0 = performance.now()
      await run()
      const wall = performance.now() - t0
      const cpu = process.cpuUsage(cpu0)
      return { wallMs: wall, perSecond: count / (wall / 1000), cpuMicrosPerOp: (cpu.user + cpu.system) / count }
    }

    // Baseline: plain row updates of as many operations, one statement each.
    const baselineIds = await insertPending("baseline")
    const baseline = await measure(() =>
      server.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        for (const id of baselineIds) yield* sql`update platform_operations set updated_at = now(), state = 'cancelled' where operation_id = ${id}`
      }))
    )
    // The worker: every pending operation to succeeded.
    await insertPending("worker")
    const worker = await measure(() =>
      server.run(Effect.gen(function*() {
        const w = yield* ProvisioningWorker
        while ((yield* w.runDue()) > 0) { /* until nothing is due */ }
      }))
    )
    const done = await server.run(Effect.map(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`select count(*)::int as n from platform_operations where state = 'succeeded'`),
      (rows) => rows[0]!.n
    ))
    if (done !== count) throw new Error(`expected ${count} succeeded operations, found ${done}`)
    const { loadavg } = await import("node:os")
    console.log(`bench:provisioning on ${backend}, ${count} operations (load average ${loadavg().map((l) => l.toFixed(2)).join(" ")})`)
    console.log(`  plain row updates : ${fmt(baseline.perSecond)} rows/s, ${fmt(baseline.cpuMicrosPerOp)} CPU µs/row`)
    console.log(`  operation worker  : ${fmt(worker.perSecond)} ops/s, ${fmt(worker.cpuMicrosPerOp)} CPU µs/op`)
    console.log(`  worker / baseline : ${fmt(worker.perSecond / baseline.perSecond, 3)} throughput, ${fmt(worker.cpuMicrosPerOp / baseline.cpuMicrosPerOp, 1)}× CPU per unit`)
    console.log(JSON.stringify({ bench: "provisioning", backend, count, baseline, worker, loadavg: loadavg() }))
    return 0
  } finally {
    await server.close()
  }
}

runBench("provisioning", main)
