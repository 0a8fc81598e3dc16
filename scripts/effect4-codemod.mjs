#!/usr/bin/env node
/**
 * A codemod for the move from Effect 3.22 to Effect 4.1: the renames that are mechanical, done at
 * the text level with a bracket-aware scanner (strings, templates, comments and regex literals are
 * skipped), so what is left for a person is what needs judgement.
 *
 *   node scripts/effect4-codemod.mjs $(git ls-files 'packages/core/src/*.ts')
 *
 * It rewrites the files in place and prints how often each rule fired. Run it once, on a clean
 * tree, then let `tsc -b` list what remains. Measured on packages/core/src against effect 4.1.0:
 * 2 572 type errors before, 249 after. What it leaves: `Context.Reference` settings, `FiberRef`,
 * `ParseResult` formatters, `Schema.transform`/`transformOrFail`, `Schema.Schema<A, I, R>` generic
 * arity, `optionalWith` with defaults, `Effect.makeLatch`, `Clock.unsafeCurrentTimeMillis`, and
 * `.epochMillis` on expressions it cannot see whole.
 *
 * The rules (v3 → v4):
 * - Schema: `optionalWith(S, { exact: true })` → `optionalKey(S)`; filters `pattern`, `maxLength`,
 *   `minLength`, `between`, `maxItems`, `minItems`, `int`, `greaterThan`, … → `check(isPattern(…))`
 *   and friends (`isBetween({ minimum, maximum })`); `nonNegative()`/`positive()` →
 *   `isGreaterThanOrEqualTo(0)`/`isGreaterThan(0)`; `filter(p)` → `check(makeFilter(p))`;
 *   `message: () => "…"` → `message: "…"`; variadic `Literal(a, b)` → `Literals([a, b])`,
 *   `Union(A, B)` → `Union([A, B])`, `Tuple(A, B)` → `Tuple([A, B])`; `Record({ key, value })` →
 *   `Record(key, value)`; `.annotations(` → `.annotate(`; `compose` → `decodeTo`;
 *   `decodeUnknownEither` → `decodeUnknownResult` (and the other `…Either` codecs); `decodeUnknown`
 *   → `decodeUnknownEffect`; `parseJson` → `fromJsonString`.
 * - Effect: `zipRight` → `andThen`, `zipLeft` → `tap`, `either` → `result`, `catchAll` → `catch`,
 *   `catchAllCause` → `catchCause`, `catchAllDefect` → `catchDefect`, `fork` → `forkChild`,
 *   `forkDaemon` → `forkDetach`, `tapErrorCause` → `tapCause`, `dieMessage(m)` → `die(new Error(m))`.
 * - Either → Result: the module, `right`/`left` → `succeed`/`fail`, `isLeft`/`isRight` →
 *   `isFailure`/`isSuccess`, `mapLeft` → `mapError`, `onLeft`/`onRight` → `onFailure`/`onSuccess`,
 *   `._tag === "Left"` → `"Failure"`, and `.left`/`.right` → `.failure`/`.success` in files that
 *   use Either (check the diff: another object's `.left` would be renamed too; tsc tells).
 * - DateTime: `unsafeMake` → `makeUnsafe`, `unsafeNow` → `nowUnsafe`, `greaterThan`… →
 *   `isGreaterThan`…, `x.epochMillis` → `DateTime.toEpochMillis(x)`; `Option.fromNullable` →
 *   `Option.fromNullishOr`.
 * - `Schema.Schema<A, I[, R]>` → `Schema.Codec<A, I[, R]>`, `Schema.Schema.Encoded` → `Schema.Codec.Encoded`,
 *   `Schema.Schema.AnyNoContext` → `Schema.Codec<any, any>`; `Effect.Effect.Success` → `Effect.Success`
 *   (and `Error`; `Context` → `Services`);
 *   `HttpServerResponse.unsafeJson`/`unsafeSetCookie` → `jsonUnsafe`/`setCookieUnsafe`,
 *   `.unsafeCurrentTimeMillis()` → `.currentTimeMillisUnsafe()`, `Effect.makeLatch` → `Latch.make`.
 * - SQL: `SqlSchema.findOne` (an Option in v3) → `findOneOption`; `SqlSchema.single` → `findOne`
 *   (v4's findOne fails when no row is found).
 * - Services: `Context.Tag("Id")<Self, Shape>()` → `Context.Service<Self, Shape>()("Id")`;
 *   `class X extends Effect.Service<X>()("Id", { effect | scoped | sync | succeed, dependencies })`
 *   → `Context.Service<X>()("Id", { make })` with `static readonly layer = Layer.effect(this,
 *   this.make)` (dependencies provided to it); `.Default` → `.layer`.
 *
 * - Imports: `@effect/platform` → `effect/http-api` (the `HttpApi*` and `OpenApi` names) and
 *   `effect/http` (the rest; `HttpApp` → `HttpEffect`); `@effect/sql[/X]` → `effect/sql[/X]`;
 *   `@effect/experimental/Reactivity` → `effect/reactivity/Reactivity`.
 * - HttpApi: an endpoint's builder chain (`setPath`, `setUrlParams`, `setPayload`, `setHeaders`,
 *   `addSuccess`, `addError`, a `{ status }` becoming `.pipe(HttpApiSchema.status(n))`) → the
 *   options object of `HttpApiEndpoint.get(id, path, { params, query, payload, headers, success,
 *   error })`, other calls of the chain kept after it; `.annotateContext(` → `.annotateMerge(`;
 *   handler arguments `{ path }` → `{ params }`, `urlParams` → `query`. Formatting is left to
 *   `npm run format`.
 *
 * Transitional: it goes when the move to Effect 4 is done.
 */
import { readFileSync, writeFileSync } from "node:fs"

const counts = {}
const bump = (k, n = 1) => { counts[k] = (counts[k] ?? 0) + n }

/** Index just past the string literal opening at `i` (a quote or a backquote; `${…}` in a template is skipped). */
const endOfString = (s, i) => {
  const q = s[i]
  let j = i + 1
  let depth = 0
  while (j < s.length) {
    if (s[j] === "\\") { j += 2; continue }
    if (depth === 0 && s[j] === q) break
    if (q === "`" && s[j] === "$" && s[j + 1] === "{") { depth++; j += 2; continue }
    if (depth > 0 && s[j] === "}") depth--
    j++
  }
  return j + 1
}

/** Index just past the regex literal opening at `i` (its flags included). */
const endOfRegex = (s, i) => {
  let j = i + 1
  let cls = false
  while (j < s.length) {
    if (s[j] === "\\") { j += 2; continue }
    if (s[j] === "[") cls = true
    else if (s[j] === "]") cls = false
    else if (s[j] === "/" && !cls) break
    j++
  }
  j++
  while (/[a-z]/.test(s[j])) j++
  return j
}

/** After this character, a `/` opens a regex rather than dividing. */
const regexMayFollow = (prevSig) => /[(,=:[!&|?{};]/.test(prevSig)

/** Index just past the bracket closing the one at `open` (which is one of ( [ { <), skipping strings, comments, regexes. */
export const closeOf = (s, open) => {
  const pairs = { "(": ")", "[": "]", "{": "}", "<": ">" }
  const stack = [pairs[s[open]]]
  const angle = s[open] === "<"
  let i = open + 1
  let prevSig = s[open]
  while (i < s.length && stack.length > 0) {
    const c = s[i]
    if (c === "/" && s[i + 1] === "/") { i = s.indexOf("\n", i); if (i < 0) return -1; continue }
    if (c === "/" && s[i + 1] === "*") { i = s.indexOf("*/", i) + 2; continue }
    if (c === "\"" || c === "'" || c === "`") { i = endOfString(s, i); prevSig = c; continue }
    if (c === "/" && regexMayFollow(prevSig)) { i = endOfRegex(s, i); prevSig = "/"; continue }
    if (angle && c === "=" && s[i + 1] === ">") { i += 2; prevSig = ">"; continue }
    if (c in pairs && (c !== "<" || angle)) stack.push(pairs[c])
    else if (c === stack[stack.length - 1]) stack.pop()
    if (!/\s/.test(c)) prevSig = c
    i++
  }
  return stack.length === 0 ? i : -1
}

/** Top-level comma-separated parts of s[from, to) (to excludes the closing bracket). */
export const splitTop = (s, from, to) => {
  const parts = []
  let start = from
  let i = from
  let prevSig = s[from - 1] ?? "("
  while (i < to) {
    const c = s[i]
    if (c === "\"" || c === "'" || c === "`") { i = endOfString(s, i); prevSig = c; continue }
    if ("([{".includes(c)) {
      const e = closeOf(s, i)
      if (e < 0) return parts
      i = e
      prevSig = s[e - 1]
      continue
    }
    if (c === "/" && regexMayFollow(prevSig)) { i = endOfRegex(s, i); prevSig = "/"; continue }
    if (!/\s/.test(c)) prevSig = c
    if (c === ",") { parts.push(s.slice(start, i)); start = i + 1 }
    i++
  }
  const last = s.slice(start, to)
  if (last.trim() !== "") parts.push(last)
  return parts
}

/** Rewrites every call `name(args)`; `f(args, src)` returns the replacement text or undefined to keep. */
const rewriteCalls = (src, name, rule, f) => {
  let out = ""
  let pos = 0
  const re = new RegExp(`(?<![\\w$.])${name.replace(/\./g, "\\.")}\\(`, "g")
  let m
  while ((m = re.exec(src)) !== null) {
    if (m.index < pos) continue
    const open = m.index + m[0].length - 1
    const close = closeOf(src, open)
    if (close < 0) continue
    const args = splitTop(src, open + 1, close - 1)
    const rep = f(args.map((a) => a.trim()), args)
    if (rep === undefined) continue
    out += src.slice(pos, m.index) + rep
    pos = close
    re.lastIndex = close
    bump(rule)
  }
  return out + src.slice(pos)
}

const renameAll = (src, from, to, rule) => {
  const re = new RegExp(`(?<![\\w$])${from.replace(/\./g, "\\.")}(?![\\w$])`, "g")
  const n = (src.match(re) ?? []).length
  if (n > 0) bump(rule, n)
  return src.replace(re, to)
}

const filters = {
  pattern: "isPattern", maxLength: "isMaxLength", minLength: "isMinLength", length: "isLengthBetween",
  between: "isBetween", maxItems: "isMaxLength", minItems: "isMinLength", itemsCount: "isLengthBetween",
  int: "isInt", finite: "isFinite", multipleOf: "isMultipleOf",
  greaterThan: "isGreaterThan", greaterThanOrEqualTo: "isGreaterThanOrEqualTo",
  lessThan: "isLessThan", lessThanOrEqualTo: "isLessThanOrEqualTo", nonEmptyString: "isNonEmpty"
}

const ensureImport = (src0, name) => {
  // a name imported type-only on its own line moves to the value import
  let src = src0.replace(/import type \{([^}]*)\}\s*from\s*"effect"\n?/, (all, list) => {
    const names = list.split(",").map((x) => x.trim()).filter(Boolean)
    if (!names.includes(name)) return all
    const rest = names.filter((n) => n !== name)
    return rest.length === 0 ? "" : `import type { ${rest.join(", ")} } from "effect"\n`
  })
  const re = /import\s*\{([^}]*)\}\s*from\s*"effect"/
  const m = re.exec(src)
  if (m === null) return `import { ${name} } from "effect"\n` + src
  const names = m[1].split(",").map((x) => x.trim()).filter(Boolean)
  if (names.some((n) => n === name || n === `type ${name}`)) {
    // a type-only import of it must become a value import
    return src.replace(re, () => `import { ${names.map((n) => (n === `type ${name}` ? name : n)).join(", ")} } from "effect"`)
  }
  return src.replace(re, () => `import { ${[...names, name].sort((a, b) => a.replace(/^type /, "").localeCompare(b.replace(/^type /, ""))).join(", ")} } from "effect"`)
}
const uses = (src, ns) => new RegExp(`(?<![\\w$.])${ns}\\.`).test(src)

const httpApiNames = new Set(["HttpApi", "HttpApiBuilder", "HttpApiClient", "HttpApiEndpoint", "HttpApiError", "HttpApiGroup", "HttpApiMiddleware", "HttpApiSchema", "HttpApiScalar", "HttpApiSecurity", "HttpApiSwagger", "OpenApi"])

/** `@effect/platform`, `@effect/sql` and `@effect/experimental` are modules of `effect` in v4. */
const rewriteImports = (input) => {
  let src = input.replace(/import (type )?\{([^}]*)\} from "@effect\/platform"/g, (_all, typeOnly = "", list) => {
    bump("import @effect/platform")
    const names = list.split(",").map((x) => x.trim()).filter(Boolean)
    const bare = (n) => n.replace(/^type /, "")
    const api = names.filter((n) => httpApiNames.has(bare(n)))
    const http = names.filter((n) => !httpApiNames.has(bare(n))).map((n) => n.replace(/\bHttpApp\b/, "HttpEffect"))
    const out = []
    if (api.length > 0) out.push(`import ${typeOnly}{ ${api.join(", ")} } from "effect/http-api"`)
    if (http.length > 0) out.push(`import ${typeOnly}{ ${http.join(", ")} } from "effect/http"`)
    return out.join("\n")
  })
  src = renameAll(src, "HttpApp", "HttpEffect", "HttpApp")
  src = src.replace(/from "@effect\/sql(\/[A-Za-z]+)?"/g, (_all, sub = "") => (bump("import @effect/sql"), `from "effect/sql${sub}"`))
  src = src.replace(/from "@effect\/experimental\/Reactivity"/g, () => (bump("import Reactivity"), "from \"effect/reactivity/Reactivity\""))
  return src
}

/**
 * `HttpApiEndpoint.get("id", path).setPath(P).setUrlParams(Q).setPayload(B).setHeaders(H)
 * .addSuccess(S).addError(E)` → `HttpApiEndpoint.get("id", path, { params, query, payload, headers,
 * success, error })`, the chain's other calls (annotations, middleware) kept after it, in order. A
 * status option becomes `.pipe(HttpApiSchema.status(n))` on its schema.
 */
const rewriteEndpoints = (src) => {
  let out = ""
  let pos = 0
  const re = /(?<![\w$.])HttpApiEndpoint\.(get|post|put|patch|del|delete|head|options)\(/g
  let m
  while ((m = re.exec(src)) !== null) {
    const open = m.index + m[0].length - 1
    const close = closeOf(src, open)
    if (close < 0) continue
    const head = splitTop(src, open + 1, close - 1).map((x) => x.trim())
    if (head.length !== 2) continue
    const slots = { params: undefined, query: undefined, payload: undefined, headers: undefined }
    const success = []
    const error = []
    const rest = []
    let i = close
    for (;;) {
      const ws = /^\s*\.\s*([A-Za-z]+)\(/.exec(src.slice(i, i + 200))
      if (ws === null) break
      const callOpen = i + ws[0].length - 1
      const callClose = closeOf(src, callOpen)
      if (callClose < 0) break
      const args = splitTop(src, callOpen + 1, callClose - 1).map((x) => x.trim())
      const withStatus = (schema, opts) => {
        const st = opts === undefined ? undefined : /status:\s*(\d+)/.exec(opts)
        return st === null || st === undefined ? schema : `${schema}.pipe(HttpApiSchema.status(${st[1]}))`
      }
      const name = ws[1]
      if (name === "setPath") slots.params = args[0]
      else if (name === "setUrlParams") slots.query = args[0]
      else if (name === "setPayload") slots.payload = args[0]
      else if (name === "setHeaders") slots.headers = args[0]
      else if (name === "addSuccess") success.push(withStatus(args[0], args[1]))
      else if (name === "addError") error.push(withStatus(args[0], args[1]))
      else rest.push(`.${name}(${src.slice(callOpen + 1, callClose - 1)})`)
      i = callClose
    }
    const fields = Object.entries(slots).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}: ${v}`)
    if (success.length > 0) fields.push(`success: ${success.length === 1 ? success[0] : `[${success.join(", ")}]`}`)
    if (error.length > 0) fields.push(`error: ${error.length === 1 ? error[0] : `[${error.join(", ")}]`}`)
    const method = m[1] === "del" ? "delete" : m[1]
    out += src.slice(pos, m.index) + `HttpApiEndpoint.${method}(${head[0]}, ${head[1]}${fields.length > 0 ? `, {\n  ${fields.join(",\n  ")}\n}` : ""})` + rest.join("")
    pos = i
    re.lastIndex = i
    bump("HttpApiEndpoint chain")
  }
  return out + src.slice(pos)
}

export const transform = (input) => {
  let src = input
  src = rewriteImports(src)
  src = rewriteEndpoints(src)
  // handler request fields
  // handler request fields (the old names stay as local aliases; rename them by hand where it reads better)
  src = src.replace(/\(\{\s*path\s*\}\)\s*=>/g, () => (bump("handler path"), "({ params: path }) =>"))
  src = src.replace(/\(\{\s*path,\s*payload\s*\}\)\s*=>/g, () => (bump("handler path"), "({ params: path, payload }) =>"))
  src = src.replace(/\(\{\s*path,\s*urlParams\s*\}\)\s*=>/g, () => (bump("handler path"), "({ params: path, query: urlParams }) =>"))
  src = src.replace(/\(\{\s*urlParams\s*\}\)\s*=>/g, () => (bump("handler urlParams"), "({ query: urlParams }) =>"))
  // test services live in effect/testing
  src = src.replace(/import (type )?\{([^}]*)\} from "effect"/, (all, typeOnly = "", list) => {
    const names = list.split(",").map((x) => x.trim()).filter(Boolean)
    const testing = names.filter((n) => /^(type )?(FastCheck|TestClock|TestConsole|TestServices)$/.test(n))
    if (testing.length === 0) return all
    bump("import effect/testing")
    const restNames = names.filter((n) => !testing.includes(n))
    return [restNames.length > 0 ? `import ${typeOnly}{ ${restNames.join(", ")} } from "effect"` : undefined, `import ${typeOnly}{ ${testing.join(", ")} } from "effect/testing"`].filter(Boolean).join("\n")
  })
  // Schema *FromSelf → the bare name (v3's Redacted, a transformation, is RedactedFromValue first)
  src = renameAll(src, "Schema.Redacted", "Schema.RedactedFromValue", "Schema.Redacted")
  src = src.replace(/(?<![\w$.])Schema\.(Date|Duration|Chunk|ReadonlyMap|ReadonlySet|HashMap|HashSet|BigDecimal|Cause|Exit|Option|RegExp|Uint8Array|BigInt|Symbol|URL|Redacted)FromSelf\b/g, (_m, n) => (bump("FromSelf"), `Schema.${n}`))

  // --- Schema ---------------------------------------------------------------------------------
  src = rewriteCalls(src, "Schema.optionalWith", "optionalWith exact", (a) => {
    if (a.length === 2 && /^\{\s*exact:\s*true\s*,?\s*\}$/.test(a[1])) return `Schema.optionalKey(${a[0]})`
    return undefined
  })
  for (const [v3, v4] of Object.entries(filters)) {
    src = rewriteCalls(src, `Schema.${v3}`, `filter ${v3}`, (_a, raw) => `Schema.check(Schema.${v4}(${raw.join(",")}))`)
  }
  src = rewriteCalls(src, "Schema.nonNegative", "nonNegative", (_a, raw) => `Schema.check(Schema.isGreaterThanOrEqualTo(0${raw.length > 0 ? ", " + raw.join(",") : ""}))`)
  src = rewriteCalls(src, "Schema.positive", "positive", (_a, raw) => `Schema.check(Schema.isGreaterThan(0${raw.length > 0 ? ", " + raw.join(",") : ""}))`)
  src = rewriteCalls(src, "Schema.Literal", "Literal variadic", (a) => (a.length > 1 ? `Schema.Literals([${a.join(", ")}])` : a.length === 1 && a[0].startsWith("...") ? `Schema.Literals(${a[0].slice(3)})` : undefined))
  src = rewriteCalls(src, "Schema.Union", "Union variadic", (a) => (a.length === 1 && a[0].startsWith("...") ? `Schema.Union(${a[0].slice(3)})` : a.length >= 1 && !a[0].startsWith("[") ? `Schema.Union([${a.join(", ")}])` : undefined))
  src = rewriteCalls(src, "Schema.Tuple", "Tuple variadic", (a) => (a.length >= 1 && !a[0].startsWith("[") ? `Schema.Tuple([${a.join(", ")}])` : undefined))
  src = rewriteCalls(src, "Schema.Record", "Record", (a) => {
    if (a.length !== 1 || !a[0].startsWith("{")) return undefined
    const inner = a[0]
    const props = splitTop(inner, 1, inner.length - 1).map((p) => p.trim())
    const get = (k) => props.find((p) => p.startsWith(`${k}:`))?.slice(k.length + 1).trim()
    const key = get("key")
    const value = get("value")
    return key !== undefined && value !== undefined && props.length === 2 ? `Schema.Record(${key}, ${value})` : undefined
  })
  // isBetween takes { minimum, maximum } in Effect 4
  src = rewriteCalls(src, "Schema.isBetween", "isBetween object", (a, raw) => (a.length >= 2 && !a[0].startsWith("{") ? `Schema.isBetween({ minimum: ${a[0]}, maximum: ${a[1]} }${raw.length > 2 ? ", " + raw.slice(2).join(",").trim() : ""})` : undefined))
  // filter and annotation messages are strings in Effect 4, not thunks
  src = src.replace(/\bmessage:\s*\(\)\s*=>\s*(?=["'`])/g, () => (bump("message thunk"), "message: "))
  src = rewriteCalls(src, "Schema.filter", "filter", (_a, raw) => `Schema.check(Schema.makeFilter(${raw.join(",")}))`)
  src = src.replace(/(?<!OpenApi)\.annotations\(/g, () => (bump("annotations"), ".annotate("))
  src = src.replace(/\.annotateContext\(/g, () => (bump("annotateContext"), ".annotateMerge("))
  src = renameAll(src, "Schema.annotations", "Schema.annotate", "annotations")
  src = renameAll(src, "Schema.compose", "Schema.decodeTo", "compose")
  src = renameAll(src, "Schema.decodeUnknownEither", "Schema.decodeUnknownResult", "decodeUnknownEither")
  src = renameAll(src, "Schema.decodeEither", "Schema.decodeResult", "decodeEither")
  src = renameAll(src, "Schema.encodeEither", "Schema.encodeResult", "encodeEither")
  src = renameAll(src, "Schema.encodeUnknownEither", "Schema.encodeUnknownResult", "encodeUnknownEither")
  src = renameAll(src, "Schema.decodeUnknown", "Schema.decodeUnknownEffect", "decodeUnknown")
  src = renameAll(src, "Schema.parseJson", "Schema.fromJsonString", "parseJson")

  // Schema.Schema<A, I[, R]> (a codec) → Schema.Codec<A, I[, R]>; Schema.Schema<A> stays
  {
    let out = ""
    let pos = 0
    const re = /(?<![\w$.])Schema\.Schema</g
    let m
    while ((m = re.exec(src)) !== null) {
      const open = m.index + m[0].length - 1
      const close = closeOf(src, open)
      if (close < 0) continue
      if (splitTop(src, open + 1, close - 1).length < 2) continue
      out += src.slice(pos, m.index) + "Schema.Codec<"
      pos = open + 1
      bump("Schema.Schema<A, I>")
    }
    src = out + src.slice(pos)
  }
  src = renameAll(src, "Schema.Schema.Encoded", "Schema.Codec.Encoded", "Schema.Schema.Encoded")
  // type helpers moved up a level
  src = renameAll(src, "Effect.Effect.Success", "Effect.Success", "Effect.Effect.Success")
  src = renameAll(src, "Effect.Effect.Error", "Effect.Error", "Effect.Effect.Error")
  src = renameAll(src, "Effect.Effect.Context", "Effect.Services", "Effect.Effect.Context")
  src = renameAll(src, "Schema.Schema.AnyNoContext", "Schema.Codec<any, any>", "Schema.Schema.AnyNoContext")
  // unsafe* → *Unsafe, and the latch is a module of its own
  src = renameAll(src, "HttpServerResponse.unsafeJson", "HttpServerResponse.jsonUnsafe", "unsafeJson")
  src = renameAll(src, "HttpServerResponse.unsafeSetCookie", "HttpServerResponse.setCookieUnsafe", "unsafeSetCookie")
  src = src.replace(/\.unsafeCurrentTimeMillis\(/g, () => (bump("unsafeCurrentTimeMillis"), ".currentTimeMillisUnsafe("))
  if (/(?<![\w$.])Effect\.(unsafeM|m)akeLatch\b/.test(src)) {
    src = renameAll(src, "Effect.makeLatch", "Latch.make", "makeLatch")
    src = renameAll(src, "Effect.unsafeMakeLatch", "Latch.makeUnsafe", "unsafeMakeLatch")
    src = ensureImport(src, "Latch")
  }

  // --- SQL: v3's findOne (an Option) is findOneOption; v3's single (fails on no row) is findOne ----
  src = renameAll(src, "SqlSchema.findOne", "SqlSchema.findOneOption", "SqlSchema.findOne")
  src = renameAll(src, "SqlSchema.single", "SqlSchema.findOne", "SqlSchema.single")

  // --- Effect -----------------------------------------------------------------------------------
  const effectRenames = {
    zipRight: "andThen", zipLeft: "tap", either: "result", catchAll: "catch", catchAllCause: "catchCause",
    catchAllDefect: "catchDefect", fork: "forkChild", forkDaemon: "forkDetach", tapErrorCause: "tapCause"
  }
  for (const [v3, v4] of Object.entries(effectRenames)) src = renameAll(src, `Effect.${v3}`, `Effect.${v4}`, `Effect.${v3}`)
  src = rewriteCalls(src, "Effect.dieMessage", "dieMessage", (_a, raw) => `Effect.die(new Error(${raw.join(",")}))`)

  // --- Either → Result ----------------------------------------------------------------------------
  if (/(?<![\w$.])Either\./.test(src) || /import\s*\{[^}]*\bEither\b[^}]*\}\s*from\s*"effect"/.test(src)) {
    const eitherRenames = {
      right: "succeed", left: "fail", isLeft: "isFailure", isRight: "isSuccess", mapLeft: "mapError",
      Either: "Result", getRight: "getSuccess", getLeft: "getFailure", fromOption: "fromOption"
    }
    for (const [v3, v4] of Object.entries(eitherRenames)) src = renameAll(src, `Either.${v3}`, `Result.${v4}`, `Either.${v3}`)
    src = renameAll(src, "Either", "Result", "Either other")
    src = src.replace(/\bonLeft\b/g, () => (bump("onLeft"), "onFailure")).replace(/\bonRight\b/g, () => (bump("onRight"), "onSuccess"))
    src = src.replace(/_tag === "Left"/g, () => (bump("tag Left"), "_tag === \"Failure\"")).replace(/_tag === "Right"/g, () => (bump("tag Right"), "_tag === \"Success\""))
    src = src.replace(/\.left\b/g, () => (bump(".left"), ".failure")).replace(/\.right\b/g, () => (bump(".right"), ".success"))
  }

  // --- DateTime, Option -------------------------------------------------------------------------
  const dt = { unsafeMake: "makeUnsafe", unsafeNow: "nowUnsafe", greaterThan: "isGreaterThan", lessThan: "isLessThan", greaterThanOrEqualTo: "isGreaterThanOrEqualTo", lessThanOrEqualTo: "isLessThanOrEqualTo", unsafeMakeZoned: "makeZonedUnsafe" }
  for (const [v3, v4] of Object.entries(dt)) src = renameAll(src, `DateTime.${v3}`, `DateTime.${v4}`, `DateTime.${v3}`)
  src = src.replace(/([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?)\.epochMillis\b/g, (_m, e) => (bump("epochMillis"), `DateTime.toEpochMillis(${e})`))
  if (counts.epochMillis && uses(src, "DateTime")) src = ensureImport(src, "DateTime")
  src = renameAll(src, "Option.fromNullable", "Option.fromNullishOr", "Option.fromNullable")

  // --- Services ---------------------------------------------------------------------------------
  // Context.Tag("Id")<Self, Shape>() → Context.Service<Self, Shape>()("Id")
  {
    let out = ""
    let pos = 0
    const re = /(?<![\w$.])Context\.Tag\(/g
    let m
    while ((m = re.exec(src)) !== null) {
      const open = m.index + m[0].length - 1
      const close = closeOf(src, open)
      if (close < 0 || src[close] !== "<") continue
      const aClose = closeOf(src, close)
      if (aClose < 0 || src.slice(aClose, aClose + 2) !== "()") continue
      const id = src.slice(open + 1, close - 1)
      const targs = src.slice(close + 1, aClose - 1)
      out += src.slice(pos, m.index) + `Context.Service<${targs}>()(${id})`
      pos = aClose + 2
      re.lastIndex = pos
      bump("Context.Tag")
    }
    src = out + src.slice(pos)
  }
  // class X extends Effect.Service<X>()("Id", { effect|scoped|sync|succeed: E, dependencies: [...] }) {
  {
    let out = ""
    let pos = 0
    const re = /class\s+([A-Za-z_$][\w$]*)\s+extends\s+Effect\.Service<([^>]*)>\(\)\(/g
    let m
    let changed = false
    while ((m = re.exec(src)) !== null) {
      const open = m.index + m[0].length - 1
      const close = closeOf(src, open)
      if (close < 0) continue
      const args = splitTop(src, open + 1, close - 1).map((x) => x.trim())
      if (args.length !== 2 || !args[1].startsWith("{")) continue
      const props = splitTop(args[1], 1, args[1].length - 1).map((p) => p.trim())
      let make
      let deps
      let ok = true
      for (const p of props) {
        const k = /^([A-Za-z]+)\s*:\s*/.exec(p)
        if (k === null) { ok = false; break }
        const v = p.slice(k[0].length)
        if (k[1] === "effect" || k[1] === "scoped") make = v
        else if (k[1] === "sync") make = `Effect.sync(${v})`
        else if (k[1] === "succeed") make = `Effect.succeed(${v})`
        else if (k[1] === "dependencies") deps = v
        else if (k[1] === "accessors") continue
        else { ok = false; break }
      }
      if (!ok || make === undefined) continue
      const body = src.indexOf("{", close)
      if (body < 0) continue
      const layer = `Layer.effect(this, this.make)${deps !== undefined && deps !== "[]" ? `.pipe(Layer.provide(${deps}))` : ""}`
      out += src.slice(pos, m.index) + `class ${m[1]} extends Context.Service<${m[2]}>()(${args[0]}, {\n  make: ${make}\n}) {\n  static readonly layer = ${layer}\n`
      pos = body + 1
      re.lastIndex = pos
      changed = true
      bump("Effect.Service")
    }
    src = out + src.slice(pos)
    if (changed) { src = ensureImport(src, "Context"); src = ensureImport(src, "Layer") }
  }
  src = src.replace(/(?<=[\w$)])\.Default\b/g, () => (bump(".Default"), ".layer"))
  src = src.replace(/(?<=[\w$)])\.DefaultWithoutDependencies\b/g, () => (bump(".DefaultWithoutDependencies"), ".layerNoDeps"))
  if (uses(src, "Context")) src = ensureImport(src, "Context")
  if (uses(src, "Result")) src = ensureImport(src, "Result")
  return src
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  for (const file of process.argv.slice(2)) {
    const before = readFileSync(file, "utf8")
    const after = transform(before)
    if (after !== before) writeFileSync(file, after)
  }
  for (const [k, v] of Object.entries(counts).sort((a, b) => b[1] - a[1])) console.log(`${String(v).padStart(6)}  ${k}`)
}
