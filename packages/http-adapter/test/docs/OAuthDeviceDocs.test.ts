/**
 * The device flow in the versioned API's reference (docs/api-notes/oauth.md): `/openapi.json` lists
 * `deviceAuthorize` and `deviceToken` (raw routes, documented from routes/OAuthDeviceOperations.ts),
 * and what they document is what a real server answers — the request examples are accepted, the
 * answers decode with the documented schemas and have the examples' members, and the documented
 * error examples are the server's own answers word for word.
 */
import { testBackends } from "@switchboard/sql-adapter"
import { Result, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DeviceAuthorizeResponse, DeviceTokenResponse, OAuthErrorResponse } from "../../src/routes/OAuthDeviceOperations.js"
import { formPost, hiddenFields, newApp, newUser, type OAuthTestServer, sessionCookie, startOAuthServer } from "../support/OAuthServer.js"

type Json = Record<string, any>

const json = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
const decodes = (schema: Schema.Codec<any, any, never>, value: unknown) => Result.isSuccess(Schema.decodeUnknownResult(schema)(value))
const keys = (value: Json) => Object.keys(value).sort()
/** The `sb_<kind>_` prefix of each identifier-like string member, by member name. */
const prefixes = (value: Json): Json =>
  Object.fromEntries(Object.entries(value).flatMap(([k, v]) => typeof v === "string" && /^sb_[a-z]+_/.test(v) ? [[k, /^sb_[a-z]+_/.exec(v)![0]]] : []))

for (const backend of testBackends()) {
  describe(`the device flow's documented operations (${backend})`, { timeout: 60_000 }, () => {
    let s: OAuthTestServer
    let doc: Json
    let clientId: string
    let cookie: string
    beforeAll(async () => {
      s = await startOAuthServer(backend, { devicePollIntervalSeconds: 1 })
      const user = await newUser(s)
      cookie = await sessionCookie(s, user.accountId)
      clientId = (await newApp(s, user.accountId, { name: "Docs CLI", redirectUris: ["https://rp.example/unused"], clientType: "public" })).clientId
      doc = await (await fetch(`${s.baseUrl}/openapi.json`)).json() as Json
    })
    afterAll(() => s.close())

    const operation = (path: string) => doc.paths[path]?.post as Json
    const example = (op: Json, status: number) => op.responses[String(status)].content["application/json"].example as Json

    it("/openapi.json lists both operations, public, with JSON and form bodies and RFC 6749 errors", () => {
      expect(operation("/v1/auth/device/code")?.operationId).toBe("auth.deviceAuthorize")
      expect(operation("/v1/auth/device/token")?.operationId).toBe("auth.deviceToken")
      for (const path of ["/v1/auth/device/code", "/v1/auth/device/token"]) {
        const op = operation(path)
        expect(op.security).toEqual([])
        expect(Object.keys(op.requestBody.content).sort()).toEqual(["application/json", "application/x-www-form-urlencoded"])
        expect(Object.keys(op.responses).sort()).toEqual(["200", "400", "500", "503"])
        expect(op.responses["400"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/DeviceTokenBadRequestResponse" })
      }
    })

    it("one real call each: the answers match the documented schemas and examples", async () => {
      const authorize = operation("/v1/auth/device/code")
      const token = operation("/v1/auth/device/token")

      // deviceAuthorize with the documented request (our client), form-encoded as a CLI would send it.
      const started = await fetch(`${s.baseUrl}/v1/auth/device/code`, formPost({ ...authorize.requestBody.content["application/json"].example, client_id: clientId }))
      expect(started.status).toBe(200)
      const device = await started.json() as Json
      expect(decodes(DeviceAuthorizeResponse, device)).toBe(true)
      expect(keys(device)).toEqual(keys(example(authorize, 200)))
      expect(prefixes(device)).toEqual(prefixes(example(authorize, 200)))
      expect(device.user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/)
      expect(example(authorize, 200).user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/)

      // An unknown client: the documented 400 example, word for word.
      const refused = await fetch(`${s.baseUrl}/v1/auth/device/code`, json({ client_id: "sb_app_unknown" }))
      expect(refused.status).toBe(400)
      expect(refused.headers.get("content-type")).toContain("application/json")
      expect(await refused.json()).toEqual(example(authorize, 400))

      // deviceToken before the user answers: the documented 400 example, word for word.
      const poll = () => fetch(`${s.baseUrl}/v1/auth/device/token`, json({ ...token.requestBody.content["application/json"].example, device_code: device.device_code, client_id: clientId }))
      const pending = await poll()
      expect(pending.status).toBe(400)
      const pendingBody = await pending.json() as Json
      expect(decodes(OAuthErrorResponse, pendingBody)).toBe(true)
      expect(pendingBody).toEqual(example(token, 400))

      // The user approves on /device; the next poll (after the interval) answers the documented success.
      const page = await fetch(device.verification_uri_complete, { headers: { cookie } })
      expect(page.status).toBe(200)
      const approved = await fetch(`${s.baseUrl}/device`, formPost({ ...hiddenFields(await page.text()), decision: "approve" }, { cookie }))
      expect(approved.status).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 1100 * device.interval))
      const granted = await poll()
      const tokens = await granted.json() as Json
      expect(granted.status, JSON.stringify(tokens)).toBe(200)
      expect(decodes(DeviceTokenResponse, tokens)).toBe(true)
      expect(keys(tokens)).toEqual(keys(example(token, 200)))
      expect(keys(tokens.user)).toEqual(keys(example(token, 200).user))
      expect(prefixes(tokens)).toEqual(prefixes(example(token, 200)))
      expect(prefixes(tokens.user)).toEqual(prefixes(example(token, 200).user))
      expect(tokens.token_type).toBe(example(token, 200).token_type)
    })
  })
}
