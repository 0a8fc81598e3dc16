import { Account, UploadTicket } from "@switchboard/core/accounts"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import { AccountId, formatTypeId, IdKinds, OrganizationId, uuidv7Bytes, UploadId } from "@switchboard/core/shared"
import { type UploadTicketRecord, UploadTicketsRepo, uploadFormOf } from "@switchboard/core/uploads"
import { testBackends } from "@switchboard/sql-adapter"
import { DateTime, Effect, Result, Schema } from "effect"
import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { expectProblem, httpClient } from "../support/HttpClient.js"

const MiB = 1024 * 1024
let seq = 0
const idem = () => `upl-${Date.now()}-${++seq}`

/** Image bytes of each accepted type: the magic number, then filler. */
const png = (size = 64) => {
  const b = new Uint8Array(size).fill(0x42)
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return b
}
const jpeg = (size = 64) => {
  const b = new Uint8Array(size).fill(0x17)
  b.set([0xff, 0xd8, 0xff, 0xe0])
  return b
}
const webp = (size = 64) => {
  const b = new Uint8Array(size).fill(0x01)
  b.set([0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x20])
  return b
}

for (const backend of testBackends()) {
  describe(`/v1 uploads: profile pictures and agent avatars (${backend})`, () => {
    let s: TestServer
    let dataDir: string
    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), "sb-uploads-"))
      s = await startTestServer(backend, { dataDir })
    })
    afterAll(async () => {
      try {
        await s?.close()
      } finally {
        await rm(dataDir, { recursive: true, force: true })
      }
    })

    /** Our URLs name API_URL (no port in tests); requests go to the test server. */
    const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, s.baseUrl)
    const call = httpClient(() => s)
    const newTicket = async (contentType = "image/png", key = s.serviceKey) => {
      const r = await call("/v1/account/profile-picture/uploads", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ contentType }),
        key
      })
      expect(r.res.status).toBe(201)
      return r.body as { expiresAt: string; formFields: Record<string, string>; uploadId: string; uploadUrl: string }
    }
    /** POSTs the form fields and then the file, as a browser or an S3-style client would. */
    const upload = async (
      ticket: { formFields: Record<string, string>; uploadUrl: string },
      bytes: Uint8Array | null,
      options: { fields?: Record<string, string>; fileType?: string; url?: string } = {}
    ) => {
      const form = new FormData()
      for (const [k, v] of Object.entries(options.fields ?? ticket.formFields)) form.append(k, v)
      if (bytes !== null) form.append("file", new Blob([bytes], { type: options.fileType ?? "application/octet-stream" }), "picture")
      const res = await fetch(local(options.url ?? ticket.uploadUrl), { method: "POST", body: form })
      const text = await res.text()
      return { res, body: text === "" ? undefined : (JSON.parse(text) as any), text }
    }
    const commit = (uploadId: string, key = idem(), credential = s.serviceKey) =>
      call("/v1/account/profile-picture", {
        method: "PUT",
        headers: { "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ uploadId }),
        key: credential
      })
    const reset = (key = idem(), credential = s.serviceKey) =>
      call("/v1/account/profile-picture", { method: "DELETE", headers: { "idempotency-key": key }, key: credential })
    const blobFiles = async () => (await readdir(join(dataDir, "blobs")).catch(() => [] as Array<string>)).filter((f) => !f.startsWith("."))

    it("ticket → upload → commit → the picture is served with the same bytes and type → reset → default", async () => {
      const before = Date.now()
      const ticket = await newTicket("image/png")
      expect(Result.isSuccess(Schema.decodeUnknownResult(UploadTicket)(ticket))).toBe(true)
      expect(ticket.uploadId).toMatch(/^sb_upl_[0-9a-z]{26}$/)
      expect(ticket.uploadUrl).toBe(`http://127.0.0.1/v1/uploads/${ticket.uploadId}`)
      const ttl = Date.parse(ticket.expiresAt) - before
      expect(ttl).toBeGreaterThan(9.9 * 60_000)
      expect(ttl).toBeLessThanOrEqual(10 * 60_000 + 5_000)
      expect(Object.keys(ticket.formFields).sort()).toEqual(
        ["contentType", "expiresAt", "maxBytes", "owner", "purpose", "signature", "uploadId"]
      )
      expect(ticket.formFields).toMatchObject({ uploadId: ticket.uploadId, contentType: "image/png", maxBytes: String(5 * MiB), purpose: "profile_picture" })

      const bytes = png(4096)
      const up = await upload(ticket, bytes) // no bearer: the signed form is the authority
      expect(up.res.status).toBe(204)
      expect(up.text).toBe("")

      const key = idem()
      const committed = await commit(ticket.uploadId, key)
      expect(committed.res.status).toBe(200)
      expect(Result.isSuccess(Schema.decodeUnknownResult(Account)(committed.body))).toBe(true)
      expect(committed.body.accountId).toBe(s.accountId)
      expect(committed.body.pictureUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1/v1/files/${ticket.uploadId}_[0-9a-z]{16}\\.png$`))
      const replay = await commit(ticket.uploadId, key)
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body).toEqual(committed.body)
      expect((await call("/v1/account")).body.pictureUrl).toBe(committed.body.pictureUrl)

      const served = await fetch(local(committed.body.pictureUrl))
      expect(served.status).toBe(200)
      expect(served.headers.get("content-type")).toBe("image/png")
      expect(served.headers.get("x-content-type-options")).toBe("nosniff")
      expect(served.headers.get("cache-control")).toBe("public, max-age=86400")
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes)

      const back = await reset()
      expect(back.res.status).toBe(200)
      expect(back.body.pictureUrl).toBe("http://127.0.0.1/assets/default-avatar.svg")
      expect((await call("/v1/account")).body.pictureUrl).toBe("http://127.0.0.1/assets/default-avatar.svg")
      // The reset picture is gone from the store, not just unlinked from the account.
      const gone = await fetch(local(committed.body.pictureUrl))
      expect(gone.status).toBe(404)
      expect((await blobFiles()).some((f) => f.startsWith(ticket.uploadId))).toBe(false)
      // Resetting again is a no-op that still answers the account.
      expect((await reset()).body.pictureUrl).toBe("http://127.0.0.1/assets/default-avatar.svg")
    })

    it("accepts JPEG and WebP as declared, and a new picture replaces (and deletes) the old one", async () => {
      const urls: Array<string> = []
      for (const [contentType, bytes, ext] of [["image/jpeg", jpeg(), "jpg"], ["image/webp", webp(), "webp"]] as const) {
        const ticket = await newTicket(contentType)
        expect((await upload(ticket, bytes, { fileType: contentType })).res.status).toBe(204)
        const committed = await commit(ticket.uploadId)
        expect(committed.res.status).toBe(200)
        expect(committed.body.pictureUrl).toMatch(new RegExp(`\\.${ext}$`))
        const served = await fetch(local(committed.body.pictureUrl))
        expect(served.headers.get("content-type")).toBe(contentType)
        expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes)
        urls.push(committed.body.pictureUrl)
      }
      expect((await fetch(local(urls[0]!))).status).toBe(404)
      expect((await fetch(local(urls[1]!))).status).toBe(200)
    })

    it("422 VALIDATION_FAILED when the bytes are not of the declared type; the ticket stays usable", async () => {
      const ticket = await newTicket("image/png")
      for (const bytes of [jpeg(), webp(), new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>"), new Uint8Array(0)]) {
        const r = await upload(ticket, bytes, { fileType: "image/png" })
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues).toEqual([expect.objectContaining({ location: "form", path: "/file", code: "content_type_mismatch" })])
      }
      expectProblem(await commit(ticket.uploadId), 409, "FAILED_PRECONDITION")
      expect((await upload(ticket, png())).res.status).toBe(204)
      expect((await commit(ticket.uploadId)).res.status).toBe(200)
    })

    it("413 PAYLOAD_TOO_LARGE for 5 MiB + 1 byte (while streaming) and a larger body (by Content-Length); 5 MiB exactly is fine", async () => {
      const over = await newTicket("image/jpeg")
      expectProblem(await upload(over, jpeg(5 * MiB + 1)), 413, "PAYLOAD_TOO_LARGE")
      expectProblem(await upload(over, jpeg(8 * MiB)), 413, "PAYLOAD_TOO_LARGE")
      // Nothing was stored, and the ticket still takes a file of the right size.
      expectProblem(await commit(over.uploadId), 409, "FAILED_PRECONDITION")
      expect((await blobFiles()).some((f) => f.startsWith(over.uploadId))).toBe(false)
      const exact = jpeg(5 * MiB)
      expect((await upload(over, exact)).res.status).toBe(204)
      const committed = await commit(over.uploadId)
      expect(committed.res.status).toBe(200)
      expect(new Uint8Array(await (await fetch(local(committed.body.pictureUrl))).arrayBuffer()).length).toBe(5 * MiB)
    })

    it("a chunked upload without Content-Length is refused after about 5 MiB, not read (or buffered) whole", async () => {
      const ticket = await newTicket("image/png")
      const boundary = "----sb-test-boundary"
      const encoder = new TextEncoder()
      const head = Object.entries(ticket.formFields)
        .map(([k, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
        .join("") + `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.png"\r\ncontent-type: image/png\r\n\r\n`
      const chunk = png(64 * 1024)
      let sent = 0
      const limit = 100 * MiB
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(head))
        },
        pull(controller) {
          if (sent >= limit) return controller.close()
          sent += chunk.length
          controller.enqueue(chunk)
        }
      })
      const res = await fetch(local(ticket.uploadUrl), {
        method: "POST",
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
        body,
        duplex: "half"
      } as RequestInit)
      expect(res.status).toBe(413)
      expect(((await res.json()) as any).code).toBe("PAYLOAD_TOO_LARGE")
      // Refused long before the whole 100 MiB: how far past 5 MiB the client got before the 413 reached
      // it depends on socket buffers and the machine's load, not on the server (which stops reading).
      expect(sent).toBeLessThan(50 * MiB)
      expect((await blobFiles()).some((f) => f.startsWith(ticket.uploadId))).toBe(false)
    })

    it("403 FORBIDDEN when any signed form field is changed, or the form is another upload's", async () => {
      const ticket = await newTicket("image/png")
      const changed: Record<string, string> = {
        uploadId: `sb_upl_${"0".repeat(26)}`,
        owner: `account:${"x".repeat(20)}`,
        purpose: "agent_avatar:0190f5c2-7c1e-7a00-8000-000000000001",
        contentType: "image/jpeg",
        maxBytes: String(50 * MiB),
        expiresAt: "2099-01-01T00:00:00.000Z",
        signature: ticket.formFields.signature!.replace(/^./, (c) => (c === "A" ? "B" : "A"))
      }
      for (const [field, value] of Object.entries(changed)) {
        const r = await upload(ticket, field === "contentType" ? jpeg() : png(), { fields: { ...ticket.formFields, [field]: value } })
        expectProblem(r, 403, "FORBIDDEN")
      }
      const other = await newTicket("image/png")
      expectProblem(await upload(other, png(), { url: ticket.uploadUrl }), 403, "FORBIDDEN")
      // A missing field is named; nothing above used the ticket up.
      const { signature: _, ...unsigned } = ticket.formFields
      const missing = await upload(ticket, png(), { fields: unsigned })
      expectProblem(missing, 422, "VALIDATION_FAILED")
      expect(missing.body.issues[0]).toMatchObject({ location: "form", path: "/signature" })
      expect((await upload(ticket, png())).res.status).toBe(204)
    })

    it("409 FAILED_PRECONDITION for an expired ticket: neither its upload nor its commit is accepted", async () => {
      const now = Date.now()
      const ticketOf = (overrides: Partial<UploadTicketRecord>): UploadTicketRecord => ({
        uploadId: UploadId.make(`sb_upl_${Math.random().toString(36).slice(2).padEnd(26, "0").slice(0, 26)}`),
        owner: `account:${s.accountId}`,
        purpose: "profile_picture",
        contentType: "image/png",
        maxBytes: 5 * MiB,
        state: "pending",
        blobKey: null,
        byteSize: null,
        createdAt: DateTime.makeUnsafe(now - 11 * 60_000) as DateTime.Utc,
        expiresAt: DateTime.makeUnsafe(now - 60_000) as DateTime.Utc,
        receivedAt: null,
        committedAt: null,
        ...overrides
      })
      const store = (ticket: UploadTicketRecord) =>
        s.run(Effect.gen(function*() {
          yield* (yield* UploadTicketsRepo).insert(ticket)
          return yield* uploadFormOf(ticket)
        }))
      const expired = ticketOf({})
      const formFields = await store(expired)
      const r = await upload({ formFields, uploadUrl: `http://x/v1/uploads/${expired.uploadId}` }, png())
      expectProblem(r, 409, "FAILED_PRECONDITION")
      expect(r.body.detail).toMatch(/expired/)
      const late = ticketOf({ state: "received", blobKey: `${"x"}.png`, byteSize: 64, receivedAt: DateTime.makeUnsafe(now - 5 * 60_000) as DateTime.Utc })
      await store(late)
      const c = await commit(late.uploadId)
      expectProblem(c, 409, "FAILED_PRECONDITION")
      expect(c.body.detail).toMatch(/expired/)
    })

    it("a second upload to the same ticket and a second commit are 409 FAILED_PRECONDITION", async () => {
      const ticket = await newTicket("image/png")
      expectProblem(await commit(ticket.uploadId), 409, "FAILED_PRECONDITION")
      expect((await upload(ticket, png())).res.status).toBe(204)
      const again = await upload(ticket, png(128))
      expectProblem(again, 409, "FAILED_PRECONDITION")
      expect(again.body.detail).toMatch(/already uploaded/)
      const first = await commit(ticket.uploadId)
      expect(first.res.status).toBe(200)
      const second = await commit(ticket.uploadId)
      expectProblem(second, 409, "FAILED_PRECONDITION")
      expect(second.body.detail).toMatch(/already committed/)
      expect((await call("/v1/account")).body.pictureUrl).toBe(first.body.pictureUrl)
    })

    it("another account's uploadId is 404 RESOURCE_NOT_FOUND on commit and stays the owner's to commit", async () => {
      const other = await s.newAccount(`other-${Date.now()}@example.com`)
      const ticket = await newTicket("image/png", other.serviceKey)
      expect(ticket.formFields.owner).toBe(`account:${other.accountId as AccountId}`)
      expect((await upload(ticket, png())).res.status).toBe(204)
      const before = (await call("/v1/account")).body.pictureUrl
      expectProblem(await commit(ticket.uploadId), 404, "RESOURCE_NOT_FOUND")
      expect((await call("/v1/account")).body.pictureUrl).toBe(before)
      expectProblem(await commit(`sb_upl_${"9".repeat(26)}`), 404, "RESOURCE_NOT_FOUND")
      const own = await commit(ticket.uploadId, idem(), other.serviceKey)
      expect(own.res.status).toBe(200)
      expect(own.body.accountId).toBe(other.accountId)
    })

    it("validates every request: body shapes, Idempotency-Key, credentials, media type, methods, file keys", async () => {
      const gif = await call("/v1/account/profile-picture/uploads", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ contentType: "image/gif" })
      })
      expectProblem(gif, 422, "VALIDATION_FAILED")
      expect(gif.body.issues[0]).toMatchObject({ location: "json", path: "/contentType" })
      const badId = await commit("sb_upl_TOO-SHORT")
      expectProblem(badId, 422, "VALIDATION_FAILED")
      expect(badId.body.issues[0]).toMatchObject({ location: "json", path: "/uploadId" })
      const noKey = await call("/v1/account/profile-picture", {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ uploadId: `sb_upl_${"1".repeat(26)}` })
      })
      expectProblem(noKey, 400, "IDEMPOTENCY_KEY_REQUIRED")
      expectProblem(await call("/v1/account/profile-picture", { method: "DELETE" }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      expectProblem(
        await call("/v1/account/profile-picture/uploads", { method: "POST", body: "{}", headers: { "content-type": "application/json" }, key: null }),
        401,
        "NOT_AUTHENTICATED"
      )

      const ticket = await newTicket("image/png")
      const json = await fetch(local(ticket.uploadUrl), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(ticket.formFields)
      })
      expect(json.status).toBe(422)
      expect(((await json.json()) as any).issues[0]).toMatchObject({ location: "header", path: "/content-type" })
      const noFile = await upload(ticket, null)
      expectProblem(noFile, 422, "VALIDATION_FAILED")
      expect(noFile.body.issues[0]).toMatchObject({ location: "form", path: "/file" })

      const wrongMethod = await fetch(local(ticket.uploadUrl))
      expect(wrongMethod.status).toBe(405)
      expect(wrongMethod.headers.get("allow")).toBe("POST")
      for (const key of ["nothing-here.png", "..%2F..%2Fpackage.json", "%2Eenv"]) {
        const r = await fetch(`${s.baseUrl}/v1/files/${key}`)
        expect(r.status).toBe(404)
        expect(r.headers.get("content-type")).toBe("application/problem+json")
      }
    })

    describe("agent avatars", () => {
      /** A new organization owned by `accountId` (through the Organizations store port) and a project in it. */
      const newProject = async (accountId = s.accountId, key = s.serviceKey) => {
        const organizationId = await s.run(Effect.gen(function*() {
          const id = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10)))))
          const now = yield* DateTime.now
          yield* (yield* OrganizationsRepo).insert({ organizationId: id, name: "Org", createdAt: now, updatedAt: now }, AccountId.make(accountId))
          return id as string
        }))
        const r = await call(`/v1/organizations/${organizationId}/projects`, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": idem() },
          body: JSON.stringify({ name: "Avatar Project", slug: `avatar-${Date.now().toString(36)}-${++seq}x` }),
          key
        })
        expect(r.res.status, JSON.stringify(r.body)).toBe(201)
        return r.body.projectId as string
      }
      const projectKey = async (projectId: string, permissions: Array<string>) => {
        const r = await call(`/v1/projects/${projectId}/api-keys`, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": idem() },
          body: JSON.stringify({ name: "k", permissions })
        })
        expect(r.res.status, JSON.stringify(r.body)).toBe(201)
        return r.body.secret as string
      }
      const avatarTicket = (projectId: string, contentType = "image/png", key = s.serviceKey) =>
        call(`/v1/projects/${projectId}/agent-profile/avatar/uploads`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ contentType }),
          key
        })
      const commitAvatar = (projectId: string, uploadId: string, key = s.serviceKey, idempotencyKey = idem()) =>
        call(`/v1/projects/${projectId}/agent-profile/avatar`, {
          method: "PUT",
          headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
          body: JSON.stringify({ uploadId }),
          key
        })
      const resetAvatar = (projectId: string, key = s.serviceKey) =>
        call(`/v1/projects/${projectId}/agent-profile/avatar`, { method: "DELETE", headers: { "idempotency-key": idem() }, key })
      const defaultAvatar = "http://127.0.0.1/assets/default-avatar.svg"

      it("ticket → upload → commit → the agent profile shows the served avatar → reset → default", async () => {
        const projectId = await newProject()
        const t = await avatarTicket(projectId, "image/webp")
        expect(t.res.status).toBe(201)
        expect(Result.isSuccess(Schema.decodeUnknownResult(UploadTicket)(t.body))).toBe(true)
        expect(t.body.formFields).toMatchObject({ purpose: `agent_avatar:${projectId}`, owner: `account:${s.accountId}`, contentType: "image/webp" })
        const bytes = webp(2048)
        expect((await upload(t.body, bytes)).res.status).toBe(204)
        const key = idem()
        const committed = await commitAvatar(projectId, t.body.uploadId, s.serviceKey, key)
        expect(committed.res.status, JSON.stringify(committed.body)).toBe(200)
        expect(committed.body).toEqual({ avatarUrl: expect.stringMatching(new RegExp(`/v1/files/${t.body.uploadId}_[0-9a-z]{16}\\.webp$`)), firstName: "Avatar Project", lastName: null })
        const replay = await commitAvatar(projectId, t.body.uploadId, s.serviceKey, key)
        expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
        expect((await call(`/v1/projects/${projectId}/agent-profile`)).body.avatarUrl).toBe(committed.body.avatarUrl)
        expect((await call(`/v1/projects/${projectId}`)).body.agentProfile.avatarUrl).toBe(committed.body.avatarUrl)
        const served = await fetch(local(committed.body.avatarUrl))
        expect(served.headers.get("content-type")).toBe("image/webp")
        expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes)
        expectProblem(await commitAvatar(projectId, t.body.uploadId), 409, "FAILED_PRECONDITION")

        const reset = await resetAvatar(projectId)
        expect(reset.res.status).toBe(200)
        expect(reset.body.avatarUrl).toBe(defaultAvatar)
        expect((await call(`/v1/projects/${projectId}/agent-profile`)).body.avatarUrl).toBe(defaultAvatar)
        expect((await fetch(local(committed.body.avatarUrl))).status).toBe(404)
        expect((await resetAvatar(projectId)).body.avatarUrl).toBe(defaultAvatar)
      })

      it("a project key with project:write does it all; project:read is 403 FORBIDDEN, another project's key 403 RESOURCE_MISMATCH", async () => {
        const projectId = await newProject()
        const writer = await projectKey(projectId, ["project:write"])
        const t = await avatarTicket(projectId, "image/jpeg", writer)
        expect(t.res.status, JSON.stringify(t.body)).toBe(201)
        expect(t.body.formFields.owner).toMatch(/^project-key:sb_sk_/)
        expect((await upload(t.body, jpeg())).res.status).toBe(204)
        // The ticket is the key's: the account cannot commit it, the key can.
        expectProblem(await commitAvatar(projectId, t.body.uploadId), 404, "RESOURCE_NOT_FOUND")
        const committed = await commitAvatar(projectId, t.body.uploadId, writer)
        expect(committed.res.status, JSON.stringify(committed.body)).toBe(200)
        expect(committed.body.avatarUrl).toMatch(/\.jpg$/)
        expect((await resetAvatar(projectId, writer)).body.avatarUrl).toBe(defaultAvatar)

        const reader = await projectKey(projectId, ["project:read"])
        expectProblem(await avatarTicket(projectId, "image/png", reader), 403, "FORBIDDEN")
        expectProblem(await resetAvatar(projectId, reader), 403, "FORBIDDEN")
        const otherProject = await newProject()
        expectProblem(await avatarTicket(otherProject, "image/png", writer), 403, "RESOURCE_MISMATCH")
      })

      it("a ticket is bound to its purpose and project: 422 for a picture ticket or another project's avatar ticket", async () => {
        const a = await newProject()
        const b = await newProject()
        const picture = await newTicket("image/png")
        expect((await upload(picture, png())).res.status).toBe(204)
        const wrongPurpose = await commitAvatar(a, picture.uploadId)
        expectProblem(wrongPurpose, 422, "VALIDATION_FAILED")
        expect(wrongPurpose.body.issues[0]).toMatchObject({ location: "json", path: "/uploadId" })
        const forA = (await avatarTicket(a)).body
        expect((await upload(forA, png())).res.status).toBe(204)
        expectProblem(await commitAvatar(b, forA.uploadId), 422, "VALIDATION_FAILED")
        expectProblem(await commit(forA.uploadId), 422, "VALIDATION_FAILED")
        // Unknown ids (the contract gives this one no pattern) are simply not found.
        expectProblem(await commitAvatar(a, "whatever-id"), 404, "RESOURCE_NOT_FOUND")
        expect((await commitAvatar(a, forA.uploadId)).res.status).toBe(200)
      })

      it("project gates: a non-member gets 404 PROJECT_NOT_FOUND, a closing project 409 PROJECT_CLOSING, a bad id 422", async () => {
        const projectId = await newProject()
        const stranger = await s.newAccount(`stranger-${Date.now()}@example.com`)
        expectProblem(await avatarTicket(projectId, "image/png", stranger.serviceKey), 404, "PROJECT_NOT_FOUND")
        const t = (await avatarTicket(projectId)).body
        expect((await upload(t, png())).res.status).toBe(204)
        expectProblem(await commitAvatar(projectId, t.uploadId, stranger.serviceKey), 404, "PROJECT_NOT_FOUND")
        expectProblem(await resetAvatar(projectId, stranger.serviceKey), 404, "PROJECT_NOT_FOUND")
        const deleted = await call(`/v1/projects/${projectId}`, { method: "DELETE", headers: { "idempotency-key": idem() } })
        expect(deleted.res.status, JSON.stringify(deleted.body)).toBe(200)
        expectProblem(await avatarTicket(projectId), 409, "PROJECT_CLOSING")
        expectProblem(await commitAvatar(projectId, t.uploadId), 409, "PROJECT_CLOSING")
        expectProblem(await resetAvatar(projectId), 409, "PROJECT_CLOSING")
        expectProblem(await avatarTicket("not-a-uuid"), 422, "VALIDATION_FAILED")
        const noKey = await call(`/v1/projects/${projectId}/agent-profile/avatar`, { method: "DELETE" })
        expectProblem(noKey, 400, "IDEMPOTENCY_KEY_REQUIRED")
      })
    })
  })
}
