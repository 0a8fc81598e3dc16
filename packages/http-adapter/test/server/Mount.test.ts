/**
 * Switchboard mounted in a host's own server (docs/embedding.md, "The HTTP surfaces in your
 * server"): real node:http servers, real fetch, the memory store (and PostgreSQL by URL when
 * DATABASE_URL is set).
 */
import { layerSwitchboardMount, type MountedSwitchboard, MountError, mountSwitchboard, SwitchboardMount } from "@switchboard/http-adapter/mount"
import { DatabaseConfig, scratchPostgres, StoreSql, testStore } from "@switchboard/sql-adapter"
import { Effect, Exit, Layer, Scope } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, type Server } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { createRequire } from "node:module"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { setScalarSearchPaths } from "../../src/docs/ReferencePages.js"
import { generateLocalhostCertificate } from "../../src/server/ManagementTls.js"
import { basic, httpsCall } from "../support/ManagementClient.js"

/** node-postgres, as a host has it (its types are the sql-adapter's, not this package's). */
interface HostPgPool {
  on(event: "error", listener: () => void): void
  query(text: string): Promise<{ rows: Array<unknown> }>
  end(): Promise<void>
}
const Pg = createRequire(import.meta.url)("pg") as { Pool: new(options: Record<string, unknown>) => HostPgPool }

const listen = (server: Server): Promise<string> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))
  })

const close = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

/** What every error test expects: a MountError naming what to fix. */
const mountFails = async (options: Parameters<typeof mountSwitchboard>[0]) => {
  const error = await mountSwitchboard(options).then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(MountError)
  return (error as MountError).message
}

describe("a host's node:http server with Switchboard's v1 surface under /switchboard (memory store)", () => {
  let host: Server
  let origin: string
  let sb: MountedSwitchboard
  let auth: Record<string, string>

  beforeAll(async () => {
    // The host listens first, so that the mount knows the public origin it is reached at.
    host = createServer((req, res) => {
      if (req.url === "/hello") return void res.end("hello from the host")
      sb.listener(req, res, () => {
        res.writeHead(404, { "content-type": "text/plain" })
        res.end("the host's own 404")
      })
    })
    origin = await listen(host)
    sb = await mountSwitchboard({
      surfaces: ["v1"],
      basePath: "/switchboard",
      store: { kind: "memory" },
      publicUrl: origin,
      bootstrap: { email: "admin@example.com" }
    })
    sb.attach(host)
    auth = { authorization: `Bearer ${sb.bootstrap!.serviceKey}` }
  })
  afterAll(async () => {
    await sb.dispose()
    await close(host)
  })

  it("serves the host's own routes", async () => {
    const res = await fetch(`${origin}/hello`)
    expect(await res.text()).toBe("hello from the host")
  })

  it("serves GET /switchboard/v1/account with the bootstrap service key", async () => {
    const res = await fetch(`${origin}/switchboard/v1/account`, { headers: auth })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ accountId: sb.bootstrap!.accountId, email: "admin@example.com" })
  })

  it("answers v1 errors as problems whose type is under the base path", async () => {
    const res = await fetch(`${origin}/switchboard/v1/account`)
    expect(res.status).toBe(401)
    expect(res.headers.get("content-type")).toContain("application/problem+json")
    const body = await res.json() as { type: string }
    expect(body.type.startsWith(`${origin}/switchboard/problems/`)).toBe(true)
  })

  it("emits Location headers under the public URL and base path", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${origin}/switchboard${path}`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify(body)
      })
    const org = await (await post("/v1/organizations", { name: "Host Co" })).json() as { organizationId: string }
    const res = await post(`/v1/organizations/${org.organizationId}/projects`, { name: "Mounted", slug: `mounted-${Date.now().toString(36)}` })
    expect(res.status).toBe(201)
    const project = await res.json() as { projectId: string }
    expect(res.headers.get("location")).toBe(`${origin}/switchboard/v1/projects/${project.projectId}`)
    const read = await fetch(res.headers.get("location")!, { headers: auth })
    expect(read.status).toBe(200)
  })

  it("does not serve a surface that is not enabled: plain 404", async () => {
    for (const path of ["/switchboard/api/health", "/switchboard/projects/x/calls", "/switchboard/console", "/switchboard/docs", "/switchboard/openapi.json"]) {
      const res = await fetch(`${origin}${path}`)
      expect(res.status, path).toBe(404)
      expect(res.headers.get("content-type"), path).toContain("text/plain")
      expect(await res.text(), path).toBe("Not Found")
    }
  })

  it("leaves requests outside the base path to the host (next)", async () => {
    for (const path of ["/v1/account", "/switchboardx/v1/account", "/api/health"]) {
      const res = await fetch(`${origin}${path}`, { headers: auth })
      expect(res.status, path).toBe(404)
      expect(await res.text(), path).toBe("the host's own 404")
    }
  })

  it("routes WebSocket upgrades of <basePath>/v1/subscribe to the event channel (attach)", async () => {
    // Without a subprotocol the channel itself refuses the upgrade, in its own words.
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${origin.replace("http", "ws")}/switchboard/v1/subscribe`)
      ws.on("unexpected-response", (_req, res: IncomingMessage) => resolve(res.statusCode ?? 0))
      ws.on("open", () => reject(new Error("the upgrade was accepted without a subprotocol")))
      ws.on("error", () => undefined)
    })
    expect(status).toBe(400)
  })

  it("serves the same application through the web handler", async () => {
    const res = await sb.handler(new Request(`${origin}/switchboard/v1/account`, { headers: auth }))
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ accountId: sb.bootstrap!.accountId })
    const outside = await sb.handler(new Request(`${origin}/v1/account`, { headers: auth }))
    expect(outside.status).toBe(404)
    const disabled = await sb.handler(new Request(`${origin}/switchboard/api/health`))
    expect(disabled.status).toBe(404)
  })
})

describe("the web handler behind a bare Request → Response node server", () => {
  let server: Server
  let origin: string
  let sb: MountedSwitchboard

  beforeAll(async () => {
    // A host that only knows web handlers (as Bun, Deno, Hono or a worker runtime call them).
    server = createServer(async (req, res) => {
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(await req.toArray())
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method!,
        headers: Object.entries(req.headers).flatMap(([k, v]) => v === undefined ? [] : [[k, String(v)] as [string, string]]),
        ...(body === undefined ? {} : { body })
      })
      const response = await sb.handler(request)
      res.writeHead(response.status, Object.fromEntries(response.headers))
      res.end(Buffer.from(await response.arrayBuffer()))
    })
    origin = await listen(server)
    sb = await mountSwitchboard({
      surfaces: ["v1", "dashboard", "console"],
      basePath: "/switchboard",
      store: { kind: "memory" },
      publicUrl: origin,
      bootstrap: { email: "web@example.com" }
    })
  })
  afterAll(async () => {
    await sb.dispose()
    await close(server)
  })

  it("serves /v1 and the Dashboard API", async () => {
    const account = await fetch(`${origin}/switchboard/v1/account`, { headers: { authorization: `Bearer ${sb.bootstrap!.serviceKey}` } })
    expect(account.status).toBe(200)
    const health = await fetch(`${origin}/switchboard/api/health`)
    expect(await health.json()).toMatchObject({ succeed: true })
  })

  it("passes request bodies through (a POST under the base path)", async () => {
    const res = await fetch(`${origin}/switchboard/v1/organizations`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${sb.bootstrap!.serviceKey}`,
        "content-type": "application/json",
        "idempotency-key": crypto.randomUUID()
      },
      body: JSON.stringify({ name: "Web Co" })
    })
    expect(res.status).toBe(201)
    expect(await res.json()).toMatchObject({ name: "Web Co" })
  })

  it("publishes OAuth metadata whose issuer includes the base path, under it and at the RFC 8414 root location", async () => {
    for (const path of ["/switchboard/.well-known/openid-configuration/api/auth", "/.well-known/openid-configuration/switchboard/api/auth"]) {
      const res = await fetch(`${origin}${path}`)
      expect(res.status, path).toBe(200)
      const metadata = await res.json() as { issuer: string; token_endpoint: string }
      expect(metadata.issuer).toBe(`${origin}/switchboard/api/auth`)
      expect(metadata.token_endpoint.startsWith(`${origin}/switchboard/api/auth/`)).toBe(true)
    }
  })

  it("keeps root-relative redirects under the base path", async () => {
    for (const path of ["/switchboard", "/switchboard/"]) {
      const res = await sb.handler(new Request(`${origin}${path}`, { redirect: "manual" }))
      expect(res.status, path).toBe(303)
      expect(res.headers.get("location"), path).toBe("/switchboard/console")
    }
  })
})

describe("the Effect-native mount", () => {
  it("is a Layer whose handlers serve while it is built and which is disposed with its scope", async () => {
    const mounted = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const sb = yield* SwitchboardMount
      const res = yield* Effect.promise(() => sb.handler(new Request("http://host.example/sb/api/health")))
      expect(res.status).toBe(200)
      return sb
    }).pipe(Effect.provide(layerSwitchboardMount({ surfaces: ["dashboard"], basePath: "/sb", store: { kind: "memory" } })))))
    await expect(mounted.handler(new Request("http://host.example/sb/api/health"))).rejects.toThrow(/disposed/)
  })
})

describe("dispose", () => {
  it("stops serving, idempotently: the web handler rejects, the listener answers 503, both saying why", async () => {
    const sb = await mountSwitchboard({ surfaces: ["v1"], store: { kind: "memory" }, bootstrap: { email: "d@example.com" } })
    const server = createServer((req, res) => sb.listener(req, res))
    const origin = await listen(server)
    expect((await fetch(`${origin}/v1/account`, { headers: { authorization: `Bearer ${sb.bootstrap!.serviceKey}` } })).status).toBe(200)
    await Promise.all([sb.dispose(), sb.dispose()])
    await sb.dispose()
    await expect(sb.handler(new Request(`${origin}/v1/account`))).rejects.toThrow(
      "this Switchboard mount was disposed: mount it again (mountSwitchboard) to serve requests"
    )
    const res = await fetch(`${origin}/v1/account`)
    expect(res.status).toBe(503)
    expect(await res.text()).toContain("disposed")
    await close(server)
  })
})

describe("mount errors name what to fix", () => {
  const memory = { kind: "memory" } as const

  it("refuses a bad base path", async () => {
    expect(await mountFails({ surfaces: ["v1"], store: memory, basePath: "switchboard" })).toContain("must start with \"/\"")
    expect(await mountFails({ surfaces: ["v1"], store: memory, basePath: "/switchboard/" })).toContain("must not end with \"/\"")
    expect(await mountFails({ surfaces: ["v1"], store: memory, basePath: "/a/../b" })).toContain("\"..\"")
    expect(await mountFails({ surfaces: ["v1"], store: memory, basePath: "/a?b" })).toContain("\"?\"")
  })

  it("refuses unknown or no surfaces, and a public URL with a path", async () => {
    expect(await mountFails({ surfaces: [], store: memory })).toContain("surfaces must list at least one of \"v1\"")
    expect(await mountFails({ surfaces: ["v2" as "v1"], store: memory })).toContain("unknown surface \"v2\"")
    expect(await mountFails({ surfaces: ["v1"], store: memory, publicUrl: "https://example.com/sb" })).toContain("put the path in basePath")
  })

  it("refuses a store it does not know, the pool not wired yet, and a store without a secret", async () => {
    expect(await mountFails({ surfaces: ["v1"], store: { kind: "sqlite" } as never })).toContain("store must be { kind: \"memory\" }")
    expect(await mountFails({ surfaces: ["v1"], store: { kind: "pool", pool: {} as never }, secretKey: "p".repeat(32) })).toContain(
      "store { kind: \"pool\" } needs pool: a pg (node-postgres) Pool"
    )
    expect(await mountFails({ surfaces: ["v1"], store: { kind: "postgres", url: "postgres://127.0.0.1/x" } })).toContain("secretKey is required")
    expect(await mountFails({ surfaces: ["v1"], store: memory, secretKey: "short" })).toContain("at least 32 characters")
  })

  it("refuses a store whose schema is not this version's, saying to run migrate()", async () => {
    // An in-memory PGlite store that does not migrate: it has no Switchboard schema at all.
    const store = StoreSql(DatabaseConfig.Pglite({ dataDir: undefined }), { migrate: false })
    const message = await mountFails({ surfaces: ["v1"], store, secretKey: "x".repeat(32) })
    expect(message).toContain("no Switchboard schema")
    expect(message).toContain("run migrate()")
    expect(message).not.toMatch(/\n\s+at /)
  })

  it("names the service a store Layer does not provide, at mount", async () => {
    const message = await mountFails({ surfaces: ["v1"], store: Layer.empty, secretKey: "x".repeat(32) })
    expect(message).toMatch(/^mountSwitchboard: the store does not provide \S+/)
    expect(message).not.toContain("Service not found")
  })

  it("detects a second copy of effect in the host", async () => {
    const root = mkdtempSync(join(tmpdir(), "sb-host-"))
    mkdirSync(join(root, "node_modules", "effect"), { recursive: true })
    writeFileSync(join(root, "package.json"), JSON.stringify({ name: "host", version: "1.0.0" }))
    writeFileSync(
      join(root, "node_modules", "effect", "package.json"),
      JSON.stringify({ name: "effect", version: "4.0.9", exports: { "./package.json": "./package.json" } })
    )
    const message = await mountFails({ surfaces: ["v1"], store: memory, hostRoot: root })
    expect(message).toMatch(/two copies of effect: host has 4\.0\.9 at \S+node_modules\/effect, Switchboard has 4\.1\.\d+ at \S+; dedupe \(npm dedupe \/ one effect ~4\.1 peer\)/)
    // A copy whose exports leave out ./package.json is found from its entry.
    const other = mkdtempSync(join(tmpdir(), "sb-host-"))
    mkdirSync(join(other, "node_modules", "effect", "dist"), { recursive: true })
    writeFileSync(join(other, "package.json"), JSON.stringify({ name: "host", version: "1.0.0" }))
    writeFileSync(join(other, "node_modules", "effect", "dist", "index.js"), "module.exports = {}\n")
    writeFileSync(
      join(other, "node_modules", "effect", "package.json"),
      JSON.stringify({ name: "effect", version: "3.19.0", exports: { ".": "./dist/index.js" } })
    )
    expect(await mountFails({ surfaces: ["v1"], store: memory, hostRoot: other })).toContain("two copies of effect: host has 3.19.0 at")
    // A host without effect (not an Effect program) is not refused.
    const none = mkdtempSync(join(tmpdir(), "sb-host-"))
    writeFileSync(join(none, "package.json"), JSON.stringify({ name: "host", version: "1.0.0" }))
    const sb = await mountSwitchboard({ surfaces: ["v1"], store: memory, hostRoot: none })
    await sb.dispose()
  })

  it("detects a store Layer made by another copy of effect", async () => {
    // What a Layer of another copy looks like here: the same type marker, another prototype.
    const foreign = Object.create({ "~effect/Layer": {}, pipe() {} }) as Layer.Layer<never>
    expect(await mountFails({ surfaces: ["v1"], store: foreign, secretKey: "x".repeat(32) })).toContain(
      "two copies of effect: host has another copy (the store Layer passed in was made by it)"
    )
    // And one of Effect 3, whose marker is a registered symbol.
    const effect3 = { [Symbol.for("effect/Layer")]: {}, pipe() {} } as unknown as Layer.Layer<never>
    expect(await mountFails({ surfaces: ["v1"], store: effect3, secretKey: "x".repeat(32) })).toContain("two copies of effect")
  })

  it("needs @scalar/api-reference for the docs surface, and not without it", async () => {
    setScalarSearchPaths([join(tmpdir(), "nowhere", "package.json")])
    try {
      expect(await mountFails({ surfaces: ["v1", "docs"], store: memory })).toContain(
        "surface 'docs' needs @scalar/api-reference, which is not installed: npm i \"@scalar/api-reference@>=1.72.1 <2\""
      )
      const sb = await mountSwitchboard({ surfaces: ["v1"], store: memory })
      await sb.dispose()
    } finally {
      setScalarSearchPaths(undefined)
    }
  })
})

describe("the management surface in an HTTPS host", () => {
  it("is served over the host's TLS, and refused over plain HTTP in its own envelope", async () => {
    const { cert, key } = await generateLocalhostCertificate(1)
    const sb = await mountSwitchboard({ surfaces: ["management"], basePath: "/sb", store: { kind: "memory" } })
    const tls = createHttpsServer({ cert, key }, (req, res) => sb.listener(req, res))
    const plain = createServer((req, res) => sb.listener(req, res))
    try {
      const tlsOrigin = (await listen(tls as unknown as Server)).replace("http:", "https:").replace("127.0.0.1", "localhost")
      const plainOrigin = await listen(plain)
      const overTls = await httpsCall(`${tlsOrigin}/sb/projects/sb_prj_01m8zd1m7wfkdstyxt1b69hmtb`, { auth: basic("sb_prj_01m8zd1m7wfkdstyxt1b69hmtb", "wrong"), ca: cert })
      expect(overTls.status).toBe(401)
      expect(overTls.body).toMatchObject({ succeed: false })
      const overHttp = await fetch(`${plainOrigin}/sb/projects/sb_prj_01m8zd1m7wfkdstyxt1b69hmtb`)
      expect(overHttp.status).toBe(403)
      expect(await overHttp.json()).toMatchObject({ succeed: false, code: "HTTPS_REQUIRED" })
    } finally {
      await close(tls as unknown as Server)
      await close(plain)
      await sb.dispose()
    }
  })
})

describe("a store Layer from the host", () => {
  it("is used as given; a store the host built stays open after dispose, for the next mount", async () => {
    // The host builds the store (PGlite here; its own pool on PostgreSQL) in its own scope.
    const hostScope = Effect.runSync(Scope.make())
    const built = await Effect.runPromise(Layer.buildWithScope(testStore("pglite"), hostScope))
    const store = Layer.succeedContext(built)
    const options = { surfaces: ["v1"], store, secretKey: "h".repeat(40) } as const
    try {
      const first = await mountSwitchboard({ ...options, bootstrap: { email: "layer@example.com" } })
      const key = first.bootstrap!.serviceKey
      await first.dispose()
      const second = await mountSwitchboard({ ...options, bootstrap: { email: "layer@example.com" } })
      // The store kept its account: no second bootstrap, and the first key still works.
      expect(second.bootstrap).toBeUndefined()
      const res = await second.handler(new Request("http://h/v1/account", { headers: { authorization: `Bearer ${key}` } }))
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({ email: "layer@example.com" })
      await second.dispose()
      // Another secret on the same store: refused at mount, naming the setting.
      expect(await mountFails({ ...options, secretKey: "k".repeat(40) })).toContain("SECRET_KEY does not match this database")
    } finally {
      await Effect.runPromise(Scope.close(hostScope, Exit.void))
    }
  })
})

// PostgreSQL when DATABASE_URL is set (as the SQL suites).
describe.each(process.env.DATABASE_URL ? ["postgres"] : [])("mounted on %s (by URL, and on the host's pool)", () => {
  it("migrates, serves and closes its own pool", async () => {
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const url = yield* scratchPostgres
      const sb = yield* Effect.promise(() =>
        mountSwitchboard({ surfaces: ["v1"], store: { kind: "postgres", url }, secretKey: "s".repeat(40), bootstrap: { email: "pg@example.com" } })
      )
      const res = yield* Effect.promise(() =>
        sb.handler(new Request("http://h/v1/account", { headers: { authorization: `Bearer ${sb.bootstrap!.serviceKey}` } }))
      )
      expect(res.status).toBe(200)
      // The scratch database is dropped with the scope: only once the mount's pool is closed.
      yield* Effect.promise(() => sb.dispose())
    })))
  })

  it("runs on the host's own pg pool, and leaves it open", async () => {
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const url = yield* scratchPostgres
      const pool = new Pg.Pool({ connectionString: url, max: 4, statement_timeout: 10_000 })
      pool.on("error", () => {})
      try {
        const sb = yield* Effect.promise(() =>
          mountSwitchboard({ surfaces: ["v1"], store: { kind: "pool", pool: pool as never }, secretKey: "s".repeat(40), bootstrap: { email: "pool@example.com" } })
        )
        const res = yield* Effect.promise(() =>
          sb.handler(new Request("http://h/v1/account", { headers: { authorization: `Bearer ${sb.bootstrap!.serviceKey}` } }))
        )
        expect(res.status).toBe(200)
        yield* Effect.promise(() => sb.dispose())
        // The pool is the host's: still usable after dispose.
        const rows = yield* Effect.promise(() => pool.query("select count(*)::int as n from accounts"))
        expect(rows.rows[0]).toEqual({ n: 1 })
      } finally {
        yield* Effect.promise(() => pool.end())
      }
    })))
  })
})

describe("the docs surface under a base path", () => {
  it("serves the reference pages, whose scripts and documents resolve under the base path", async () => {
    const sb = await mountSwitchboard({ surfaces: ["docs"], basePath: "/switchboard", store: { kind: "memory" } })
    try {
      const page = `http://host.example/switchboard/docs/dashboard`
      const res = await sb.handler(new Request(page))
      expect(res.status).toBe(200)
      const html = await res.text()
      const urls = [...html.matchAll(/(?:src|href|data-document)="([^"]+)"/g)].map(([, u]) => new URL(u!, page).pathname)
      expect(urls).toContain("/switchboard/docs/assets/scalar.js")
      expect(urls).toContain("/switchboard/api/openapi.json")
      for (const path of ["/switchboard/docs/assets/scalar.js", "/switchboard/docs/assets/reference.js", "/switchboard/openapi.json", "/switchboard/api/openapi.json"]) {
        expect((await sb.handler(new Request(`http://host.example${path}`))).status, path).toBe(200)
      }
      // Not the versioned API itself.
      expect((await sb.handler(new Request("http://host.example/switchboard/v1/account"))).status).toBe(404)
    } finally {
      await sb.dispose()
    }
  })
})
