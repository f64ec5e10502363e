// Raw SQL for the hot paths (test set rows, spans, evaluation scenarios, the API key lookup, span
// and trace search), one implementation per database behind one interface (docs/database.md#raw-sql).
// SQL is written once with `?` placeholders; the few expressions the two dialects spell
// differently come from the implementation (`like`, `jsonValues`, `costSum`, …).
//
// SQLite: cached prepared statements on the very connection Prisma uses, inside a Prisma
// transaction: Prisma holds its lock and the BEGIN/COMMIT, and the rows skip its per-parameter
// query pipeline, which made 100-row writes cost tens of milliseconds of blocked event loop.
// Values are bound the way Prisma's SQLite adapter binds them (Dates as ISO text, booleans as
// 1/0), so rows read back the same whoever wrote them.
//
// PostgreSQL: a bulk write is one statement in one round trip, `INSERT … SELECT … FROM unnest(…)`
// with one text array per column, cast to the column's type, through the transaction's own
// Prisma client; a large one in a transaction of `PostgresSql.transaction` (span batches) is a
// `COPY … FROM STDIN` instead, the upsert being its fallback; the key lookup goes straight to the pool.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Database as SqliteConnection, Statement } from 'better-sqlite3';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

export type SqlValue = string | number | bigint | boolean | Date | null;
export type Provider = 'sqlite' | 'postgresql';
/** The part of a Prisma client raw SQL uses: the service's, or the one `db.$transaction(async (tx) => …)` hands out. */
export interface Tx {
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

/** A Prisma client's interactive transactions. */
interface Transactions {
  $transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}

const quoted = (name: string) => `"${name}"`;

/** A DateTime column's text, as Prisma's adapter writes it. */
export function sqlDate(value: Date): string {
  return value.toISOString().replace('Z', '+00:00');
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
  /** Every row of such a read: a trace's spans on PostgreSQL (observability/read.ts), where Prisma's per-value conversion was half the read. */
  all<Row>(sql: string, params: readonly SqlValue[]): Promise<Row[]>;
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
  /** The smaller of two values (SQLite's scalar MIN, PostgreSQL's LEAST). */
  least(a: string, b: string): string;
}

/** `text` as an SQL string literal. */
function sqlString(text: string): string {
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

/** What `compute` answers, as a promise (its exception a rejection): SQLite answers synchronously underneath. */
function answered<T>(compute: () => T): Promise<T> {
  return new Promise((resolve) => resolve(compute()));
}

export class SqliteSql implements BulkSql {
  readonly provider = 'sqlite';
  readonly like = 'LIKE';
  readonly skipLocked = '';
  readonly isNot = 'IS NOT';
  private readonly statements = new Map<string, Statement>();
  private readonly reads = new Map<string, Statement>();

  /** `db`: the Prisma client on `connection`, whose transactions hold it (absent: no `transaction`). */
  constructor(
    private readonly connection: () => SqliteConnection,
    private readonly db?: Transactions,
  ) {}

  private statement(sql: string): Statement {
    const connection = this.connection();
    // Outside a transaction the rows would be written at once, not with the caller's other writes.
    if (!connection.inTransaction) throw new Error('bulk SQL must run inside db.$transaction');
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = connection.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** One prepared statement run per row, on Prisma's connection (`tx` only says a transaction is open). */
  insertRows(_tx: Tx, table: string, columns: readonly string[], rows: readonly SqlValue[][], suffix = ''): Promise<number> {
    return answered(() => this.insertRowsNow(table, columns, rows, suffix));
  }

  private insertRowsNow(table: string, columns: readonly string[], rows: readonly SqlValue[][], suffix: string): number {
    const sql = `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})${suffix ? ` ${suffix}` : ''}`;
    const statement = this.statement(sql);
    let written = 0;
    const params: ReturnType<typeof sqlParam>[] = new Array<ReturnType<typeof sqlParam>>(columns.length);
    for (const row of rows) {
      // One parameter array reused for every row: a spread per row was a measurable share of ingestion.
      for (let i = 0; i < params.length; i++) params[i] = sqlParam(row[i]);
      written += statement.run(params).changes;
    }
    return written;
  }

  async lockKeys(): Promise<void> {}

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (!this.db) throw new Error('no Prisma client to run a transaction on');
    return this.db.$transaction((tx) => work(tx));
  }

  run(_tx: Tx, sql: string, params: readonly SqlValue[]): Promise<number> {
    return answered(() => this.statement(sql).run(...params.map(sqlParam)).changes);
  }

  query<Row>(tx: Tx, sql: string, params: readonly unknown[]): Promise<Row[]> {
    return tx.$queryRawUnsafe<Row[]>(sql, ...params);
  }

  private read(sql: string): Statement {
    let statement = this.reads.get(sql);
    if (!statement) {
      statement = this.connection().prepare(sql);
      this.reads.set(sql, statement);
    }
    return statement;
  }

  /** Synchronous underneath: a prepared statement, no transaction needed. */
  first<Row>(sql: string, params: readonly SqlValue[]): Promise<Row | undefined> {
    return answered(() => this.read(sql).get(...params.map(sqlParam)) as Row | undefined);
  }

  all<Row>(sql: string, params: readonly SqlValue[]): Promise<Row[]> {
    return answered(() => this.read(sql).all(...params.map(sqlParam)) as Row[]);
  }

  jsonValues(param: string): string {
    return `SELECT "value" FROM json_each(${param})`;
  }

  jsonMember(column: string, key: string): string {
    return `json_extract(${column}, ${sqlString(`$.${JSON.stringify(key)}`)})`;
  }

  jsonAsText(column: string): string {
    return column;
  }

  timestamp(param: string): string {
    return param;
  }

  divide(numerator: string, denominator: string): string {
    return `${numerator} / ${denominator}`;
  }

  round(expression: string, digits: number): string {
    return `ROUND(${expression}, ${digits})`;
  }

  epochMillis(column: string): string {
    // julianday's floating days round: seconds and the milliseconds of %f, as integers.
    return `(CAST(strftime('%s', ${column}) AS INTEGER) * 1000 + CAST(substr(strftime('%f', ${column}), 4) AS INTEGER))`;
  }

  floorToInt(expression: string): string {
    return `CAST(${expression} AS INTEGER)`;
  }

  least(a: string, b: string): string {
    return `MIN(${a}, ${b})`;
  }
}

/** `?` placeholders numbered for PostgreSQL (`$1`, `$2`, …); quoted text and names are left alone. */
export function numberedPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (match) => (match === '?' ? `$${++n}` : match));
}

/** A value as PostgreSQL's text input reads it (what every column's array element is sent as). */
function pgText(value: SqlValue): string | null {
  if (value === null) return null;
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** A value in COPY's text format: \N for NULL, backslash escapes for the separators (bench/ingest's baseline uses it too). */
export function copyText(value: SqlValue): string {
  const text = pgText(value);
  if (text === null) return '\\N';
  return /[\\\n\r\t]/.test(text) ? text.replace(/[\\\n\r\t]/g, (char) => copyEscapes[char]) : text;
}
const copyEscapes: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** The pool connection under each `clientTx`, for COPY. */
const txClients = new WeakMap<Tx, pg.PoolClient>();

/** A pool connection in a transaction, as the part of a Prisma client raw SQL uses (`PostgresSql.transaction`). */
function clientTx(client: pg.PoolClient): Tx {
  const values = (params: unknown[]) => params.map((value) => (Array.isArray(value) ? value : pgText(value as SqlValue)));
  const tx = {
    $executeRawUnsafe: async (sql: string, ...params: unknown[]) => (await client.query(sql, values(params))).rowCount ?? 0,
    $queryRawUnsafe: async (sql: string, ...params: unknown[]) => (await client.query<Record<string, unknown>>(sql, values(params))).rows,
  } as unknown as Tx;
  txClients.set(tx, client);
  return tx;
}

/**
 * Rows from which `insertRows` COPYs: below, the savepoint and COPY's own messages cost more
 * round trips than the one INSERT (docs/database.md#raw-sql).
 */
export const COPY_MIN_ROWS = 64;

// DateTime columns are `timestamp(3)` (OID 1114) holding UTC: read back as ISO text, like SQLite's.
const TIMESTAMP_OID = 1114;

/** `rows` COPYed into `table`; undefined when `guarded` and a key was taken (nothing written then). */
async function copyRows(
  client: pg.PoolClient,
  table: string,
  columns: readonly string[],
  rows: readonly SqlValue[][],
  guarded: boolean,
): Promise<number | undefined> {
  const lines = rows.map((row) => `${row.map(copyText).join('\t')}\n`);
  if (guarded) await client.query('SAVEPOINT copy_rows');
  const copy = client.query(copyFrom(`COPY ${quoted(table)} (${columns.map(quoted).join(', ')}) FROM STDIN`));
  try {
    await pipeline(Readable.from([lines.join('')]), copy);
  } catch (error) {
    if (!guarded || (error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    await client.query('ROLLBACK TO SAVEPOINT copy_rows');
    return undefined;
  }
  if (guarded) await client.query('RELEASE SAVEPOINT copy_rows');
  return copy.rowCount;
}

const UNIQUE_VIOLATION = '23505';

export class PostgresSql implements BulkSql {
  readonly provider = 'postgresql';
  readonly like = 'ILIKE';
  readonly skipLocked = ' FOR UPDATE SKIP LOCKED';
  readonly isNot = 'IS DISTINCT FROM';
  /** Column types by table, from the catalog, at the first write to each. */
  private readonly types = new Map<string, Promise<Map<string, string>>>();
  private readonly textTypes: pg.CustomTypesConfig;

  constructor(
    private readonly pool: pg.Pool,
    builtins: typeof pg.types,
  ) {
    this.textTypes = {
      getTypeParser: ((oid: number, format?: 'text') =>
        oid === TIMESTAMP_OID
          ? (text: string) => `${text.replace(' ', 'T')}Z`
          : (builtins.getTypeParser(oid, format) as (text: string) => unknown)) as pg.CustomTypesConfig['getTypeParser'],
    };
  }

  private columnTypes(table: string): Promise<Map<string, string>> {
    let types = this.types.get(table);
    if (!types) {
      types = this.pool
        .query<{ name: string; type: string }>(
          `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
           WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
          [quoted(table)],
        )
        .then((result) => new Map(result.rows.map((row) => [row.name, row.type])));
      types.catch(() => this.types.delete(table));
      this.types.set(table, types);
    }
    return types;
  }

  /**
   * One statement whatever the number of rows: each column travels as one text array. In a
   * transaction of `transaction`, `COPY_MIN_ROWS` rows or more are COPYed instead, a third faster
   * for PostgreSQL (no arrays to parse and cast, no speculative insertion) and for this thread (no
   * arrays to escape). COPY has no ON CONFLICT: with a `suffix`, it runs under a savepoint, and
   * when a row's key is taken (a span sent again) the savepoint is rolled back and the INSERT with
   * the suffix runs instead. Without a conflict both write the same rows.
   */
  async insertRows(tx: Tx, table: string, columns: readonly string[], rows: readonly SqlValue[][], suffix = ''): Promise<number> {
    if (rows.length === 0) return 0;
    const client = txClients.get(tx);
    if (client && rows.length >= COPY_MIN_ROWS) {
      const copied = await copyRows(client, table, columns, rows, suffix !== '');
      if (copied !== undefined) return copied;
    }
    const types = await this.columnTypes(table);
    const casts = columns.map((column) => {
      const type = types.get(column);
      if (!type) throw new Error(`${table} has no column ${column}`);
      return `u.${quoted(column)}::${type}`;
    });
    const arrays = columns.map((_, i) => rows.map((row) => pgText(row[i])));
    const sql =
      `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(', ')}) SELECT ${casts.join(', ')} ` +
      `FROM unnest(${columns.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${columns.map(quoted).join(', ')})${suffix ? ` ${suffix}` : ''}`;
    return tx.$executeRawUnsafe(sql, ...arrays);
  }

  async transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(clientTx(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Transaction-scoped advisory locks on the keys' hashes, taken in one order so two batches never deadlock. */
  async lockKeys(tx: Tx, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    // executeRaw: the lock function answers void, which a query's rows could not carry.
    await tx.$executeRawUnsafe(
      `SELECT pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtextextended(k, 0) AS h FROM unnest($1::text[]) AS k ORDER BY 1) AS locks`,
      [...keys],
    );
  }

  run(tx: Tx, sql: string, params: readonly SqlValue[]): Promise<number> {
    return tx.$executeRawUnsafe(numberedPlaceholders(sql), ...params);
  }

  query<Row>(tx: Tx, sql: string, params: readonly unknown[]): Promise<Row[]> {
    return tx.$queryRawUnsafe<Row[]>(numberedPlaceholders(sql), ...params);
  }

  async first<Row>(sql: string, params: readonly SqlValue[]): Promise<Row | undefined> {
    return (await this.all<Row>(sql, params))[0];
  }

  async all<Row>(sql: string, params: readonly SqlValue[]): Promise<Row[]> {
    const result = await this.pool.query({ text: numberedPlaceholders(sql), values: params.map(pgText), types: this.textTypes });
    return result.rows as Row[];
  }

  jsonValues(param: string): string {
    return `SELECT "value" FROM jsonb_array_elements_text(${param}::jsonb) AS e("value")`;
  }

  jsonMember(column: string, key: string): string {
    return `(${column} ->> ${sqlString(key)})`;
  }

  jsonAsText(column: string): string {
    return `${column}::text`;
  }

  timestamp(param: string): string {
    return `${param}::timestamp(3)`;
  }

  divide(numerator: string, denominator: string): string {
    return `(${numerator})::float8 / ${denominator}`;
  }

  round(expression: string, digits: number): string {
    return `ROUND((${expression})::numeric, ${digits})::float8`;
  }

  epochMillis(column: string): string {
    // A timestamp(3) without time zone holds UTC (docs/database.md): its epoch is the nominal one.
    return `(EXTRACT(EPOCH FROM ${column}) * 1000)::bigint`;
  }

  floorToInt(expression: string): string {
    return `FLOOR(${expression})::integer`;
  }

  least(a: string, b: string): string {
    return `LEAST(${a}, ${b})`;
  }
}
