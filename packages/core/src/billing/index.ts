export * from "./Schema.js"
export * from "./UsageSchema.js"
export * as PlanChange from "./PlanChange.js"
export * from "./BillingFeature.js"
