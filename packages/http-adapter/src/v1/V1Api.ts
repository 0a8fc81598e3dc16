/**
 * The versioned API's declaration: every feature's /v1 group, each endpoint with its problems and
 * Idempotency-Key rule. The server (`Http.ts`) builds its routes from it and the typed client
 * (`client/V1Client.ts`) its calls, so this module imports declarations only — no handlers, no
 * adapters — and a host importing the client pulls in nothing of the server.
 */
import { HttpApi, type HttpApiGroup, OpenApi } from "effect/http-api"
import { PlatformsGroup } from "./PlatformsApi.js"
import { WhatsappGroup } from "./WhatsappApi.js"
import { VerificationCodesGroup } from "./VerificationCodesApi.js"
import { ImessageGroup } from "./ImessageApi.js"
import { AttachmentsGroup } from "./AttachmentsApi.js"
import { AccountGroup } from "./AccountApi.js"
import { SsoGroup, SsoPublicGroup } from "./SsoApi.js"
import { AppInstallationsGroup } from "./AppInstallationsApi.js"
import { IngressGroup } from "./IngressApi.js"
import { MetricsGroup } from "./MetricsApi.js"
import { MessagesGroup } from "./MessagesApi.js"
import { OrganizationsGroup } from "./OrganizationsApi.js"
import { ProjectsGroup } from "./ProjectsApi.js"
import { ProjectApiKeysGroup } from "./ProjectApiKeysApi.js"
import { AccountSecurityGroup } from "./AccountSecurityApi.js"
import { UploadsGroup } from "./UploadsApi.js"
import { AccessTokensGroup } from "./AccessTokensApi.js"
import { VoiceGroup } from "./VoiceApi.js"
import { BillingGroup } from "./BillingApi.js"
import { OAuthProviderGroup } from "./OAuthProviderApi.js"
import { WebhooksGroup } from "./WebhooksApi.js"
import { V1Problems } from "./V1Problems.js"
import { v1AuthDescription } from "../docs/AuthDescriptions.js"
import { packageVersion } from "../docs/PackageVersion.js"

const v1Api = HttpApi.make("switchboard-v1")
  .add(AccountGroup)
  .add(OrganizationsGroup)
  .add(ProjectsGroup)
  .add(ProjectApiKeysGroup)
  .add(AccountSecurityGroup)
  .add(UploadsGroup)
  .add(AccessTokensGroup)
  .add(VoiceGroup)
  .add(BillingGroup)
  .add(WebhooksGroup)
  .add(OAuthProviderGroup)
  .add(SsoPublicGroup)
  .add(SsoGroup)
  .add(AppInstallationsGroup)
  .add(IngressGroup)
  .add(PlatformsGroup)
  .add(WhatsappGroup)
  .add(VerificationCodesGroup)
  .add(ImessageGroup)
  .add(AttachmentsGroup)
  .add(MetricsGroup)
  .add(MessagesGroup)
  // Outermost on every endpoint, as in `v1Group` (v1/V1Problems.ts).
  .middleware(V1Problems)
  .annotateMerge(OpenApi.annotations({
    title: "Switchboard versioned API",
    version: packageVersion,
    description: v1AuthDescription
  }))

/** Every feature's group of the versioned API. */
export type V1Groups =
  | typeof AccountGroup |
  typeof OrganizationsGroup |
  typeof ProjectsGroup |
  typeof ProjectApiKeysGroup |
  typeof AccountSecurityGroup |
  typeof UploadsGroup |
  typeof AccessTokensGroup |
  typeof VoiceGroup |
  typeof BillingGroup |
  typeof WebhooksGroup |
  typeof OAuthProviderGroup |
  typeof SsoPublicGroup |
  typeof SsoGroup |
  typeof AppInstallationsGroup |
  typeof IngressGroup |
  typeof PlatformsGroup |
  typeof WhatsappGroup |
  typeof VerificationCodesGroup |
  typeof ImessageGroup |
  typeof AttachmentsGroup |
  typeof MetricsGroup |
  typeof MessagesGroup

/**
 * The versioned API's declaration: every feature's group. Its type is written out
 * (the groups by name) because the inferred one is too long for a declaration file.
 */
export const V1Api: HttpApi.HttpApi<"switchboard-v1", HttpApiGroup.AddMiddleware<V1Groups, V1Problems>> = v1Api
