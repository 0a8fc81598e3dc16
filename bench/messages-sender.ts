/**
 * The load child of `messages.ts` (run with `node --import tsx`): `connections` senders POST
 * batches of fresh message facts for `seconds`, and every fact must come back `applied`. Its own
 * process, so the server's `process.cpuUsage()` is the server's alone. Input: one JSON argument;
 * output: one JSON line.
 */
import { type BatchSenderOptions, runSender, sendBatches } from "./batch-sender.js"
import { BATCH, factBatch } from "./messages-facts.js"

const options = JSON.parse(process.argv[2] ?? "{}") as BatchSenderOptions

runSender(async () => {
  const r = await sendBatches(options, BATCH, () => JSON.stringify({ facts: factBatch() }), "fact")
  return { facts: r.items, seconds: r.seconds, factsPerSecond: r.perSecond, p50: r.p50 }
})
