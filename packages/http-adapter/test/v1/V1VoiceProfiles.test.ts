/**
 * /v1 voice profiles and line profile assignments (docs/api-notes/voice.md) on a real
 * server: the default and additional profiles with `expectedVersion`, outbound SIP (Idempotency-Key,
 * password once, never stored or shown again, rotation grace), inbound SIP, and assignments
 * (single and batch, all-or-nothing, the default-profile rules), with the contract's problem codes.
 */
import { testBackends } from "@switchboard/sql-adapter"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SqlClient } from "effect/sql"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { idem, newId, newLine, newProject, projectKey, voicePath } from "../support/VoiceHttp.js"

for (const backend of testBackends()) {
  describe(`/v1 voice profiles (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend)
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    const profiles = (p: string) => `${voicePath(p)}/profiles`
    /** Everything the database holds for voice profiles, as text. */
    const storedText = () =>
      s.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`select record::text as t from voice_profiles`)).then((rows) =>
        rows.map((r: any) => r.t).join("\n")
      )

    it("the default profile: PUT creates (201), an identical PUT returns it (200, same version), a different one is 409; GET and PATCH", async () => {
      const p = await newProject(s, call)
      expectProblem(await call(`${profiles(p)}/default`), 404, "VOICE_PROFILE_NOT_FOUND")
      expectProblem(await call(profiles(p), { method: "POST", json: { name: "Sales", protocol: "sip" } }), 409, "VOICE_DEFAULT_PROFILE_REQUIRED")
      const created = await call(`${profiles(p)}/default`, { method: "PUT", json: { protocol: "sip" } })
      expect(created.res.status).toBe(201)
      expect(created.body).toEqual({
        configuration: { inbound: null, outbound: null },
        createdAt: created.body.createdAt,
        isDefault: true,
        lineCount: 0,
        mediaEncryption: "auto",
        name: "Default",
        profileId: created.body.profileId,
        projectId: p,
        protocol: "sip",
        updatedAt: created.body.createdAt,
        version: 1
      })
      expect(created.body.profileId).toMatch(/^sb_vpr_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      const again = await call(`${profiles(p)}/default`, { method: "PUT", json: { protocol: "sip", mediaEncryption: "auto" } })
      expect(again.res.status).toBe(200)
      expect(again.body).toEqual(created.body)
      expectProblem(await call(`${profiles(p)}/default`, { method: "PUT", json: { protocol: "sip", mediaEncryption: "srtp" } }), 409, "VOICE_DEFAULT_PROFILE_EXISTS")
      expectProblem(await call(`${profiles(p)}/default`, { method: "PUT", json: { protocol: "h323" } }), 422, "VALIDATION_FAILED")
      expect((await call(`${profiles(p)}/default`)).body).toEqual(created.body)
      const conflict = await call(`${profiles(p)}/default`, { method: "PATCH", json: { expectedVersion: 2, mediaEncryption: "srtp" } })
      expectProblem(conflict, 409, "VOICE_PROFILE_VERSION_CONFLICT")
      expect(conflict.body.currentVersion).toBe(1)
      const patched = await call(`${profiles(p)}/default`, { method: "PATCH", json: { expectedVersion: 1, mediaEncryption: "srtp" } })
      expect(patched.body).toMatchObject({ mediaEncryption: "srtp", version: 2 })
      expectProblem(await call(`${profiles(p)}/default`, { method: "PATCH", json: { expectedVersion: 2, name: "Mine" } }), 422, "VALIDATION_FAILED")
      expectProblem(await call(`${profiles(p)}/${created.body.profileId}`, { method: "PATCH", json: { expectedVersion: 2, name: "Mine" } }), 409, "FAILED_PRECONDITION")
      expectProblem(await call(`${profiles(p)}/default?expectedVersion=2`, { method: "DELETE" }), 409, "VOICE_DEFAULT_PROFILE_DELETION_FORBIDDEN")
    })

    it("additional profiles: create, get, list (default filter, pages), patch with versions, delete (expectedVersion, in use, force)", async () => {
      const p = await newProject(s, call)
      await call(`${profiles(p)}/default`, { method: "PUT", json: { protocol: "sip" } })
      const sales = await call(profiles(p), { method: "POST", json: { name: "Sales", protocol: "sip", mediaEncryption: "srtp" } })
      expect(sales.res.status).toBe(201)
      expect(sales.body).toMatchObject({ name: "Sales", isDefault: false, mediaEncryption: "srtp", version: 1, lineCount: 0 })
      const support = (await call(profiles(p), { method: "POST", json: { name: "Support", protocol: "sip" } })).body
      for (const bad of [{ name: "", protocol: "sip" }, { name: "x".repeat(101), protocol: "sip" }, { protocol: "sip" }, { name: "x", protocol: "sip", extra: 1 }]) {
        expectProblem(await call(profiles(p), { method: "POST", json: bad }), 422, "VALIDATION_FAILED")
      }
      expect((await call(`${profiles(p)}/${sales.body.profileId}`)).body).toEqual(sales.body)
      expectProblem(await call(`${profiles(p)}/${newId("vpr")}`), 404, "VOICE_PROFILE_NOT_FOUND")
      expectProblem(await call(`${profiles(p)}/not-a-profile`), 422, "VALIDATION_FAILED")
      const all = await call(profiles(p))
      expect(all.body.profiles.map((x: any) => x.name)).toEqual(["Default", "Sales", "Support"])
      expect((await call(`${profiles(p)}?default=true`)).body.profiles.map((x: any) => x.name)).toEqual(["Default"])
      const page1 = await call(`${profiles(p)}?default=false&pageSize=1`)
      const page2 = await call(`${profiles(p)}?default=false&pageSize=1&pageToken=${encodeURIComponent(page1.body.nextPageToken)}`)
      expect([...page1.body.profiles, ...page2.body.profiles].map((x: any) => x.name)).toEqual(["Sales", "Support"])
      expect(page2.body).not.toHaveProperty("nextPageToken")
      expectProblem(await call(`${profiles(p)}?pageSize=201`), 422, "VALIDATION_FAILED")
      expectProblem(await call(`${profiles(p)}?pageToken=${encodeURIComponent(page1.body.nextPageToken)}`), 422, "VALIDATION_FAILED")
      const renamed = await call(`${profiles(p)}/${sales.body.profileId}`, { method: "PATCH", json: { expectedVersion: 1, name: "Sales EU" } })
      expect(renamed.body).toMatchObject({ name: "Sales EU", version: 2 })
      expectProblem(await call(`${profiles(p)}/${sales.body.profileId}`, { method: "PATCH", json: { expectedVersion: 1, name: "X" } }), 409, "VOICE_PROFILE_VERSION_CONFLICT")
      // In use: a line assigned to Sales.
      const line = await newLine(s, p)
      await call(`${voicePath(p)}/lines/${line.lineId}/profile`, { method: "PUT", json: { expectedVersion: 1, profileId: sales.body.profileId } })
      expect((await call(`${profiles(p)}/${sales.body.profileId}`)).body.lineCount).toBe(1)
      expectProblem(await call(`${profiles(p)}/${sales.body.profileId}`, { method: "DELETE" }), 422, "VALIDATION_FAILED")
      expectProblem(await call(`${profiles(p)}/${sales.body.profileId}?expectedVersion=1`, { method: "DELETE" }), 409, "VOICE_PROFILE_VERSION_CONFLICT")
      expectProblem(await call(`${profiles(p)}/${sales.body.profileId}?expectedVersion=2`, { method: "DELETE" }), 409, "VOICE_PROFILE_IN_USE")
      const forced = await call(`${profiles(p)}/${sales.body.profileId}?expectedVersion=2&force=true`, { method: "DELETE" })
      expect(forced.res.status).toBe(204)
      expect(forced.text).toBe("")
      expectProblem(await call(`${profiles(p)}/${sales.body.profileId}`), 404, "VOICE_PROFILE_NOT_FOUND")
      const back = (await call(`${voicePath(p)}/lines/${line.lineId}/profile`)).body
      expect(back).not.toHaveProperty("profileId")
      expect(back.resourceVersion).toBe(3)
      expect((await call(`${profiles(p)}/${support.profileId}?expectedVersion=1`, { method: "DELETE" })).res.status).toBe(204)
    })

    it("outbound SIP: configure needs an Idempotency-Key, shows the password once (a replay repeats it), stores only digest material; rotate, change the algorithm, delete", async () => {
      const p = await newProject(s, call)
      const def = (await call(`${profiles(p)}/default`, { method: "PUT", json: { protocol: "sip" } })).body
      const outbound = `${profiles(p)}/default/outbound`
      const body = { authentication: { algorithm: "sha-256" }, expectedVersion: 1 }
      expectProblem(await call(outbound, { method: "PUT", json: body }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      expectProblem(await call(outbound, { method: "PUT", json: { ...body, authentication: { algorithm: "sha-1" } }, idem: idem() }), 422, "VALIDATION_FAILED")
      expectProblem(await call(outbound, { method: "PUT", json: { ...body, expectedVersion: 3 }, idem: idem() }), 409, "VOICE_PROFILE_VERSION_CONFLICT")
      const key = idem()
      const configured = await call(outbound, { method: "PUT", json: body, idem: key })
      expect(configured.res.status, JSON.stringify(configured.body)).toBe(201)
      expect(configured.res.headers.get("cache-control")).toBe("no-store")
      const password = configured.body.password as string
      expect(password.length).toBeGreaterThanOrEqual(32)
      expect(configured.body.profileVersion).toBe(2)
      expect(configured.body.outbound).toEqual({
        authentication: {
          algorithm: "sha-256",
          previousPasswordValidUntil: null,
          username: configured.body.outbound.authentication.username,
          validFrom: configured.body.outbound.authentication.validFrom
        },
        connection: {
          endpoints: [{ host: "127.0.0.1", port: 5061, transport: "tls" }, { host: "127.0.0.1", port: 5060, transport: "tcp" }],
          realm: "127.0.0.1"
        }
      })
      const replay = await call(outbound, { method: "PUT", json: body, idem: key })
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body).toEqual(configured.body)
      expectProblem(await call(outbound, { method: "PUT", json: { ...body, expectedVersion: 2 }, idem: idem() }), 409, "VOICE_OUTBOUND_CONFIGURED")
      const shown = await call(`${profiles(p)}/${def.profileId}`)
      expect(shown.body.configuration.outbound).toEqual(configured.body.outbound)
      expect(shown.text).not.toContain(password)
      expect(await storedText()).not.toContain(password)
      // Rotation: normal keeps a grace hour; a second normal rotation within it is pending; emergency ends it.
      const rotate = (mode: string, expectedVersion: number, k = idem()) =>
        call(`${outbound}/rotate`, { method: "POST", json: { expectedVersion, mode }, idem: k })
      expectProblem(await call(`${outbound}/rotate`, { method: "POST", json: { expectedVersion: 2, mode: "normal" } }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      const normal = await rotate("normal", 2)
      expect(normal.res.status, JSON.stringify(normal.body)).toBe(200)
      expect(normal.body.password).not.toBe(password)
      expect(normal.body.profileVersion).toBe(3)
      const graceEnd = Date.parse(normal.body.previousPasswordValidUntil)
      expect(graceEnd - Date.now()).toBeGreaterThan(3500_000)
      expect(graceEnd - Date.now()).toBeLessThanOrEqual(3600_000)
      const pending = await rotate("normal", 3)
      expectProblem(pending, 409, "VOICE_OUTBOUND_OPERATION_PENDING")
      expect(Number(pending.res.headers.get("retry-after"))).toBeGreaterThan(3500)
      const emergency = await rotate("emergency", 3)
      expect(emergency.body).toMatchObject({ previousPasswordValidUntil: null, profileVersion: 4 })
      expect((await call(`${profiles(p)}/default`)).body.configuration.outbound.authentication.previousPasswordValidUntil).toBeNull()
      const stored = await storedText()
      for (const pw of [password, normal.body.password, emergency.body.password]) expect(stored).not.toContain(pw)
      // Algorithm only; then delete.
      const md5 = await call(outbound, { method: "PATCH", json: { authentication: { algorithm: "md5" }, expectedVersion: 4 } })
      expect(md5.body).toMatchObject({ profileVersion: 5, outbound: { authentication: { algorithm: "md5" } } })
      expectProblem(await call(`${outbound}?expectedVersion=4`, { method: "DELETE" }), 409, "VOICE_PROFILE_VERSION_CONFLICT")
      const deleted = await call(`${outbound}?expectedVersion=5`, { method: "DELETE" })
      expect(deleted.body).toEqual({ outbound: null, profileVersion: 6 })
      expectProblem(await rotate("normal", 6), 409, "VOICE_OUTBOUND_NOT_CONFIGURED")
      expectProblem(await call(outbound, { method: "PATCH", json: { authentication: { algorithm: "md5" }, expectedVersion: 6 } }), 409, "VOICE_OUTBOUND_NOT_CONFIGURED")
      expectProblem(await call(`${profiles(p)}/${newId("vpr")}/outbound`, { method: "PUT", json: body, idem: idem() }), 404, "VOICE_PROFILE_NOT_FOUND")
    })

    it("inbound SIP: PUT creates (201) then replaces (200); PATCH keeps, removes or replaces credentials; DELETE; the password never comes back", async () => {
      const p = await newProject(s, call)
      const def = (await call(`${profiles(p)}/default`, { method: "PUT", json: { protocol: "sip" } })).body
      const inbound = `${profiles(p)}/${def.profileId}/inbound`
      const created = await call(inbound, {
        method: "PUT",
        json: { credentials: { username: "pbx", password: "inbound-secret-77" }, destinationUri: "sip:agents@pbx.example.com", expectedVersion: 1 }
      })
      expect(created.res.status).toBe(201)
      expect(created.body).toEqual({ inbound: { credentials: { username: "pbx" }, destinationUri: "sip:agents@pbx.example.com" }, profileVersion: 2 })
      expect(await storedText()).not.toContain("inbound-secret-77")
      expect((await call(`${profiles(p)}/default`)).text).not.toContain("inbound-secret-77")
      const replaced = await call(inbound, { method: "PUT", json: { credentials: null, destinationUri: "sips:pbx.example.com", expectedVersion: 2 } })
      expect(replaced.res.status).toBe(200)
      expect(replaced.body).toEqual({ inbound: { credentials: null, destinationUri: "sips:pbx.example.com" }, profileVersion: 3 })
      expectProblem(await call(inbound, { method: "PUT", json: { destinationUri: "sip:x", expectedVersion: 3 } }), 422, "VALIDATION_FAILED")
      expectProblem(await call(inbound, { method: "PUT", json: { credentials: null, destinationUri: "http://x", expectedVersion: 3 } }), 422, "VALIDATION_FAILED")
      expectProblem(await call(inbound, { method: "PATCH", json: { expectedVersion: 3 } }), 422, "VALIDATION_FAILED")
      const withCreds = await call(inbound, { method: "PATCH", json: { expectedVersion: 3, credentials: { username: "u2", password: "p2" } } })
      expect(withCreds.body).toEqual({ inbound: { credentials: { username: "u2" }, destinationUri: "sips:pbx.example.com" }, profileVersion: 4 })
      const kept = await call(inbound, { method: "PATCH", json: { expectedVersion: 4, destinationUri: "sip:new@pbx.example.com" } })
      expect(kept.body.inbound).toEqual({ credentials: { username: "u2" }, destinationUri: "sip:new@pbx.example.com" })
      expectProblem(await call(`${inbound}?expectedVersion=1`, { method: "DELETE" }), 409, "VOICE_PROFILE_VERSION_CONFLICT")
      expect((await call(`${inbound}?expectedVersion=5`, { method: "DELETE" })).body).toEqual({ inbound: null, profileVersion: 6 })
      expectProblem(await call(inbound, { method: "PATCH", json: { expectedVersion: 6, destinationUri: "sip:a@b" } }), 409, "FAILED_PRECONDITION")
    })

    it("line assignments: single PUT/GET/DELETE with versions; the default cannot be assigned; non-voice or unknown lines are 404; batch is all or nothing", async () => {
      const p = await newProject(s, call)
      const def = (await call(`${profiles(p)}/default`, { method: "PUT", json: { protocol: "sip" } })).body
      const sales = (await call(profiles(p), { method: "POST", json: { name: "Sales", protocol: "sip" } })).body
      const lines = [await newLine(s, p), await newLine(s, p), await newLine(s, p, "sms")]
      const chat = await newLine(s, p, "imessage")
      const at = (lineId: string) => `${voicePath(p)}/lines/${lineId}/profile`
      const initial = await call(at(lines[0]!.lineId))
      expect(initial.body).toEqual({ projectId: p, resourceId: lines[0]!.lineId, resourceVersion: 1, updatedAt: initial.body.updatedAt })
      expectProblem(await call(at(chat.lineId)), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(at(newId("lin"))), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(at(lines[0]!.lineId), { method: "PUT", json: { expectedVersion: 1, profileId: def.profileId } }), 409, "VOICE_DEFAULT_PROFILE_ASSIGNMENT_FORBIDDEN")
      expectProblem(await call(at(lines[0]!.lineId), { method: "PUT", json: { expectedVersion: 2, profileId: sales.profileId } }), 409, "VOICE_PROFILE_VERSION_CONFLICT")
      expectProblem(await call(at(lines[0]!.lineId), { method: "PUT", json: { expectedVersion: 1, profileId: newId("vpr") } }), 404, "VOICE_PROFILE_NOT_FOUND")
      const assigned = await call(at(lines[0]!.lineId), { method: "PUT", json: { expectedVersion: 1, profileId: sales.profileId } })
      expect(assigned.body).toMatchObject({ profileId: sales.profileId, profileVersion: 1, resourceVersion: 2 })
      expect((await call(at(lines[0]!.lineId))).body).toEqual(assigned.body)
      expect((await call(`${profiles(p)}/default`)).body.lineCount).toBe(2)
      expectProblem(await call(`${at(lines[0]!.lineId)}?expectedVersion=1`, { method: "DELETE" }), 409, "VOICE_PROFILE_VERSION_CONFLICT")
      expect((await call(`${at(lines[0]!.lineId)}?expectedVersion=2`, { method: "DELETE" })).res.status).toBe(204)
      expect((await call(at(lines[0]!.lineId))).body.resourceVersion).toBe(3)
      // Batch: validation, then all-or-nothing.
      const batch = `${voicePath(p)}/lines/profile-assignments/batch`
      expectProblem(await call(batch, { method: "POST", json: { updates: [] } }), 422, "VALIDATION_FAILED")
      const tooMany = Array.from({ length: 101 }, () => ({ resourceId: lines[1]!.lineId, expectedVersion: 1, profileId: null }))
      expectProblem(await call(batch, { method: "POST", json: { updates: tooMany } }), 422, "VALIDATION_FAILED")
      const twice = await call(batch, { method: "POST", json: { updates: [
        { resourceId: lines[1]!.lineId, expectedVersion: 1, profileId: null },
        { resourceId: lines[1]!.lineId, expectedVersion: 1, profileId: sales.profileId }
      ] } })
      expectProblem(twice, 422, "VALIDATION_FAILED")
      expect(twice.body.issues.some((i: any) => i.path === "/updates/1/resourceId")).toBe(true)
      const snapshot = async () => Promise.all(lines.map(async (l) => (await call(at(l.lineId))).body))
      const before = await snapshot()
      const stale = await call(batch, { method: "POST", json: { updates: [
        { resourceId: lines[1]!.lineId, expectedVersion: 1, profileId: sales.profileId },
        { resourceId: lines[2]!.lineId, expectedVersion: 5, profileId: sales.profileId }
      ] } })
      expectProblem(stale, 409, "VOICE_PROFILE_VERSION_CONFLICT")
      const withDefault = await call(batch, { method: "POST", json: { updates: [
        { resourceId: lines[1]!.lineId, expectedVersion: 1, profileId: sales.profileId },
        { resourceId: lines[2]!.lineId, expectedVersion: 1, profileId: def.profileId }
      ] } })
      expectProblem(withDefault, 409, "VOICE_DEFAULT_PROFILE_ASSIGNMENT_FORBIDDEN")
      expectProblem(await call(batch, { method: "POST", json: { updates: [
        { resourceId: lines[1]!.lineId, expectedVersion: 1, profileId: sales.profileId },
        { resourceId: chat.lineId, expectedVersion: 1, profileId: sales.profileId }
      ] } }), 404, "RESOURCE_NOT_FOUND")
      expect(await snapshot()).toEqual(before)
      const done = await call(batch, { method: "POST", json: { updates: [
        { resourceId: lines[2]!.lineId, expectedVersion: 1, profileId: sales.profileId },
        { resourceId: lines[1]!.lineId, expectedVersion: 1, profileId: sales.profileId },
        { resourceId: lines[0]!.lineId, expectedVersion: 3, profileId: null }
      ] } })
      expect(done.res.status, JSON.stringify(done.body)).toBe(200)
      expect(done.body.assignments.map((a: any) => [a.resourceId, a.profileId, a.resourceVersion])).toEqual([
        [lines[2]!.lineId, sales.profileId, 2],
        [lines[1]!.lineId, sales.profileId, 2],
        [lines[0]!.lineId, undefined, 3]
      ])
      expect((await call(`${profiles(p)}/${sales.profileId}`)).body.lineCount).toBe(2)
    })

    it("openapi.json documents the voice operations, their problems and the Idempotency-Key of the *Idem* ones", async () => {
      const spec = (await call("/openapi.json", { key: null })).body
      const base = "/v1/projects/{projectId}/platforms/voice"
      const op = (path: string, method: string) => spec.paths[`${base}${path}`]?.[method]
      expect(op("/calls/signals", "post").operationId).toBe("voice.ingestCallSignals")
      expect(op("/calls", "get").operationId).toBe("voice.listCalls")
      expect(op("/lines/profile-assignments/batch", "post").operationId).toBe("voice.batchUpdateVoiceLineProfileAssignments")
      const idemHeader = (o: any) => (o.parameters ?? []).some((p: any) => p.name === "Idempotency-Key" && p.required === true)
      expect(idemHeader(op("/profiles/{profileId}/outbound", "put"))).toBe(true)
      expect(idemHeader(op("/profiles/{profileId}/outbound/rotate", "post"))).toBe(true)
      expect(idemHeader(op("/calls", "post"))).toBe(true)
      expect(idemHeader(op("/calls/signals", "post"))).toBe(false)
      expect(Object.keys(op("/profiles/{profileId}", "delete").responses)).toEqual(expect.arrayContaining(["204", "409", "404"]))
      expect(JSON.stringify(op("/profiles/{profileId}/outbound/rotate", "post").responses["409"])).toContain("VOICE_OUTBOUND_OPERATION_PENDING")
    })

    it("access: platforms:read reads, platforms:write writes; other permissions and other projects are refused", async () => {
      const p = await newProject(s, call)
      await call(`${profiles(p)}/default`, { method: "PUT", json: { protocol: "sip" } })
      const reader = await projectKey(call, p, ["platforms:read"])
      const writer = await projectKey(call, p, ["platforms:write"])
      const events = await projectKey(call, p, ["events:write"])
      expect((await call(`${profiles(p)}/default`, { key: reader })).res.status).toBe(200)
      expectProblem(await call(`${profiles(p)}/default`, { key: events }), 403, "FORBIDDEN")
      expectProblem(await call(profiles(p), { method: "POST", json: { name: "X", protocol: "sip" }, key: reader }), 403, "FORBIDDEN")
      expect((await call(profiles(p), { method: "POST", json: { name: "X", protocol: "sip" }, key: writer })).res.status).toBe(201)
      const other = await newProject(s, call)
      expectProblem(await call(`${profiles(other)}/default`, { key: reader }), 403, "RESOURCE_MISMATCH")
    })
  })
}
