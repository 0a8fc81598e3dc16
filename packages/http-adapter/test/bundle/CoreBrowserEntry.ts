/**
 * The entry bundled for the browser by CoreBrowserBundle.test.ts and bench/bundle.ts: the core's
 * pure call state machine and billing plan-change preview, imported from `@switchboard/core` as
 * a web app would, with their results published on `globalThis.switchboardResults`.
 */
import { Billing, Voice } from "@switchboard/core"
import { Result, Schema } from "effect"

const callId = "sb_call_01q3dcbd01e40r2081040g2081"
const at = (s: number): string => new Date(Date.UTC(2030, 0, 1) + s * 1000).toISOString()
const signal = (id: string, type: string, s: number, data: unknown): Voice.CallSignal =>
  Schema.decodeUnknownSync(Voice.CallSignal)({ id, callId, type, timestamp: at(s), data })
const run = Voice.CallMachine.run([
  signal("s1", "started", 0, {
    projectId: "01b8dac5-b400-7909-8909-090909090909",
    direction: "outbound",
    voiceProfile: { id: "sb_vpr_01q3dcbd05em2ra1850m2ga185", endpoint: { type: "sip" } },
    space: { id: "space_1", type: "direct" },
    caller: { id: "sb_usr_01q3dcbd03ec1r60r30c1g60r3", handle: "+15551234567" },
    callee: { id: "sb_usr_01q3dcbd04eg2881040g208104" },
    metadata: {}
  }),
  signal("s2", "ringing", 1, {}),
  signal("s3", "answered", 2, {}),
  signal("s4", "connected", 3, {}),
  signal("s5", "ended", 9, { status: "completed" })
])

const plan = (planCode: string, name: string, tier: number, baseAmountCents: number) => ({
  planCode, name, description: null, baseAmountCents, currency: "USD", interval: "monthly", payInAdvance: true,
  isDefault: false, tier, tierDisplayName: null, entitlements: [], fixedCharges: [], usageCharges: [],
  usageThresholds: [], minimumCommitment: null
})
const catalog = Schema.decodeUnknownSync(Billing.BillingPlanCatalog)({
  messaging: [plan("starter_monthly", "Starter", 1, 2900), plan("pro_monthly", "Pro", 2, 7900)]
})
const preview = Billing.PlanChange.previewPlanChange({
  catalog,
  current: { plan: catalog["messaging"]![0]!, cancellationScheduled: false, paymentMethod: "off_session" },
  request: { category: "messaging", planCode: "pro_monthly" },
  now: "2025-03-12T15:30:00Z"
})

;(globalThis as { switchboardResults?: unknown }).switchboardResults = {
  outcomes: run.transitions.map((t) => t.outcome),
  status: run.state.call?.status,
  events: run.events.map((e) => e.type),
  dueNowCents: Result.isSuccess(preview) ? preview.success.dueNow.totalCents : preview.failure._tag,
  timing: Result.isSuccess(preview) ? preview.success.planChange?.timing : undefined
}
