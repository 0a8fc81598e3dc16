/**
 * docs/configuration.md against the settings the server reads: the committed page is what the
 * declarations of `src/http/Settings.ts` give; every variable the sources read is declared and
 * documented, and every documented one is read; each numeric setting takes its documented bounds
 * and refuses one past them, naming the variable; an empty environment gives the documented defaults.
 */
import { Config, ConfigProvider, Effect, Option, Result, type SchemaIssue as SchemaIssueType, SchemaIssue } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { renderConfigurationDocs } from "../../src/http/ConfigurationDocs.js"
import { serverConfig } from "../../src/http/ServerConfig.js"
import {
  configsOf,
  everySetting,
  imessageSettings,
  managementUserLimitSetting,
  observabilitySettings,
  platformSettings,
  projectApiKeyLimitSetting,
  projectClosureSecondsSetting,
  type Setting,
  serverSettings,
  whatsappSettings
} from "../../src/http/Settings.js"

const root = join(import.meta.dirname, "..", "..", "..", "..")
const src = join(root, "packages", "http-adapter", "src")
const committed = readFileSync(join(root, "docs", "configuration.md"), "utf8")

const parse = <A>(config: Config.Config<A>, env: Record<string, string>) =>
  Effect.runSync(Effect.result(config.parse(ConfigProvider.fromEnv({ env }))))

const issueEntries = SchemaIssue.makeFormatterStandardSchemaV1()

/** The variables a configuration error names, as the CLI prints them (`NAME=value: why`). */
const namedIn = (error: Config.ConfigError): Array<string> =>
  error.cause._tag === "SourceError" ? [] : issueEntries(error.cause.issue as SchemaIssueType.Issue).issues.map((i) => (i.path ?? []).map(String).join("_"))

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [])

/** Names the sources hand to a reader of the environment: `Config.X("NAME")`, `Config.Literals([…], "NAME")`, `process.env.NAME`. */
const readsIn = (text: string) => new Set([
  ...[...text.matchAll(/Config\.\w+\(\s*(?:\[[^\]]*\]\s*,\s*)?"([A-Z][A-Z0-9_]+)"/g)].map((m) => m[1]!),
  ...[...text.matchAll(/boundedInteger\(\s*"([A-Z][A-Z0-9_]+)"/g)].map((m) => m[1]!),
  ...[...text.matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]+)|\["([A-Z][A-Z0-9_]+)"\])/g)].map((m) => (m[1] ?? m[2])!)
])

const declared = everySetting.map((s) => s.name)
const documented = [...committed.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]!)

describe("docs/configuration.md", () => {
  it("is what the setting declarations give (run `npm run docs:config` after changing a setting)", () => {
    expect(committed, "docs/configuration.md is stale: run `npm run docs:config` and commit it").toBe(renderConfigurationDocs())
  })

  it("documents each declared variable once, and nothing else", () => {
    expect(new Set(declared).size, "a variable is declared twice").toBe(declared.length)
    expect(documented).toEqual(declared)
  })

  it("every variable the sources read is declared; every declared one is read where it is declared", () => {
    const settingsFile = join(src, "http", "Settings.ts")
    const settingsText = readFileSync(settingsFile, "utf8")
    // Settings.ts: each declaration names its variable once (`name: "…"`), or passes it to Config itself.
    const inSettings = new Set([...[...settingsText.matchAll(/\bname: "([A-Z][A-Z0-9_]+)"/g)].map((m) => m[1]!), ...readsIn(settingsText)])
    expect([...inSettings].sort()).toEqual([...declared].sort())
    // Everywhere else: nothing reads a variable on its own, outside the declarations.
    const elsewhere = sourceFiles(src).filter((f) => f !== settingsFile).flatMap((f) => [...readsIn(readFileSync(f, "utf8"))].map((name) => `${name} (${f.slice(src.length + 1)})`))
    expect(elsewhere.filter((read) => !declared.includes(read.split(" ")[0]!))).toEqual([])
  })

  it("the server reads each declared variable: a value in it changes what is parsed", () => {
    const records: ReadonlyArray<Record<string, Setting<unknown>>> = [serverSettings, platformSettings, imessageSettings, whatsappSettings, observabilitySettings]
    const wired = new Set<Setting<unknown>>([...records.flatMap((r) => Object.values(r)), managementUserLimitSetting, projectApiKeyLimitSetting, projectClosureSecondsSetting])
    const samples: Record<string, string> = {
      DATABASE_URL: "postgres://db.example/switchboard",
      DATABASE_LISTEN_URL: "postgres://db.example/switchboard",
      SECRET_KEY: "k".repeat(32),
      EGRESS_IPS: "34.120.1.2",
      SSO_RETURN_TO_ORIGINS: "https://app.example",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector.example:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector.example:4318/v1/traces",
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://collector.example:4318/v1/metrics",
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: "http://collector.example:4318/v1/logs",
      OTEL_TRACES_SAMPLER_ARG: "0.25"
    }
    for (const s of everySetting) {
      const sample = samples[s.name] ?? (s.bounds !== undefined
        ? String(s.bounds.min === s.fallback?.value ? s.bounds.max : s.bounds.min)
        : typeof s.fallback?.value === "boolean"
        ? String(!s.fallback.value)
        : s.choices !== undefined
        ? s.choices.find((c) => c !== s.fallback?.value)!
        : "sample-value")
      const unset = Result.getOrThrow(parse(s.config, {}))
      const set = parse(s.config, { [s.name]: sample })
      expect([s.name, Result.isSuccess(set)]).toEqual([s.name, true])
      expect(Result.getOrThrow(set), s.name).not.toEqual(unset)
    }
    // Each declaration is one the server or an adapter parses (the adapters' are checked at start too).
    expect(everySetting.filter((s) => !wired.has(s)).map((s) => s.name)).toEqual([])
  })

  it("each numeric setting takes its documented bounds and refuses one past them, naming the variable, at start", () => {
    const numeric = everySetting.filter((s) => s.bounds !== undefined)
    expect(numeric.length).toBeGreaterThan(50)
    for (const s of numeric) {
      const { max, min } = s.bounds!
      expect([s.name, Result.getOrThrow(parse(s.config, { [s.name]: String(min) }))]).toEqual([s.name, min])
      expect([s.name, Result.getOrThrow(parse(s.config, { [s.name]: String(max) }))]).toEqual([s.name, max])
      expect(s.range, s.name).toContain(`\`${min}\`–\`${max}\``)
      for (const past of [min - 1, max + 1]) {
        // The server's configuration, which the CLI checks before anything is built, refuses it.
        const r = parse(serverConfig, { [s.name]: String(past) })
        expect([s.name, past, Result.isFailure(r)]).toEqual([s.name, past, true])
        if (Result.isFailure(r)) expect([s.name, past, namedIn(r.failure)]).toEqual([s.name, past, [s.name]])
      }
    }
  })

  it("an empty environment gives each documented literal default", () => {
    const config = Result.getOrThrow(parse(serverConfig, {})) as unknown as Record<string, unknown>
    for (const [key, s] of Object.entries(serverSettings) as Array<[string, Setting<unknown>]>) {
      if (s.fallback === undefined) continue
      expect([s.name, config[key]]).toEqual([s.name, s.fallback.value])
      expect(s.shownDefault, s.name).toMatch(new RegExp(`^\`${String(s.fallback.value).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\``))
    }
    for (const record of [platformSettings, imessageSettings, whatsappSettings, observabilitySettings] as ReadonlyArray<Record<string, Setting<unknown>>>) {
      const parsed = Result.getOrThrow(parse(Config.all(configsOf(record)), {})) as Record<string, unknown>
      for (const [key, s] of Object.entries(record)) {
        if (s.fallback !== undefined) expect([s.name, parsed[key]]).toEqual([s.name, s.fallback.value])
      }
    }
    // The settings whose default is not one value: the URLs default to the server's origin, the rest to none.
    expect(config).toMatchObject({ apiUrl: "http://127.0.0.1:8080", dashboardUrl: "http://127.0.0.1:8080", docsUrl: "http://127.0.0.1:8080", spectrumUrl: "https://127.0.0.1:8443", egressIps: [], ssoReturnToOrigins: [] })
    for (const key of ["databaseUrl", "bootstrapPassword", "secretKey", "plansFile", "tlsCert", "tlsKey", "deviceClientId", "cacheDir"]) {
      expect([key, Option.isNone(config[key] as Option.Option<unknown>)]).toEqual([key, true])
    }
  })
})
