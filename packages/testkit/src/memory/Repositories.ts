/**
 * Every repository port in memory, over one fresh shared state each time the layer is built. Each
 * feature adds its memory layer to the list below.
 */
import { Layer } from "effect"
import { IdentityReposMemory } from "./IdentityMemory.js"
import { RateLimiterInProcess } from "@switchboard/core"
import { OrganizationsMemory } from "./OrganizationsMemory.js"
import { ProjectsMemory } from "./ProjectsMemory.js"
import { ProjectApiKeysMemory } from "./ProjectApiKeysMemory.js"
import { AccountSecurityMemory } from "./AccountSecurityMemory.js"
import { UploadsMemory } from "./UploadsMemory.js"
import { AccessTokensMemory } from "./AccessTokensMemory.js"
import { MemoryStateLive } from "./MemoryState.js"

export const RepositoriesMemory = Layer.mergeAll(
  IdentityReposMemory,
  RateLimiterInProcess,
  OrganizationsMemory,
  ProjectsMemory,
  ProjectApiKeysMemory,
  AccountSecurityMemory,
  UploadsMemory,
  AccessTokensMemory
).pipe(Layer.provideMerge(MemoryStateLive))
