export * from "./PlatformsFeature.js"
