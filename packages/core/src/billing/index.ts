export * from "./Schema.js"
export * as PlanChange from "./PlanChange.js"
export * from "./BillingFeature.js"
