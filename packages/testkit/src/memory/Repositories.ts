/**
 * Every repository port in memory, over one fresh shared state each time the layer is built. Each
 * feature adds its memory layer to the list below.
 */
import { Layer } from "effect"
import { IdentityReposMemory } from "./AccountsMemory.js"
import { RateLimiterInProcess, RecordChangesNone } from "@switchboard/core/shared"
import { OrganizationsMemory } from "./OrganizationsMemory.js"
import { ProjectsMemory } from "./ProjectsMemory.js"
import { ProjectApiKeysMemory } from "./ProjectApiKeysMemory.js"
import { AccountSecurityMemory } from "./AccountSecurityMemory.js"
import { UploadsMemory } from "./UploadsMemory.js"
import { AccessTokensMemory } from "./AccessTokensMemory.js"
import { EventsMemory } from "./EventsMemory.js"
import { VoiceMemory } from "./VoiceMemory.js"
import { BillingMemory } from "./BillingMemory.js"
import { WebhooksMemory } from "./WebhooksMemory.js"
import { PlatformsAndUsersMemory } from "./PlatformsAndUsersMemory.js"
import { OAuthProviderMemory } from "./OAuthProviderMemory.js"
import { DashboardMemory } from "./DashboardMemory.js"
import { MemoryStateLive } from "./MemoryState.js"

export const RepositoriesMemory = Layer.mergeAll(
  IdentityReposMemory,
  // The in-memory store announces no changes, so core never caches records over it (RecordCache).
  Layer.succeedContext(RecordChangesNone),
  RateLimiterInProcess,
  OrganizationsMemory,
  ProjectsMemory,
  ProjectApiKeysMemory,
  AccountSecurityMemory,
  UploadsMemory,
  AccessTokensMemory,
  EventsMemory,
  VoiceMemory,
  BillingMemory,
  WebhooksMemory,
  PlatformsAndUsersMemory,
  OAuthProviderMemory,
  DashboardMemory
).pipe(Layer.provideMerge(MemoryStateLive))
