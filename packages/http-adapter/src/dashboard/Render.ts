/** What the Dashboard handlers share: the success envelope, the views of core records, the path parameters as ids. */
import { HttpServerResponse } from "effect/http"
import type { OAuthApp } from "@switchboard/core/oauth"
import type { ProjectRecord } from "@switchboard/core/projects"
import { ProjectId } from "@switchboard/core/shared"
import { Effect, Schema } from "effect"
import { packageVersion } from "../docs/PackageVersion.js"
import { envelopeFailure } from "../http/Surfaces.js"
import { type DashboardFailure, envelopeOfError } from "../routes/DashboardErrors.js"

/** The server's version (its package's). */
export const serverVersion: string = packageVersion

/** `{succeed: true, data}` (200), `data` encoded by its schema. */
export const ok = <A, I>(schema: Schema.Codec<A, I>, value: A) =>
  Effect.map(Effect.orDie(Schema.encodeEffect(schema)(value)), (data) => HttpServerResponse.jsonUnsafe({ succeed: true, data }))

export const okList = <A, I>(schema: Schema.Codec<A, I>, values: ReadonlyArray<A>) => ok(Schema.Array(schema), values)

/** A handler's work with its failures as envelopes (routes/DashboardErrors.ts, the one table). */
export const answer = <A, R>(work: Effect.Effect<A, DashboardFailure, R>) => Effect.mapError(work, envelopeOfError)

export const toProject = (p: ProjectRecord) => ({
  id: p.projectId,
  name: p.name,
  slug: p.slug,
  organizationId: p.organizationId,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt
})

export const toApp = (a: OAuthApp) => ({
  clientId: a.clientId,
  name: a.name,
  logoUri: a.logoUri,
  homepageUri: a.homepageUri,
  redirectUris: a.redirectUris,
  clientType: a.clientType,
  scopes: a.scopes,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt
})

const isProjectId = Schema.is(ProjectId)

/** The `id` path parameter as a project id; a malformed one is a project that does not exist. */
export const projectIdOf = (id: string) =>
  isProjectId(id) ? Effect.succeed(id) : Effect.fail(envelopeFailure(404, "PROJECT_NOT_FOUND", `No project ${id.slice(0, 100)}.`))
