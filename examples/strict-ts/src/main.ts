// A strict TypeScript host using only the public types of @switchboard/core and the testkit:
// a call state machine run, a billing plan-change preview, and the memory-layer flow.
import assert from "node:assert/strict"
import { Accounts, Billing, Credentials, SwitchboardCore, Voice } from "@switchboard/core"
import { TestkitLive } from "@switchboard/testkit"
import { Effect, Layer, Result, Schema } from "effect"

// 1. The call state machine (pure): started → ringing → answered → connected → ended; a replay is ignored.
const callId = "sb_call_01q3dcbd01e40r2081040g2081"
const at = (s: number): string => new Date(Date.UTC(2030, 0, 1) + s * 1000).toISOString()
const signal = (id: string, type: Voice.CallSignalType, s: number, data: unknown): Voice.CallSignal =>
  Schema.decodeUnknownSync(Voice.CallSignal)({ id, callId, type, timestamp: at(s), data })
const signals: ReadonlyArray<Voice.CallSignal> = [
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
]
const run = Voice.CallMachine.run(signals)
const outcomes: ReadonlyArray<Voice.CallMachine.CallSignalOutcome> = run.transitions.map((t) => t.outcome)
assert.deepEqual(outcomes, ["applied", "applied", "applied", "applied", "applied"])
assert.equal(run.state.call?.status, "completed")
const replay = Voice.CallMachine.step(run.state, signals[4]!)
assert.equal(replay.transition.outcome, "ignored")

// 2. A billing plan-change preview (pure): a mid-period monthly upgrade, paid in advance.
const plan = (planCode: string, name: string, tier: number, baseAmountCents: number) => ({
  planCode, name, description: null, baseAmountCents, currency: "USD", interval: "monthly", payInAdvance: true,
  isDefault: false, tier, tierDisplayName: null, entitlements: [], fixedCharges: [], usageCharges: [],
  usageThresholds: [], minimumCommitment: null
})
const catalog: Billing.BillingPlanCatalog = Schema.decodeUnknownSync(Billing.BillingPlanCatalog)({
  messaging: [plan("starter_monthly", "Starter", 1, 2900), plan("pro_monthly", "Pro", 2, 7900)]
})
const starter = catalog["messaging"]![0]!
const input: Billing.PlanChange.PlanChangePreviewInput = {
  catalog,
  current: { plan: starter, cancellationScheduled: false, paymentMethod: "off_session" },
  request: { category: "messaging", planCode: "pro_monthly" },
  now: "2025-03-12T15:30:00Z"
}
const preview = Billing.PlanChange.previewPlanChange(input)
if (Result.isFailure(preview)) throw new Error(`expected a preview, got ${preview.failure._tag}`)
assert.equal(preview.success.dueNow.totalCents, 3226)
assert.equal(preview.success.planChange?.timing, "immediate")

// 3. The core on the memory layers: an account, its service key, authentication.
const program = Effect.gen(function*() {
  const account = yield* (yield* Accounts.Accounts).create({ email: "grace@example.com" })
  const { secret } = yield* (yield* Credentials.AccountServiceKeys).create({ accountId: account.accountId, name: "ci", expiresAt: null })
  return yield* (yield* Credentials.Authenticator).authenticate(secret)
})
const principal: Credentials.Principal = await Effect.runPromise(program.pipe(Effect.provide(SwitchboardCore.pipe(Layer.provideMerge(TestkitLive)))))
assert.equal(principal._tag, "Account")

console.log(`strict-ts: call ${run.state.call?.status}, upgrade due now ${preview.success.dueNow.totalCents} cents, principal ${principal._tag}`)
