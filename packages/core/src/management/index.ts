export * from "./ManagementFeature.js"
