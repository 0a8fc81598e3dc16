/**
 * Forward-only migrations (DESIGN.md §4), registered by record so bundlers keep them. The migrator
 * runs them in one transaction under a table lock, so concurrent server starts serialise.
 */
import * as Migrator from "@effect/sql/Migrator"
import m0001 from "./migrations/0001_identity.js"

export const migrations = {
  "0001_identity": m0001
}

export const Migrations = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: "switchboard_migrations" })
