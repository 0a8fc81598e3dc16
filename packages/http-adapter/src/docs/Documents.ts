/**
 * The three OpenAPI documents the server serves — the versioned API (`/openapi.json`), the
 * Dashboard API (`/api/openapi.json`) and the management API (`/projects/openapi.json`) — built
 * from the code without a server (for the lint in CI and the documentation test).
 */
import { dashboardOpenApi } from "../dashboard/OpenApi.js"
import { managementOpenApi } from "./ManagementOpenApi.js"
import { openApiDocument } from "./OpenApiDocument.js"

export const openApiDocuments = (baseUrl = "http://127.0.0.1:8080", managementUrl = "https://127.0.0.1:8443") => ({
  v1: openApiDocument(baseUrl, baseUrl),
  dashboard: dashboardOpenApi(baseUrl),
  management: managementOpenApi(managementUrl)
})
