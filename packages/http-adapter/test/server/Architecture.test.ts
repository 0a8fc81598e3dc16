/**
 * The architecture rules of docs/architecture.md#dependency-rule, checked over the sources on disk:
 *
 * (a) the package dependency rule: which modules each package's src may import;
 * (b) no import cycles among the src files of a package (value imports: a cycle of them is what
 *     makes module evaluation order matter, e.g. a `ReferenceError` on a class used before its
 *     module ran);
 * (c) every port of core (a `Context.Service` declared by its shape) has a contract suite exported
 *     by the testkit, and every such suite runs on each of its backends: memory, and the SQL layers
 *     (PGlite always, PostgreSQL when DATABASE_URL is set);
 * (d) the HTTP adapter knows a database outage by its type only (core's `DatabaseUnavailable`): no
 *     module of its src mentions PostgreSQL error codes or driver messages — the SQL adapter
 *     classifies them (sql-adapter/src/shared/DatabaseOutage.ts);
 * (e) the request pipeline's composition (http/Middleware.ts) stays short: its steps live in
 *     http/pipeline/, and the order of the steps reads in one place;
 * (f) a /v1 endpoint is implemented on its decoded declaration (`.handle`): `handleRaw` only for
 *     the endpoints listed with the reason they need the request's bytes.
 *
 * Each checker is a pure function over an in-memory file set; the first tests give each one a
 * deliberate violation and assert the message, so a checker that cannot fail is caught too.
 */
import { testBackends } from "@switchboard/sql-adapter"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

/** A source file: its path from the repository root (with `/`) and its text. */
export interface SourceFile {
  readonly path: string
  readonly text: string
}

interface ImportRef {
  readonly specifier: string
  /** `import type` / `export type`, or an `import("…")` type: erased at runtime. */
  readonly typeOnly: boolean
  readonly line: number
}

// ---------------------------------------------------------------------------------------------
// Parsing

const parse = (file: SourceFile) =>
  ts.createSourceFile(file.path, file.text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)

const lineOf = (source: ts.SourceFile, node: ts.Node) =>
  source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1

/** Every import, re-export, dynamic import and import type of a file. */
export const importsOf = (file: SourceFile): ReadonlyArray<ImportRef> => {
  const source = parse(file)
  const refs: Array<ImportRef> = []
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause
      const typeOnly = clause !== undefined && (clause.isTypeOnly || (
        clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) &&
        clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)
      ))
      refs.push({ specifier: node.moduleSpecifier.text, typeOnly, line: lineOf(source, node) })
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = node.isTypeOnly || (
        node.exportClause !== undefined && ts.isNamedExports(node.exportClause) &&
        node.exportClause.elements.length > 0 && node.exportClause.elements.every((e) => e.isTypeOnly)
      )
      refs.push({ specifier: node.moduleSpecifier.text, typeOnly, line: lineOf(source, node) })
    } else if (
      ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0])
    ) {
      refs.push({ specifier: node.arguments[0].text, typeOnly: false, line: lineOf(source, node) })
    } else if (
      ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)
    ) {
      refs.push({ specifier: node.argument.literal.text, typeOnly: true, line: lineOf(source, node) })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return refs
}

/** The identifiers a file uses (comments and strings excluded). */
const identifiersOf = (file: SourceFile): ReadonlySet<string> => {
  const names = new Set<string>()
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) names.add(node.text)
    ts.forEachChild(node, visit)
  }
  visit(parse(file))
  return names
}

const packageOf = (path: string) => /^packages\/([^/]+)\//.exec(path)?.[1]
const isSrc = (path: string) => /^packages\/[^/]+\/src\//.test(path)
const isTestFile = (path: string) => /^packages\/[^/]+\/test\/.*\.test\.ts$/.test(path)

/** The file a relative specifier names (`./X.js` is `./X.ts`), or undefined when it leaves the tree. */
const resolveRelative = (from: string, specifier: string): string => {
  const parts = from.split("/").slice(0, -1)
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop()
    else if (part !== ".") parts.push(part)
  }
  return parts.join("/").replace(/\.js$/, ".ts")
}

// ---------------------------------------------------------------------------------------------
// (a) The package dependency rule

const bare = (...names: ReadonlyArray<string>) => (specifier: string) =>
  names.some((name) => specifier === name || specifier.startsWith(`${name}/`))

/** The testkit's simulated providers: shipped by the server, so they load no test runner. */
const simulatedDir = "packages/testkit/src/simulated/"
const testkitSimulated = "@switchboard/testkit/simulated"

/**
 * What each package's src may import besides its own relative files (docs/architecture.md). The
 * http-adapter may import anything but the other packages: only its composition root
 * (`src/server/`) may import the sql-adapter and the testkit's simulated providers
 * (`@switchboard/testkit/simulated`), and nothing in its src imports the rest of the testkit.
 */
/** Effect's HTTP, HTTP-API and SQL modules (the adapters'), and its test support (the tests'). */
const effectHttp = bare("effect/http", "effect/http-api")
const effectSql = bare("effect/sql")
const effectTesting = bare("effect/testing")

const dependencyRule: Record<string, (specifier: string, path: string) => string | undefined> = {
  core: (s) =>
    effectHttp(s) || effectSql(s) || effectTesting(s)
      ? "core has no HTTP, SQL or test module of effect (it runs in any JS runtime, behind its ports)"
      : bare("effect", "jose")(s)
      ? undefined
      : "core imports only effect and jose (it runs in any JS runtime)",
  testkit: (s, path) =>
    path.startsWith(simulatedDir)
      ? bare("effect", "@switchboard/core")(s) && !effectHttp(s) && !effectSql(s) && !effectTesting(s)
        ? undefined
        : "the simulated providers (testkit/src/simulated/) import only core and effect (no HTTP, SQL or test module)"
      : bare("effect", "@switchboard/core", "vitest", "@effect/vitest")(s) && !effectHttp(s) && !effectSql(s)
      ? undefined
      : "the testkit imports only core, effect (no HTTP or SQL module) and the test runner",
  "sql-adapter": (s) =>
    bare("effect", "@switchboard/core", "pg", "@electric-sql/pglite", "@electric-sql/pglite-socket", "libpg-query")(s) &&
      !effectHttp(s) && !effectTesting(s) || s.startsWith("node:")
      ? undefined
      : "the sql-adapter imports only core, effect (no HTTP or test module), PGlite, pg, libpg-query and node:*",
  // (src/server/Mount.ts may import the testkit's root: its memory store, loaded only when asked for.)
  "http-adapter": (s, path) =>
    bare("@switchboard/testkit")(s) && s !== testkitSimulated && !(s === "@switchboard/testkit" && path === mountModule)
      ? "http-adapter/src never imports the testkit, whose root loads the test runner (src/server/ may import @switchboard/testkit/simulated)"
      : bare("@switchboard/sql-adapter", testkitSimulated)(s) && !path.startsWith("packages/http-adapter/src/server/")
      ? "adapters never import each other, except the composition root (http-adapter/src/server/)"
      : undefined
}

/** The embedding entry, whose `{ kind: "memory" }` store is the testkit's (loaded only when asked for). */
const mountModule = "packages/http-adapter/src/server/Mount.ts"

export const checkDependencyRule = (files: ReadonlyArray<SourceFile>): ReadonlyArray<string> => {
  const violations: Array<string> = []
  for (const file of files) {
    const pkg = packageOf(file.path)
    if (pkg === undefined || !isSrc(file.path)) continue
    const rule = dependencyRule[pkg]
    for (const ref of importsOf(file)) {
      const where = `${file.path}:${ref.line}`
      if (ref.specifier.startsWith(".")) {
        const target = resolveRelative(file.path, ref.specifier)
        if (!target.startsWith(`packages/${pkg}/src/`)) {
          violations.push(`${where} imports "${ref.specifier}": a relative import leaves packages/${pkg}/src/`)
        } else if (file.path.startsWith(simulatedDir) && !target.startsWith(simulatedDir)) {
          violations.push(`${where} imports "${ref.specifier}": a relative import leaves ${simulatedDir} (the rest of the testkit loads the test runner)`)
        }
      } else if (ref.specifier === `@switchboard/${pkg}` || ref.specifier.startsWith(`@switchboard/${pkg}/`)) {
        violations.push(`${where} imports its own package "${ref.specifier}" by name: import the file relatively`)
      } else if (rule === undefined) {
        violations.push(`${where}: packages/${pkg} has no dependency rule (add it to Architecture.test.ts)`)
      } else {
        const reason = rule(ref.specifier, file.path)
        if (reason !== undefined) violations.push(`${where} imports "${ref.specifier}": ${reason}`)
      }
    }
  }
  return violations
}

// ---------------------------------------------------------------------------------------------
// (b) No import cycles among a package's src files

/** Each cycle of value imports among src files, as `a.ts → b.ts → a.ts` (one per strongly connected set). */
export const findImportCycles = (files: ReadonlyArray<SourceFile>): ReadonlyArray<string> => {
  const known = new Set(files.filter((f) => isSrc(f.path)).map((f) => f.path))
  const edges = new Map<string, ReadonlyArray<string>>()
  for (const file of files) {
    if (!known.has(file.path)) continue
    const targets = importsOf(file)
      .filter((ref) => !ref.typeOnly && ref.specifier.startsWith("."))
      .map((ref) => resolveRelative(file.path, ref.specifier))
      .filter((target) => known.has(target) && packageOf(target) === packageOf(file.path))
    edges.set(file.path, [...new Set(targets)].sort())
  }
  // Tarjan's strongly connected components.
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const components: Array<ReadonlyArray<string>> = []
  const connect = (v: string): void => {
    index.set(v, counter)
    low.set(v, counter)
    counter++
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!))
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: Array<string> = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) components.push(component.sort())
    }
  }
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) connect(v)
  // One shortest cycle through the first file of each component, for the message.
  return components.map((component) => {
    const members = new Set(component)
    const start = component[0]!
    const previous = new Map<string, string>()
    const queue = [start]
    let closing: string | undefined
    while (queue.length > 0 && closing === undefined) {
      const v = queue.shift()!
      for (const w of edges.get(v) ?? []) {
        if (!members.has(w)) continue
        if (w === start) {
          closing = v
          break
        }
        if (!previous.has(w)) {
          previous.set(w, v)
          queue.push(w)
        }
      }
    }
    const path = [start]
    for (let v = closing!; v !== start; v = previous.get(v)!) path.splice(1, 0, v)
    path.push(start)
    const shown = path.map((p) => p.replace(/^packages\/[^/]+\/src\//, "")).join(" → ")
    return `import cycle in packages/${packageOf(start)}/src (${component.length} files): ${shown}`
  })
}

// ---------------------------------------------------------------------------------------------
// (c) Every port has a contract suite, run on every backend

/** A port with no contract suite, and why (keep this list short and honest). */
export type PortExceptions = Readonly<Record<string, string>>

/** The backends a top-level contract suite must run on, when not memory and SQL. */
export type SuiteBackends = Readonly<Record<string, { readonly backends: ReadonlyArray<string>; readonly why: string }>>

/**
 * The ports in core's src: `class X extends Context.Service<X, Shape>()(…)` (a service declared by its
 * shape; one built by core is `Context.Service<X>()(…, { make })`) / `const X = Context.Service<Shape>(…)`.
 */
const portsOf = (files: ReadonlyArray<SourceFile>) => {
  const ports = new Map<string, string>()
  for (const file of files) {
    if (!file.path.startsWith("packages/core/src/")) continue
    for (const m of file.text.matchAll(/class\s+(\w+)\s+extends\s+Context\.Service<\s*\w+\s*,/g)) ports.set(m[1]!, file.path)
    for (const m of file.text.matchAll(/const\s+(\w+)\s*=\s*Context\.Service\b/g)) ports.set(m[1]!, file.path)
  }
  return ports
}

export const checkContracts = (
  files: ReadonlyArray<SourceFile>,
  exceptions: PortExceptions,
  suiteBackends: SuiteBackends
): ReadonlyArray<string> => {
  const violations: Array<string> = []
  const ports = portsOf(files)
  // The testkit's contract files and the suites each defines.
  const contractFiles = files.filter((f) => f.path.startsWith("packages/testkit/src/") && /(Contract|Features)\.ts$/.test(f.path))
  const definedIn = new Map<string, SourceFile>()
  for (const file of contractFiles) {
    for (const m of file.text.matchAll(/export\s+const\s+(\w+Contract)\s*=/g)) definedIn.set(m[1]!, file)
  }
  const identifiers = new Map(files.map((f) => [f.path, identifiersOf(f)] as const))
  // A contract file includes another suite when it calls it; the top-level suites are the rest.
  const includes = (file: SourceFile) =>
    [...definedIn.entries()].filter(([name, at]) => at !== file && identifiers.get(file.path)!.has(name)).map(([n]) => n)
  const included = new Set(contractFiles.flatMap(includes))
  const topLevel = [...definedIn.keys()].filter((name) => !included.has(name)).sort()
  const portsExercisedBy = (suite: string): ReadonlySet<string> => {
    const seen = new Set<string>()
    const exercised = new Set<string>()
    const visit = (name: string): void => {
      if (seen.has(name)) return
      seen.add(name)
      const file = definedIn.get(name)!
      for (const port of ports.keys()) if (identifiers.get(file.path)!.has(port)) exercised.add(port)
      for (const inner of includes(file)) visit(inner)
    }
    visit(suite)
    return exercised
  }
  // Where each top-level suite runs: the backend named by its call's first argument, or "sql" when
  // the test file runs it over `testBackends()` (PGlite, and PostgreSQL when DATABASE_URL is set).
  const runs = new Map<string, Set<string>>(topLevel.map((s) => [s, new Set<string>()]))
  for (const file of files.filter((f) => isTestFile(f.path))) {
    const overSql = file.text.includes("testBackends(")
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && runs.has(node.expression.text)) {
        const first = node.arguments[0]
        const backend = first !== undefined && ts.isStringLiteral(first) ? first.text : overSql ? "sql" : "unknown"
        runs.get(node.expression.text)!.add(backend)
      }
      ts.forEachChild(node, visit)
    }
    visit(parse(file))
  }
  const coveredBy = new Map<string, ReadonlyArray<string>>()
  for (const suite of topLevel) {
    const required = suiteBackends[suite]?.backends ?? ["memory", "sql"]
    const missing = required.filter((b) => !runs.get(suite)!.has(b))
    for (const backend of missing) {
      violations.push(
        `contract suite ${suite} (${definedIn.get(suite)!.path}) is not run on ${backend}: no test file calls it` +
          (backend === "sql" ? " over testBackends()" : ` with "${backend}"`)
      )
    }
    for (const port of portsExercisedBy(suite)) coveredBy.set(port, [...(coveredBy.get(port) ?? []), suite])
  }
  for (const [port, path] of [...ports.entries()].sort()) {
    const suites = coveredBy.get(port)
    if (suites === undefined && exceptions[port] === undefined) {
      violations.push(`port ${port} (${path}) has no contract suite in packages/testkit/src (no *Contract.ts uses it)`)
    } else if (suites !== undefined && exceptions[port] !== undefined) {
      violations.push(`port ${port} is listed as having no contract, but ${suites.join(", ")} exercises it: drop the entry`)
    }
  }
  for (const port of Object.keys(exceptions)) {
    if (!ports.has(port)) violations.push(`port ${port} is listed as having no contract, but core declares no such port`)
  }
  for (const suite of Object.keys(suiteBackends)) {
    if (!topLevel.includes(suite)) violations.push(`backends are listed for ${suite}, which is not a top-level contract suite`)
  }
  return violations
}

// ---------------------------------------------------------------------------------------------
// (d) Database outages by their type only, in the HTTP adapter

/** What only a driver's error says: outage SQLSTATEs (57014, 57P0x, class 08) and driver messages. */
const driverErrorPatterns: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b57014\b/, "the SQLSTATE 57014"],
  [/\b57P0\d\b/, "a SQLSTATE 57P0x"],
  [/\b08\d{3}\b|08\\d/, "a SQLSTATE of class 08"],
  [/ECONNREFUSED/, "ECONNREFUSED"],
  [/Connection terminated/i, "node-postgres' \"Connection terminated\""],
  [/Query read timeout/i, "node-postgres' \"Query read timeout\""],
  [/timeout exceeded when trying to connect/i, "node-postgres' pool timeout"]
]

export const checkNoDriverErrors = (files: ReadonlyArray<SourceFile>): ReadonlyArray<string> => {
  const violations: Array<string> = []
  for (const file of files) {
    if (!file.path.startsWith("packages/http-adapter/src/")) continue
    file.text.split("\n").forEach((line, i) => {
      for (const [pattern, what] of driverErrorPatterns) {
        if (pattern.test(line)) {
          violations.push(
            `${file.path}:${i + 1} mentions ${what}: the HTTP adapter knows an outage as DatabaseUnavailable only (the SQL adapter classifies driver errors)`
          )
        }
      }
    })
  }
  return violations
}

// ---------------------------------------------------------------------------------------------
// (e) The pipeline's composition stays short

const MIDDLEWARE = "packages/http-adapter/src/http/Middleware.ts"
const MIDDLEWARE_MAX_LINES = 150

export const checkMiddlewareSize = (files: ReadonlyArray<SourceFile>): ReadonlyArray<string> => {
  const middleware = files.find((f) => f.path === MIDDLEWARE)
  if (middleware === undefined) return [`${MIDDLEWARE} is missing: the pipeline's composition moved (update this check)`]
  const lines = middleware.text.split("\n").length
  return lines < MIDDLEWARE_MAX_LINES
    ? []
    : [`${MIDDLEWARE} has ${lines} lines (fewer than ${MIDDLEWARE_MAX_LINES}): put a step in http/pipeline/, keep the composition readable`]
}

// ---------------------------------------------------------------------------------------------
// (f) Raw /v1 handlers only where the request's bytes are needed

export type RawEndpoints = Readonly<Record<string, string>>

export const checkRawHandlers = (files: ReadonlyArray<SourceFile>, allowed: RawEndpoints): ReadonlyArray<string> => {
  const violations: Array<string> = []
  const seen = new Set<string>()
  for (const file of files) {
    if (!file.path.startsWith("packages/http-adapter/src/")) continue
    file.text.split("\n").forEach((line, i) => {
      for (const m of line.matchAll(/\.handleRaw\(\s*"([^"]+)"/g)) {
        seen.add(m[1]!)
        if (allowed[m[1]!] === undefined) {
          violations.push(`${file.path}:${i + 1} implements ${m[1]} with handleRaw: use .handle on its declaration (or list it, with why it needs the raw request)`)
        }
      }
    })
  }
  for (const name of Object.keys(allowed)) {
    if (!seen.has(name)) violations.push(`${name} is listed as a raw endpoint but no handler is raw: drop it from the list`)
  }
  return violations
}

// ---------------------------------------------------------------------------------------------
// The repository

const root = (() => {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, "packages", "core", "package.json"))) {
    const up = dirname(dir)
    if (up === dir) throw new Error("Architecture.test.ts: the repository root was not found")
    dir = up
  }
  return dir
})()

const walk = (dir: string): ReadonlyArray<string> =>
  existsSync(join(root, dir))
    ? readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? walk(`${dir}/${entry.name}`)
        : entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")
        ? [`${dir}/${entry.name}`]
        : [])
    : []

const repository: ReadonlyArray<SourceFile> = readdirSync(join(root, "packages"))
  .flatMap((pkg) => [...walk(`packages/${pkg}/src`), ...walk(`packages/${pkg}/test`)])
  .map((path) => ({ path, text: readFileSync(join(root, path), "utf8") }))

/**
 * Ports with no contract suite. Drivers of external systems and values, not stores: their test
 * doubles live in the testkit and their real implementations in the server, tested where they are.
 */
const portsWithoutContract: PortExceptions = {
  ServerSecret: "a value (the deployment's secret bytes), not a behaviour",
  Secrets: "randomness; one implementation (SecretsLive, WebCrypto) in core, used by every backend",
  PasswordHasher: "a driver (scrypt in http-adapter/src/server, a fast test double in the testkit), not a store",
  SmsSender: "a driver of an SMS gateway (the testkit records messages), not a store",
  WebhookSender: "a driver (HTTP POST in http-adapter/src/server, a recorder in the testkit), not a store",
  SipGateway: "a driver of the SIP side (a recorder in the testkit), not a store",
  BillingCatalog: "configuration (the plan catalog JSON), not a store",
  PaymentProvider: "a driver of the payment provider (simulated in the server and the testkit), not a store",
  LineProvider:
    "gap: the simulated number provider has a memory and a SQL implementation but no contract suite yet (follow-up)",
  DeliveryStats: "a view over WebhooksRepo.deliveryCounts/oldestPendingDueMillis, which the webhooks contract checks",
  SsoOutbound: "a driver of identity providers (guarded HTTP in http-adapter/src/server; the SSO tests run a real oidc-provider), not a store",
  DnsTxtResolver: "a driver of DNS (node:dns in http-adapter/src/server, published records in the testkit), not a store"
}

/**
 * Cycles that exist today, each with the change that removes it. An entry that no longer matches a
 * cycle fails the test too: drop it when its cycle is gone.
 */
const knownCycles: Readonly<Record<string, string>> = {}

/** Suites not stored in SQL. */
const nonSqlSuites: SuiteBackends = {
  metricsQueryContract: {
    backends: ["sql"],
    why: "SQL runs only on a SQL store: the in-memory engine answers MetricsQueryUnavailable (testkit/test/Metrics.memory.test.ts)"
  },
  blobStoreContract: {
    backends: ["memory", "filesystem"],
    why: "blobs are not kept in the database: the standalone server stores them on the filesystem"
  }
}

/** The /v1 endpoints whose handlers read the raw request, and why. */
const rawEndpoints: RawEndpoints = {
  uploadAttachment: "the body is the file's bytes, of any content type, streamed within the limit and fingerprinted by their SHA-256",
  deliverAttachment: "the body is an inbound attachment's bytes, of any content type, read within the limit"
}

// ---------------------------------------------------------------------------------------------
// The checkers fail on a deliberate violation

const file = (path: string, ...lines: ReadonlyArray<string>): SourceFile => ({ path, text: lines.join("\n") })

describe("the architecture checkers catch a deliberate violation", () => {
  it("dependency rule: node:* or another package in core, adapters importing each other", () => {
    const violations = checkDependencyRule([
      file(
        "packages/core/src/shared/Bad.ts",
        "import { Effect } from \"effect\"",
        "import * as jose from \"jose\"",
        "import { readFileSync } from \"node:fs\"",
        "import type { SqlClient } from \"effect/sql\"",
        "export { Fixtures } from \"@switchboard/testkit\"",
        "import { X } from \"../../../testkit/src/X.js\"",
        "const lazy = () => import(\"effect/http\")",
        "import { Schema } from \"effect/Schema\""
      ),
      file("packages/sql-adapter/src/Bad.ts", "import { TestPorts } from \"@switchboard/testkit\"", "import { HttpRouter } from \"effect/http\""),
      file("packages/sql-adapter/src/Fine.ts", "import { SqlClient } from \"effect/sql\"", "import { PGlite } from \"@electric-sql/pglite\""),
      file("packages/testkit/src/Bad.ts", "import { x } from \"@switchboard/sql-adapter\""),
      file(
        "packages/testkit/src/simulated/Bad.ts",
        "import { Effect } from \"effect\"",
        "import { ProviderFailure } from \"@switchboard/core/platforms\"",
        "import { describe } from \"vitest\"",
        "import { Fixtures } from \"../Fixtures.js\"",
        "import { a } from \"./Fine.js\""
      ),
      file("packages/http-adapter/src/v1/Bad.ts", "import { testStore } from \"@switchboard/sql-adapter\""),
      file("packages/http-adapter/src/v1/Bad2.ts", "import { makeSimulatedProviders } from \"@switchboard/testkit/simulated\""),
      file("packages/http-adapter/src/server/Bad.ts", "import { TestkitLive } from \"@switchboard/testkit\""),
      file("packages/http-adapter/src/server/Fine.ts", "import { testStore } from \"@switchboard/sql-adapter\""),
      file("packages/http-adapter/src/server/Fine2.ts", "import { makeSimulatedProviders } from \"@switchboard/testkit/simulated\""),
      file("packages/http-adapter/test/Fine.test.ts", "import { TestPorts } from \"@switchboard/testkit\"")
    ])
    expect(violations).toEqual([
      "packages/core/src/shared/Bad.ts:3 imports \"node:fs\": core imports only effect and jose (it runs in any JS runtime)",
      "packages/core/src/shared/Bad.ts:4 imports \"effect/sql\": core has no HTTP, SQL or test module of effect (it runs in any JS runtime, behind its ports)",
      "packages/core/src/shared/Bad.ts:5 imports \"@switchboard/testkit\": core imports only effect and jose (it runs in any JS runtime)",
      "packages/core/src/shared/Bad.ts:6 imports \"../../../testkit/src/X.js\": a relative import leaves packages/core/src/",
      "packages/core/src/shared/Bad.ts:7 imports \"effect/http\": core has no HTTP, SQL or test module of effect (it runs in any JS runtime, behind its ports)",
      "packages/sql-adapter/src/Bad.ts:1 imports \"@switchboard/testkit\": the sql-adapter imports only core, effect (no HTTP or test module), PGlite, pg, libpg-query and node:*",
      "packages/sql-adapter/src/Bad.ts:2 imports \"effect/http\": the sql-adapter imports only core, effect (no HTTP or test module), PGlite, pg, libpg-query and node:*",
      "packages/testkit/src/Bad.ts:1 imports \"@switchboard/sql-adapter\": the testkit imports only core, effect (no HTTP or SQL module) and the test runner",
      "packages/testkit/src/simulated/Bad.ts:3 imports \"vitest\": the simulated providers (testkit/src/simulated/) import only core and effect (no HTTP, SQL or test module)",
      "packages/testkit/src/simulated/Bad.ts:4 imports \"../Fixtures.js\": a relative import leaves packages/testkit/src/simulated/ (the rest of the testkit loads the test runner)",
      "packages/http-adapter/src/v1/Bad.ts:1 imports \"@switchboard/sql-adapter\": adapters never import each other, except the composition root (http-adapter/src/server/)",
      "packages/http-adapter/src/v1/Bad2.ts:1 imports \"@switchboard/testkit/simulated\": adapters never import each other, except the composition root (http-adapter/src/server/)",
      "packages/http-adapter/src/server/Bad.ts:1 imports \"@switchboard/testkit\": http-adapter/src never imports the testkit, whose root loads the test runner (src/server/ may import @switchboard/testkit/simulated)"
    ])
  })

  it("import cycles: a value cycle is reported with its path; a type-only one and test files are not", () => {
    const cycles = findImportCycles([
      file("packages/core/src/a/A.ts", "import { b } from \"../b/B.js\"", "export const a = 1"),
      file("packages/core/src/b/B.ts", "import { c } from \"./C.js\"", "export const b = 1"),
      file("packages/core/src/b/C.ts", "export { a } from \"../a/A.js\""),
      file("packages/core/src/t/T.ts", "import type { U } from \"./U.js\"", "export type T = 1"),
      file("packages/core/src/t/U.ts", "import { type T } from \"./T.js\"", "export type U = 1"),
      file("packages/core/src/Self.ts", "import { s } from \"./Self.js\"", "export const s = 1"),
      file("packages/core/test/X.test.ts", "import { y } from \"./Y.js\""),
      file("packages/core/test/Y.ts", "import { x } from \"./X.test.js\"")
    ])
    expect(cycles).toEqual([
      "import cycle in packages/core/src (1 files): Self.ts → Self.ts",
      "import cycle in packages/core/src (3 files): a/A.ts → b/B.ts → b/C.ts → a/A.ts"
    ])
  })

  it("contracts: a port with no suite, a suite not run on SQL, stale exceptions", () => {
    const violations = checkContracts(
      [
        file("packages/core/src/x/Ports.ts", "export class FooRepo extends Context.Service<FooRepo, {}>()(\"core/FooRepo\") {}"),
        file("packages/core/src/y/Ports.ts", "export class BarRepo extends Context.Service<BarRepo, {}>()(\"core/BarRepo\") {}"),
        file("packages/core/src/z/Ports.ts", "export const Baz = Context.Service<Baz>(\"core/Baz\")"),
        file(
          "packages/testkit/src/contracts/FooContract.ts",
          "export const fooContract = (it) => it.effect(\"x\", () => Effect.gen(function*() { yield* FooRepo }))"
        ),
        file(
          "packages/testkit/src/RepositoryContract.ts",
          "// BarRepo is only in a comment here",
          "export const repositoryContract = (name, makeLayer) => layer(makeLayer())(name, (it) => { fooContract(it) })"
        ),
        file("packages/testkit/test/Repo.memory.test.ts", "repositoryContract(\"memory\", () => Memory)")
      ],
      { Baz: "a value", Gone: "was removed" },
      {}
    )
    expect(violations).toEqual([
      "contract suite repositoryContract (packages/testkit/src/RepositoryContract.ts) is not run on sql: no test file calls it over testBackends()",
      "port BarRepo (packages/core/src/y/Ports.ts) has no contract suite in packages/testkit/src (no *Contract.ts uses it)",
      "port Gone is listed as having no contract, but core declares no such port"
    ])
    const fixed = checkContracts(
      [
        file("packages/core/src/x/Ports.ts", "export class FooRepo extends Context.Service<FooRepo, {}>()(\"core/FooRepo\") {}"),
        file("packages/testkit/src/contracts/FooContract.ts", "export const fooContract = (it) => { FooRepo }"),
        file("packages/testkit/src/RepositoryContract.ts", "export const repositoryContract = (n, l) => fooContract(it)"),
        file("packages/testkit/test/Repo.memory.test.ts", "repositoryContract(\"memory\", () => Memory)"),
        file(
          "packages/sql-adapter/test/Repo.test.ts",
          "for (const backend of testBackends()) repositoryContract(backend, () => testStore(backend))"
        )
      ],
      { FooRepo: "stale" },
      {}
    )
    expect(fixed).toEqual([
      "port FooRepo is listed as having no contract, but repositoryContract exercises it: drop the entry"
    ])
  })

  it("driver errors: pg codes and driver messages in the HTTP adapter's src, not in its tests or the SQL adapter", () => {
    const violations = checkNoDriverErrors([
      file(
        "packages/http-adapter/src/http/Bad.ts",
        "if (e.code === \"57014\") return \"timeout\"",
        "const down = /^(57P01|08\\d{3})$/",
        "// a refused connection (ECONNREFUSED) or \"Connection terminated unexpectedly\"",
        "const fine = \"the query ran past the statement timeout\""
      ),
      file("packages/http-adapter/src/server/Pool.ts", "if (/timeout exceeded when trying to connect|Query read timeout/.test(m)) {}"),
      file("packages/http-adapter/test/server/Fine.test.ts", "expect(stderr).toContain(\"ECONNREFUSED\")"),
      file("packages/sql-adapter/src/shared/Fine.ts", "if (code === \"57014\") return \"timeout\"")
    ])
    const why = "the HTTP adapter knows an outage as DatabaseUnavailable only (the SQL adapter classifies driver errors)"
    expect(violations).toEqual([
      `packages/http-adapter/src/http/Bad.ts:1 mentions the SQLSTATE 57014: ${why}`,
      `packages/http-adapter/src/http/Bad.ts:2 mentions a SQLSTATE 57P0x: ${why}`,
      `packages/http-adapter/src/http/Bad.ts:2 mentions a SQLSTATE of class 08: ${why}`,
      `packages/http-adapter/src/http/Bad.ts:3 mentions ECONNREFUSED: ${why}`,
      `packages/http-adapter/src/http/Bad.ts:3 mentions node-postgres' "Connection terminated": ${why}`,
      `packages/http-adapter/src/server/Pool.ts:1 mentions node-postgres' "Query read timeout": ${why}`,
      `packages/http-adapter/src/server/Pool.ts:1 mentions node-postgres' pool timeout: ${why}`
    ])
  })

  it("middleware size: a composition of 150 lines or more, or none at all", () => {
    expect(checkMiddlewareSize([file(MIDDLEWARE, ...Array.from({ length: 149 }, () => "x"))])).toEqual([])
    expect(checkMiddlewareSize([file(MIDDLEWARE, ...Array.from({ length: 150 }, () => "x"))])).toEqual([
      `${MIDDLEWARE} has 150 lines (fewer than 150): put a step in http/pipeline/, keep the composition readable`
    ])
    expect(checkMiddlewareSize([])).toEqual([`${MIDDLEWARE} is missing: the pipeline's composition moved (update this check)`])
  })

  it("raw handlers: an unlisted handleRaw, and a listed endpoint no longer raw", () => {
    const files = [file("packages/http-adapter/src/v1/XHandlers.ts", "handlers", "  .handleRaw(\"upload\", () => x)", "  .handleRaw(\"getThing\", () => y)")]
    expect(checkRawHandlers(files, { upload: "the file's bytes", getThing: "its bytes" })).toEqual([])
    expect(checkRawHandlers(files, { upload: "the file's bytes", getThing: "its bytes", gone: "x" })).toEqual([
      "gone is listed as a raw endpoint but no handler is raw: drop it from the list"
    ])
    expect(checkRawHandlers(files, {})).toEqual([
      "packages/http-adapter/src/v1/XHandlers.ts:2 implements upload with handleRaw: use .handle on its declaration (or list it, with why it needs the raw request)",
      "packages/http-adapter/src/v1/XHandlers.ts:3 implements getThing with handleRaw: use .handle on its declaration (or list it, with why it needs the raw request)"
    ])
  })
})

// ---------------------------------------------------------------------------------------------
// The rules hold on the repository

describe("the architecture of the repository", () => {
  it("has the files the checks read (a moved tree must not make them vacuous)", () => {
    for (const pkg of ["core", "testkit", "sql-adapter", "http-adapter"]) {
      expect(repository.filter((f) => f.path.startsWith(`packages/${pkg}/src/`)).length).toBeGreaterThan(5)
    }
    expect(portsOf(repository).size).toBeGreaterThan(20)
  })

  it("(a) follows the package dependency rule (docs/architecture.md#dependency-rule)", () => {
    expect(checkDependencyRule(repository)).toEqual([])
  })

  it("(b) has no import cycles among the src files of a package", () => {
    const cycles = findImportCycles(repository)
    expect(cycles.filter((cycle) => knownCycles[cycle] === undefined)).toEqual([])
    expect(Object.keys(knownCycles).filter((cycle) => !cycles.includes(cycle))).toEqual([])
  })

  it("(c) gives every port a contract suite run on memory and on SQL (PGlite, and PostgreSQL with DATABASE_URL)", () => {
    expect(checkContracts(repository, portsWithoutContract, nonSqlSuites)).toEqual([])
  })

  it("(d) the HTTP adapter mentions no pg error codes or driver messages", () => {
    expect(checkNoDriverErrors(repository)).toEqual([])
  })

  it("(e) the request pipeline's composition (http/Middleware.ts) stays short", () => {
    expect(checkMiddlewareSize(repository)).toEqual([])
  })

  it("(f) /v1 handlers use .handle on their declaration, handleRaw only where listed", () => {
    expect(checkRawHandlers(repository, rawEndpoints)).toEqual([])
  })

  it("(c) the SQL backends are PGlite always and PostgreSQL when DATABASE_URL is set", () => {
    const saved = process.env.DATABASE_URL
    try {
      delete process.env.DATABASE_URL
      expect(testBackends()).toEqual(["pglite"])
      process.env.DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres"
      expect(testBackends()).toEqual(["pglite", "postgres"])
    } finally {
      if (saved === undefined) delete process.env.DATABASE_URL
      else process.env.DATABASE_URL = saved
    }
  })
})
