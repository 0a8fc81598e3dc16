/**
 * Forward-only migrations (DESIGN.md §4), registered by record so bundlers keep them. The migrator
 * runs them in one transaction under a table lock, so concurrent server starts serialise.
 */
import * as Migrator from "effect/sql/Migrator"
import { migrations } from "./Features.js"

export { migrations }

export const Migrations = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: "switchboard_migrations" })
