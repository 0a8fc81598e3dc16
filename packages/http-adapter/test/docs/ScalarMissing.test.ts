/**
 * `@scalar/api-reference` is an optional peer: without it the standalone server still starts, and
 * the reference's script answers a problem saying what to install, not a raw exception.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setScalarSearchPaths } from "../../src/docs/ReferencePages.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

describe("the API reference without @scalar/api-reference", () => {
  let server: TestServer
  beforeAll(async () => {
    setScalarSearchPaths([join(tmpdir(), "no-scalar-here", "package.json")])
    server = await startTestServer("pglite")
  }, 60_000)
  afterAll(async () => {
    setScalarSearchPaths(undefined)
    await server.close()
  })

  it("answers /docs/assets/scalar.js with a problem naming the package to install", async () => {
    const res = await fetch(`${server.baseUrl}/docs/assets/scalar.js`)
    expect(res.status).toBe(404)
    expect(res.headers.get("content-type")).toContain("application/problem+json")
    const body = await res.json() as { code: string; detail: string }
    expect(body.code).toBe("RESOURCE_NOT_FOUND")
    expect(body.detail).toContain("npm i \"@scalar/api-reference@>=1.72.1 <2\"")
  })

  it("still serves the pages and the other script", async () => {
    expect((await fetch(`${server.baseUrl}/docs`)).status).toBe(200)
    expect((await fetch(`${server.baseUrl}/docs/assets/reference.js`)).status).toBe(200)
  })

  it("serves the bundle again once the package is found", async () => {
    setScalarSearchPaths(undefined)
    const res = await fetch(`${server.baseUrl}/docs/assets/scalar.js`)
    expect(res.status).toBe(200)
    setScalarSearchPaths([join(tmpdir(), "no-scalar-here", "package.json")])
  })
})
