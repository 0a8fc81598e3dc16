/**
 * The management API's wire shapes: the data of each answer, the
 * request bodies and the queries, as `ManagementApi.ts` declares them. Lists of lines and users are
 * wrapped in a named array (`data.lines`, `data.users`) and the webhook list is a bare array, as in
 * the public contract these clients were written for.
 */
import { Projects } from "@switchboard/core"
import { WebhookDeliveryStatus } from "@switchboard/core/events"
import { ProjectUser, UserType } from "@switchboard/core/projects"
import { Timestamp, UserId } from "@switchboard/core/shared"
import { type Line, LinePlatform } from "@switchboard/core/voice"
import { Schema } from "effect"

export const ManagementProject = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  profile: Projects.AgentProfile
}).annotate({ identifier: "ManagementProject" })

const webhookFields = {
  id: Schema.String,
  webhookUrl: Schema.String,
  createdAt: Timestamp,
  updatedAt: Timestamp
}
export const ManagementWebhookSchema = Schema.Struct(webhookFields).annotate({ identifier: "ManagementWebhook" })
export const CreatedManagementWebhook = Schema.Struct({ ...webhookFields, signingSecret: Schema.String })
  .annotate({ identifier: "CreatedManagementWebhook" })
export const WebhookList = Schema.Array(ManagementWebhookSchema)

export const CreateWebhookRequest = Schema.Struct({
  webhookUrl: Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(2048)))
}).annotate({ identifier: "CreateWebhookRequest" })

export const EgressAddresses = Schema.Struct({ addresses: Schema.Array(Schema.String) })
  .annotate({ identifier: "EgressAddresses" })

export const ManagementLine = Schema.Struct({
  id: Schema.String,
  platform: LinePlatform,
  phoneNumber: Schema.String,
  voiceCapable: Schema.Boolean,
  createdAt: Timestamp
}).annotate({ identifier: "ManagementLine" })
export const LineList = Schema.Struct({ lines: Schema.Array(ManagementLine) }).annotate({ identifier: "ManagementLineList" })
export const AllocatedLine = Schema.Struct({ line: ManagementLine }).annotate({ identifier: "AllocatedLine" })

export const AllocateLineRequest = Schema.Struct({ platform: LinePlatform })
  .annotate({ identifier: "AllocateLineRequest" })

export const RetryDeliveryRequest = Schema.Struct({
  expectedAttemptCount: Schema.optionalKey(Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 1000 }))))
}).annotate({ identifier: "RetryDeliveryRequest" })

export const StreamToken = Schema.Struct({ token: Schema.String, expiresIn: Schema.Number }).annotate({ identifier: "StreamToken" })

export const ManagementDeleted = Schema.Struct({ id: Schema.String }).annotate({ identifier: "DeletedResource" })

export const UserList = Schema.Struct({ users: Schema.Array(ProjectUser) }).annotate({ identifier: "ProjectUserList" })

/** A path parameter: what the router takes (one segment, at most its 100-character limit). */
export const PathId = Schema.String

/** Query of the delivery list (`?status=`, `?pageSize=`, `?pageToken=`), each at most once. */
export const DeliveryListQuery = Schema.Struct({
  status: Schema.optionalKey(WebhookDeliveryStatus).annotate({ description: "only deliveries in this state" }),
  pageSize: Schema.optionalKey(
    Schema.NumberFromString.pipe(Schema.check(Schema.isInt()), Schema.check(Schema.isBetween({ minimum: 1, maximum: 100 })))
  ).annotate({ description: "1-100, default 20" }),
  pageToken: Schema.optionalKey(Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(2048))))
    .annotate({ description: "nextPageToken of the previous page" })
})

/** Query of the user list: `?type=shared|dedicated` (at most once) and up to 100 `?id=`. */
export const UserListQuery = Schema.Struct({
  type: Schema.optionalKey(UserType).annotate({ description: "shared or dedicated users only" }),
  id: Schema.optionalKey(Schema.Array(UserId).pipe(Schema.check(Schema.isMaxLength(100))))
    .annotate({ description: "up to 100 user ids (repeat the parameter)" })
})

export const toLine = (line: Line): typeof ManagementLine.Type => ({
  id: line.lineId,
  platform: line.platform,
  phoneNumber: line.phoneNumber,
  voiceCapable: line.voiceCapable,
  createdAt: line.createdAt
})

/** A user as the wire shows it: exactly the schema's members. */
export const userOf = (u: ProjectUser): ProjectUser => ({
  id: u.id,
  projectId: u.projectId,
  firstName: u.firstName,
  lastName: u.lastName,
  email: u.email,
  phoneNumber: u.phoneNumber,
  assignedPhoneNumber: u.assignedPhoneNumber,
  createdAt: u.createdAt
})
