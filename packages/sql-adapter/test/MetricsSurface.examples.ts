/**
 * One example per entry of the SQL schema document's `functions` and `operators` lists (core
 * `metrics/SqlSurface.ts`, served by `GET …/metrics/query`): each is an SQL boolean expression that
 * is true when the function, operator or cast answers what PostgreSQL documents. MetricsQuery.test.ts
 * runs them through the engine (parser check, sandbox, both backends) and requires the keys to be
 * exactly the document's lists, so the document cannot list what the check refuses.
 *
 * `aggregate` examples run over `numbered` (n = 1…40 of the seeded project); `window` ones over it
 * too, with `window w as (order by n)`, and are read at n = 10; `scalar` ones need no rows.
 */
export interface Example {
  readonly kind: "scalar" | "aggregate" | "window"
  readonly sql: string
}

/** The seeded rows of project A numbered: n = 1…40, `occurred_at` one minute apart. */
export const numbered = "(select split_part(message_id, '-', 2)::int as n, occurred_at from message_events) t"

const scalar = (sql: string): Example => ({ kind: "scalar", sql })
const aggregate = (sql: string): Example => ({ kind: "aggregate", sql })
const window = (sql: string): Example => ({ kind: "window", sql })

export const functionExamples: Record<string, Example> = {
  // aggregates (1…40: sum 820, sample variance 136.67, population variance 133.25)
  count: aggregate("count(*) = 40 and count(distinct n % 3) = 3"),
  sum: aggregate("sum(n) = 820"),
  avg: aggregate("avg(n) = 20.5"),
  min: aggregate("min(n) = 1"),
  max: aggregate("max(n) = 40"),
  bool_and: aggregate("bool_and(n > 0)"),
  bool_or: aggregate("bool_or(n = 40)"),
  every: aggregate("every(n > 0)"),
  percentile_cont: aggregate("percentile_cont(0.5) within group (order by n) = 20.5"),
  percentile_disc: aggregate("percentile_disc(0.5) within group (order by n) = 20"),
  mode: aggregate("mode() within group (order by n % 3) = 1"),
  stddev: aggregate("round(stddev(n), 3) = 11.690"),
  stddev_pop: aggregate("round(stddev_pop(n), 3) = 11.543"),
  stddev_samp: aggregate("round(stddev_samp(n), 3) = 11.690"),
  variance: aggregate("round(variance(n), 4) = 136.6667"),
  var_pop: aggregate("round(var_pop(n), 4) = 133.25"),
  var_samp: aggregate("round(var_samp(n), 4) = 136.6667"),
  // window functions, at n = 10
  row_number: window("row_number() over w = 10"),
  rank: window("rank() over (order by n / 10) = 10"),
  dense_rank: window("dense_rank() over (order by n / 10) = 2"),
  percent_rank: window("round((percent_rank() over w * 39)::numeric) = 9"),
  cume_dist: window("cume_dist() over w = 0.25"),
  ntile: window("ntile(4) over w = 1"),
  lag: window("lag(n) over w = 9 and lag(n, 3, 0) over w = 7"),
  lead: window("lead(n, 2) over w = 12"),
  first_value: window("first_value(n) over w = 1"),
  last_value: window("last_value(n) over (w rows between current row and unbounded following) = 40"),
  // date and time
  date_trunc: scalar("date_trunc('hour', timestamp '2030-01-01 10:30:00') = timestamp '2030-01-01 10:00:00'"),
  date_part: scalar("date_part('hour', timestamp '2030-01-01 10:30:00') = 10"),
  date_bin: scalar("date_bin('15 minutes', timestamp '2030-01-01 10:31:00', timestamp '2030-01-01') = timestamp '2030-01-01 10:30:00'"),
  now: scalar("now() = current_timestamp"),
  age: scalar("age(timestamp '2030-01-02', timestamp '2030-01-01') = interval '1 day'"),
  to_char: scalar("to_char(timestamp '2030-01-01 10:30:00', 'YYYY-MM-DD HH24:MI') = '2030-01-01 10:30'"),
  to_timestamp: scalar("to_timestamp(0) = timestamptz '1970-01-01T00:00:00Z'"),
  make_interval: scalar("make_interval(days => 1, hours => 2) = interval '1 day 2 hours'"),
  make_timestamptz: scalar("make_timestamptz(2030, 1, 1, 0, 0, 0, 'UTC') = timestamptz '2030-01-01T00:00:00Z'"),
  isfinite: scalar("isfinite(date '2030-01-01')"),
  justify_interval: scalar("justify_interval(interval '1 mon -1 hour')::text = '29 days 23:00:00'"),
  // numbers
  abs: scalar("abs(-2) = 2"),
  ceil: scalar("ceil(1.2) = 2"),
  ceiling: scalar("ceiling(1.2) = 2"),
  floor: scalar("floor(1.8) = 1"),
  round: scalar("round(2.567, 2) = 2.57"),
  trunc: scalar("trunc(2.567, 1) = 2.5"),
  sign: scalar("sign(-3) = -1"),
  mod: scalar("mod(7, 3) = 1"),
  div: scalar("div(7, 3) = 2"),
  power: scalar("power(2, 10) = 1024"),
  sqrt: scalar("sqrt(16) = 4"),
  ln: scalar("ln(1) = 0"),
  log: scalar("log(100) = 2"),
  exp: scalar("exp(0) = 1"),
  width_bucket: scalar("width_bucket(5, 0, 10, 5) = 3"),
  // text
  lower: scalar("lower('AB') = 'ab'"),
  upper: scalar("upper('ab') = 'AB'"),
  length: scalar("length('abc') = 3"),
  char_length: scalar("char_length('abc') = 3"),
  character_length: scalar("character_length('abc') = 3"),
  octet_length: scalar("octet_length('é') = 2"),
  left: scalar("left('abc', 2) = 'ab'"),
  right: scalar("right('abc', 2) = 'bc'"),
  starts_with: scalar("starts_with('abc', 'ab')"),
  split_part: scalar("split_part('a-b', '-', 2) = 'b'"),
  strpos: scalar("strpos('abc', 'c') = 3"),
  btrim: scalar("btrim('xax', 'x') = 'a'"),
  ltrim: scalar("ltrim('xa', 'x') = 'a'"),
  rtrim: scalar("rtrim('ax', 'x') = 'a'"),
  replace: scalar("replace('abc', 'b', 'x') = 'axc'"),
  concat: scalar("concat('a', 1) = 'a1'"),
  concat_ws: scalar("concat_ws('-', 'a', 'b') = 'a-b'"),
  md5: scalar("md5('') = 'd41d8cd98f00b204e9800998ecf8427e'"),
  // SQL-syntax forms
  "extract (SQL syntax)": scalar("extract(hour from timestamp '2030-01-01 10:30:00') = 10"),
  "substring (SQL syntax)": scalar("substring('abc' from 2 for 1) = 'b'"),
  "btrim (SQL syntax)": scalar("trim(both 'x' from 'xax') = 'a' and trim('  a ') = 'a'"),
  "ltrim (SQL syntax)": scalar("trim(leading 'x' from 'xa') = 'a'"),
  "rtrim (SQL syntax)": scalar("trim(trailing 'x' from 'ax') = 'a'"),
  "timezone (SQL syntax)": scalar("(timestamptz '2030-01-01T00:00:00Z' at time zone 'UTC') = timestamp '2030-01-01 00:00:00'"),
  "position (SQL syntax)": scalar("position('c' in 'abc') = 3")
}

export const operatorExamples: Record<string, string> = {
  "=": "1 = 1",
  "<>": "1 <> 2",
  "!=": "1 != 2",
  "<": "1 < 2",
  ">": "2 > 1",
  "<=": "1 <= 1",
  ">=": "1 >= 1",
  "+": "1 + 1 = 2",
  "-": "3 - 1 = 2 and -1 < 0",
  "*": "2 * 3 = 6",
  "/": "7 / 2 = 3",
  "%": "7 % 3 = 1",
  "||": "'a' || 'b' = 'ab'",
  "~~": "'abc' ~~ 'a%'",
  "!~~": "'abc' !~~ 'b%'",
  "~~*": "'ABC' ~~* 'a%'",
  "!~~*": "'ABC' !~~* 'b%'",
  AND: "true and true",
  OR: "false or true",
  NOT: "not false",
  "IS [NOT] NULL": "null is null and 1 is not null",
  "IS [NOT] DISTINCT FROM": "null is not distinct from null and 1 is distinct from 2",
  "[NOT] BETWEEN": "2 between 1 and 3 and 5 not between 1 and 3 and 2 between symmetric 3 and 1",
  "[NOT] IN (list)": "2 in (1, 2) and 3 not in (1, 2)",
  "[NOT] [I]LIKE": "'abc' like 'a%' and 'abc' not like 'b%' and 'ABC' ilike 'a%' and 'ABC' not ilike 'b%'",
  CASE: "case when 1 = 2 then false else true end and case 1 when 1 then true end",
  COALESCE: "coalesce(null, 1) = 1",
  NULLIF: "nullif(1, 1) is null",
  GREATEST: "greatest(1, 2) = 2",
  LEAST: "least(1, 2) = 1",
  "::int2": "'1'::int2 = 1",
  "::int4": "'1'::int4 = 1",
  "::int8": "'1'::int8 = 1",
  "::smallint": "'1'::smallint = 1",
  "::integer": "'1'::integer = 1",
  "::bigint": "cast('1' as bigint) = 1",
  "::numeric": "'1.5'::numeric = 1.5 and '1.25'::numeric(4, 1) = 1.3",
  "::decimal": "'1.5'::decimal = 1.5",
  "::float4": "'1.5'::float4 = 1.5",
  "::float8": "'1.5'::float8 = 1.5",
  "::real": "'1.5'::real = 1.5",
  "::double precision": "'1.5'::double precision = 1.5",
  "::text": "1::text = '1'",
  "::varchar": "'ab'::varchar(1) = 'a'",
  "::bpchar": "'a'::bpchar = 'a'",
  "::bool": "'t'::bool",
  "::boolean": "'true'::boolean",
  "::date": "'2030-01-01'::date = date '2030-01-01'",
  "::time": "'10:00'::time = time '10:00'",
  "::timestamp": "'2030-01-01 10:00'::timestamp = timestamp '2030-01-01 10:00'",
  "::timestamptz": "'2030-01-01T10:00:00Z'::timestamptz = timestamptz '2030-01-01T10:00:00Z'",
  "::interval": "'1 hour'::interval = interval '60 minutes' and interval '2' hour = interval '2 hours'"
}
