// Raw SQL for the hot paths (test set rows, spans, evaluation scenarios, the API key lookup, span
// and trace search), one implementation per database behind one interface (docs/database.md#raw-sql):
// SQLite's in sqlite-sql.ts, PostgreSQL's in postgres-sql.ts. SQL is written once with `?`
// placeholders; the few expressions the two dialects spell differently come from the
// implementation (`like`, `jsonValues`, `costSum`, …). This file holds the interface and the
// helpers both use.

export type SqlValue = string | number | bigint | boolean | Date | null;
export type Provider = 'sqlite' | 'postgresql';
/** The part of a Prisma client raw SQL uses: the service's, or the one `db.$transaction(async (tx) => …)` hands out. */
export interface Tx {
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

/** A table or column name quoted for SQL. */
export const quoted = (name: string) => `"${name}"`;

/** A DateTime column's text, as Prisma's adapter writes it. */
export function sqlDate(value: Date): string {
  return value.toISOString().replace('Z', '+00:00');
}

/** The first millisecond of year 10000: `toISOString` writes other years with six digits and a sign. */
const YEAR_10000 = 253_402_300_800_000;
let cachedMinute = NaN;
let cachedMinuteText = '';

/**
 * `sqlDate` of a time in milliseconds since the epoch, for ingestion's two per span (a tenth of the
 * decoding thread's time through Date): the text up to the minute is remembered, the seconds and
 * milliseconds appended.
 */
export function sqlDateOfMillis(ms: number): string {
  const minute = Math.floor(ms / 60_000);
  if (minute !== cachedMinute) {
    if (!(ms >= 0 && ms < YEAR_10000 && Number.isInteger(ms))) return sqlDate(new Date(ms));
    cachedMinute = minute;
    cachedMinuteText = new Date(minute * 60_000).toISOString().slice(0, 17);
  }
  const inMinute = ms - minute * 60_000;
  const second = Math.floor(inMinute / 1000);
  const milli = inMinute - second * 1000;
  return `${cachedMinuteText}${second < 10 ? '0' : ''}${second}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}+00:00`;
}

/** A value as better-sqlite3 binds it, the way Prisma's adapter would. */
export function sqlParam(value: SqlValue): string | number | bigint | null {
  if (value instanceof Date) return sqlDate(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

export interface BulkSql {
  readonly provider: Provider;
  /**
   * Inserts `rows` (values in `columns` order) into `table` inside the transaction of `tx`.
   * `suffix` follows the rows, e.g. `ON CONFLICT (…) DO UPDATE SET …`. Answers the rows written.
   */
  insertRows(tx: Tx, table: string, columns: readonly string[], rows: readonly SqlValue[][], suffix?: string): Promise<number>;
  /**
   * `insertRows` as a write of its own, atomic as one statement is: on PostgreSQL the one INSERT
   * of arrays straight on the pool, no BEGIN or COMMIT (one round trip); on SQLite its prepared
   * statements in a transaction of their own. For a write that needs nothing else in its
   * transaction (an ingestion batch's scores, docs/scores.md#storage). `locks` are `lockKeys`' keys,
   * taken before the first row is written, in the same order.
   */
  writeRows(table: string, columns: readonly string[], rows: readonly SqlValue[][], suffix?: string, locks?: readonly string[]): Promise<number>;
  /**
   * Updates rows of `table` inside the transaction of `tx`: each row of `rows` is the key's value
   * (`key`) then the new values of `columns`, in order. On PostgreSQL one statement whatever the
   * number of rows (`UPDATE … FROM unnest(…)`, one text array per column, cast to its type); on
   * SQLite a prepared statement run per row. Answers the rows changed.
   */
  updateRows(tx: Tx, table: string, key: string, columns: readonly string[], rows: readonly SqlValue[][]): Promise<number>;
  /**
   * Serialises the transactions of `tx` that name the same key, until they end: what a roll-up
   * read after its own writes needs to see the writes of the others (SQLite: every write
   * transaction is serialised already).
   */
  lockKeys(tx: Tx, keys: readonly string[]): Promise<void>;
  /**
   * Runs `work` in a transaction of its own for writes of raw SQL only (span batches): SQLite's is
   * Prisma's (`db.$transaction`); PostgreSQL's runs on a pool connection directly, so the rows'
   * arrays skip Prisma's parameter serialisation.
   */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /** Runs one statement inside the transaction of `tx`; answers the rows it changed. */
  run(tx: Tx, sql: string, params: readonly SqlValue[]): Promise<number>;
  /** The rows of a read written with `?` placeholders, through Prisma (`tx` or the service's client). */
  query<Row>(tx: Tx, sql: string, params: readonly unknown[]): Promise<Row[]>;
  /**
   * The first row of a read, or undefined: for the one read on every request's path (an API key
   * by its hash, auth/keys/operations.ts), where Prisma's query pipeline cost more than the lookup.
   * DateTime columns come back as ISO text on both databases.
   */
  first<Row>(sql: string, params: readonly SqlValue[]): Promise<Row | undefined>;
  /** Every row of such a read: a trace's spans on PostgreSQL (observability/traces/trace-reads.ts), where Prisma's per-value conversion was half the read. */
  all<Row>(sql: string, params: readonly SqlValue[]): Promise<Row[]>;
  /**
   * `all`, run beside the request's other statements: on SQLite by a worker thread's read-only
   * connection while the serving thread goes on (read-worker.ts), on PostgreSQL on the pool as
   * `all` (whose statements run at once already). It reads what is committed: only for a long read
   * that needs no open transaction (the trace list's score figures, docs/database.md#raw-sql).
   */
  allAside<Row>(sql: string, params: readonly SqlValue[]): Promise<Row[]>;
  /** LIKE that ignores the case of ASCII letters (SQLite's LIKE does). */
  readonly like: string;
  /**
   * Ends a SELECT whose rows a worker takes (leases.ts): on PostgreSQL `FOR UPDATE SKIP LOCKED`,
   * so concurrent takers pass over each other's rows; nothing on SQLite, which has one writer.
   */
  readonly skipLocked: string;
  /** `a IS NOT b` that is true when exactly one is NULL. */
  readonly isNot: string;
  /** The elements of a JSON array parameter (`?`, given as JSON text) as rows of one text column, "value". */
  jsonValues(param: string): string;
  /** The member `key` of a Json column's object, as SQL text or number (null when absent). */
  jsonMember(column: string, key: string): string;
  /**
   * The member of a Json column's object under a key given as the next parameter (its value from
   * `memberKey`; the key may hold any character): `json` as a JSON value (SQL NULL when absent),
   * which `jsonParam` compares equal with; `text` as text (a string's own, other values their JSON).
   */
  jsonKeyMember(column: string, as: 'json' | 'text'): string;
  /** The parameter value naming `key` for jsonKeyMember. */
  memberKey(key: string): string;
  /** A parameter given as JSON text, as a JSON value that jsonKeyMember(…, 'json') compares with. */
  jsonParam(param: string): string;
  /** A Json column (or JSON text) as text, for LIKE. */
  jsonAsText(column: string): string;
  /** A parameter that is a DateTime (PostgreSQL cannot infer its type in a SELECT list). */
  timestamp(param: string): string;
  /** Number division that never truncates to an integer. */
  divide(numerator: string, denominator: string): string;
  /** ROUND(x, digits) of a float (PostgreSQL rounds only numeric). */
  round(expression: string, digits: number): string;
  /** Milliseconds since the epoch of a DateTime column, exactly, as an integer. */
  epochMillis(column: string): string;
  /** The integer part of a non-negative number, as an integer (PostgreSQL's cast would round). */
  floorToInt(expression: string): string;
}

/** `text` as an SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** `"a" = excluded."a", …`: an upsert's update of every column but those kept. */
export function updateFromExcluded(columns: readonly string[], kept: readonly string[]): string {
  return columns
    .filter((column) => !kept.includes(column))
    .map((column) => `${quoted(column)} = excluded.${quoted(column)}`)
    .join(', ');
}

/** A Json column's value: JSON text, or SQL NULL for an absent value. */
export function jsonText(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** `?` placeholders numbered for PostgreSQL (`$1`, `$2`, …); quoted text and names are left alone. */
export function numberedPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (match) => (match === '?' ? `$${++n}` : match));
}

/**
 * The `lockKeys` key of a trace: every writer of a trace's rows or roll-ups takes it (ingestion,
 * deletion, retention, and new scores of the trace, whose start the database copies onto them:
 * docs/scores.md#in-the-trace-list).
 */
export const traceLockKeys = (projectId: string, traceIds: Iterable<string>): string[] => Array.from(traceIds, (traceId) => `trace:${projectId}:${traceId}`);
