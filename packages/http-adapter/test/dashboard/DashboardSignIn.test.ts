import { Accounts, decodeBase32Rfc4648, TotpFactors, totp } from "@switchboard/core/accounts"
import { type AccountId } from "@switchboard/core/shared"
import { makeServerConfig } from "@switchboard/http-adapter"
import { testBackends } from "@switchboard/sql-adapter"
import { Clock, Effect, Redacted } from "effect"
import * as jose from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { secureCookies } from "../../src/routes/DashboardSession.js"
import { safeReturnTo } from "../../src/routes/DashboardPages.js"
import { browser, expectData, expectEnvelopeError, PASSWORD, signedUp, uniqueEmail } from "../support/DashboardClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

describe("safeReturnTo and secure cookies (pure)", () => {
  it("keeps same-origin relative paths only", () => {
    expect(safeReturnTo("/api/auth/oauth2/authorize?client_id=x&state=y")).toBe("/api/auth/oauth2/authorize?client_id=x&state=y")
    expect(safeReturnTo("/")).toBe("/")
    for (const bad of ["//evil.example", "/\\evil.example", "https://evil.example/", "javascript:alert(1)", "", "relative", "/a\nb", undefined, null]) {
      expect(safeReturnTo(bad)).toBe("/console")
    }
  })

  it("marks cookies Secure when DASHBOARD_URL is https, the socket is TLS, or a trusted proxy says https", () => {
    const request = (headers: Record<string, string>, encrypted = false) => ({ headers, source: { socket: { encrypted } } }) as never
    expect(secureCookies(request({}), makeServerConfig({ dashboardUrl: "http://127.0.0.1" }))).toBe(false)
    expect(secureCookies(request({}), makeServerConfig({ dashboardUrl: "https://dash.example" }))).toBe(true)
    expect(secureCookies(request({}, true), makeServerConfig())).toBe(true)
    expect(secureCookies(request({ "x-forwarded-proto": "https" }), makeServerConfig())).toBe(false)
    expect(secureCookies(request({ "x-forwarded-proto": "https" }), makeServerConfig({ trustProxy: true }))).toBe(true)
  })
})

for (const backend of testBackends()) {
  describe(`Dashboard sign-in component (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, { privacyJobEnabled: false, signInMaxFailures: 3, webhookDeliveryEnabled: false })
    })
    afterAll(() => s.close())
    const server = () => s

    /** A fresh browser that loaded the sign-in page: its form token. */
    const atSignInPage = async (returnTo = "/home") => {
      const b = browser(server)
      const page = await b.fetch(`/sign-in?returnTo=${encodeURIComponent(returnTo)}`)
      expect(page.res.status).toBe(200)
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1]
      expect(csrf).toBeDefined()
      return { b, csrf: csrf!, page }
    }

    it("GET /sign-in shows the form (escaped returnTo, CSRF token, no framing) and sets the double-submit cookie", async () => {
      const { b, csrf, page } = await atSignInPage(`/x"><script>alert(1)</script>`)
      expect(page.res.headers.get("content-type")).toMatch(/^text\/html/)
      expect(page.text).toContain(`action="/api/auth/sign-in/email"`)
      expect(page.text).not.toContain("<script>")
      expect(page.text).toContain(`value="/x&quot;&gt;&lt;script&gt;`)
      expect(page.res.headers.get("x-frame-options")).toBe("DENY")
      expect(page.res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
      expect(b.cookies.get("sb_csrf")).toBe(csrf)
      const setCookie = page.res.headers.getSetCookie().join("\n")
      expect(setCookie).toMatch(/sb_csrf=[^;]+; .*HttpOnly/i)
      // Shown even to a signed-in browser.
      const { browser: signedIn } = await signedUp(server, "page")
      const again = await signedIn.fetch("/sign-in")
      expect(again.res.status).toBe(200)
      expect(again.text).toContain("<form")
    })

    it("a form sign-in sets a new HttpOnly, SameSite=Lax session cookie and redirects 303 to returnTo", async () => {
      const { email } = await signedUp(server, "form")
      const { b, csrf } = await atSignInPage("/projects/abc?tab=1")
      const r = await b.fetch("/api/auth/sign-in/email", {
        method: "POST",
        form: { email, password: PASSWORD, _csrf: csrf, returnTo: "/projects/abc?tab=1" }
      })
      expect(r.res.status).toBe(303)
      expect(r.res.headers.get("location")).toBe("/projects/abc?tab=1")
      const cookie = r.res.headers.getSetCookie().find((c) => c.startsWith("sb_session="))!
      expect(cookie).toMatch(/HttpOnly/i)
      expect(cookie).toMatch(/SameSite=Lax/i)
      expect(cookie).toMatch(/Path=\//)
      expect(cookie).not.toMatch(/Secure/i)
      const first = b.cookies.get("sb_session")
      const session = expectData(await b.fetch("/api/auth/get-session"))
      expect(session.user.email).toBe(email)
      expect(typeof session.csrfToken).toBe("string")
      // Signing in again replaces the session: the old cookie stops working.
      const again = await b.fetch("/api/auth/sign-in/email", { method: "POST", form: { email, password: PASSWORD, _csrf: csrf } })
      expect(again.res.status).toBe(303)
      expect(again.res.headers.get("location")).toBe("/console")
      expect(b.cookies.get("sb_session")).not.toBe(first)
      const old = browser(server)
      old.cookies.set("sb_session", first!)
      expect(expectData(await old.fetch("/api/auth/get-session"))).toBeNull()
    })

    it("returnTo that is not a same-origin relative path redirects to the console", async () => {
      const { email } = await signedUp(server, "ret")
      for (const returnTo of ["//evil.example/x", "https://evil.example/", "/\\evil.example"]) {
        const { b, csrf } = await atSignInPage()
        const r = await b.fetch("/api/auth/sign-in/email", { method: "POST", form: { email, password: PASSWORD, _csrf: csrf, returnTo } })
        expect(r.res.status).toBe(303)
        expect(r.res.headers.get("location")).toBe("/console")
      }
    })

    it("a form post without the double-submitted token is refused and signs nobody in", async () => {
      const { email } = await signedUp(server, "csrf")
      const { b } = await atSignInPage()
      const r = await b.fetch("/api/auth/sign-in/email", { method: "POST", form: { email, password: PASSWORD, _csrf: "forged-token-forged-token-forged" } })
      expect(r.res.status).toBe(403)
      expect(r.text).toContain("expired")
      expect(b.cookies.has("sb_session")).toBe(false)
      const noCookie = browser(server)
      const r2 = await noCookie.fetch("/api/auth/sign-in/email", { method: "POST", form: { email, password: PASSWORD } })
      expect(r2.res.status).toBe(403)
    })

    it("a wrong password shows the page again (form) or 401 INVALID_CREDENTIALS (JSON); a cross-origin JSON post is refused", async () => {
      const { email } = await signedUp(server, "wrong")
      const { b, csrf } = await atSignInPage()
      const page = await b.fetch("/api/auth/sign-in/email", { method: "POST", form: { email, password: "not the password", _csrf: csrf } })
      expect(page.res.status).toBe(401)
      expect(page.text).toContain("The email or password is wrong.")
      expect(page.text).toContain(`value="${email}"`)
      expectEnvelopeError(await browser(server).fetch("/api/auth/sign-in/email", { method: "POST", json: { email, password: "nope nope" } }), 401, "INVALID_CREDENTIALS")
      expectEnvelopeError(await browser(server).fetch("/api/auth/sign-in/email", {
        method: "POST",
        json: { email, password: PASSWORD },
        headers: { origin: "https://evil.example" }
      }), 403, "CSRF_CHECK_FAILED")
    })

    it("sign-in takes JSON, urlencoded and multipart with the same schema; a bad body is a 422 envelope", async () => {
      const { email } = await signedUp(server, "types")
      const json = await browser(server).fetch("/api/auth/sign-in/email", { method: "POST", json: { email, password: PASSWORD } })
      expect(expectData(json).user.email).toBe(email)
      expect(json.res.headers.getSetCookie().some((c) => c.startsWith("sb_session="))).toBe(true)
      const form = await atSignInPage()
      expect((await form.b.fetch("/api/auth/sign-in/email", { method: "POST", form: { email, password: PASSWORD, _csrf: form.csrf } })).res.status).toBe(303)
      const multi = await atSignInPage()
      expect((await multi.b.fetch("/api/auth/sign-in/email", { method: "POST", multipart: { email, password: PASSWORD, _csrf: multi.csrf } })).res.status).toBe(303)
      const bad = await browser(server).fetch("/api/auth/sign-in/email", { method: "POST", json: { email: "not an email", password: PASSWORD, extra: 1 } })
      expectEnvelopeError(bad, 422, "VALIDATION_FAILED")
      expect(bad.body.message).toContain("email")
      expect(bad.body.message).toContain("extra")
    })

    it("with a TOTP factor the code is required: TOTP_REQUIRED, then the page asks for it; the right code signs in", async () => {
      const { accountId, email } = await signedUp(server, "totp")
      const key = await s.run(Effect.gen(function*() {
        const factors = yield* TotpFactors
        const started = yield* factors.beginEnrollment(accountId as AccountId)
        const key = decodeBase32Rfc4648(Redacted.value(started.secret))!
        const now = yield* Clock.currentTimeMillis
        yield* factors.confirmEnrollment(accountId as AccountId, started.enrollmentToken, yield* totp(key, now))
        return key
      }))
      expectEnvelopeError(await browser(server).fetch("/api/auth/sign-in/email", { method: "POST", json: { email, password: PASSWORD } }), 401, "TOTP_REQUIRED")
      const { b, csrf } = await atSignInPage()
      const page = await b.fetch("/api/auth/sign-in/email", { method: "POST", form: { email, password: PASSWORD, _csrf: csrf } })
      expect(page.res.status).toBe(401)
      expect(page.text).toMatch(/name="code"[^>]*required/)
      expectEnvelopeError(await browser(server).fetch("/api/auth/sign-in/email", { method: "POST", json: { email, password: PASSWORD, code: "12345x" } }), 401, "INVALID_TOTP_CODE")
      // The code of the next 30-second step: the enrollment used the current one.
      const next = await s.run(Effect.flatMap(Clock.currentTimeMillis, (now) => totp(key, now + 30_000)))
      const ok = await browser(server).fetch("/api/auth/sign-in/email", { method: "POST", json: { email, password: PASSWORD, code: next } })
      expect(expectData(ok).user.email).toBe(email)
    })

    it("failed attempts lock the email: 429 TOO_MANY_ATTEMPTS with Retry-After, even with the right password", async () => {
      const { email } = await signedUp(server, "lock")
      for (let i = 0; i < 3; i++) {
        expectEnvelopeError(await browser(server).fetch("/api/auth/sign-in/email", { method: "POST", json: { email, password: `wrong ${i} password` } }), 401)
      }
      const locked = await browser(server).fetch("/api/auth/sign-in/email", { method: "POST", json: { email, password: PASSWORD } })
      expectEnvelopeError(locked, 429, "TOO_MANY_ATTEMPTS")
      expect(Number(locked.res.headers.get("retry-after"))).toBeGreaterThan(0)
    })

    it("sign-up: 409 for a taken email, 422 for a short password; the account gets a password", async () => {
      const { email } = await signedUp(server, "dup")
      expectEnvelopeError(await browser(server).fetch("/api/auth/sign-up/email", { method: "POST", json: { email, password: PASSWORD } }), 409, "EMAIL_TAKEN")
      expectEnvelopeError(await browser(server).fetch("/api/auth/sign-up/email", { method: "POST", json: { email: uniqueEmail("short"), password: "short" } }), 422)
      const accounts = await s.run(Effect.flatMap(Accounts, (a) => a.isEmpty))
      expect(accounts).toBe(false)
    })

    it("sign-out needs the CSRF proof, ends the session and clears the cookie", async () => {
      const { browser: b, csrf } = await signedUp(server, "out")
      expectEnvelopeError(await b.fetch("/api/auth/sign-out", { method: "POST" }), 403, "CSRF_CHECK_FAILED")
      expect(expectData(await b.fetch("/api/auth/get-session"))).not.toBeNull()
      const token = b.cookies.get("sb_session")!
      const out = await b.fetch("/api/auth/sign-out", { method: "POST", headers: { "x-csrf-token": csrf } })
      expect(expectData(out)).toEqual({ signedOut: true })
      expect(out.res.headers.getSetCookie().find((c) => c.startsWith("sb_session="))).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i)
      const replay = browser(server)
      replay.cookies.set("sb_session", token)
      expect(expectData(await replay.fetch("/api/auth/get-session"))).toBeNull()
      expectEnvelopeError(await replay.fetch("/api/auth/token"), 401, "NOT_AUTHENTICATED")
    })

    it("GET /api/auth/token gives a signed-in session a JWT the versioned API accepts", async () => {
      const { accountId, browser: b } = await signedUp(server, "jwt")
      const data = expectData(await b.fetch("/api/auth/token"))
      expect(data.tokenType).toBe("Bearer")
      const claims = jose.decodeJwt(data.token)
      expect(jose.decodeProtectedHeader(data.token)).toMatchObject({ alg: "EdDSA", typ: "at+jwt" })
      expect(claims.sub).toBe(accountId)
      expect(claims.iss).toBe("http://127.0.0.1/api/auth")
      expect(claims.aud).toBe("http://127.0.0.1")
      expect(String(claims.scope).split(" ")).toContain("projects:write")
      // billing:write is among them: the token policy's shortest lifetime, 5 minutes.
      expect(data.expiresIn).toBe(300)
      const v1 = await fetch(`${s.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${data.token}` } })
      expect(v1.status).toBe(200)
      expect(((await v1.json()) as any).accountId).toBe(accountId)
      expectEnvelopeError(await browser(server).fetch("/api/auth/token"), 401, "NOT_AUTHENTICATED")
    })
  })
}
