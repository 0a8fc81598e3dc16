/**
 * The Privacy context in core: privacy requests (erasure or anonymisation of an account, processed
 * by a worker) with their audit trail. Its service is composed by the Dashboard feature, whose
 * sessions and onboarding answers an erasure also removes; `PrivacyPorts` lists the port tags it adds.
 */
import type { AccountErasureRepo, AuditLog, PrivacyRequestsRepo } from "./Ports.js"

export * from "./Ports.js"
export * from "./PrivacyRequests.js"

export type PrivacyPorts = PrivacyRequestsRepo | AuditLog | AccountErasureRepo
