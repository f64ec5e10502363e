// Raw SQL on PostgreSQL (the BulkSql of sql.ts, docs/database.md#raw-sql): a bulk write is one
// statement in one round trip, `INSERT … SELECT … FROM unnest(…)` with one text array per column,
// cast to the column's type, through the transaction's own Prisma client; a large one in a
// transaction of `PostgresSql.transaction` (span batches) is a `COPY … FROM STDIN` instead, the
// upsert being its fallback; the key lookup goes straight to the pool.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { numberedPlaceholders, quoted, sqlString, type BulkSql, type SqlValue, type Tx } from './sql.js';

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
    const { sql, arrays } = await this.insertStatement(table, columns, rows, suffix);
    return tx.$executeRawUnsafe(sql, ...arrays);
  }

  async writeRows(table: string, columns: readonly string[], rows: readonly SqlValue[][], suffix = '', locks: readonly string[] = []): Promise<number> {
    if (rows.length === 0) return 0;
    const { sql, arrays } = await this.insertStatement(table, columns, rows, suffix, locks.length > 0);
    return (await this.pool.query(sql, locks.length > 0 ? [...arrays, [...locks]] : arrays)).rowCount ?? 0;
  }

  /** `INSERT … SELECT … FROM unnest(…)`: one text array per column, each cast to its column's type. */
  private async insertStatement(table: string, columns: readonly string[], rows: readonly SqlValue[][], suffix: string, locked = false) {
    const types = await this.columnTypes(table);
    const casts = columns.map((column) => {
      const type = types.get(column);
      if (!type) throw new Error(`${table} has no column ${column}`);
      return `u.${quoted(column)}::${type}`;
    });
    const arrays = columns.map((_, i) => rows.map((row) => pgText(row[i])));
    // With locks, the last parameter's keys are locked as lockKeys locks them, in a subquery that
    // depends on no row: PostgreSQL runs it once, before the first row is read (and so written).
    const locks = locked
      ? ` WHERE (SELECT COUNT(pg_advisory_xact_lock(h)) FROM (SELECT DISTINCT hashtextextended(k, 0) AS h FROM unnest($${columns.length + 1}::text[]) AS k ORDER BY 1) AS l) >= 0`
      : '';
    const sql =
      `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(', ')}) SELECT ${casts.join(', ')} ` +
      `FROM unnest(${columns.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${columns.map(quoted).join(', ')})${locks}${suffix ? ` ${suffix}` : ''}`;
    return { sql, arrays };
  }

  async updateRows(tx: Tx, table: string, key: string, columns: readonly string[], rows: readonly SqlValue[][]): Promise<number> {
    if (rows.length === 0) return 0;
    const types = await this.columnTypes(table);
    const all = [key, ...columns];
    const cast = (column: string) => {
      const type = types.get(column);
      if (!type) throw new Error(`${table} has no column ${column}`);
      return `u.${quoted(column)}::${type}`;
    };
    const sql =
      `UPDATE ${quoted(table)} AS t SET ${columns.map((column) => `${quoted(column)} = ${cast(column)}`).join(', ')} ` +
      `FROM unnest(${all.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${all.map(quoted).join(', ')}) WHERE t.${quoted(key)} = ${cast(key)}`;
    return tx.$executeRawUnsafe(sql, ...all.map((_, i) => rows.map((row) => pgText(row[i]))));
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

  allAside<Row>(sql: string, params: readonly SqlValue[]): Promise<Row[]> {
    return this.all<Row>(sql, params);
  }

  jsonValues(param: string): string {
    return `SELECT "value" FROM jsonb_array_elements_text(${param}::jsonb) AS e("value")`;
  }

  jsonMember(column: string, key: string): string {
    return `(${column} ->> ${sqlString(key)})`;
  }

  // jsonb's -> and ->> take the key as it is; jsonb equality compares values (3 equals 3.0).
  jsonKeyMember(column: string, as: 'json' | 'text'): string {
    return as === 'json' ? `(${column} -> ?::text)` : `(${column} ->> ?::text)`;
  }

  memberKey(key: string): string {
    return key;
  }

  jsonParam(param: string): string {
    return `${param}::jsonb`;
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
}
