import { SqlClient } from "effect/sql"
import { Effect } from "effect"

// Record changes (core shared/RecordCache.ts): every update or delete of an account or a project,
// by any writer, announces `account:<id>` / `project:<id>` on `sb_record_changes` (delivered on
// commit; PostgreSQL folds repeats within one transaction), so every process drops its cached copy.
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
    create function sb_record_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('sb_record_changes', tg_argv[0] || ':' || (to_jsonb(old) ->> tg_argv[1]));
      return null;
    end
    $$`)
  yield* sql.unsafe(`
    create trigger accounts_record_changed after update or delete on accounts
    for each row execute function sb_record_changed('account', 'account_id')`)
  yield* sql.unsafe(`
    create trigger projects_record_changed after update or delete on projects
    for each row execute function sb_record_changed('project', 'project_id')`)
})
