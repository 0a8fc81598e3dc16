/**
 * Profiles one authenticated read under load: `node --cpu-prof` on this script writes a
 * .cpuprofile of the server process (run: `npx tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-read.ts`).
 */
import autocannon from "autocannon"
import { startTestServer } from "../packages/http-adapter/test/TestServer.js"

const backend = process.env.BENCH_BACKEND === "postgres" ? "postgres" : "pglite"
const s = await startTestServer(backend)
const path = process.env.BENCH_PATH ?? "/v1/account"
const result = await autocannon({
  url: `${s.baseUrl}${path}`,
  connections: 10,
  duration: Number(process.env.BENCH_SECONDS ?? 5),
  headers: { authorization: `Bearer ${s.serviceKey}` }
})
console.log(`${path}: ${Math.round(result.requests.average)} req/s, non-2xx ${result.non2xx}`)
await s.close()
process.exit(0)
