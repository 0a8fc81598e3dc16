/**
 * The wire-contract scenario's plan (`test/server/WireContract.test.ts`): which declared routes each
 * part of the scenario calls, in which order (create before read, read before update, actions after,
 * deletes last and deepest first), and the value of each path parameter (the ids the scenario's own
 * answers gave, else a well-formed id of the right kind that does not exist: the natural 404).
 */
import { featureRoutes, parameterKind, type Route, typeId, v1Routes } from "./DeclaredRoutes.js"

/**
 * Routes that end the owner's session, project or account (or take the owner out of its
 * organization): called last, in the scenario's teardown.
 */
export const teardownRoutes: ReadonlyArray<string> = [
  "POST /console/projects/:projectId/close",
  "DELETE /v1/organizations/:organizationId/members/:accountId",
  "POST /api/auth/sign-out",
  "DELETE /v1/projects/:projectId",
  "DELETE /v1/account"
]

const isTeardown = (r: Route) => teardownRoutes.includes(`${r.method} ${r.path}`)

/** The documents, recorded on their own (`openapi-*.json`). */
const documents = new Set(["/api/openapi.json", "/projects/openapi.json", "/openapi.json"])

/** Pages of the OAuth provider served outside its path prefix (the device flow's page). */
const oauthPages = new Set(["/device"])

/** The declared routes of one part of the scenario (teardown routes apart). */
export const surfaceRoutes = (part: "v1" | "dashboard" | "management" | "console" | "oauth"): ReadonlyArray<Route> => {
  const all = [...v1Routes, ...featureRoutes].filter((r) => !isTeardown(r) && !documents.has(r.path))
  switch (part) {
    case "v1": return all.filter((r) => r.surface === "v1" && !oauthPages.has(r.path) && r.path !== "/sign-in")
    case "dashboard": return all.filter((r) => r.surface === "dashboard" || r.path === "/sign-in")
    case "oauth": return all.filter((r) => r.surface === "oauth" || oauthPages.has(r.path))
    default: return all.filter((r) => r.surface === part)
  }
}

export const teardown = (): ReadonlyArray<Route> =>
  teardownRoutes.map((key) => [...v1Routes, ...featureRoutes].find((r) => `${r.method} ${r.path}` === key)!)

const action =
  /\/(cancel|reject|hangup|retry|retries|test-events|test|secret-rotations|rotate|rotate-secret|regenerate-secret|approve|deny|accept|refresh|disable|revoke|delete|remove|redeem|secret|toggle|verify|confirm|reset|withdraw|jit|role|change|preview|checkout|setup-intent|purchase|token)$/

/** 0 create, 1 read, 2 update, 3 act, 4 delete. */
const phaseOf = (r: Route) =>
  r.method === "GET" ? 1 : r.method === "PATCH" ? 2 : r.method === "DELETE" ? 4 : action.test(r.path) ? 3 : 0

/** Create before read, read before update, actions after, deletes last (the deepest path first). */
export const orderedForSweep = (routes: ReadonlyArray<Route>): ReadonlyArray<Route> =>
  routes
    .map((r, i) => ({ r, i }))
    .sort((a, b) =>
      phaseOf(a.r) - phaseOf(b.r) ||
      (phaseOf(a.r) === 4 ? b.r.path.split("/").length - a.r.path.split("/").length : 0) ||
      a.i - b.i
    )
    .map(({ r }) => r)

/** More TypeID kinds of path parameters than the reach sweep's (routes it does not call). */
const moreKinds: Record<string, string> = {
  serviceKeyId: "ask",
  invitationId: "inv",
  uploadId: "upl",
  requestId: "air",
  applicationId: "app",
  factorId: "mfa"
}

export interface Known {
  readonly project: string
  readonly org: string
  readonly accountId: string
  /** Ids and values from the scenario's own answers, by TypeID kind and by property name. */
  readonly known: { readonly kinds: ReadonlyMap<string, string>; readonly props: ReadonlyMap<string, string> }
}

/** The value of the path parameter `:name` of `route`. */
export const parameterFor = (name: string, route: Route, k: Known): string => {
  switch (name) {
    case "projectId": return k.project
    case "id": return k.project
    case "organizationId": case "orgId": return k.org
    case "accountId": return k.accountId
    case "eventType": return "message.received"
    case "fixedChargeCode": return "seats"
    case "kind": return "destinations"
    case "token":
      if (route.path.startsWith("/billing/")) {
        const url = k.known.props.get("checkoutUrl")
        if (url !== undefined) return decodeURIComponent(url.split("/").pop()!)
      }
      break
    case "endpointId": if (route.surface === "console") return k.known.kinds.get("whd") ?? typeId("whd")
  }
  const kind = parameterKind(name, route.path) ?? moreKinds[name]
  if (kind !== undefined) return k.known.kinds.get(kind) ?? typeId(kind)
  return k.known.props.get(name) ?? `golden-${name}`
}

/**
 * Bodies the scenario sends instead of the declared example: where the example's answer would
 * depend on timing (the versioned API's phone verification already texted the example's number),
 * and where a resource the later routes use would not be made.
 */
export const scenarioBodies: Record<string, unknown> = {
  "POST /api/otp/send": { phoneNumber: "+14155550124" },
  "POST /api/otp/verify": { phoneNumber: "+14155550124", code: "917740" },
  // The example's scope is not one the provider knows: an app that can be read, changed and deleted.
  "POST /api/oauth-apps": {
    name: "Example",
    redirectUris: ["https://example.com/callback"],
    clientType: "confidential",
    scopes: ["openid", "profile"]
  }
}
