#!/usr/bin/env node
// The CLI runs the TypeScript sources directly through tsx's loader, so `npm ci && npm start` needs no build step.
import { register } from "tsx/esm/api"
register()
await import("../src/server/Cli.ts")
