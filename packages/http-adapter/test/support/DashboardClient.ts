/** Helpers the Dashboard suites share: a browser-like cookie jar, sign-up, OAuth tokens, envelope checks. */
import { OAuthApps, OAuthProvider, s256 } from "@switchboard/core/oauth"
import { type AccountId } from "@switchboard/core/shared"
import { DateTime, Effect, Redacted } from "effect"
import { expect } from "vitest"
import type { TestServer } from "./TestServer.js"

export interface Reply {
  readonly res: Response
  readonly body: any
  readonly text: string
}

export interface Browser {
  /** Cookies by name, as a browser keeps them for this origin. */
  readonly cookies: Map<string, string>
  readonly fetch: (path: string, init?: RequestInit & { readonly json?: unknown; readonly form?: Record<string, string | ReadonlyArray<string>>; readonly multipart?: Record<string, string | ReadonlyArray<string>> }) => Promise<Reply>
}

const toBody = (init: { json?: unknown; form?: Record<string, string | ReadonlyArray<string>>; multipart?: Record<string, string | ReadonlyArray<string>> }, headers: Headers) => {
  if (init.json !== undefined) {
    headers.set("content-type", "application/json")
    return typeof init.json === "string" ? init.json : JSON.stringify(init.json)
  }
  if (init.form !== undefined) {
    headers.set("content-type", "application/x-www-form-urlencoded")
    const params = new URLSearchParams()
    for (const [k, v] of Object.entries(init.form)) for (const one of typeof v === "string" ? [v] : v) params.append(k, one)
    return params.toString()
  }
  if (init.multipart !== undefined) {
    const data = new FormData()
    for (const [k, v] of Object.entries(init.multipart)) for (const one of typeof v === "string" ? [v] : v) data.append(k, one)
    return data
  }
  return undefined
}

/** A client that stores and sends cookies (the `Set-Cookie`s of every answer), without following redirects. */
export const browser = (server: () => TestServer): Browser => {
  const cookies = new Map<string, string>()
  return {
    cookies,
    fetch: async (path, init = {}) => {
      const headers = new Headers(init.headers)
      if (cookies.size > 0 && !headers.has("cookie")) headers.set("cookie", [...cookies].map(([k, v]) => `${k}=${v}`).join("; "))
      const { json: _j, form: _f, multipart: _m, ...rest } = init
      const body = toBody(init, headers) ?? init.body ?? null
      const res = await fetch(`${server().baseUrl}${path}`, { ...rest, headers, body, redirect: "manual" })
      for (const line of res.headers.getSetCookie()) {
        const [pair = ""] = line.split(";")
        const eq = pair.indexOf("=")
        const name = pair.slice(0, eq).trim()
        const value = pair.slice(eq + 1).trim()
        if (value === "" || /max-age=0/i.test(line)) cookies.delete(name)
        else cookies.set(name, value)
      }
      const text = await res.text()
      let parsed: unknown
      try {
        parsed = text === "" ? undefined : JSON.parse(text)
      } catch {
        parsed = undefined
      }
      return { res, text, body: parsed }
    }
  }
}

let seq = 0
export const uniqueEmail = (what: string) => `${what}.${Date.now().toString(36)}.${++seq}@example.com`

export const PASSWORD = "correct horse battery staple"

/** A new account signed in through `POST /api/auth/sign-up/email`: its browser, id and CSRF token. */
export const signedUp = async (server: () => TestServer, what = "user") => {
  const b = browser(server)
  const email = uniqueEmail(what)
  const r = await b.fetch("/api/auth/sign-up/email", { method: "POST", json: { email, password: PASSWORD, name: "Ada Lovelace" } })
  expect(r.res.status, r.text).toBe(200)
  return { browser: b, email, accountId: r.body.data.user.id as string, csrf: r.body.data.csrfToken as string }
}

/** An opaque OAuth access token for `accountId` with exactly `scopes` (app, consent, code and exchange in core). */
export const oauthAccessToken = (s: TestServer, accountId: string, scopes: ReadonlyArray<string>) =>
  s.run(Effect.gen(function*() {
    const apps = yield* OAuthApps
    const provider = yield* OAuthProvider
    const { app } = yield* apps.create({
      ownerAccountId: accountId as AccountId,
      name: "Test app",
      redirectUris: ["https://app.example/callback"],
      clientType: "public",
      scopes
    })
    const verifier = "v".repeat(43) + Math.random().toString(36).slice(2)
    const code = yield* provider.issueCode({
      accountId: accountId as AccountId,
      request: {
        clientId: app.clientId,
        redirectUri: "https://app.example/callback",
        scopes,
        state: null,
        codeChallenge: yield* s256(verifier),
        nonce: null,
        prompt: new Set(),
        resource: null
      },
      authTime: yield* DateTime.now,
      consented: true
    })
    const tokens = yield* provider.exchangeCode({
      client: app,
      code: Redacted.value(code as Redacted.Redacted<string>),
      redirectUri: "https://app.example/callback",
      codeVerifier: verifier
    })
    return { token: Redacted.value(tokens.accessToken), clientId: app.clientId }
  }))

/** The answer is the error envelope with this status and code. */
export const expectEnvelopeError = (r: Reply, status: number, code?: string) => {
  expect(r.res.status, r.text).toBe(status)
  expect(r.res.headers.get("content-type")).toMatch(/^application\/json/)
  expect(r.body.succeed, r.text).toBe(false)
  expect(typeof r.body.message).toBe("string")
  if (code !== undefined) expect(r.body.code).toBe(code)
}

/** The answer is a success envelope (200); its data. */
export const expectData = (r: Reply) => {
  expect(r.res.status, r.text).toBe(200)
  expect(r.body.succeed, r.text).toBe(true)
  return r.body.data
}
