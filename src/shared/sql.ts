// Multi-row INSERTs for the hot write paths (test set rows, spans, scenarios): one statement per
// few hundred rows, where Prisma's createMany or per-row upserts were 10–30 times slower.
// Json columns are given as JSON text and DateTime columns as Dates, as the SQLite adapter stores
// them. PostgreSQL would want `$n` placeholders and jsonb casts here.
import type { Db } from './db.js';

export type SqlValue = string | number | bigint | boolean | Date | null;

/** What runs a raw statement: the client or a transaction's client. */
type Executor = Pick<Db, '$executeRawUnsafe'>;

/** Parameters per statement: far below SQLite's 32,766, and bigger statements were not faster. */
const PARAMETERS_PER_STATEMENT = 14_000;

const quoted = (name: string) => `"${name}"`;

/**
 * Inserts `rows` (values in `columns` order) into `table`. `suffix` follows each statement, e.g.
 * `ON CONFLICT (…) DO UPDATE SET …`. Answers the number of rows the database reports written.
 */
export async function insertRows(db: Executor, table: string, columns: readonly string[], rows: readonly SqlValue[][], suffix = ''): Promise<number> {
  const perStatement = Math.max(1, Math.floor(PARAMETERS_PER_STATEMENT / columns.length));
  const placeholders = `(${columns.map(() => '?').join(', ')})`;
  const head = `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(', ')}) VALUES `;
  let written = 0;
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const sql = `${head}${chunk.map(() => placeholders).join(', ')}${suffix ? ` ${suffix}` : ''}`;
    written += await db.$executeRawUnsafe(sql, ...chunk.flat());
  }
  return written;
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
