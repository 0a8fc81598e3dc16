/**
 * Identity providers for the SSO tests, each on its own loopback port:
 *
 * - `startOidcProvider`: panva's `oidc-provider` (a certified OpenID Provider) with its development
 *   login and consent pages, one confidential client, and the users a test adds;
 * - `startScriptedProvider`: a minimal provider whose token endpoint answers the ID token a test
 *   signs with `jose` (forged, expired, wrong nonce, wrong audience);
 * - `startSilentProvider`: accepts connections and never answers (a hung provider).
 *
 * `browse` is the browser of these tests: it follows redirects with a cookie jar, submits the
 * provider's login and consent forms, and stops at our callback.
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import Provider from "oidc-provider"

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

export interface IdpUser {
  readonly email: string
  readonly given_name?: string
  readonly family_name?: string
}

export const startOidcProvider = async (client: { readonly clientId: string; readonly clientSecret: string; readonly redirectUri: string }) => {
  const users = new Map<string, IdpUser>()
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end()
  const server = createServer((req, res) => handler(req, res))
  const issuer = await listen(server)
  const provider = new Provider(issuer, {
    clients: [{
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: [client.redirectUri],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic"
    }],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["given_name", "family_name"] },
    // The ID token carries the email (as most enterprise providers do), not only userinfo.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ["sso-test-cookie-key-0123456789"] },
    findAccount: (_ctx: unknown, id: string) => {
      const user = users.get(id)
      if (user === undefined) return undefined
      return { accountId: id, claims: () => ({ sub: id, email_verified: true, ...user }) }
    }
  })
  handler = provider.callback()
  return {
    issuer,
    addUser: (login: string, user: IdpUser) => void users.set(login, user),
    close: () => close(server)
  }
}

/** A provider whose token endpoint returns `nextIdToken()`; it signs with `key` and publishes `published`. */
export const startScriptedProvider = async (clientId: string) => {
  const { privateKey, publicKey } = await generateKeyPair("RS256")
  const other = await generateKeyPair("RS256")
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" }
  let issuer = ""
  let idToken = ""
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", issuer)
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" })
      res.end(JSON.stringify(body))
    }
    if (url.pathname === "/.well-known/openid-configuration") {
      return send(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`
      })
    }
    if (url.pathname === "/jwks") return send(200, { keys: [jwk] })
    if (url.pathname === "/token" && req.method === "POST") {
      req.resume()
      return req.on("end", () => send(200, { access_token: "at", token_type: "Bearer", id_token: idToken }))
    }
    send(404, { error: "not_found" })
  })
  issuer = await listen(server)
  /** An ID token with `claims` over the defaults; `forged` signs with a key the JWKS does not hold. */
  const sign = async (claims: Record<string, unknown>, options: { readonly forged?: boolean } = {}) => {
    const now = Math.floor(Date.now() / 1000)
    return new SignJWT({ iss: issuer, aud: clientId, iat: now, exp: now + 300, ...claims })
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .sign(options.forged === true ? other.privateKey : privateKey)
  }
  return {
    issuer,
    sign,
    setIdToken: (token: string) => void (idToken = token),
    close: () => close(server)
  }
}

/** A provider that accepts connections and never answers. */
export const startSilentProvider = async () => {
  const server = createServer(() => {
    // Never answers.
  })
  const issuer = await listen(server)
  return { issuer, close: () => close(server) }
}

/** A cookie jar over `fetch` that follows redirects by hand. */
export const makeBrowser = () => {
  const jar = new Map<string, Map<string, string>>()
  const cookiesFor = (url: URL) => [...(jar.get(url.host) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join("; ")
  const remember = (url: URL, res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const eq = pair!.indexOf("=")
      const cookies = jar.get(url.host) ?? new Map<string, string>()
      cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim())
      jar.set(url.host, cookies)
    }
  }
  const request = async (url: string, init: { method?: string; form?: Record<string, string> } = {}) => {
    const target = new URL(url)
    const headers: Record<string, string> = { cookie: cookiesFor(target) }
    if (init.form !== undefined) headers["content-type"] = "application/x-www-form-urlencoded"
    const res = await fetch(target, {
      method: init.method ?? "GET",
      redirect: "manual",
      headers,
      body: init.form === undefined ? null : new URLSearchParams(init.form).toString()
    })
    remember(target, res)
    return res
  }
  /**
   * Starts at `url` and follows redirects, signing in as `login` and consenting on the provider's
   * pages, until a redirect to `stopAt` (which is returned, not followed).
   */
  const signInAtProvider = async (url: string, login: string, stopAt: string): Promise<string> => {
    let next = url
    for (let hops = 0; hops < 20; hops++) {
      if (next.startsWith(stopAt)) return next
      const res = await request(next)
      if (res.status >= 300 && res.status < 400) {
        next = new URL(res.headers.get("location")!, next).href
        continue
      }
      const html = await res.text()
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
      if (action === undefined) throw new Error(`no form at ${next} (${res.status}): ${html.slice(0, 300)}`)
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1]
      const form: Record<string, string> = prompt === "login" ? { prompt, login, password: "any" } : { prompt: prompt ?? "consent" }
      const posted = await request(new URL(action.replace(/&amp;/g, "&"), next).href, { method: "POST", form })
      if (posted.status < 300 || posted.status >= 400) throw new Error(`the provider answered ${posted.status} to ${action}`)
      next = new URL(posted.headers.get("location")!, next).href
    }
    throw new Error("too many redirects")
  }
  return { request, signInAtProvider, cookie: (host: string, name: string) => jar.get(host)?.get(name) }
}
