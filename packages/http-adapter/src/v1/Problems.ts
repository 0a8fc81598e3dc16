/**
 * The one table from core errors to /v1 problems (docs/architecture.md#rules-of-the-road),
 * assembled from each feature's rows (`v1/<Feature>Errors.ts`). The rows import only
 * `ProblemFailure.ts`, never this module.
 */
import type { IdentityError, AccountSecurityError } from "@switchboard/core/accounts"
import type { BillingError } from "@switchboard/core/billing"
import type { ProjectApiKeyError } from "@switchboard/core/credentials"
import type { AppInstallationError, OAuthAppError } from "@switchboard/core/oauth"
import type { OrganizationError } from "@switchboard/core/organizations"
import type { ProjectError } from "@switchboard/core/projects"
import type { SsoError } from "@switchboard/core/sso"
import type { IdempotencyUnavailable } from "@switchboard/core/shared"
import type { IngressEndpointLimitReached } from "@switchboard/core/events"
import type { AttachmentError, ImessageError, PlatformsError, WhatsappError } from "@switchboard/core/platforms"
import type { UploadError } from "@switchboard/core/uploads"
import type { VoiceError } from "@switchboard/core/voice"
import type { MetricsError } from "@switchboard/core/metrics"
import type { MessagesError } from "@switchboard/core/messages"
import { rowOf } from "../http/ErrorTable.js"
import { accessTokensErrors } from "./AccessTokensErrors.js"
import { accountSecurityErrors } from "./AccountSecurityErrors.js"
import { appInstallationsErrors } from "./AppInstallationsErrors.js"
import { billingErrors } from "./BillingErrors.js"
import { identityErrors } from "./IdentityErrors.js"
import { ingressErrors } from "./IngressErrors.js"
import { oAuthProviderErrors } from "./OAuthProviderErrors.js"
import { organizationsErrors } from "./OrganizationsErrors.js"
import { platformsErrors } from "./PlatformsErrors.js"
import { whatsappErrors } from "./WhatsappErrors.js"
import { imessageErrors } from "./ImessageErrors.js"
import { attachmentsErrors } from "./AttachmentsErrors.js"
import { type ErrorTable, problem, type ProblemFailure } from "./ProblemFailure.js"
import { projectApiKeysErrors } from "./ProjectApiKeysErrors.js"
import { projectsErrors } from "./ProjectsErrors.js"
import { ssoErrors } from "./SsoErrors.js"
import { uploadsErrors } from "./UploadsErrors.js"
import { voiceErrors } from "./VoiceErrors.js"
import { metricsErrors } from "./MetricsErrors.js"
import { messagesErrors } from "./MessagesErrors.js"
import { type V1WebhookError, webhooksErrors } from "./WebhooksErrors.js"

export * from "./ProblemFailure.js"

/** Every core error a /v1 operation can raise: each has a row in `v1DomainErrors`. */
export type V1DomainError =
  | IdentityError | IdempotencyUnavailable | OrganizationError | ProjectError | ProjectApiKeyError | AccountSecurityError
  | UploadError | VoiceError | BillingError | V1WebhookError | OAuthAppError | SsoError | IngressEndpointLimitReached
  | PlatformsError | WhatsappError | ImessageError | AttachmentError | MetricsError | AppInstallationError | MessagesError

/** Core error tag → problem: the rows of every feature (a missing row is a compile error). */
export const v1DomainErrors: ErrorTable<V1DomainError> = {
  ...identityErrors,
  ...organizationsErrors,
  ...projectsErrors,
  ...projectApiKeysErrors,
  ...accountSecurityErrors,
  ...uploadsErrors,
  ...accessTokensErrors,
  ...voiceErrors,
  ...billingErrors,
  ...webhooksErrors,
  ...oAuthProviderErrors,
  ...ssoErrors,
  ...ingressErrors,
  ...platformsErrors,
  ...whatsappErrors,
  ...imessageErrors,
  ...attachmentsErrors,
  ...metricsErrors,
  ...appInstallationsErrors,
  ...messagesErrors
}

/**
 * A core error as its /v1 problem: the only place /v1 learns what a domain error means on the
 * wire. A value outside `V1DomainError` (which the types rule out) would be an internal error.
 */
export const problemOfDomainError = (e: V1DomainError): ProblemFailure =>
  rowOf<V1DomainError, ProblemFailure>(v1DomainErrors, e)?.(e) ?? problem("INTERNAL_ERROR", "An unexpected error occurred.")
