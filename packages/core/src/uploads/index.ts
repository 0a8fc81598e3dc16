export * from "./UploadsFeature.js"
