export * from "./Schema.js"
export * from "./ProjectsFeature.js"
