/**
 * The Dashboard API as an `HttpApi`: one group per tag, one declaration per operation
 * (dashboard/Declare.ts). The routes, the 405 table, `/api/openapi.json` (dashboard/OpenApi.ts)
 * and the reference (`/docs/dashboard`) are all derived from it. The sign-in component
 * (`/api/auth/*`) is not part of this API's operation list (docs/architecture.md, "One
 * declaration per endpoint"): it stays raw routes (routes/DashboardSignIn.ts).
 */
import { HttpApi, type HttpApiGroup, OpenApi } from "effect/http-api"
import { Context, type Schema } from "effect"
import { bodyParseOptions } from "../routes/DashboardBody.js"
import { AccountGroup, InstallationsGroup } from "./AccountApi.js"
import { BillingGroup, PaymentsGroup } from "./BillingApi.js"
import { type Access, type Data, dataOf, declaredAccess, type FailureStatus, failureStatuses } from "./Declare.js"
import { DashboardAccess, DashboardBody, DashboardEnvelopes } from "./Middleware.js"
import { ProjectsGroup } from "./ProjectsApi.js"
import { AnalyticsGroup, OnboardingGroup, OtpGroup, PrivacyGroup, ProfileGroup, SystemGroup } from "./SystemApi.js"
import { packageVersion } from "../docs/PackageVersion.js"

const ID = "switchboard-dashboard"

/**
 * An API's steps, outermost last (dashboard/Middleware.ts), and how its bodies are decoded: checked
 * whole, every issue, an unknown property refused (what `DashboardBody` checked already).
 */
const withSteps = <Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<typeof ID, Groups>) =>
  api
    .middleware(DashboardBody)
    .middleware(DashboardAccess)
    .middleware(DashboardEnvelopes)
    .annotate(HttpApi.PayloadParseOptions, bodyParseOptions)

/** A group as an API of its own, for `HttpApiBuilder.group`: the same id and steps as `DashboardApi` (as v1/V1Group.ts). */
export const dashboardGroup = <const G extends HttpApiGroup.Constraint>(group: G) => withSteps(HttpApi.make(ID).add(group))

/** The Dashboard API: its groups in the order of the document's tags. */
export const DashboardApi = withSteps(
  HttpApi.make(ID)
    .add(ProjectsGroup)
    .add(BillingGroup)
    .add(PaymentsGroup)
    .add(ProfileGroup)
    .add(OnboardingGroup)
    .add(OtpGroup)
    .add(AccountGroup)
    .add(InstallationsGroup)
    .add(PrivacyGroup)
    .add(AnalyticsGroup)
    .add(SystemGroup)
    .annotateMerge(OpenApi.annotations({ title: "Switchboard Dashboard API", version: packageVersion }))
)

/** One operation as declared, read back from `DashboardApi`. */
export interface DashboardEndpoint {
  readonly operationId: string
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  /** Router form: `:param` segments. */
  readonly path: string
  /** Its group's title. */
  readonly tag: string
  readonly summary: string
  readonly description: string
  readonly access: Access
  /** The payload schema, if it takes a body. */
  readonly body?: Schema.Top
  /** The data of its success envelope (none for the document itself). */
  readonly data?: Data
  readonly failures: ReadonlyArray<FailureStatus>
}

/** Every operation of the Dashboard API, in declaration order (an endpoint without its access, summary or description is an error at start). */
export const dashboardEndpoints: ReadonlyArray<DashboardEndpoint> = (() => {
  const out: Array<DashboardEndpoint> = []
  HttpApi.reflect(DashboardApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group, successes }) => {
      const body = endpoint.payload.get("application/json")?.schemas[0]
      const data = dataOf(successes)
      const access = declaredAccess(endpoint)
      const summary = Context.getOrUndefined(endpoint.annotations, OpenApi.Summary)
      const description = Context.getOrUndefined(endpoint.annotations, OpenApi.Description)
      if (access === undefined || summary === undefined || description === undefined) {
        throw new Error(`Dashboard endpoint ${endpoint.identifier} is not declared: give it declared({ name, access, summary, description })`)
      }
      out.push({
        operationId: endpoint.identifier,
        method: endpoint.method as DashboardEndpoint["method"],
        path: endpoint.path,
        tag: Context.getOrElse(group.annotations, OpenApi.Title, () => group.identifier),
        summary,
        description,
        access,
        ...(body === undefined ? {} : { body }),
        ...(data === undefined ? {} : { data }),
        failures: failureStatuses(endpoint)
      })
    }
  })
  return out
})()

/** (method, router path) of every operation, for 405 answers. */
export const dashboardApiRouteTable: ReadonlyArray<readonly [string, string]> = dashboardEndpoints.map((o) => [o.method, o.path] as const)
