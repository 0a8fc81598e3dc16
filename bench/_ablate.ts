import { startTestServer } from "../packages/http-adapter/test/TestServer.js"
import { loadInChild } from "./load.js"
const s = await startTestServer("pglite")
const target = { url: `${s.baseUrl}${process.env.P ?? "/v1/account"}`, headers: { authorization: `Bearer ${s.serviceKey}` }, connections: 10 }
await loadInChild({ ...target, seconds: 2 })
for (let i = 0; i < 3; i++) {
  const cpu = process.cpuUsage(); const r = await loadInChild({ ...target, seconds: 3 }); const u = process.cpuUsage(cpu)
  console.log(`${Math.round(r.rps)} req/s ${Math.round((u.user + u.system) / r.requests)} µs CPU/req`)
}
await s.close(); process.exit(0)
