/**
 * /v1 iMessage (docs/provisioning.md) on a real server, the operation worker run by hand and
 * the simulated pool controlled by the test: the mode from entitlements, shared-line assignments
 * (seats, the cap, one live assignment per handle, the pool running out and the Dashboard's
 * auto-scale setting growing it, release kept with releasedAt), dedicated lines (402 without the
 * entitlement, 202 + Location, waiting for capacity first in first out, the line as a resource,
 * release), billing (the line is a held fixed charge while active and shows on the invoice that
 * closes the period), events, permissions and a closing project.
 */
import { BillingRepo, BillingService } from "@switchboard/core/billing"
import { EventOutbox } from "@switchboard/core/events"
import { ProjectSettingsRepo, ProjectsRepo } from "@switchboard/core/projects"
import type { ProjectId } from "@switchboard/core/shared"
import { testBackends } from "@switchboard/sql-adapter"
import { DateTime, Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { heldLines, imessageTestAdapters, makeDedicated } from "../support/ImessageHttp.js"
import { runWorker } from "../support/PlatformsHttp.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { idem, newProject, projectKey } from "../support/VoiceHttp.js"

for (const backend of testBackends()) {
  describe(`/v1 iMessage (${backend})`, () => {
    let s: TestServer
    const adapters = imessageTestAdapters()
    beforeAll(async () => {
      s = await startTestServer(backend, { billingSchedulerEnabled: false }, adapters.layer)
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    const base = (p: string) => `/v1/projects/${p}/platforms/imessage`
    const assign = (p: string, json: unknown, key = idem()) => call(`${base(p)}/assignments`, { method: "POST", json, idem: key })
    const provision = (p: string, key = idem()) => call(`${base(p)}/dedicated`, { method: "POST", idem: key })
    const operation = (p: string, id: string) => call(`/v1/projects/${p}/platforms/operations/${id}`)
    const setAutoScale = (p: string, autoScale: boolean) =>
      s.run(Effect.flatMap(ProjectSettingsRepo, (r) =>
        Effect.flatMap(DateTime.now, (now) => r.putAutoScale({ projectId: p as ProjectId, autoScale, now }))))

    it("the mode follows the plan's entitlements: shared with its seat cap, or dedicated", async () => {
      const p = await newProject(s, call)
      expect((await call(base(p))).body).toEqual({ mode: "shared", maxUserAssignments: 2 })
      await makeDedicated(s, p)
      const r = await call(base(p))
      expect(r.res.status).toBe(200)
      expect(r.body).toEqual({ mode: "dedicated" })
      expect(r.res.headers.get("dedicated-line-available")).toBe("true")
      const other = await projectKey(call, p, ["project:read"])
      expectProblem(await call(base(p), { key: other }), 403, "FORBIDDEN")
      expectProblem(await call(base(p), { key: null }), 401, "NOT_AUTHENTICATED")
    })

    it("shared-line assignments: seats, the cap, one live assignment per handle, release kept and repeat-safe", async () => {
      const p = await newProject(s, call)
      expectProblem(await call(`${base(p)}/assignments`, { method: "POST", json: { handle: "+15550100" } }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      for (const bad of [{}, { handle: "not a handle" }, { handle: "+15550100", extra: 1 }, { handle: "+15550100", firstName: "" },
        { handle: "a".repeat(250) + "@x.io" }, { handle: "+15550100", email: "nope" }]) {
        expectProblem(await assign(p, bad), 422, "VALIDATION_FAILED")
      }
      const key = idem()
      const a = await assign(p, { handle: "Ada@Example.com", email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" }, key)
      expect(a.res.status, a.text).toBe(201)
      expect(a.body).toEqual({
        assignmentId: expect.stringMatching(/^sb_asg_[0-7][0-9a-hjkmnp-tv-z]{25}$/),
        projectId: p,
        platform: "imessage",
        handle: "Ada@Example.com",
        assignedPhoneNumber: "+16285550200",
        email: "ada@example.com",
        firstName: "Ada",
        lastName: "Lovelace",
        createdAt: a.body.createdAt,
        updatedAt: a.body.createdAt
      })
      // A replay answers the same; another key for the same handle (any case) is refused.
      expect((await assign(p, { handle: "Ada@Example.com", email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" }, key)).body)
        .toEqual(a.body)
      expectProblem(await assign(p, { handle: "ada@example.com" }, key), 422, "IDEMPOTENCY_KEY_REUSED")
      expectProblem(await assign(p, { handle: "ADA@example.com" }), 409, "ASSIGNMENT_EXISTS")
      const b = await assign(p, { handle: "+15550101" })
      expect(b.res.status).toBe(201)
      const cap = await assign(p, { handle: "+15550102" })
      expectProblem(cap, 409, "SHARED_LINE_CAP_EXCEEDED")

      expect((await call(`${base(p)}/assignments/${a.body.assignmentId}`)).body).toEqual(a.body)
      expectProblem(await call(`${base(p)}/assignments/sb_asg_unknown`), 404, "ASSIGNMENT_NOT_FOUND")
      const released = await call(`${base(p)}/assignments/${a.body.assignmentId}`, { method: "DELETE" })
      expect(released.res.status).toBe(200)
      expect(released.body.releasedAt).toBeDefined()
      expect((await call(`${base(p)}/assignments/${a.body.assignmentId}`, { method: "DELETE" })).body).toEqual(released.body)
      expectProblem(await call(`${base(p)}/assignments/sb_asg_unknown`, { method: "DELETE" }), 404, "ASSIGNMENT_NOT_FOUND")

      const live = await call(`${base(p)}/assignments`)
      expect(live.body.assignments.map((x: any) => x.handle)).toEqual(["+15550101"])
      const all = await call(`${base(p)}/assignments?includeReleased=true&pageSize=1`)
      expect(all.body.assignments.map((x: any) => x.handle)).toEqual(["Ada@Example.com"])
      const next = await call(`${base(p)}/assignments?includeReleased=true&pageSize=1&pageToken=${all.body.nextPageToken}`)
      expect(next.body.assignments.map((x: any) => x.handle)).toEqual(["+15550101"])
      expect(next.body.nextPageToken).toBeUndefined()
      expectProblem(await call(`${base(p)}/assignments?pageToken=${all.body.nextPageToken}`), 422, "VALIDATION_FAILED")
      expectProblem(await call(`${base(p)}/assignments?pageSize=0`), 422, "VALIDATION_FAILED")
      expectProblem(await call(`${base(p)}/assignments?includeReleased=maybe`), 422, "VALIDATION_FAILED")

      // The handle is free again once released.
      const again = await assign(p, { handle: "ada@example.com" })
      expect(again.res.status).toBe(201)
      for (const id of [again.body.assignmentId, b.body.assignmentId]) {
        expect((await call(`${base(p)}/assignments/${id}`, { method: "DELETE" })).res.status).toBe(200)
      }
      const reader = await projectKey(call, p, ["platforms:read"])
      expect((await call(`${base(p)}/assignments`, { key: reader })).res.status).toBe(200)
    })

    it("the shared pool runs out unless the project's auto-scale setting lets it grow", async () => {
      const p1 = await newProject(s, call)
      const p2 = await newProject(s, call)
      const seats = [(await assign(p1, { handle: "+15550200" })).body, (await assign(p1, { handle: "+15550201" })).body]
      expect(seats.map((x) => x.assignedPhoneNumber)).toEqual(["+16285550200", "+16285550200"])
      const full = await assign(p2, { handle: "+15550202" })
      expectProblem(full, 503, "SHARED_LINE_POOL_EXHAUSTED")
      expect(full.res.headers.get("retry-after")).toBe("30")
      // With the pool full, a handle that is already assigned is a conflict (never retried), not 503.
      expectProblem(await assign(p1, { handle: "+15550200" }), 409, "ASSIGNMENT_EXISTS")
      await setAutoScale(p2, true)
      const grown = await assign(p2, { handle: "+15550202" })
      expect(grown.res.status, grown.text).toBe(201)
      expect(grown.body.assignedPhoneNumber).toBe("+16285550201")
      // A seat refused by the cap goes back to the pool.
      await assign(p2, { handle: "+15550203" })
      expectProblem(await assign(p2, { handle: "+15550204" }), 409, "SHARED_LINE_CAP_EXCEEDED")
      // At the cap, an assigned handle is still named as the conflict it is.
      expectProblem(await assign(p2, { handle: "+15550203" }), 409, "ASSIGNMENT_EXISTS")
      for (const [p, id] of [[p1, seats[0].assignmentId], [p1, seats[1].assignmentId], [p2, grown.body.assignmentId]]) {
        await call(`${base(p)}/assignments/${id}`, { method: "DELETE" })
      }
      const list = await call(`${base(p2)}/assignments`)
      for (const x of list.body.assignments) await call(`${base(p2)}/assignments/${x.assignmentId}`, { method: "DELETE" })
      await setAutoScale(p2, false)
    })

    it("dedicated mode refuses shared assignments; shared mode needs the entitlement for dedicated lines (402)", async () => {
      const p = await newProject(s, call)
      expectProblem(await provision(p), 402, "ENTITLEMENT_REQUIRED")
      expectProblem(await call(`${base(p)}/dedicated`, { method: "POST" }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      await makeDedicated(s, p)
      expectProblem(await assign(p, { handle: "+15550300" }), 409, "IMESSAGE_MODE_DEDICATED")
      const reader = await projectKey(call, p, ["platforms:read"])
      expectProblem(await call(`${base(p)}/dedicated`, { method: "POST", idem: idem(), key: reader }), 403, "FORBIDDEN")
    })

    it("dedicated lines: 202 + Location, FIFO waiting for capacity, a priced resource charged while held", async () => {
      const p1 = await newProject(s, call)
      const p2 = await newProject(s, call)
      await makeDedicated(s, p1)
      await makeDedicated(s, p2)
      const key = idem()
      const first = await provision(p1, key)
      expect(first.res.status, first.text).toBe(202)
      expect(first.res.headers.get("location")).toMatch(new RegExp(`/v1/projects/${p1}/platforms/operations/${first.body.operationId}$`))
      expect(first.res.headers.get("retry-after")).toBe("2")
      expect(first.body).toMatchObject({ type: "resource.provision", resourceType: "imessage_line", state: "pending", cancellable: true })
      expect((await provision(p1, key)).body.operationId).toBe(first.body.operationId)
      const second = await provision(p2)
      const third = await provision(p1)
      expect((await call(base(p2))).res.headers.get("dedicated-line-available")).toBe("false")

      // One line of capacity: the oldest request gets it, the others keep running in order.
      await runWorker(s)
      const done = await operation(p1, first.body.operationId)
      expect(done.body.operation.state).toBe("succeeded")
      expect(done.body.resource).toMatchObject({
        type: "imessage_line",
        abilities: ["imessage", "pstn_voice"],
        state: "active",
        detail: { phoneNumber: "+16285550300", imessageHealth: { overallStatus: "available" } }
      })
      const waiting = await operation(p2, second.body.operationId)
      expect(waiting.body.operation.state).toBe("running")
      // Behind the first (claimed in the same pass) or at the head: waiting for capacity either way.
      expect(waiting.body.operation.detail).toMatchObject({ waitingFor: "capacity" })
      expect(waiting.res.headers.get("retry-after")).toBe("2")
      expect((await operation(p1, third.body.operationId)).body.operation.detail).toMatchObject({ queue: "behind_earlier_requests" })
      expect(await heldLines(s, p1)).toBe(1)
      expect(await heldLines(s, p2)).toBe(0)

      adapters.control.addDedicatedCapacity(1)
      await new Promise((r) => setTimeout(r, 30))
      await runWorker(s)
      expect((await operation(p2, second.body.operationId)).body.operation.state).toBe("succeeded")
      expect((await operation(p1, third.body.operationId)).body.operation.state).toBe("running")
      // The third is withdrawn: nothing charged.
      expect((await call(`/v1/projects/${p1}/platforms/operations/${third.body.operationId}/cancel`, { method: "POST" })).body.state)
        .toBe("cancelled")
      expect(await heldLines(s, p1)).toBe(1)

      // The line is a resource of the common model; the typed release refuses anything else.
      const lineId = done.body.resource.resourceId
      const resources = await call(`/v1/projects/${p1}/platforms/resources?type=imessage_line`)
      expect(resources.body.resources.map((r: any) => r.resourceId)).toEqual([lineId])
      expectProblem(await call(`${base(p1)}/dedicated/sb_lin_unknown`, { method: "DELETE" }), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(`${base(p2)}/dedicated/${lineId}`, { method: "DELETE" }), 404, "RESOURCE_NOT_FOUND")

      // Held through a period end: the closing invoice bills the line.
      const org = await s.run(Effect.map(ProjectsRepo.pipe(Effect.flatMap((r) => r.findById(p1 as ProjectId))), (x) => Option.getOrThrow(x).organizationId))
      await s.run(Effect.andThen(TestClock.setTime(Date.now() + 40 * 86_400_000), BillingService.use((billing) => billing.tick())).pipe(Effect.provide(TestClock.layer())))
      const invoices = await s.run(Effect.flatMap(BillingRepo, (r) => r.listInvoices(org)))
      const lines = invoices.filter((i) => i.projectId === p1).flatMap((i) => i.lines as ReadonlyArray<any>)
      expect(lines.filter((l) => l.code === "imessage_dedicated_line")).toEqual([
        expect.objectContaining({ kind: "fixed_charge", units: "1", amountCents: 4900 })
      ])

      const released = await call(`${base(p1)}/dedicated/${lineId}`, { method: "DELETE" })
      expect(released.res.status).toBe(200)
      expect(released.body).toMatchObject({ type: "resource.release", state: "succeeded", resourceId: lineId })
      expect(await heldLines(s, p1)).toBe(0)
      expectProblem(await call(`/v1/projects/${p1}/platforms/resources/${lineId}`), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(`${base(p1)}/dedicated/${lineId}`, { method: "DELETE" }), 404, "RESOURCE_NOT_FOUND")
      // Returned to the pool: the next request gets it.
      const p2Line = (await operation(p2, second.body.operationId)).body.resource.resourceId
      await call(`${base(p2)}/dedicated/${p2Line}`, { method: "DELETE" })
    })

    it("a request whose project loses the entitlement cancels itself (entitlement_lost)", async () => {
      const p = await newProject(s, call)
      await makeDedicated(s, p)
      const r = await provision(p)
      await s.run(Effect.gen(function*() {
        const repo = yield* BillingRepo
        const sub = Option.getOrThrow(yield* repo.lockSubscription(p as ProjectId, "imessage"))
        yield* repo.updateSubscription({ ...sub, planCode: "imessage_shared", version: sub.version + 1 })
      }))
      await runWorker(s)
      const op = (await operation(p, r.body.operationId)).body.operation
      expect(op).toMatchObject({ state: "cancelled", reason: "entitlement_lost", cancellable: false })
    })

    it("a request whose project is deleted meanwhile cancels itself (project_deleted)", async () => {
      const p = await newProject(s, call)
      await makeDedicated(s, p)
      const r = await provision(p)
      await s.run(Effect.gen(function*() {
        const repo = yield* ProjectsRepo
        const project = Option.getOrThrow(yield* repo.findById(p as ProjectId))
        const now = yield* DateTime.now
        yield* repo.update({ ...project, state: "deleted", deletedAt: now, closedAt: now })
      }))
      await runWorker(s)
      const events = (await s.run(Effect.flatMap(EventOutbox, (o) => o.list({ projectId: p, after: 0, limit: 100 })))).map((e) => e.event)
      const last = events.filter((e) => e.type === "operation.updated").at(-1)!.data as any
      expect(last).toMatchObject({ operationId: r.body.operationId, state: "cancelled", reason: "project_deleted" })
    })

    it("every change is an event; a closing project refuses iMessage writes (PROJECT_CLOSING)", async () => {
      const p = await newProject(s, call)
      const a = await assign(p, { handle: "+15550400" })
      await call(`${base(p)}/assignments/${a.body.assignmentId}`, { method: "DELETE" })
      await makeDedicated(s, p)
      const r = await provision(p)
      await runWorker(s)
      const events = (await s.run(Effect.flatMap(EventOutbox, (o) => o.list({ projectId: p, after: 0, limit: 100 })))).map((e) => e.event)
      expect(events.filter((e) => e.type === "imessage.assignment.updated").map((e) => (e.data as any).releasedAt === undefined))
        .toEqual([true, false])
      const platform = events.filter((e) => e.type === "operation.updated" || e.type === "resource.updated")
      expect(platform.map((e) => [e.type, (e.data as any).state])).toEqual([
        ["operation.updated", "pending"],
        ["operation.updated", "running"],
        ["resource.updated", "active"],
        ["operation.updated", "succeeded"]
      ])
      const lineId = (await operation(p, r.body.operationId)).body.resource.resourceId

      const deleted = await call(`/v1/projects/${p}`, { method: "DELETE", idem: idem() })
      expect(deleted.res.status, deleted.text).toBe(200)
      expectProblem(await assign(p, { handle: "+15550401" }), 409, "PROJECT_CLOSING")
      expectProblem(await provision(p), 409, "PROJECT_CLOSING")
      expectProblem(await call(`${base(p)}/dedicated/${lineId}`, { method: "DELETE" }), 409, "PROJECT_CLOSING")
      expect((await call(base(p))).res.status).toBe(200)
      expect((await call(`${base(p)}/assignments`)).res.status).toBe(200)
    })
  })
}
