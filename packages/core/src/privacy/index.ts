export * from "./PrivacyFeature.js"
