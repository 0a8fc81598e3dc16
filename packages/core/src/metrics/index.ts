export * from "./MetricsFeature.js"
