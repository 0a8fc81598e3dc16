export * from "./OrganizationsFeature.js"
export * from "./OrganizationsPorts.js"
