/**
 * The typed `/v1` client (`@switchboard/http-adapter/client`) against a real server: typed
 * answers, problems as typed failures (Effect) and `SwitchboardProblem`s (Promise), the bearer
 * credential and Idempotency-Key it sends, its option errors, and an import graph free of the
 * server (it bundles for the browser).
 */
import { build } from "esbuild"
import { DateTime, Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createV1Client, makeV1Client, SwitchboardProblem, V1ClientOptionsError } from "@switchboard/http-adapter/client"
import type { ServiceKeyId } from "@switchboard/core/shared"
import { startTestServer, type TestServer } from "../support/TestServer.js"

describe("typed /v1 client", () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer("pglite")
  })
  afterAll(() => s.close())

  it("Promise client: typed answers, a POST with its automatic Idempotency-Key, the new key listed", async () => {
    const client = createV1Client({ baseUrl: s.baseUrl, token: s.serviceKey })
    const account = await client.account.getAccount()
    expect(account.accountId).toBe(s.accountId)
    expect(account.createdAt === null ? null : DateTime.formatIso(account.createdAt)).toMatch(/^\d{4}-/)

    const created = await client.account.createAccountServiceKey({ payload: { name: "from-client", expiresAt: null } })
    expect(created.secret).toMatch(/^sb_/)
    const listed = await client.account.listAccountServiceKeys()
    expect(listed.serviceKeys.map((k) => k.serviceKeyId)).toContain(created.serviceKey.serviceKeyId)

    // The new key authenticates a client of its own.
    const second = createV1Client({ baseUrl: `${s.baseUrl}/`, token: created.secret })
    expect((await second.account.getAccount()).accountId).toBe(s.accountId)
  })

  it("Promise client: a problem answer rejects with a SwitchboardProblem carrying the document", async () => {
    const client = createV1Client({ baseUrl: s.baseUrl, token: s.serviceKey })
    const serviceKeyId = "sb_ask_10000000000000000000000000" as ServiceKeyId
    const again = await client.account.revokeAccountServiceKey({ params: { serviceKeyId } }).catch((e: unknown) => e)
    expect(again).toBeInstanceOf(SwitchboardProblem)
    const problem = again as SwitchboardProblem
    expect(problem.status).toBe(404)
    expect(problem.code).toBe("ACCOUNT_SERVICE_KEY_NOT_FOUND")
    expect(problem.problem.requestId).toMatch(/^sb_req_/)

    const anonymous = await createV1Client({ baseUrl: s.baseUrl, token: "sb_ask_not-a-real-key" }).account.getAccount().catch((e: unknown) => e)
    expect(anonymous).toBeInstanceOf(SwitchboardProblem)
    expect((anonymous as SwitchboardProblem).code).toBe("NOT_AUTHENTICATED")
  })

  it("with idempotencyKeys off, a POST that needs the header is refused by the server", async () => {
    const client = createV1Client({ baseUrl: s.baseUrl, token: s.serviceKey, idempotencyKeys: "off" })
    const refused = await client.account.createAccountServiceKey({ payload: { name: "no-key", expiresAt: null } }).catch((e: unknown) => e)
    expect((refused as SwitchboardProblem).code).toBe("IDEMPOTENCY_KEY_REQUIRED")
  })

  it("Promise client: calls go through the fetch it is given, with the host's headers", async () => {
    const seen: Array<{ url: string; agent: string | null; auth: string | null }> = []
    const client = createV1Client({
      baseUrl: s.baseUrl,
      token: s.serviceKey,
      headers: { "user-agent": "host-app/1.0" },
      fetch: (input, init) => {
        const request = new Request(input, init)
        seen.push({ url: request.url, agent: request.headers.get("user-agent"), auth: request.headers.get("authorization") })
        return fetch(request)
      }
    })
    await client.account.getAccount()
    expect(seen).toEqual([{ url: `${s.baseUrl}/v1/account`, agent: "host-app/1.0", auth: `Bearer ${s.serviceKey}` }])
  })

  it("Effect client: the declared problem is the typed failure", async () => {
    const program = Effect.gen(function*() {
      const client = yield* makeV1Client({ baseUrl: s.baseUrl, token: s.serviceKey })
      const account = yield* client.account.getAccount()
      const failure = yield* Effect.flip(client.account.revokeAccountServiceKey({ params: { serviceKeyId: "sb_ask_00000000000000000000000000" as ServiceKeyId } }))
      // Typed: the problem's fields without a cast (a transport or schema error has no `code`).
      return { account, code: "code" in failure ? failure.code : undefined, status: "status" in failure ? failure.status : undefined }
    })
    const { account, code, status } = await Effect.runPromise(program.pipe(Effect.provide(FetchHttpClient.layer)))
    expect(account.accountId).toBe(s.accountId)
    expect({ code, status }).toEqual({ code: "ACCOUNT_SERVICE_KEY_NOT_FOUND", status: 404 })
  })

  it("bad options are refused at once, naming what to fix", () => {
    const fails = (options: Parameters<typeof createV1Client>[0]) => {
      try {
        createV1Client(options)
      } catch (e) {
        expect(e).toBeInstanceOf(V1ClientOptionsError)
        return (e as Error).message
      }
      throw new Error("expected the options to be refused")
    }
    expect(fails({ baseUrl: "localhost:8080" })).toMatch(/baseUrl must use http or https/)
    expect(fails({ baseUrl: "not a url" })).toMatch(/baseUrl must be an absolute http\(s\) URL/)
    expect(fails({ baseUrl: "http://x.test/?a=1" })).toMatch(/query string/)
    expect(fails({ baseUrl: "http://x.test", token: " " })).toMatch(/token must be a non-empty credential/)
    expect(fails({ baseUrl: "http://x.test", idempotencyKeys: "always" as never })).toMatch(/idempotencyKeys must be "auto" or "off"/)
  })

  it("imports nothing of the server: it bundles for the browser without SQL, the testkit or Node modules", async () => {
    const entry = fileURLToPath(new URL("../../src/client/index.ts", import.meta.url))
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      metafile: true,
      platform: "browser",
      format: "esm",
      conditions: ["@switchboard/source"],
      logLevel: "silent"
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.filter((i) => /sql-adapter|testkit|node_modules\/(pg|ws|@electric-sql)\//.test(i))).toEqual([])
    expect(inputs.filter((i) => /http-adapter\/src\/(server|routes|console|dashboard|management)\//.test(i))).toEqual([])
  })
})
