/** The project setup the core service tests share: an organization with one project, owned by an account. */
import { Projects } from "@switchboard/core"
import { Principal } from "@switchboard/core/credentials"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import { ProjectsService } from "@switchboard/core/projects"
import {
  type AccountId,
  formatTypeId,
  IdKinds,
  OrganizationId,
  ServiceKeyId,
  uuidv7Bytes
} from "@switchboard/core/shared"
import { DateTime, Effect } from "effect"

export const T0 = Date.parse("2030-01-01T00:00:00.000Z")
export const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc

/**
 * Stamped T0: an organization owned by `accountId` with one project named `name` at `slug`; the
 * account acts through a service key.
 */
export const organizationWithProject = (accountId: AccountId, project: { readonly name: string; readonly slug: string }) =>
  Effect.gen(function*() {
    const organizationId = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(T0, crypto.getRandomValues(new Uint8Array(10)))))
    yield* (yield* OrganizationsRepo).insert({ organizationId, name: "Org", createdAt: at(T0), updatedAt: at(T0) }, accountId)
    const principal = Principal.Account({
      accountId,
      serviceKeyId: ServiceKeyId.make(formatTypeId(IdKinds.accountServiceKey, uuidv7Bytes(T0, new Uint8Array(10).fill(1))))
    })
    const created = yield* (yield* ProjectsService).create({
      accountId,
      organizationId,
      name: project.name,
      slug: Projects.ProjectSlug.make(project.slug)
    })
    return { accountId, organizationId, principal, project: created, projectId: created.projectId }
  })
