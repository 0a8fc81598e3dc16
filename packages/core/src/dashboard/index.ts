export * from "./DashboardFeature.js"
