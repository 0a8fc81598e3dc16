/**
 * Message fact batches (docs/messages.md): a batch is applied in one transaction, and a batch that
 * touches the same messages many times — in any order, with repeated ids, stale and impossible
 * moves — gives exactly the results, final records and events of the same facts sent one at a
 * time — including `received` facts carrying a one-time code on a held resource, held back as
 * filtered verification codes (docs/provisioning.md). Property test (seeded, bounded) through the
 * real server on each backend. And concurrent batches creating the same messages (on PostgreSQL
 * they race; the losers are rolled back and decided again): each fact still applies once.
 */
import { testBackends } from "@switchboard/sql-adapter"
import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { httpClient } from "../support/HttpClient.js"
import { factsOf, messageEvents, messagesPath, newMessageId } from "../support/MessagesHttp.js"
import { runWorker } from "../support/PlatformsHttp.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { idem, newProject } from "../support/VoiceHttp.js"

type Kind = "dispatched" | "received" | "otp" | "accepted" | "delivered" | "failed" | "dup"
const step = fc.record({
  message: fc.integer({ min: 0, max: 2 }),
  kind: fc.constantFrom<Kind>("dispatched", "dispatched", "received", "otp", "accepted", "accepted", "delivered", "failed", "dup"),
  t: fc.integer({ min: 0, max: 40 })
})

for (const backend of testBackends()) {
  describe(`message fact batches (${backend})`, () => {
    let s: TestServer
    const call = httpClient(() => s)
    const projects: Array<string> = []
    /** Each project's SMS number, which OTP-bearing `received` facts name. */
    const resources: Array<string> = []
    beforeAll(async () => {
      s = await startTestServer(backend)
      for (let i = 0; i < 2; i++) {
        const p = await newProject(s, call)
        projects.push(p)
        const r = await call(`/v1/projects/${p}/platforms/sms/numbers`, { method: "POST", json: { countryCode: "US" }, idem: idem() })
        await runWorker(s)
        resources.push((await call(`/v1/projects/${p}/platforms/operations/${r.body.operationId}`)).body.resource.resourceId)
      }
    })
    afterAll(() => s.close())

    /**
     * The facts of `steps` with fresh message ids (a `dup` repeats the message's last fact; an `otp`
     * is a received code on `resourceId`).
     */
    const build = (steps: ReadonlyArray<{ message: number; kind: Kind; t: number }>, resourceId: string) => {
      const messageIds = [0, 1, 2].map(() => newMessageId())
      const facts = messageIds.map((id) => factsOf(id))
      const last: Array<unknown> = [undefined, undefined, undefined]
      const out: Array<unknown> = []
      steps.forEach(({ kind, message: m, t }, i) => {
        const f = facts[m]!
        const id = `${messageIds[m]}:${i}`
        const fact = kind === "dup"
          ? last[m] ?? f.dispatched(0)
          : kind === "dispatched"
          ? f.dispatched(t, "sms", `${messageIds[m]}:dispatched`)
          : kind === "received"
          ? f.received(t, "imessage", id)
          : kind === "otp"
          ? f.received(t, "sms", id, `Your verification code is ${100000 + i}`, resourceId)
          : kind === "accepted"
          ? f.accepted(t, id)
          : kind === "delivered"
          ? f.delivered(t, id)
          : f.failed(t, id)
        last[m] = fact
        out.push(fact)
      })
      return { messageIds, facts: out }
    }

    /**
     * The whole of `value` with its ids (TypeIDs, UUIDs, fact ids) replaced by their order of first
     * appearance: the two runs use different ids for the same messages, parties and projects.
     */
    const anonymous = (value: unknown) => {
      const seen = new Map<string, string>()
      return JSON.parse(JSON.stringify(value).replace(/sb_[a-z]+_[0-9a-z]{26}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
        if (!seen.has(id)) seen.set(id, `id${seen.size}`)
        return seen.get(id)!
      }))
    }

    it("a batch gives the results, records and events of one fact at a time", async () => {
      const runs = [
        // A held-back code, repeated, then an ordinary inbound and a lifecycle fact for held-back ids.
        [{ message: 0, kind: "otp" as const, t: 1 }, { message: 0, kind: "dup" as const, t: 0 }, { message: 0, kind: "received" as const, t: 2 },
          { message: 1, kind: "otp" as const, t: 3 }, { message: 1, kind: "delivered" as const, t: 4 }, { message: 2, kind: "otp" as const, t: 5 }],
        ...fc.sample(fc.array(step, { minLength: 1, maxLength: 30 }), { seed: 20261126, numRuns: backend === "pglite" ? 20 : 10 })
      ]
      let applied = 0
      let filtered = 0
      for (const steps of runs) {
        const batch = build(steps, resources[0]!)
        const single = build(steps, resources[1]!)
        const together = await call(`${messagesPath(projects[0]!)}/facts`, { method: "POST", json: { facts: batch.facts } })
        expect(together.res.status, together.text).toBe(200)
        const oneByOne: Array<any> = []
        for (const fact of single.facts) {
          const r = await call(`${messagesPath(projects[1]!)}/facts`, { method: "POST", json: { facts: [fact] } })
          expect(r.res.status, r.text).toBe(200)
          oneByOne.push(r.body.results[0])
        }
        applied += oneByOne.filter((r) => r.outcome === "applied").length
        filtered += oneByOne.filter((r) => r.filteredCodeId !== undefined).length
        const outcome = (r: any) => [r.outcome, r.reason, r.message?.status, r.message?.timestamps, r.filteredCodeId !== undefined]
        expect(together.body.results.map(outcome), JSON.stringify(steps)).toEqual(oneByOne.map(outcome))
        expect(anonymous([projects[0], batch.messageIds, together.body.results]), JSON.stringify(steps))
          .toEqual(anonymous([projects[1], single.messageIds, oneByOne]))
        for (let m = 0; m < 3; m++) {
          const a = await call(`${messagesPath(projects[0]!)}/${batch.messageIds[m]}`)
          const b = await call(`${messagesPath(projects[1]!)}/${single.messageIds[m]}`)
          expect(a.res.status).toBe(b.res.status)
          const ea = await messageEvents(s, projects[0]!, batch.messageIds[m])
          const eb = await messageEvents(s, projects[1]!, single.messageIds[m])
          // (A 404's body differs by its request id.)
          expect(anonymous([projects[0], batch.messageIds[m], a.res.status === 200 ? a.body : null, ea]))
            .toEqual(anonymous([projects[1], single.messageIds[m], b.res.status === 200 ? b.body : null, eb]))
        }
      }
      // The sample exercises the machine, not only its refusals.
      expect(applied).toBeGreaterThan(runs.length)
      // The same filtered codes (the facts' times are in January 2031).
      const window = `receivedAfter=2030-12-31T00:00:00.000Z&receivedBefore=2031-01-02T00:00:00.000Z`
      const counts = await Promise.all(projects.map((p) => call(`/v1/projects/${p}/platforms/filtered-otp/count?${window}`)))
      expect(filtered).toBeGreaterThanOrEqual(3)
      expect(counts.map((c) => c.body.count), counts[0]!.text).toEqual([filtered, filtered])
    }, 300_000)

    it("concurrent batches creating the same messages: each fact applies once, the losers' batches are decided again", async () => {
      const ids = [newMessageId(), newMessageId()]
      // Eight batches at once, each dispatching and accepting both messages under its own fact ids.
      const batches = Array.from({ length: 8 }, (_, b) =>
        ids.flatMap((id) => {
          const f = factsOf(id)
          return [f.dispatched(0, "sms", `${id}:d${b}`), f.accepted(1 + b, `${id}:a${b}`)]
        }))
      const answers = await Promise.all(batches.map((facts) => call(`${messagesPath(projects[0]!)}/facts`, { method: "POST", json: { facts } })))
      for (const r of answers) expect(r.res.status, r.text).toBe(200)
      const all = answers.flatMap((r) => r.body.results as Array<{ outcome: string; reason?: string; message?: { id: string } }>)
      for (const id of ids) {
        const mine = all.filter((x) => x.message?.id === id)
        expect(mine.filter((x) => x.outcome === "applied")).toHaveLength(2)
        expect(new Set(mine.filter((x) => x.outcome !== "applied").map((x) => `${x.outcome}:${x.reason}`))).toEqual(new Set(["ignored:stale-fact"]))
        const events = await messageEvents(s, projects[0]!, id)
        expect(events.map((e) => e.type)).toEqual(["message.dispatched", "message.accepted"])
        const got = await call(`${messagesPath(projects[0]!)}/${id}`)
        expect(got.body.status).toBe("accepted")
      }
      const q = await call(`/v1/projects/${projects[0]!}/metrics/query`, {
        method: "POST",
        json: { sql: "select count(*) as n from message_events where message_id = :a or message_id = :b", parameters: { a: ids[0]!, b: ids[1]! } }
      })
      expect(q.body.rows, q.text).toEqual([[4]])
    }, 120_000)
  })
}
