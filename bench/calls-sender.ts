/**
 * The load child of `calls.ts` and `profile-calls.ts` (run with `node --import tsx`): `connections`
 * senders POST batches of fresh whole calls for `seconds` and every signal must come back
 * `applied`. It runs in its own process, so the server's process pays none of the generator's CPU
 * (`process.cpuUsage()` there is the server's alone). Input: one JSON argument; output: one JSON line.
 */
import { type BatchSenderOptions, runSender, sendBatches } from "./batch-sender.js"
import { BATCH, wholeBatch } from "./calls-signals.js"

const options = JSON.parse(process.argv[2] ?? "{}") as BatchSenderOptions & { readonly projectId: string; readonly profileId: string }

runSender(async () => {
  const r = await sendBatches(options, BATCH, () => JSON.stringify({ signals: wholeBatch(options.projectId, options.profileId) }), "signal")
  return { signals: r.items, seconds: r.seconds, signalsPerSecond: r.perSecond, batches: r.batches, p50: r.p50, p99: r.p99 }
})
