/**
 * Signal batches: a batch is applied in one transaction, and a batch that
 * touches the same calls many times — in any order, with duplicates, stale and invalid moves —
 * gives exactly the results, final calls and events of the same signals sent one at a time.
 * Property test (seeded, bounded) through the real server on each backend.
 */
import { IdKinds } from "@switchboard/core/shared"
import { testBackends } from "@switchboard/sql-adapter"
import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { callEvents, newId, newProject, signalsOf, voicePath } from "../support/VoiceHttp.js"

type Kind = "started" | "ringing" | "answered" | "connected" | "dtmf" | "completed" | "busy" | "dup"
const step = fc.record({
  call: fc.integer({ min: 0, max: 2 }),
  kind: fc.constantFrom<Kind>("started", "started", "ringing", "answered", "connected", "dtmf", "completed", "busy", "dup"),
  t: fc.integer({ min: 0, max: 40 })
})

for (const backend of testBackends()) {
  describe(`call signal batches (${backend})`, () => {
    let s: TestServer
    const call = httpClient(() => s)
    const projects: Array<{ projectId: string; profileId: string }> = []
    beforeAll(async () => {
      s = await startTestServer(backend)
      for (let i = 0; i < 2; i++) {
        const projectId = await newProject(s, call)
        const r = await call(`${voicePath(projectId)}/profiles/default`, { method: "PUT", json: { protocol: "sip" } })
        expect(r.res.status, JSON.stringify(r.body)).toBe(201)
        projects.push({ projectId, profileId: r.body.profileId })
      }
    })
    afterAll(() => s.close())

    /** The signals of `steps` for a project, with fresh call ids (a duplicate repeats the call's last signal). */
    const build = (p: { projectId: string; profileId: string }, steps: ReadonlyArray<{ call: number; kind: Kind; t: number }>) => {
      const callIds = [0, 1, 2].map(() => newId(IdKinds.call))
      const sigs = callIds.map((id) => signalsOf(id, p.projectId, p.profileId))
      const last: Array<unknown> = [undefined, undefined, undefined]
      const out: Array<unknown> = []
      steps.forEach(({ call: c, kind, t }, i) => {
        const sig = sigs[c]!
        const id = `${callIds[c]}:${i}`
        const signal = kind === "dup"
          ? last[c] ?? sig.started("inbound", `${callIds[c]}:started`)
          : kind === "started"
          ? sig.started("inbound", `${callIds[c]}:started`)
          : kind === "dtmf"
          ? sig.dtmf("5", t, id)
          : kind === "completed" || kind === "busy"
          ? sig.ended(kind, t + 1, id)
          : sig.at(kind, t, id)
        last[c] = signal
        out.push(signal)
      })
      return { callIds, signals: out }
    }

    /** What must match between the two runs (ids and parties differ; everything else must not). */
    const normal = (r: any) => ({
      outcome: r.outcome,
      reason: r.reason,
      status: r.call?.status,
      timestamps: r.call?.timestamps
    })

    /**
     * The whole of `value` with its ids (TypeIDs, UUIDs) replaced by their order of first
     * appearance: the two runs use different ids for the same calls, parties and projects.
     */
    const anonymous = (value: unknown) => {
      const seen = new Map<string, string>()
      return JSON.parse(JSON.stringify(value).replace(/sb_[a-z]+_[0-9a-z]{26}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
        if (!seen.has(id)) seen.set(id, `id${seen.size}`)
        return seen.get(id)!
      }))
    }

    it("a batch gives the results, calls and events of one signal at a time", async () => {
      const runs = fc.sample(fc.array(step, { minLength: 1, maxLength: 30 }), { seed: 20261124, numRuns: backend === "pglite" ? 20 : 10 })
      for (const steps of runs) {
        const batch = build(projects[0]!, steps)
        const single = build(projects[1]!, steps)
        const together = await call(`${voicePath(projects[0]!.projectId)}/calls/signals`, { method: "POST", json: { signals: batch.signals } })
        expect(together.res.status, together.text).toBe(200)
        const oneByOne: Array<any> = []
        for (const signal of single.signals) {
          const r = await call(`${voicePath(projects[1]!.projectId)}/calls/signals`, { method: "POST", json: { signals: [signal] } })
          expect(r.res.status, r.text).toBe(200)
          oneByOne.push(r.body.results[0])
        }
        expect(together.body.results.map(normal), JSON.stringify(steps)).toEqual(oneByOne.map(normal))
        // Everything else too: whole results (the call after each signal), whole stored calls, whole events.
        const idsFirst = (callIds: ReadonlyArray<string>, projectId: string) => [projectId, ...callIds]
        expect(anonymous([idsFirst(batch.callIds, projects[0]!.projectId), together.body.results]), JSON.stringify(steps))
          .toEqual(anonymous([idsFirst(single.callIds, projects[1]!.projectId), oneByOne]))
        for (let c = 0; c < 3; c++) {
          const a = await call(`${voicePath(projects[0]!.projectId)}/calls/${batch.callIds[c]}`)
          const b = await call(`${voicePath(projects[1]!.projectId)}/calls/${single.callIds[c]}`)
          expect(a.res.status).toBe(b.res.status)
          if (a.res.status === 200) expect({ status: a.body.status, timestamps: a.body.timestamps }).toEqual({ status: b.body.status, timestamps: b.body.timestamps })
          const ea = await callEvents(s, projects[0]!.projectId, batch.callIds[c])
          const eb = await callEvents(s, projects[1]!.projectId, single.callIds[c])
          expect(ea.map((e) => [e.type, e.timestamp])).toEqual(eb.map((e) => [e.type, e.timestamp]))
          expect(anonymous([projects[0]!.projectId, batch.callIds[c], a.body, ea]))
            .toEqual(anonymous([projects[1]!.projectId, single.callIds[c], b.body, eb]))
        }
      }
    }, 300_000)
  })
}
