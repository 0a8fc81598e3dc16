/**
 * A project holds at most 100 live ingress endpoints: a revoked endpoint stays listed but no longer
 * counts, so revoking one lets another be created.
 */
import { describe, expect, it } from "@effect/vitest"
import { Ingress, MAX_INGRESS_ENDPOINTS } from "@switchboard/core/events"
import { DateTime, Effect, Layer, Result } from "effect"
import { setupProject, webhooksEnv } from "./TestEnv.js"

const Env = Ingress.layer.pipe(Layer.provideMerge(webhooksEnv()))

describe("ingress endpoint limit", () => {
  it.effect("revoked endpoints do not count against the limit", () =>
    Effect.gen(function*() {
      const { principal, projectId } = yield* setupProject("ingress-limit")
      const ingress = yield* Ingress
      const created = []
      for (let i = 0; i < MAX_INGRESS_ENDPOINTS; i++) created.push(yield* ingress.create(projectId, principal, "whatsapp", `src_${i}`))
      const over = yield* Effect.result(ingress.create(projectId, principal, "whatsapp", "one_too_many"))
      expect(Result.isFailure(over) && over.failure._tag).toBe("IngressEndpointLimitReached")
      yield* ingress.revoke(projectId, principal, created[0]!.endpoint.endpointId, yield* DateTime.now)
      const replacement = yield* Effect.result(ingress.create(projectId, principal, "whatsapp", "replacement"))
      expect(Result.isSuccess(replacement)).toBe(true)
      const again = yield* Effect.result(ingress.create(projectId, principal, "whatsapp", "again_too_many"))
      expect(Result.isFailure(again) && again.failure._tag).toBe("IngressEndpointLimitReached")
    }).pipe(Effect.provide(Env)))
})
