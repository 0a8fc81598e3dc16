/**
 * Recording answers of the server for the wire-contract test (`test/server/WireContract.test.ts`):
 * what of an answer is contract (status, a fixed list of headers, the body), the normalisation of
 * what varies between runs, and the comparison with the golden files in `test/golden/`.
 *
 * Normalisation is by pattern and consistent within one golden file: each distinct varying value
 * becomes a placeholder numbered in order of first appearance (`<sb_call_1>`, `<uuid_3>`), so values
 * that are equal on the wire stay equal in the file. Times are `<time>`, unnumbered (see `text`).
 */
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import { expect } from "vitest"

/** The headers that are part of the contract (the others — date, content-length, connection — are transport). */
const contractHeaders = [
  "content-type",
  "cache-control",
  "pragma",
  "www-authenticate",
  "allow",
  "retry-after",
  "location",
  "content-location",
  "etag",
  "deprecation",
  "sunset",
  "link",
  "ratelimit-policy",
  "ratelimit",
  "vary",
  "idempotency-key",
  "idempotent-replayed",
  "set-cookie",
  "content-disposition",
  "x-content-type-options",
  "content-security-policy",
  "referrer-policy",
  "x-frame-options",
  "access-control-allow-origin"
]

/** Keys whose string values are random (secrets, codes, tokens) with no pattern of their own. */
const randomKeys = new Set([
  "token",
  "secret",
  "csrfToken",
  "code",
  "access_token",
  "refresh_token",
  "id_token",
  "device_code",
  "user_code",
  "client_id",
  "client_secret",
  "clientId",
  "clientSecret",
  "projectSecret",
  "signingSecret",
  "registration_access_token",
  "enrollmentToken",
  "key",
  "kid",
  "x",
  "proof",
  "issued",
  "_csrf",
  "password",
  "username",
  "signature"
])

/**
 * A value under a random key that is a short word or an upper-case code (`"Example"`, `"golden"`,
 * `"VALIDATION_FAILED"`) is not random (a random value of only letters — a key's base64url — is long).
 */
const plainWord = (value: string) =>
  value.length < 8 || /^[A-Z]?[a-z]{1,15}$/.test(value) || /^[A-Z][A-Z_]*$/.test(value)

/** Numbers that measure the run (a database round trip's latency), by key. */
const measuredKeys = new Set(["latencyMs", "uptimeSeconds", "uptimeMs"])

const JWT = /\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g
const TYPEID_SECRET = /\bsb_([a-z]+)_[0-9a-z]{26}_[A-Za-z0-9_-]+/g
const TYPEID = /\bsb_([a-z]+)_[0-9a-z]{26}(?![A-Za-z0-9_-])/g
const PREFIXED_TOKEN = /\bsb_([a-z]+)_[A-Za-z0-9_-]{16,}/g
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g
const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?/g
const AUTH_FACTOR = /\bauth_factor_[0-9a-z]{26}\b/g
/** The console's way of showing a time: `2026-12-01 23:06:47 UTC`. */
const DISPLAYED_TIME = /\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})?(?: UTC)?/g
const DATE = /\b20\d{2}-\d{2}-\d{2}\b/g
const HTTP_DATE = /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/g

export class Normaliser {
  private readonly seen = new Map<string, string>()
  private readonly counts = new Map<string, number>()
  /** Random values found by key (and in cookies and redirect queries), replaced wherever they appear later. */
  private literals: Array<string> = []

  /** `bases`: the run's own origins (random ports), each with its placeholder. */
  constructor(readonly bases: ReadonlyArray<readonly [string, string]>) {}

  origins(input: string): string {
    let s = input
    for (const [base, name] of this.bases) s = s.split(base).join(name)
    return s
  }

  placeholder(kind: string, value: string): string {
    const known = this.seen.get(value)
    if (known !== undefined) return known
    const n = (this.counts.get(kind) ?? 0) + 1
    this.counts.set(kind, n)
    const p = `<${kind}_${n}>`
    this.seen.set(value, p)
    return p
  }

  /** A random value without a pattern: replaced by its placeholder from now on, wherever it appears. */
  random(kind: string, value: string) {
    if (value.length < 6 || value.startsWith("<")) return
    this.placeholder(kind, value)
    if (!this.literals.includes(value)) this.literals = [...this.literals, value].sort((a, b) => b.length - a.length)
  }

  /** Registers the random values of a parsed JSON body (by key), recursively. */
  collect(value: unknown, key = ""): void {
    if (typeof value === "string") {
      // An upper-case word (a problem code, an enum) is not random.
      if (randomKeys.has(key) && !plainWord(value)) this.random(key, value)
      else if (/^https?:\/\//.test(value)) this.collectUrl(value)
    } else if (Array.isArray(value)) for (const v of value) this.collect(v, key)
    else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) this.collect(v, k)
  }

  /** The random query parameters of a URL (a redirect's code and state, a page's token). */
  collectUrl(url: string) {
    try {
      const u = new URL(url, "http://x")
      for (const [k, v] of u.searchParams) if (randomKeys.has(k) || k === "state") this.random(k, v)
      // A checkout or payment page's path carries its token.
      const page = /^\/billing\/(?:checkout|payments)\/([^/]+)$/.exec(u.pathname)
      if (page !== null) this.random("page-token", decodeURIComponent(page[1]!))
      // An ingress endpoint's URL is its secret.
      const ingress = /^\/ingress\/([^/]+)$/.exec(u.pathname)
      if (ingress !== null) this.random("ingress-secret", decodeURIComponent(ingress[1]!))
    } catch {
      // not a URL: nothing to collect
    }
  }

  /** A set-cookie line: the cookie's value is random. */
  collectCookie(line: string) {
    const [pair = ""] = line.split(";")
    const eq = pair.indexOf("=")
    if (eq > 0) this.random(`cookie_${pair.slice(0, eq).trim()}`, pair.slice(eq + 1).trim())
  }

  text(input: string): string {
    let s = this.origins(input)
    for (const v of this.literals) s = s.split(v).join(this.seen.get(v)!)
    s = s.replace(JWT, (m) => this.placeholder("jwt", m))
    s = s.replace(TYPEID_SECRET, (m, kind: string) => this.placeholder(`sb_${kind}_secret`, m))
    s = s.replace(TYPEID, (m, kind: string) => this.placeholder(`sb_${kind}`, m))
    s = s.replace(PREFIXED_TOKEN, (m, kind: string) => this.placeholder(`sb_${kind}_token`, m))
    s = s.replace(UUID, (m) => this.placeholder("uuid", m))
    // Times to the millisecond: two unrelated ones can coincide, which would shift every later
    // number, so they are not numbered.
    s = s.replace(TIMESTAMP, "<time>")
    s = s.replace(AUTH_FACTOR, (m) => this.placeholder("auth_factor", m))
    // Shown to the second, two times are equal or not by chance: not numbered.
    s = s.replace(DISPLAYED_TIME, "<displayed-time>")
    s = s.replace(DATE, (m) => this.placeholder("date", m))
    s = s.replace(HTTP_DATE, "<http-date>")
    return s
  }

  /** Epoch seconds and milliseconds (JWT and introspection claims, expiries) in a parsed body. */
  numbers(value: unknown, key = ""): unknown {
    if (typeof value === "number") {
      if (measuredKeys.has(key)) return "<measured>"
      if (Number.isInteger(value) && value > 1.7e9 && value < 2.2e9) return "<epoch-seconds>"
      if (Number.isInteger(value) && value > 1.7e12 && value < 2.2e12) return "<epoch-millis>"
      return value
    }
    if (Array.isArray(value)) return value.map((v) => this.numbers(v, key))
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.numbers(v, k)]))
    }
    return value
  }
}

export interface Answer {
  readonly request: string
  readonly status: number
  readonly headers: Record<string, string>
  readonly body?: unknown
}

export interface RawAnswer {
  readonly status: number
  readonly headers: Headers | Record<string, string | undefined>
  readonly text: string
}

const headerOf = (h: RawAnswer["headers"], name: string): string | undefined =>
  h instanceof Headers ? (name === "set-cookie" ? h.getSetCookie().join("\n") || undefined : h.get(name) ?? undefined) : h[name]

/** Bodies longer than this (bundled scripts, the console's styles) are recorded as their length and digest. */
const MAX_TEXT = 24_000

/** The recorded form of an answer, normalised (the normaliser learns its random values first). */
export const recordAnswer = (
  n: Normaliser,
  request: string,
  raw: RawAnswer,
  options: { readonly verbatim?: boolean; readonly countdown?: boolean; readonly sortRows?: boolean } = {}
): Answer => {
  const headers: Record<string, string> = {}
  const setCookie = headerOf(raw.headers, "set-cookie")
  if (setCookie !== undefined) for (const line of setCookie.split("\n")) n.collectCookie(line)
  const location = headerOf(raw.headers, "location")
  if (location !== undefined) n.collectUrl(location)
  const contentType = headerOf(raw.headers, "content-type") ?? ""
  let parsed: unknown
  const json = /json/.test(contentType) && raw.text !== ""
  if (json) {
    parsed = JSON.parse(raw.text)
    if (options.verbatim !== true) n.collect(parsed)
  } else if (/html/.test(contentType)) {
    // A form's hidden fields (CSRF tokens, the consent screen's proof) are random, and so are the
    // secrets a console page shows once (a project secret, an authenticator's secret).
    for (const [, name, value] of raw.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
      if (randomKeys.has(name!)) n.random(name!, value!)
    }
    for (const [, id, value] of raw.text.matchAll(/<code id="([a-z-]*secret[a-z-]*)">([^<]+)<\/code>/g)) n.random(id!, value!)
  }
  for (const name of contractHeaders) {
    const v = headerOf(raw.headers, name)
    if (v === undefined) continue
    // The rate limit's window moves with the clock: its remaining count and reset are not the contract's.
    headers[name] = name === "ratelimit" ? n.text(v).replace(/\d+/g, "<n>")
      // A strong ETag over a body that names random ids is itself random: the contract is that it
      // is the body's digest (the first 32 hex digits of its SHA-256, quoted).
      : name === "etag" && v === `"${createHash("sha256").update(raw.text).digest("hex").slice(0, 32)}"` ? "\"<digest of the body>\""
      : n.text(v)
  }
  if (headerOf(raw.headers, "x-request-id") !== undefined) headers["x-request-id"] = "<present>"
  // A countdown (seconds until a code can be sent again) moves with the clock.
  if (options.countdown === true && headers["retry-after"] !== undefined) headers["retry-after"] = "<seconds>"
  const normalise = (text: string) =>
    options.verbatim === true ? n.origins(text) : options.countdown === true ? n.text(text).replace(/\b\d+ seconds\b/g, "<n> seconds") : n.text(text)
  let body: unknown
  // A QR code's drawing is its (random) content, drawn.
  const unQr = (text: string) => text.replace(/(<svg role="img" aria-label="QR code[^>]*>)[\s\S]*?(<\/svg>)/g, "$1<qr-code/>$2")
  // The console's charts label their time axis with the hours of the last day, which depend on
  // the hour of the run.
  const unClock = (text: string) => text.replace(/>(?:[01]\d|2[0-3]):00<\/text>/g, ">hh:00</text>")
  if (json) {
    const text = normalise(raw.text)
    const value = JSON.parse(text)
    body = options.verbatim === true ? value : n.numbers(value)
    if (JSON.stringify(parsed) !== raw.text) body = { layout: "not compact JSON", json: body }
  } else if (raw.text !== "") {
    let text = unClock(unQr(normalise(raw.text)))
    if (options.sortRows === true) {
      // Rows in no fixed order: sorted, and their placeholders unnumbered (numbered in order of
      // appearance, they would follow the order).
      text = text.replace(/<tbody>([\s\S]*?)<\/tbody>/g, (_, rows: string) =>
        `<tbody>${rows.replace(/<([a-z_-]+?)_\d+>/g, "<$1>").split(/(?=<tr>)/).sort().join("")}</tbody>`)
    }
    body = text.length > MAX_TEXT
      ? { bytes: Buffer.byteLength(text), sha256: createHash("sha256").update(text).digest("hex") }
      : text.split("\n")
  }
  return { request: n.text(request), status: raw.status, headers, ...(body === undefined ? {} : { body }) }
}

/** Answers keyed by their request (a repeated request gets ` #2`, ` #3`, …), in the order they were made. */
export class Recording {
  readonly answers = new Map<string, Answer>()
  add(answer: Answer) {
    let key = answer.request
    for (let i = 2; this.answers.has(key); i++) key = `${answer.request} #${i}`
    this.answers.set(key, answer)
  }
}

const goldenUrl = (name: string) => new URL(`../golden/${name}.json`, import.meta.url)

/**
 * With `UPDATE_GOLDEN=1`: writes the recording as the golden file. Otherwise compares each answer
 * with the golden one, as indented JSON text (a line diff naming the request), and lists the
 * requests one side has and the other has not.
 */
export const compareWithGolden = (name: string, recording: Recording) => {
  const file = goldenUrl(name)
  const actual = Object.fromEntries(recording.answers)
  if (process.env.UPDATE_GOLDEN === "1") {
    mkdirSync(dirname(file.pathname), { recursive: true })
    writeFileSync(file, JSON.stringify(actual, null, 2) + "\n")
    return
  }
  if (!existsSync(file)) throw new Error(`no golden file ${file.pathname}: run with UPDATE_GOLDEN=1 to record it`)
  const golden = JSON.parse(readFileSync(file, "utf8")) as Record<string, Answer>
  expect.soft(Object.keys(actual).filter((k) => !(k in golden)), `${name}: requests not in the golden file`).toEqual([])
  expect.soft(Object.keys(golden).filter((k) => !(k in actual)), `${name}: golden requests not made`).toEqual([])
  for (const [key, answer] of Object.entries(actual)) {
    if (!(key in golden)) continue
    expect.soft(JSON.stringify(answer, null, 2), `${name}: ${key}`).toBe(JSON.stringify(golden[key], null, 2))
  }
}
