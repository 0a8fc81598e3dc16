/**
 * Onboarding answers of the Dashboard (docs/api-notes/dashboard-api.md
 * `POST/GET /api/onboarding/details`): what the signed-in person told us about their company, role,
 * use case and team size. Each save replaces the answers given and keeps the others; an answer sent
 * as null is cleared.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import type { AccountId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { type OnboardingRecord, OnboardingRepo } from "./DashboardPorts.js"
import { fn } from "../internal/Traced.js"

export interface OnboardingAnswers {
  readonly companyName?: string | null | undefined
  readonly role?: string | null | undefined
  readonly useCase?: string | null | undefined
  readonly teamSize?: number | null | undefined
}

export class Onboarding extends Context.Service<Onboarding>()("core/Onboarding", {
  make: Effect.gen(function*() {
    const repo = yield* OnboardingRepo
    const tx = yield* Transactor

    const get = fn("Onboarding.get")(function*(accountId: AccountId) {
      return yield* repo.get(accountId)
    })

    const save = fn("Onboarding.save")(function*(accountId: AccountId, answers: OnboardingAnswers) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        const now = yield* DateTime.now
        const current = yield* repo.get(accountId)
        const base: OnboardingRecord = Option.getOrElse(current, () => ({
          accountId,
          companyName: null,
          role: null,
          useCase: null,
          teamSize: null,
          createdAt: now,
          updatedAt: now
        }))
        const pick = <K extends keyof OnboardingAnswers>(k: K) => (answers[k] === undefined ? base[k] : answers[k])
        return yield* repo.put({
          ...base,
          companyName: pick("companyName") as string | null,
          role: pick("role") as string | null,
          useCase: pick("useCase") as string | null,
          teamSize: pick("teamSize") as number | null,
          updatedAt: now
        })
      }))
    })

    return { get, save } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
