/**
 * The request pipeline's own CPU cost, without sockets or a load generator: the real application
 * (`HttpAppLive` on a test server's services) and the framework's floor (the same bare HttpApi as
 * `floor.ts`) are each turned into a web handler (`HttpEffect.toWebHandlerWith`, platform span and
 * tracer off as in the server) and called in-process, 10 requests at a time. Node's HTTP parsing
 * and socket writes, the same for both, are left out, so what remains is what Switchboard adds on
 * top of the framework; on a busy machine this is steadier than `http.ts` (no child process, no
 * syscalls). Rounds alternate; medians are printed as CPU µs per request and × the floor.
 *
 *   npx tsx bench/pipeline.ts                        # R=5 rounds of N=3000 requests each
 *   PROF=account npx tsx bench/pipeline.ts           # also writes /tmp/pipeline.cpuprofile
 *   BENCH_BACKEND=postgres npx tsx bench/pipeline.ts # uses DATABASE_URL
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiError, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { HttpEffect, HttpMiddleware, HttpRouter, HttpServer, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import { Context, Effect, Exit, Layer, Redacted, References, Schema, Scope } from "effect"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { settingsOf } from "@switchboard/core/internal"
import { HttpAppLive } from "../packages/http-adapter/src/Http.js"
import { startTestServer } from "../packages/http-adapter/test/support/TestServer.js"
import { account } from "./floor.js"
import { backendFromEnv, createProject } from "./lib.js"

class Caller extends Context.Service<Caller, { readonly key: string }>()("bench/Caller") {}
class Bearer extends HttpApiMiddleware.Service<Bearer, { provides: Caller }>()("bench/Bearer", { error: HttpApiError.Unauthorized, security: { bearer: HttpApiSecurity.bearer } }) {}
const AccountBody = Schema.Struct({ accountId: Schema.String, createdAt: Schema.String, deletedAt: Schema.NullOr(Schema.String), email: Schema.String, firstName: Schema.NullOr(Schema.String), lastName: Schema.NullOr(Schema.String), phoneNumber: Schema.NullOr(Schema.String), phoneVerifiedAt: Schema.NullOr(Schema.String), pictureUrl: Schema.String, updatedAt: Schema.String })
const Api = HttpApi.make("floor").add(HttpApiGroup.make("account").add(HttpApiEndpoint.get("getAccount", "/v1/account", {
  success: AccountBody
})).middleware(Bearer))

const scope = Effect.runSync(Scope.make())
/**
 * A web handler of an application's routes (`HttpRouter.toHttpEffect` of them: ours, or the floor's
 * HttpApi). As the server (Http.ts serveLean), a request fiber carries `context`'s settings and the
 * tracing switches (platform span and tracer off), not the whole context.
 */
const handlerOf = async <E, LE>(
  app: Effect.Effect<Effect.Effect<HttpServerResponse.HttpServerResponse, E, Scope.Scope | HttpServerRequest.HttpServerRequest>, LE, Scope.Scope>,
  context: Context.Context<never>
) => {
  const handler = HttpEffect.toWebHandler(await Effect.runPromise(Scope.provide(app, scope)))
  const carried = settingsOf(context).pipe(
    Context.add(HttpMiddleware.TracerDisabledWhen, () => true),
    Context.add(References.TracerEnabled, false)
  )
  return (request: Request) => handler(request, carried)
}

const backend = backendFromEnv("pipe")
const s = await startTestServer(backend)
const { projectId, send } = await createProject(s, "pipe")
const created = await send("POST", `/v1/projects/${projectId}/api-keys`, { name: "p", permissions: ["project:read"] })
/** What the application's routes need: the test server's services. */
type AppServices = Exclude<HttpRouter.Request.Without<Layer.Services<typeof HttpAppLive>>, HttpRouter.HttpRouter>
const appCtx = await s.run(Effect.context<AppServices>())
const ours = await handlerOf(HttpRouter.toHttpEffect(HttpAppLive.pipe(Layer.provide(Layer.succeedContext(appCtx)))), appCtx)
const accepted = new Set([s.serviceKey])
const floor = await handlerOf(HttpRouter.toHttpEffect(HttpApiBuilder.layer(Api).pipe(
  Layer.provide(HttpApiBuilder.group(Api, "account", (h) => h.handle("getAccount", () => Effect.succeed(account)))),
  Layer.provide(Layer.succeed(Bearer, {
    bearer: (httpEffect, { credential }) =>
      accepted.has(Redacted.value(credential))
        ? Effect.provideService(httpEffect, Caller, { key: Redacted.value(credential) })
        : Effect.fail(new HttpApiError.Unauthorized())
  })),
  // What the server's HttpServer layer gives an HttpApi (file responses, ETags).
  Layer.provide(HttpServer.layerServices)
)), Context.empty())

const targets = [
  { name: "account", h: ours, url: `http://x/v1/account`, key: s.serviceKey },
  { name: "project", h: ours, url: `http://x/v1/projects/${projectId}`, key: created.secret as string },
  { name: "floor", h: floor, url: `http://x/v1/account`, key: s.serviceKey }
]
for (const t of targets) {
  const r = await t.h(new Request(t.url, { headers: { authorization: `Bearer ${t.key}` } }))
  const body = await r.text()
  if (r.status !== 200) throw new Error(`${t.name} ${r.status} ${body}`)
  if (process.env.SHOW) console.log(t.name, r.status, [...r.headers].join(" "), body)
}
const N = Number(process.env.N ?? 3000)
const run = async (t: (typeof targets)[number], n: number) => {
  const headers = { authorization: `Bearer ${t.key}` }
  const cpu = process.cpuUsage()
  for (let i = 0; i < n; i += 10) {
    await Promise.all(Array.from({ length: 10 }, async () => { const r = await t.h(new Request(t.url, { headers })); await r.arrayBuffer() }))
  }
  const u = process.cpuUsage(cpu)
  return (u.user + u.system) / n
}
for (const t of targets) await run(t, N)
const acc: Record<string, Array<number>> = {}
for (let r = 0; r < Number(process.env.R ?? 5); r++) for (const t of targets) (acc[t.name] ??= []).push(await run(t, N))
const med = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const f = med(acc.floor!)
console.log(Object.entries(acc).map(([k, v]) => `${k.padEnd(8)} ${Math.round(med(v))}µs  x floor ${(med(v) / f).toFixed(2)}  [${v.map(Math.round).join(",")}]`).join("\n"))
if (process.env.PROF) {
  const session = new Session(); session.connect()
  await session.post("Profiler.enable"); await session.post("Profiler.setSamplingInterval", { interval: 50 }); await session.post("Profiler.start")
  await run(targets[process.env.PROF === "project" ? 1 : process.env.PROF === "floor" ? 2 : 0]!, N * 3)
  const { profile } = await session.post("Profiler.stop")
  writeFileSync(process.env.PROFILE_OUT ?? "/tmp/pipeline.cpuprofile", JSON.stringify(profile))
}
await Effect.runPromise(Scope.close(scope, Exit.void))
await s.close()
process.exit(0)
