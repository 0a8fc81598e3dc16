/**
 * /v1 calls (docs/api-notes/voice.md) on a real server: whole calls driven through signal ingestion
 * and read back (inbound and outbound; every end), the events each applied transition left in the
 * outbox (in order, each matching its schema), duplicates and stale signals, 100 and 101 key
 * presses, the API actions with their SIP commands, the list, and access rules.
 */
import { testBackends } from "@switchboard/sql-adapter"
import { makeSipGatewayRecording } from "@switchboard/testkit"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { callEvents, idem, newId, newLine, newProject, projectKey, signalsOf, voicePath } from "../support/VoiceHttp.js"

const DIGITS = "0123456789*#"

for (const backend of testBackends()) {
  describe(`/v1 voice calls (${backend})`, () => {
    let s: TestServer
    const sip = makeSipGatewayRecording()
    let projectId: string
    let profileId: string
    beforeAll(async () => {
      s = await startTestServer(backend, {}, sip.layer)
      projectId = await newProject(s, call)
      const r = await call(`${voicePath(projectId)}/profiles/default`, { method: "PUT", json: { protocol: "sip" } })
      expect(r.res.status, JSON.stringify(r.body)).toBe(201)
      profileId = r.body.profileId
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    const ingest = (signals: ReadonlyArray<unknown>, key?: string) =>
      call(`${voicePath(projectId)}/calls/signals`, { method: "POST", json: { signals }, ...(key === undefined ? {} : { key }) })
    const getCall = (callId: string) => call(`${voicePath(projectId)}/calls/${callId}`)
    const outcomes = (r: { body: any }) => r.body.results.map((x: any) => (x.reason === undefined ? x.outcome : `${x.outcome}:${x.reason}`))

    /** Drives one call through `steps`, checks every signal applied, and returns the call as read back. */
    const drive = async (steps: (sig: ReturnType<typeof signalsOf>) => ReadonlyArray<unknown>, direction: "inbound" | "outbound" = "inbound") => {
      const callId = newId("call")
      const sig = signalsOf(callId, projectId, profileId)
      const r = await ingest([sig.started(direction), ...steps(sig)])
      expect(r.res.status, JSON.stringify(r.body)).toBe(200)
      expect(r.body.results.every((x: any) => x.outcome === "applied"), JSON.stringify(r.body)).toBe(true)
      const got = await getCall(callId)
      expect(got.res.status).toBe(200)
      expect(got.body).toEqual(r.body.results.at(-1).call)
      return { callId, sig, call: got.body, events: await callEvents(s, projectId, callId) }
    }

    it("ends before answer — busy, no-answer, rejected, canceled, failed — with ended-before-answer timestamps and one call.ended", async () => {
      for (const [status, ringing] of [["busy", true], ["no-answer", true], ["rejected", false], ["canceled", true], ["failed", false]] as const) {
        const { call: c, events, sig } = await drive((sig) => [
          ...(ringing ? [sig.at("ringing", 1)] : []),
          sig.ended(status, 5, undefined, { sipCode: 486 })
        ])
        expect(c.status).toBe(status)
        expect(c.timestamps).toEqual({ startedAt: sig.ts(0), ...(ringing ? { ringingAt: sig.ts(1) } : {}), endedAt: sig.ts(5) })
        expect(events.map((e) => e.type)).toEqual(["call.started", ...(ringing ? ["call.ringing"] : []), "call.ended"])
        expect(events.at(-1)!.data).toEqual({ callId: c.id, status, reason: { sipCode: 486 } })
      }
    })

    it("inbound completed call: started → ringing → answered → connected → key presses → ended; each *At is its event's timestamp", async () => {
      const { call: c, events, sig } = await drive((sig) => [
        sig.at("ringing", 1), sig.at("answered", 2), sig.at("connected", 3), sig.dtmf("1", 0), sig.dtmf("#", 1), sig.ended("completed", 60)
      ])
      expect(c).toMatchObject({
        platform: "voice",
        projectId,
        direction: "inbound",
        status: "completed",
        voiceProfile: { id: profileId, endpoint: { type: "sip" } },
        metadata: { test: "yes" },
        dtmfInputsTruncated: false,
        createdAt: sig.ts(0),
        updatedAt: sig.ts(60)
      })
      expect(c.timestamps).toEqual({ startedAt: sig.ts(0), ringingAt: sig.ts(1), answeredAt: sig.ts(2), connectedAt: sig.ts(3), endedAt: sig.ts(60) })
      expect(events.map((e) => e.type)).toEqual([
        "call.started", "call.ringing", "call.answered", "call.connected", "call.dtmf.received", "call.dtmf.received", "call.ended"
      ])
      const byType = (t: string) => events.filter((e) => e.type === t).map((e) => e.timestamp)
      expect([c.timestamps.startedAt, c.timestamps.ringingAt, c.timestamps.answeredAt, c.timestamps.connectedAt, c.timestamps.endedAt])
        .toEqual([...byType("call.started"), ...byType("call.ringing"), ...byType("call.answered"), ...byType("call.connected"), ...byType("call.ended")])
      expect(c.dtmfInputs).toEqual(events.filter((e) => e.type === "call.dtmf.received").map((e) => e.data))
      expect(c.dtmfInputs.map((p: any) => [p.digit, p.timestamp, p.actorId])).toEqual([["1", c.dtmfInputs[0].timestamp, sig.caller], ["#", c.dtmfInputs[1].timestamp, sig.caller]])
      expect(c.dtmfInputs.map((p: any) => p.timestamp)).toEqual(byType("call.dtmf.received"))
    })

    it("outbound calls: failed after answer (hangup before connect), completed; ringing may be skipped, answered may not", async () => {
      const failed = await drive((sig) => [sig.at("answered", 2), sig.ended("completed", 7)], "outbound")
      expect(failed.call.status).toBe("failed")
      expect(failed.call.timestamps).toEqual({ startedAt: failed.sig.ts(0), answeredAt: failed.sig.ts(2), endedAt: failed.sig.ts(7) })
      const completed = await drive((sig) => [sig.at("ringing", 1), sig.at("answered", 2), sig.at("connected", 3), sig.ended("completed", 9)], "outbound")
      expect(completed.call).toMatchObject({ direction: "outbound", status: "completed" })
      expect(completed.events.map((e) => e.type)).toEqual(["call.started", "call.ringing", "call.answered", "call.connected", "call.ended"])
      // Connected straight from started is rejected; the call stays as it was, with no event.
      const callId = newId("call")
      const sig = signalsOf(callId, projectId, profileId)
      const r = await ingest([sig.started("outbound"), sig.at("connected", 3), sig.ended("completed", 4)])
      expect(outcomes(r)).toEqual(["applied", "rejected:answer-skipped", "rejected:end-not-allowed"])
      expect((await getCall(callId)).body.status).toBe("started")
      expect((await callEvents(s, projectId, callId)).map((e) => e.type)).toEqual(["call.started"])
    })

    it("late ringing after answered, duplicate ids, repeats and signals after the end change nothing and emit nothing", async () => {
      const callId = newId("call")
      const sig = signalsOf(callId, projectId, profileId)
      const first = await ingest([sig.started(), sig.at("answered", 2), sig.at("ringing", 1), sig.at("ringing", 3, "late-180")])
      expect(outcomes(first)).toEqual(["applied", "applied", "ignored:stale-signal", "ignored:stale-signal"])
      expect(first.body.results[2].call.timestamps).toEqual({ startedAt: sig.ts(0), answeredAt: sig.ts(2) })
      const second = await ingest([sig.at("answered", 2), sig.started(), sig.dtmf("5", 0), sig.dtmf("5", 0), sig.ended("failed", 8)])
      expect(outcomes(second)).toEqual([
        "ignored:duplicate-signal", "ignored:duplicate-signal", "applied", "ignored:duplicate-signal", "applied"
      ])
      const after = await ingest([sig.at("connected", 9), sig.dtmf("7", 5), sig.ended("completed", 10, "second-end")])
      expect(outcomes(after)).toEqual(["ignored:call-terminal", "ignored:call-terminal", "ignored:call-terminal"])
      const c = (await getCall(callId)).body
      expect(c.status).toBe("failed")
      expect(c.dtmfInputs).toHaveLength(1)
      expect((await callEvents(s, projectId, callId)).map((e) => e.type)).toEqual([
        "call.started", "call.answered", "call.dtmf.received", "call.ended"
      ])
      // Unknown call, a bad digit, and a key press before the answer are rejected per signal.
      const other = signalsOf(newId("call"), projectId, profileId)
      const mixed = await ingest([other.at("ringing", 1), other.started(), other.dtmf("1", 0), other.at("answered", 2), other.dtmf("A", 1)])
      expect(outcomes(mixed)).toEqual(["rejected:unknown-call", "applied", "rejected:dtmf-not-allowed", "applied", "rejected:invalid-digit"])
      expect(mixed.body.results[0]).not.toHaveProperty("call")
    })

    it("100 key presses are all kept; the 101st drops the oldest and sets dtmfInputsTruncated, which never clears", async () => {
      const callId = newId("call")
      const sig = signalsOf(callId, projectId, profileId)
      expect(outcomes(await ingest([sig.started(), sig.at("answered", 1), sig.at("connected", 2)]))).toEqual(["applied", "applied", "applied"])
      const presses = Array.from({ length: 101 }, (_, i) => sig.dtmf(DIGITS[i % 12]!, i))
      const hundred = await ingest(presses.slice(0, 100))
      expect(hundred.body.results.every((x: any) => x.outcome === "applied")).toBe(true)
      let c = (await getCall(callId)).body
      expect(c.dtmfInputs).toHaveLength(100)
      expect(c.dtmfInputsTruncated).toBe(false)
      expect(c.dtmfInputs.map((p: any) => p.digit).join("")).toBe(presses.slice(0, 100).map((p) => p.data.digit).join(""))
      const overflow = await ingest([presses[100]!])
      expect(outcomes(overflow)).toEqual(["applied"])
      c = (await getCall(callId)).body
      expect(c.dtmfInputs).toHaveLength(100)
      expect(c.dtmfInputsTruncated).toBe(true)
      expect(c.dtmfInputs.map((p: any) => p.timestamp)).toEqual(presses.slice(1).map((p) => p.timestamp))
      await ingest([sig.ended("completed", 30)])
      c = (await getCall(callId)).body
      expect([c.status, c.dtmfInputsTruncated, c.dtmfInputs.length]).toEqual(["completed", true, 100])
      const events = await callEvents(s, projectId, callId)
      expect(events.filter((e) => e.type === "call.dtmf.received")).toHaveLength(101)
      // The kept presses equal the data of the last 100 call.dtmf.received events, in order.
      expect(c.dtmfInputs).toEqual(events.filter((e) => e.type === "call.dtmf.received").slice(1).map((e) => e.data))
    })

    it("batches: 1 to 100 signals, each well-formed; a bad batch is a 422 that applies nothing", async () => {
      const callId = newId("call")
      const sig = signalsOf(callId, projectId, profileId)
      const empty = await ingest([])
      expectProblem(empty, 422, "VALIDATION_FAILED")
      expect(empty.body.issues.some((i: any) => i.path === "/signals")).toBe(true)
      const tooMany = Array.from({ length: 101 }, (_, i) => sig.dtmf("1", i))
      expectProblem(await ingest(tooMany), 422, "VALIDATION_FAILED")
      const badTimestamp = await ingest([sig.started(), { ...sig.at("ringing", 1), timestamp: "2031-01-01T00:00:01+00:00" }])
      expectProblem(badTimestamp, 422, "VALIDATION_FAILED")
      expect(badTimestamp.body.issues.some((i: any) => i.path.startsWith("/signals/1"))).toBe(true)
      expectProblem(await ingest([{ ...sig.at("ringing", 1), type: "bridged" }]), 422, "VALIDATION_FAILED")
      expectProblem(await ingest([{ ...sig.at("ringing", 1), extra: 1 }]), 422, "VALIDATION_FAILED")
      expectProblem(await getCall(callId), 404, "RESOURCE_NOT_FOUND")
      // A started signal naming another project or an unknown profile is rejected.
      const r = await ingest([
        { ...sig.started(), data: { ...sig.started().data, projectId: "01890a5d-ac96-774b-bcce-b302099a8057" } },
        { ...sig.started(), id: "other", data: { ...sig.started().data, voiceProfile: { id: newId("vpr"), endpoint: { type: "sip" } } } }
      ])
      expect(outcomes(r)).toEqual(["rejected:project-mismatch", "rejected:unknown-voice-profile"])
    })

    it("createCall (Idempotency-Key) dials from a voice line; cancel, reject and hangup send SIP commands; 409 when the machine refuses; 503 leaves nothing", async () => {
      const line = await newLine(s, projectId)
      const chat = await newLine(s, projectId, "imessage")
      const calls = `${voicePath(projectId)}/calls`
      expectProblem(await call(calls, { method: "POST", json: { lineId: line.lineId, to: "+15550142" } }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      expectProblem(await call(calls, { method: "POST", json: { lineId: chat.lineId, to: "+15550142" }, idem: idem() }), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(calls, { method: "POST", json: { lineId: line.lineId, to: "not a number" }, idem: idem() }), 422, "VALIDATION_FAILED")
      const key = idem()
      const created = await call(calls, { method: "POST", json: { lineId: line.lineId, to: "+15550142" }, idem: key })
      expect(created.res.status, JSON.stringify(created.body)).toBe(201)
      expect(created.body).toMatchObject({
        status: "started",
        direction: "outbound",
        caller: { handle: line.phoneNumber },
        callee: { handle: "+15550142" },
        voiceProfile: { id: profileId }
      })
      expect(created.body.id).toMatch(/^sb_call_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      const replay = await call(calls, { method: "POST", json: { lineId: line.lineId, to: "+15550142" }, idem: key })
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body).toEqual(created.body)
      const dials = sip.commands.filter((c) => c._tag === "dial" && c.callId === created.body.id)
      expect(dials).toHaveLength(1)
      // The edge reports ringing; the API cancels; the late answer is ignored.
      const sig = signalsOf(created.body.id, projectId, profileId, Date.now())
      await ingest([sig.at("ringing", 1)])
      const canceled = await call(`${calls}/${created.body.id}/cancel`, { method: "POST" })
      expect(canceled.res.status, JSON.stringify(canceled.body)).toBe(200)
      expect(canceled.body.status).toBe("canceled")
      expect(outcomes(await ingest([sig.at("answered", 2)]))).toEqual(["ignored:call-terminal"])
      expectProblem(await call(`${calls}/${created.body.id}/cancel`, { method: "POST" }), 409, "FAILED_PRECONDITION")
      expectProblem(await call(`${calls}/${created.body.id}/reject`, { method: "POST", json: { reason: "busy" } }), 409, "FAILED_PRECONDITION")
      expect((await callEvents(s, projectId, created.body.id)).map((e) => [e.type, e.data.status])).toEqual([
        ["call.started", "started"], ["call.ringing", "ringing"], ["call.ended", "canceled"]
      ])
      // Inbound: reject busy; another answered then hung up before connect → failed.
      const inbound = signalsOf(newId("call"), projectId, profileId, Date.now())
      const inboundId = inbound.started().callId
      await ingest([inbound.started()])
      expectProblem(await call(`${calls}/${inboundId}/reject`, { method: "POST", json: { reason: "maybe" } }), 422, "VALIDATION_FAILED")
      expectProblem(await call(`${calls}/${inboundId}/hangup`, { method: "POST" }), 409, "FAILED_PRECONDITION")
      const busy = await call(`${calls}/${inboundId}/reject`, { method: "POST", json: { reason: "busy" } })
      expect(busy.body.status).toBe("busy")
      const answered = signalsOf(newId("call"), projectId, profileId, Date.now() - 60_000)
      await ingest([answered.started(), answered.at("answered", 1)])
      const hung = await call(`${calls}/${answered.started().callId}/hangup`, { method: "POST" })
      expect(hung.body.status).toBe("failed")
      expect(Object.keys(hung.body.timestamps).sort()).toEqual(["answeredAt", "endedAt", "startedAt"])
      expect(sip.commands.filter((c) => [created.body.id, inboundId, answered.started().callId].includes(c.callId)).map((c) => c._tag))
        .toEqual(["dial", "cancel", "reject", "hangup"])
      // An unreachable SIP edge: 503 with Retry-After, and nothing was written.
      const before = (await call(`${calls}?pageSize=100`)).body.calls.length
      sip.failNext()
      const down = await call(calls, { method: "POST", json: { lineId: line.lineId, to: "+15550143" }, idem: idem() })
      expectProblem(down, 503, "UPSTREAM_UNAVAILABLE")
      expect(down.res.headers.get("retry-after")).toBe("1")
      expect((await call(`${calls}?pageSize=100`)).body.calls.length).toBe(before)
      expectProblem(await call(`${calls}/${newId("call")}/hangup`, { method: "POST" }), 404, "RESOURCE_NOT_FOUND")
    })

    it("listCalls: newest first with filters and page tokens; 422 for a bad filter or a foreign token", async () => {
      const own = await newProject(s, call)
      await call(`${voicePath(own)}/profiles/default`, { method: "PUT", json: { protocol: "sip" } })
      const profile = (await call(`${voicePath(own)}/profiles/default`)).body.profileId
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) {
        const callId = newId("call")
        ids.push(callId)
        const sig = signalsOf(callId, own, profile, Date.UTC(2031, 0, 1) + i * 60_000)
        const r = await call(`${voicePath(own)}/calls/signals`, { method: "POST", json: { signals: [sig.started(i === 1 ? "outbound" : "inbound"), ...(i === 2 ? [sig.ended("busy", 1)] : [])] } })
        expect(r.res.status).toBe(200)
      }
      const list = (q = "") => call(`${voicePath(own)}/calls${q}`)
      expect((await list()).body.calls.map((c: any) => c.id)).toEqual([...ids].reverse())
      const p1 = await list("?pageSize=2")
      expect(p1.body.calls.map((c: any) => c.id)).toEqual([ids[2], ids[1]])
      const p2 = await list(`?pageSize=2&pageToken=${encodeURIComponent(p1.body.nextPageToken)}`)
      expect(p2.body.calls.map((c: any) => c.id)).toEqual([ids[0]])
      expect(p2.body).not.toHaveProperty("nextPageToken")
      expect((await list("?status=busy")).body.calls.map((c: any) => c.id)).toEqual([ids[2]])
      expect((await list("?direction=outbound")).body.calls.map((c: any) => c.id)).toEqual([ids[1]])
      expect((await list("?createdAfter=2031-01-01T00:00:30Z&createdBefore=2031-01-01T00:01:30Z")).body.calls.map((c: any) => c.id))
        .toEqual([ids[1]])
      for (const q of ["?status=ended", "?direction=sideways", "?pageSize=0", "?pageSize=101", "?createdAfter=yesterday"]) {
        const r = await list(q)
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues[0].location).toBe("query")
      }
      expectProblem(await list(`?status=busy&pageToken=${encodeURIComponent(p1.body.nextPageToken)}`), 422, "VALIDATION_FAILED")
    })

    it("access: reads need platforms:read, actions platforms:write, signals events:write; other projects' keys are refused", async () => {
      const reader = await projectKey(call, projectId, ["platforms:read"])
      const writer = await projectKey(call, projectId, ["platforms:write"])
      const edge = await projectKey(call, projectId, ["events:write"])
      const sig = signalsOf(newId("call"), projectId, profileId)
      expect((await call(`${voicePath(projectId)}/calls`, { key: reader })).res.status).toBe(200)
      expectProblem(await call(`${voicePath(projectId)}/calls`, { key: edge }), 403, "FORBIDDEN")
      expectProblem(await ingest([sig.started()], reader), 403, "FORBIDDEN")
      expectProblem(await ingest([sig.started()], writer), 403, "FORBIDDEN")
      const ok = await ingest([sig.started()], edge)
      expect(outcomes(ok)).toEqual(["applied"])
      expectProblem(await call(`${voicePath(projectId)}/calls/${sig.started().callId}/hangup`, { method: "POST", key: reader }), 403, "FORBIDDEN")
      expectProblem(await call(`${voicePath(projectId)}/calls/${sig.started().callId}/hangup`, { method: "POST", key: writer }), 409, "FAILED_PRECONDITION")
      const other = await newProject(s, call)
      const otherKey = await projectKey(call, other, ["platforms:read", "events:write"])
      expectProblem(await call(`${voicePath(projectId)}/calls`, { key: otherKey }), 403, "RESOURCE_MISMATCH")
      expectProblem(await call(`${voicePath(projectId)}/calls`, { key: null }), 401, "NOT_AUTHENTICATED")
      // The call is not visible through another project's path.
      expectProblem(await call(`${voicePath(other)}/calls/${sig.started().callId}`), 404, "RESOURCE_NOT_FOUND")
    })
  })
}
