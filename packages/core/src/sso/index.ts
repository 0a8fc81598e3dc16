export * from "./SsoFeature.js"
