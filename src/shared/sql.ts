// Bulk writes for the hot paths (test set rows, spans, evaluation scenarios). They run as cached
// prepared statements on the very connection Prisma uses, inside a Prisma transaction: Prisma
// holds its lock and the BEGIN/COMMIT, and the rows skip its per-parameter query pipeline, which
// made 100-row writes cost tens of milliseconds of blocked event loop. Values are bound the way
// Prisma's SQLite adapter binds them (Dates as ISO text, booleans as 1/0), so rows read back the
// same whoever wrote them. PostgreSQL would need its own implementation of this class.
import type { Database as SqliteConnection, Statement } from 'better-sqlite3';

export type SqlValue = string | number | bigint | boolean | Date | null;

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

export class BulkSql {
  private readonly statements = new Map<string, Statement>();
  private readonly reads = new Map<string, Statement>();

  constructor(private readonly connection: () => SqliteConnection) {}

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

  /**
   * Inserts `rows` (values in `columns` order) into `table`, one prepared statement run per row.
   * `suffix` follows the VALUES, e.g. `ON CONFLICT (…) DO UPDATE SET …`. Answers the rows written.
   */
  insertRows(table: string, columns: readonly string[], rows: readonly SqlValue[][], suffix = ''): number {
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

  /**
   * The first row of a read, or undefined: for the one read on every request's path (an API key
   * by its hash, auth/operations.ts), where Prisma's query pipeline cost more than the lookup.
   * Unlike the writes it needs no transaction.
   */
  first<Row>(sql: string, params: readonly SqlValue[]): Row | undefined {
    let statement = this.reads.get(sql);
    if (!statement) {
      statement = this.connection().prepare(sql);
      this.reads.set(sql, statement);
    }
    return statement.get(...params.map(sqlParam)) as Row | undefined;
  }

  /** Runs one statement; answers the rows it changed. */
  run(sql: string, params: readonly SqlValue[]): number {
    return this.statement(sql).run(...params.map(sqlParam)).changes;
  }
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
