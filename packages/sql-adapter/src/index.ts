/** @switchboard/sql-adapter — PostgreSQL layers for every core port, migrations, and embedded PGlite. */
export * from "./Database.js"
export * from "./Migrations.js"
export * from "./Repositories.js"
export * from "./Testing.js"
export * from "./identity/AccountServiceKeysRepoSql.js"
export * from "./identity/AccountsRepoSql.js"
export * from "./shared/IdempotencyStoreSql.js"
export * from "./shared/TransactorSql.js"
