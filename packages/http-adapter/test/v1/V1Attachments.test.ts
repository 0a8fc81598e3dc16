/**
 * /v1 attachments (docs/provisioning.md) on a real server: upload (the body is the file; the
 * type sniffed from the bytes, a contradicting declaration refused; the size bounded before the
 * body is read; the Idempotency-Key covering the bytes), metadata, download (bytes with their
 * type; a processing attachment waited for, then ATTACHMENT_NOT_READY with Retry-After 5), the list's
 * time filters, orders and cursor, permissions and a closing project.
 */
import { Attachments, AttachmentSettings } from "@switchboard/core/platforms"
import type { ProjectId } from "@switchboard/core/shared"
import { testBackends } from "@switchboard/sql-adapter"
import { Effect, Layer, Option } from "effect"
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { factsOf, messagesPath, newMessageId } from "../support/MessagesHttp.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { idem, newProject, projectKey } from "../support/VoiceHttp.js"

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3])
const PDF = new TextEncoder().encode("%PDF-1.7\n%fake\n")
const CSV = new TextEncoder().encode("a,b\n1,2\n")
const MAX = 2048

for (const backend of testBackends()) {
  describe(`/v1 attachments (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, {}, Layer.succeed(AttachmentSettings, { maxBytes: MAX, readyWaitMs: 300, readyPollMs: 20 }))
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    const base = (p: string) => `/v1/projects/${p}/attachments`
    const upload = (p: string, bytes: Uint8Array, type: string, key: string | null = idem(), credential?: string) =>
      call(base(p), { method: "POST", body: bytes, headers: { "content-type": type }, ...(key === null ? {} : { idem: key }), ...(credential === undefined ? {} : { key: credential }) })
    const download = (p: string, id: string, credential = s.serviceKey) =>
      fetch(`${s.baseUrl}${base(p)}/${id}/content`, { headers: { authorization: `Bearer ${credential}` } })

    it("upload: 201 once downloadable, the type from the bytes, the download answers them", async () => {
      const p = await newProject(s, call)
      const r = await upload(p, PNG, "image/png")
      expect(r.res.status, r.text).toBe(201)
      expect(r.body).toEqual({
        id: expect.stringMatching(/^sb_att_[0-7][0-9a-hjkmnp-tv-z]{25}$/),
        projectId: p,
        contentType: "image/png",
        size: PNG.length,
        state: "ready",
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        updatedAt: r.body.createdAt
      })
      expect((await call(`${base(p)}/${r.body.id}`)).body).toEqual(r.body)
      const d = await download(p, r.body.id)
      expect(d.status).toBe(200)
      expect(d.headers.get("content-type")).toBe("image/png")
      expect(d.headers.get("x-content-type-options")).toBe("nosniff")
      expect(new Uint8Array(await d.arrayBuffer())).toEqual(PNG)

      // The bytes win over a declaration they do not contradict; one they contradict is refused.
      expect((await upload(p, PDF, "application/octet-stream")).body.contentType).toBe("application/pdf")
      expect((await upload(p, CSV, "text/csv; charset=utf-8")).body.contentType).toBe("text/csv")
      expectProblem(await upload(p, CSV, "image/png"), 400, "INVALID_ATTACHMENT_REQUEST")
      expectProblem(await upload(p, CSV, "not a type"), 400, "INVALID_ATTACHMENT_REQUEST")
    })

    it("upload: the key, the headers and the size are checked; nothing is stored when refused", async () => {
      const p = await newProject(s, call)
      expectProblem(await upload(p, PNG, "image/png", null), 400, "IDEMPOTENCY_KEY_REQUIRED")
      const key = idem()
      const first = await upload(p, PNG, "image/png", key)
      const replay = await upload(p, PNG, "image/png", key)
      expect(replay.body).toEqual(first.body)
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
      expectProblem(await upload(p, PDF, "image/png", key), 422, "IDEMPOTENCY_KEY_REUSED")
      expectProblem(await upload(p, new Uint8Array(MAX + 1).fill(7), "application/octet-stream"), 413, "PAYLOAD_TOO_LARGE")
      expectProblem(await upload(p, new Uint8Array(0), "application/octet-stream"), 422, "VALIDATION_FAILED")
      const noType = await call(base(p), { method: "POST", body: PNG, idem: idem(), headers: { "content-type": "" } })
      expectProblem(noType, 422, "VALIDATION_FAILED")
      expectProblem(await upload(p, PNG, `image/${"x".repeat(520)}`), 422, "VALIDATION_FAILED")
      expect((await call(base(p))).body.items.map((a: any) => a.id)).toEqual([first.body.id])
    })

    it("upload: a Content-Encoding of gzip, deflate or br is decoded; another, or a body that does not decode, is refused", async () => {
      const p = await newProject(s, call)
      const encoded = (bytes: Uint8Array, coding: string, type = "image/png") =>
        call(base(p), { method: "POST", body: bytes, idem: idem(), headers: { "content-type": type, "content-encoding": coding } })
      for (const [coding, bytes] of [["gzip", gzipSync(PNG)], ["deflate", deflateSync(PNG)], ["br", brotliCompressSync(PNG)]] as const) {
        const r = await encoded(new Uint8Array(bytes), coding)
        expect([coding, r.res.status, r.text]).toEqual([coding, 201, r.text])
        expect(r.body).toMatchObject({ contentType: "image/png", size: PNG.length })
        expect(new Uint8Array(await (await download(p, r.body.id)).arrayBuffer())).toEqual(PNG)
      }
      const compress = await encoded(PNG, "compress")
      expectProblem(compress, 422, "VALIDATION_FAILED")
      expect(compress.body.issues[0]).toMatchObject({ location: "header", path: "/content-encoding" })
      const notGzip = await encoded(PNG, "gzip")
      expectProblem(notGzip, 422, "VALIDATION_FAILED")
      expect(notGzip.body.issues[0]).toMatchObject({ location: "body" })
      // The limit counts the decoded bytes: a small gzip of a large file is too large.
      expectProblem(await encoded(new Uint8Array(gzipSync(new Uint8Array(MAX + 1).fill(7))), "gzip", "application/octet-stream"), 413, "PAYLOAD_TOO_LARGE")
      // Only the three decoded uploads were stored.
      expect((await call(base(p))).body.items).toHaveLength(3)
    })

    it("a processing attachment: metadata at once, the download waits, then ATTACHMENT_NOT_READY (Retry-After 5)", async () => {
      const p = await newProject(s, call)
      const pending = await s.run(Effect.flatMap(Attachments, (a) => a.recordIncoming(p as ProjectId, "video/mp4")))
      expect((await call(`${base(p)}/${pending.id}`)).body).toMatchObject({ state: "processing", size: 0, contentType: "video/mp4" })
      const d = await download(p, pending.id)
      expect(d.status).toBe(409)
      expect(d.headers.get("retry-after")).toBe("5")
      expect(((await d.json()) as any).code).toBe("ATTACHMENT_NOT_READY")
      const done = await s.run(Effect.flatMap(Attachments, (a) => a.completeIncoming(pending.id, PDF)))
      expect(Option.getOrThrow(done).state).toBe("ready")
      const ok = await download(p, pending.id)
      expect(ok.status).toBe(200)
      expect(new Uint8Array(await ok.arrayBuffer())).toEqual(PDF)
    })

    it("inbound media: a received fact naming media the project has no attachment for records it processing (ATTACHMENT_NOT_READY) until the edge delivers its bytes", async () => {
      const p = await newProject(s, call)
      const recently = Date.now() - 60_000
      const media = (attachmentId: string, size?: number) => ({
        type: "attachment", attachmentId, name: "clip.mp4", mimeType: "video/mp4", ...(size === undefined ? {} : { size })
      })
      const receivedWith = (content: unknown) => {
        const m = newMessageId()
        const f = factsOf(m, recently).received(1, "sms")
        return { ...f, data: { ...(f.data as Record<string, unknown>), content } }
      }
      const ingest = async (facts: ReadonlyArray<unknown>) => {
        const r = await call(`${messagesPath(p)}/facts`, { method: "POST", json: { facts } })
        expect(r.res.status, r.text).toBe(200)
        return r.body.results as Array<any>
      }

      // The message names the project's new attachment, processing, of the declared type and size.
      const first = receivedWith(media("edge-media-1", PDF.length))
      const [applied] = await ingest([first])
      expect(applied.outcome).toBe("applied")
      const id = applied.message.content.attachmentId as string
      expect(id).toMatch(/^sb_att_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      expect(applied.message.content).toEqual({ ...media("edge-media-1", PDF.length), attachmentId: id })
      expect((await call(`${messagesPath(p)}/${first.messageId}`)).body.content.attachmentId).toBe(id)
      expect((await call(`${base(p)}/${id}`)).body).toMatchObject({ id, state: "processing", contentType: "video/mp4", size: PDF.length })
      const waiting = await download(p, id)
      expect(waiting.status).toBe(409)
      expect(waiting.headers.get("retry-after")).toBe("5")
      expect(((await waiting.json()) as any).code).toBe("ATTACHMENT_NOT_READY")

      // The same media in another message (and twice in a batch) is the same attachment; an
      // attachment the project has (an upload) is named as it is.
      const uploaded = (await upload(p, PNG, "image/png")).body.id as string
      const again = await ingest([receivedWith(media("edge-media-1")), receivedWith(media("edge-media-1")), receivedWith(media(uploaded))])
      expect(again.map((r) => r.message.content.attachmentId)).toEqual([id, id, uploaded])
      expect((await call(base(p))).body.items.map((a: any) => a.id).sort()).toEqual([id, uploaded].sort())
      // Another project's edge naming the same media has its own attachment.
      const other = await newProject(s, call)
      const elsewhere = await call(`${messagesPath(other)}/facts`, { method: "POST", json: { facts: [receivedWith(media("edge-media-1"))] } })
      expect(elsewhere.body.results[0].message.content.attachmentId).not.toBe(id)

      // The edge delivers the bytes (events:write): then the download answers them.
      const deliver = (attachmentId: string, bytes: Uint8Array, credential?: string) =>
        call(`${base(p)}/${attachmentId}/content`, {
          method: "PUT",
          body: bytes,
          headers: { "content-type": "application/octet-stream" },
          ...(credential === undefined ? {} : { key: credential })
        })
      expectProblem(await deliver(id, PDF, await projectKey(call, p, ["platforms:read"])), 403, "FORBIDDEN")
      expectProblem(await deliver("sb_att_unknown", PDF), 404, "ATTACHMENT_NOT_FOUND")
      expectProblem(await deliver(id, new Uint8Array(MAX + 1)), 413, "PAYLOAD_TOO_LARGE")
      const done = await deliver(id, PDF, await projectKey(call, p, ["events:write"]))
      expect(done.res.status, done.text).toBe(200)
      expect(done.body).toMatchObject({ id, state: "ready", contentType: "video/mp4", size: PDF.length })
      const ok = await download(p, id)
      expect(ok.status).toBe(200)
      expect(ok.headers.get("content-type")).toBe("video/mp4")
      expect(new Uint8Array(await ok.arrayBuffer())).toEqual(PDF)
      // Once it has its bytes they stay: a second delivery (or one to an upload) is refused.
      expectProblem(await deliver(id, PNG), 400, "INVALID_ATTACHMENT_REQUEST")
      expectProblem(await deliver(uploaded, PDF), 400, "INVALID_ATTACHMENT_REQUEST")
      expect(new Uint8Array(await (await download(p, id)).arrayBuffer())).toEqual(PDF)
    })

    it("list: time filters, orderBy and order, a cursor bound to them", async () => {
      const p = await newProject(s, call)
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) {
        ids.push((await upload(p, PNG, "image/png")).body.id)
        await new Promise((r) => setTimeout(r, 5))
      }
      const all = await call(base(p))
      expect(all.body.items.map((a: any) => a.id)).toEqual(ids)
      expect((await call(`${base(p)}?order=desc&orderBy=updatedAt`)).body.items.map((a: any) => a.id)).toEqual([...ids].reverse())
      const second = all.body.items[1]
      const since = encodeURIComponent(second.createdAt)
      expect((await call(`${base(p)}?createdSince=${since}`)).body.items.map((a: any) => a.id)).toEqual(ids.slice(1))
      expect((await call(`${base(p)}?createdBefore=${since}`)).body.items.map((a: any) => a.id)).toEqual(ids.slice(0, 1))
      expect((await call(`${base(p)}?updatedSince=${since}`)).body.items.map((a: any) => a.id)).toEqual(ids.slice(1))
      // An offset is refused, as in every request timestamp (UTC with Z only).
      const offset = new Date(Date.parse(second.createdAt)).toISOString().replace("Z", "+00:00")
      expectProblem(await call(`${base(p)}?updatedSince=${encodeURIComponent(offset)}`), 422, "VALIDATION_FAILED")
      const page1 = await call(`${base(p)}?pageSize=2&order=desc`)
      expect(page1.body.items.map((a: any) => a.id)).toEqual([ids[2], ids[1]])
      expect(page1.body.nextPageToken).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
      const page2 = await call(`${base(p)}?pageSize=2&order=desc&pageToken=${page1.body.nextPageToken}`)
      expect(page2.body.items.map((a: any) => a.id)).toEqual([ids[0]])
      expect(page2.body.nextPageToken).toBeUndefined()
      expect((await call(`${base(p)}?pageSize=0`)).body.items.length).toBe(3)
      expectProblem(await call(`${base(p)}?pageSize=2&pageToken=${page1.body.nextPageToken}`), 422, "VALIDATION_FAILED")
      for (const bad of ["order=up", "orderBy=size", "pageSize=-1", "createdSince=yesterday", "pageToken=no-dot"]) {
        expectProblem(await call(`${base(p)}?${bad}`), 422, "VALIDATION_FAILED")
      }
    })

    it("unknown ids, permissions, and a closing project", async () => {
      const p = await newProject(s, call)
      const a = (await upload(p, PNG, "image/png")).body
      expectProblem(await call(`${base(p)}/sb_att_unknown`), 404, "ATTACHMENT_NOT_FOUND")
      const other = await newProject(s, call)
      expectProblem(await call(`${base(other)}/${a.id}`), 404, "ATTACHMENT_NOT_FOUND")
      const missing = await download(other, a.id)
      expect(missing.status).toBe(404)
      const reader = await projectKey(call, p, ["platforms:read"])
      expect((await call(`${base(p)}/${a.id}`, { key: reader })).res.status).toBe(200)
      expect((await download(p, a.id, reader)).status).toBe(200)
      expectProblem(await upload(p, PNG, "image/png", idem(), reader), 403, "FORBIDDEN")
      const none = await projectKey(call, p, ["project:read"])
      expectProblem(await call(base(p), { key: none }), 403, "FORBIDDEN")
      expectProblem(await call(base(p), { key: null }), 401, "NOT_AUTHENTICATED")
      const deleted = await call(`/v1/projects/${p}`, { method: "DELETE", idem: idem() })
      expect(deleted.res.status, deleted.text).toBe(200)
      expectProblem(await upload(p, PNG, "image/png"), 409, "PROJECT_CLOSING")
      expect((await call(`${base(p)}/${a.id}`)).res.status).toBe(200)
    })
  })
}
