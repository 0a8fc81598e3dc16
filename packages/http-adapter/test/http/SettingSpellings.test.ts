/**
 * Settings as people type them: a level or choice in any case, with spaces around it, and the usual
 * other spellings (`warn` for `warning`); anything else still stops the server naming the variable.
 */
import { ConfigProvider, Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import { serverConfig } from "../../src/http/ServerConfig.js"

const load = (env: Record<string, string>) => Effect.runSync(Effect.result(serverConfig.parse(ConfigProvider.fromEnv({ env }))))

describe("setting spellings", () => {
  it("LOG_LEVEL accepts warn/warning/err in any case", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["warn", "warning"],
      ["WARN", "warning"],
      ["Warning", "warning"],
      [" warning ", "warning"],
      ["DEBUG", "debug"],
      ["Info", "info"],
      ["err", "error"],
      ["ERROR", "error"]
    ]
    for (const [typed, level] of cases) expect([typed, Result.getOrThrow(load({ LOG_LEVEL: typed })).logLevel]).toEqual([typed, level])
  })

  it("ACCESS_LOG and LOG_FORMAT accept any case; warn is warning", () => {
    expect(Result.getOrThrow(load({ ACCESS_LOG: "WARN" })).accessLog).toBe("warning")
    expect(Result.getOrThrow(load({ ACCESS_LOG: "Off" })).accessLog).toBe("off")
    expect(Result.getOrThrow(load({ LOG_FORMAT: "JSON" })).logFormat).toBe("json")
  })

  it("an unknown level is still refused, naming the variable, its value and the choices", () => {
    const r = load({ LOG_LEVEL: "chatty" })
    expect(Result.isFailure(r)).toBe(true)
    expect(String(Result.isFailure(r) ? r.failure : "")).toContain("Expected one of (debug, info, warning, error) but received chatty")
  })
})
