/**
 * What the /v1 declarations must say for the middleware to act on them (v1/Declare.ts): every
 * endpoint declares the problems it can answer, and every authenticated endpoint declares who may
 * call it (`Requires`), so that a caller that may not use it is refused before its query or body is
 * looked at. What the server then answers is checked against the declarations by the HTTP
 * suite (test/answers/DeclaredProblems.test.ts, OAuthLeastPrivilege.test.ts).
 */
import { HttpApi } from "effect/http-api"
import { Context } from "effect"
import { describe, expect, it } from "vitest"
import { V1Api } from "../../src/Features.js"
import { Authn } from "../../src/v1/Authn.js"
import { declaredProblems, isIdempotent, Requires } from "../../src/v1/Declare.js"

const endpoints = (() => {
  const out: Array<{ readonly id: string; readonly problems: ReadonlyArray<string>; readonly idempotent: boolean; readonly authenticated: boolean; readonly body: boolean; readonly query: boolean; readonly requires: boolean }> = []
  HttpApi.reflect(V1Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) =>
      out.push({
        id: `${group.identifier}.${endpoint.identifier}`,
        problems: declaredProblems(endpoint),
        idempotent: isIdempotent(endpoint),
        authenticated: endpoint.middlewares.has(Authn as never),
        body: endpoint.payload.has("application/json"),
        query: endpoint.query !== undefined,
        requires: Context.getOrUndefined(endpoint.annotations, Requires) !== undefined
      })
  })
  return out
})()

describe("the /v1 declarations", () => {
  it("cover every endpoint", () => {
    expect(endpoints.length).toBeGreaterThan(150)
  })

  it("every endpoint declares its problems, INTERNAL_ERROR among them", () => {
    expect(endpoints.filter((e) => !e.problems.includes("INTERNAL_ERROR")).map((e) => e.id)).toEqual([])
  })

  it("an endpoint that requires an Idempotency-Key declares the protocol's problems", () => {
    expect(endpoints.filter((e) => e.idempotent && !e.problems.includes("IDEMPOTENCY_KEY_REQUIRED")).map((e) => e.id)).toEqual([])
  })

  it("every authenticated endpoint declares who may call it, those with a body or a query among them", () => {
    const authenticated = endpoints.filter((e) => e.authenticated)
    expect(authenticated.filter((e) => e.body).length).toBeGreaterThan(50)
    expect(authenticated.filter((e) => e.query).length).toBeGreaterThan(20)
    expect(authenticated.filter((e) => !e.requires).map((e) => e.id)).toEqual([])
  })
})
