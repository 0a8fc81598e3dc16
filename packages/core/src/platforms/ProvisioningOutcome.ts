/**
 * What one step of the operation worker found out from a provider (outside any transaction), which
 * the worker then records with the operation locked (`ProvisioningWorker.ts`). Steps of one kind of
 * resource may live in their own module (`WhatsappSteps.ts`) and return this.
 */
import type { Effect } from "effect"
import type { ResourceRecord } from "./PlatformSchema.js"

export type ProvisioningOutcome =
  | {
    readonly _tag: "Done"
    readonly resource: ResourceRecord & { readonly subject?: string | null }
    readonly detail?: Record<string, unknown>
    /** Gives the provider's result back (the operation was cancelled meanwhile, or storing failed). */
    readonly undo: Effect.Effect<void>
    /** More to store in the commit's transaction, after the resource (a WABA connection). */
    readonly commit?: Effect.Effect<void>
  }
  | { readonly _tag: "Wait"; readonly detail?: Record<string, unknown> }
  | { readonly _tag: "Fail"; readonly code: string; readonly detail: string }
  | { readonly _tag: "Retry"; readonly message: string }
  /** The operation withdraws itself (the project was deleted, an entitlement was lost). */
  | { readonly _tag: "Cancel"; readonly reason: string }
