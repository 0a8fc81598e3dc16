/**
 * The app installation feature in core (docs/app-installation.md): `AppInstallations` over the
 * `AppInstallationsRepo` port, with client assertions (`ClientAssertion.ts`) and the wire schemas
 * (`AppInstallationSchema.ts`). It makes the delivered credential with the project API key
 * service (a private instance: it is stateless; the key verifier it shares comes from the
 * identity core).
 */
import { Layer } from "effect"
import { ProjectApiKeysCore } from "../credentials/ProjectApiKeysFeature.js"
import type { AppInstallationsRepo } from "./AppInstallationPorts.js"
import { AppInstallations } from "./AppInstallations.js"

export * from "./AppInstallationErrors.js"
export * from "./AppInstallationPorts.js"
export * from "./AppInstallations.js"
export * from "./AppInstallationSchema.js"
export * from "./ClientAssertion.js"

export const AppInstallationsCore = AppInstallations.layer.pipe(Layer.provide(ProjectApiKeysCore))
export type AppInstallationsPorts = AppInstallationsRepo
