/**
 * Billing preview benchmark: previews per second of the pure `previewPlanChange`
 * (docs/api-notes/billing.md), and of `POST …/billing/projects/{projectId}/preview` through the
 * real server — each with a baseline measured in the same run:
 *
 * - pure: the preview of E1 (an upgrade: proration, credit, next charge), of E3 (a downgrade) and
 *   of an upgrade with held charges and additions, against the request validation alone (decoding
 *   `{category, planCode, additions}` — the least any preview does);
 * - HTTP: the preview against `GET /v1/account` on the same server (the cost of the HTTP stack,
 *   authentication and one store read).
 *
 *   npx tsx bench/billing.ts            # or: npm run bench:billing
 *   BENCH_SECONDS=5 npx tsx bench/billing.ts
 *
 * Environment: BENCH_SECONDS (each measured run, default 5), BENCH_CONNECTIONS (HTTP, default 10),
 * BENCH_BACKEND (pglite, default, or postgres with DATABASE_URL). Any failed preview or non-2xx
 * response aborts with exit code 1. No thresholds: the output is a report, not a test.
 */
import { Result, Schema } from "effect"
import { previewPlanChange, type PlanChangePreviewInput } from "../packages/core/src/billing/PlanChange.js"
import { BillingPlanCatalog, PreviewPlanChangeRequest } from "../packages/core/src/billing/Schema.js"
import { billingTestCatalogJson } from "../packages/testkit/src/memory/BillingMemory.js"
import { startTestServer, type TestServer } from "../packages/http-adapter/test/support/TestServer.js"
import { autocannonRun, backendFromEnv, BenchFailure, createProject, fmt, mean, positiveInt, runBench } from "./lib.js"

const SECONDS = positiveInt("billing", "BENCH_SECONDS", 5)
const CONNECTIONS = positiveInt("billing", "BENCH_CONNECTIONS", 10)
const BACKEND = backendFromEnv("billing")

// ---------------------------------------------------------------------------------------------
// Pure

const catalog = Schema.decodeUnknownSync(BillingPlanCatalog)(billingTestCatalogJson)
const plan = (code: string) => Object.values(catalog).flat().find((p) => p.planCode === code)!

const cases: ReadonlyArray<{ readonly name: string; readonly input: PlanChangePreviewInput }> = [
  {
    name: "E1 upgrade (starter → pro)",
    input: {
      catalog, now: "2025-03-12T15:30:00Z", request: { category: "messaging", planCode: "pro_monthly" },
      current: { plan: plan("starter_monthly"), cancellationScheduled: false, paymentMethod: "off_session" }
    }
  },
  {
    name: "E3 downgrade (pro → starter)",
    input: {
      catalog, now: "2025-03-12T15:30:00Z", request: { category: "messaging", planCode: "starter_monthly" },
      current: { plan: plan("pro_monthly"), cancellationScheduled: false, paymentMethod: "off_session" }
    }
  },
  {
    name: "upgrade, held charges + additions",
    input: {
      catalog, now: "2025-03-12T15:30:00Z",
      request: { category: "messaging", planCode: "business_monthly", additions: [{ fixedChargeCode: "seats", quantity: 20 }] },
      current: {
        plan: plan("pro_monthly"), cancellationScheduled: false, paymentMethod: "requires_action", billingTime: "anniversary",
        anchorDate: "2025-01-20T00:00:00Z", heldFixedCharges: [{ fixedChargeCode: "seats", quantity: 5 }]
      }
    }
  }
]

/** Calls `f` for `seconds`, in batches; returns calls per second. */
const rate = (seconds: number, f: () => void) => {
  const end = performance.now() + seconds * 1000
  let calls = 0
  let now = performance.now()
  const start = now
  while (now < end) {
    for (let i = 0; i < 200; i++) f()
    calls += 200
    now = performance.now()
  }
  return calls / ((now - start) / 1000)
}

const pure = () => {
  for (const c of cases) {
    const r = previewPlanChange(c.input)
    if (Result.isFailure(r)) throw new BenchFailure(`${c.name}: ${r.failure._tag}`)
  }
  const decode = Schema.decodeUnknownResult(PreviewPlanChangeRequest)
  const request = cases[2]!.input.request
  rate(0.5, () => decode(request)) // warm-up
  for (const c of cases) rate(0.5, () => previewPlanChange(c.input))
  const baseline = rate(SECONDS, () => decode(request))
  const results = cases.map((c) => ({ name: c.name, rps: rate(SECONDS, () => previewPlanChange(c.input)) }))
  console.log(`\npure previewPlanChange (${SECONDS} s each)`)
  console.log(`  ${"request validation only (baseline)".padEnd(40)} ${fmt(baseline).padStart(12)} /s`)
  for (const r of results) {
    console.log(`  ${r.name.padEnd(40)} ${fmt(r.rps).padStart(12)} /s   ratio ${fmt(r.rps / baseline, 3)}`)
  }
  return { baseline, results }
}

// ---------------------------------------------------------------------------------------------
// HTTP

const load = (name: string, url: string, init: { method: "GET" | "POST"; headers: Record<string, string>; body?: string }) =>
  autocannonRun(name, { url, ...init, connections: CONNECTIONS, seconds: SECONDS })

const http = async () => {
  const server: TestServer = await startTestServer(BACKEND, { billingSchedulerEnabled: false, rateLimitQuota: 1_000_000 })
  try {
    const headers = { authorization: `Bearer ${server.serviceKey}`, "content-type": "application/json" }
    const { organizationId, projectId } = await createProject(server, "bench-billing")
    const previewUrl = `${server.baseUrl}/v1/organizations/${organizationId}/billing/projects/${projectId}/preview`
    const body = JSON.stringify({ category: "messaging", planCode: "messaging_pro_monthly", additions: [{ fixedChargeCode: "seats", quantity: 3 }] })
    const check = await fetch(previewUrl, { method: "POST", headers, body })
    if (check.status !== 200) throw new BenchFailure(`preview: ${check.status} ${await check.text()}`)
    await check.arrayBuffer()
    const accountUrl = `${server.baseUrl}/v1/account`
    // Warm-up, then A B A B.
    await load("warm-up", previewUrl, { method: "POST", headers, body }).catch(() => undefined)
    const runs = { preview: [] as Array<number>, account: [] as Array<number> }
    let last = { preview: { p50: 0, p99: 0 }, account: { p50: 0, p99: 0 } }
    for (let round = 0; round < 2; round++) {
      const p = await load("preview", previewUrl, { method: "POST", headers, body })
      const a = await load("GET /v1/account", accountUrl, { method: "GET", headers })
      runs.preview.push(p.rps)
      runs.account.push(a.rps)
      last = { preview: p, account: a }
    }
    const preview = mean(runs.preview)
    const account = mean(runs.account)
    console.log(`\nHTTP (${BACKEND}, ${CONNECTIONS} connections, ${SECONDS} s per run, 2 rounds)`)
    console.log(`  ${"GET /v1/account (baseline)".padEnd(40)} ${fmt(account).padStart(12)} /s   p50 ${last.account.p50} ms  p99 ${last.account.p99} ms`)
    console.log(`  ${"POST …/billing/projects/{id}/preview".padEnd(40)} ${fmt(preview).padStart(12)} /s   p50 ${last.preview.p50} ms  p99 ${last.preview.p99} ms   ratio ${fmt(preview / account, 3)}`)
    return { preview, account }
  } finally {
    await server.close()
  }
}

const main = async () => {
  try {
    const p = pure()
    const h = await http()
    console.log(JSON.stringify({
      bench: "billing", seconds: SECONDS, backend: BACKEND,
      pure: { baseline: Math.round(p.baseline), previews: Object.fromEntries(p.results.map((r) => [r.name, Math.round(r.rps)])) },
      http: { preview: Math.round(h.preview), account: Math.round(h.account), ratio: Number((h.preview / h.account).toFixed(3)) },
      results: [{
        name: "plan-change preview over HTTP",
        value: Math.round(h.preview),
        unit: "req/s",
        baseline: "GET /v1/account",
        baselineValue: Math.round(h.account),
        ratio: Number((h.preview / h.account).toFixed(3)),
        goal: null,
        met: null
      }]
    }))
    return 0
  } catch (e) {
    console.error(`bench:billing failed: ${e instanceof Error ? e.message : String(e)}`)
    return 1
  }
}

runBench("billing", main)
