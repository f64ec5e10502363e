// Raw SQL on SQLite (the BulkSql of sql.ts, docs/database.md#raw-sql): cached prepared statements
// on the very connection Prisma uses, inside a transaction (Prisma's, or `transaction`'s own BEGIN
// and COMMIT on the connection, which take turns with Prisma's through `TransactionTurns`), so the
// rows skip Prisma's per-parameter query pipeline, which made 100-row writes cost tens of
// milliseconds of blocked event loop. Values are bound the way Prisma's SQLite adapter binds them
// (Dates as ISO text, booleans as 1/0), so rows read back the same whoever wrote them.
import type { Database as SqliteConnection, Statement } from 'better-sqlite3';
import type { ReadWorker } from './read-worker.js';
import { quoted, sqlParam, sqlString, type BulkSql, type SqlValue, type Tx } from './sql.js';

/**
 * Whose turn it is to hold the connection's one transaction: Prisma's interactive transactions
 * (db.ts makes its adapter take a turn before BEGIN and give it back at COMMIT or ROLLBACK) and
 * `SqliteSql.transaction`'s. One at a time, in the order asked; the adapter's own lock only
 * orders Prisma's.
 */
export class TransactionTurns {
  private last: Promise<void> = Promise.resolve();

  /** Resolves once every turn asked before has ended; call the function answered to end this one. */
  take(): Promise<() => void> {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const turn = this.last.then(() => end);
    this.last = ended;
    return turn;
  }
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

  /**
   * `db`: the Prisma client on `connection` (absent: no `transaction`), whose transactions take
   * `turns` with this one's; `aside`: the worker `allAside` sends its reads to (absent: they run
   * here, as `all`).
   */
  constructor(
    private readonly connection: () => SqliteConnection,
    private readonly db?: Tx,
    private readonly turns = new TransactionTurns(),
    private readonly aside?: ReadWorker,
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

  // SQLite serialises every write transaction already: no lock keys to take (lockKeys).
  writeRows(table: string, columns: readonly string[], rows: readonly SqlValue[][], suffix = ''): Promise<number> {
    return rows.length === 0 ? Promise.resolve(0) : this.transaction(() => answered(() => this.insertRowsNow(table, columns, rows, suffix)));
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

  updateRows(_tx: Tx, table: string, key: string, columns: readonly string[], rows: readonly SqlValue[][]): Promise<number> {
    return answered(() => {
      if (rows.length === 0) return 0;
      const statement = this.statement(`UPDATE ${quoted(table)} SET ${columns.map((column) => `${quoted(column)} = ?`).join(', ')} WHERE ${quoted(key)} = ?`);
      let changed = 0;
      // The key is the row's first value and the statement's last parameter.
      for (const row of rows) changed += statement.run(...row.slice(1).map(sqlParam), sqlParam(row[0])).changes;
      return changed;
    });
  }

  async lockKeys(): Promise<void> {}

  /**
   * BEGIN and COMMIT run on the connection here, not through Prisma's interactive transaction,
   * whose statements go through its query pipeline and whose bookkeeping runs per batch on the
   * serving thread (docs/observability.md#measurements). `work` gets the Prisma client itself: its queries run on
   * the same connection, so inside this transaction, as they would inside Prisma's.
   */
  async transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const db = this.db;
    if (!db) throw new Error('no Prisma client to run a transaction on');
    const endTurn = await this.turns.take();
    try {
      const connection = this.connection();
      connection.prepare('BEGIN').run();
      try {
        const result = await work(db);
        connection.prepare('COMMIT').run();
        return result;
      } catch (error) {
        // A failed COMMIT (a full disk) leaves the transaction open too.
        if (connection.inTransaction) connection.prepare('ROLLBACK').run();
        throw error;
      }
    } finally {
      endTurn();
    }
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

  allAside<Row>(sql: string, params: readonly SqlValue[]): Promise<Row[]> {
    return this.aside ? this.aside.all<Row>(sql, params.map(sqlParam)) : this.all<Row>(sql, params);
  }

  jsonValues(param: string): string {
    return `SELECT "value" FROM json_each(${param})`;
  }

  jsonMember(column: string, key: string): string {
    return `json_extract(${column}, ${sqlString(`$.${JSON.stringify(key)}`)})`;
  }

  // SQLite's -> answers a member as JSON text (minified, as json() renders a parameter), ->> as an
  // SQL value; the key is a path with the key quoted, which SQLite reads with JSON's escapes.
  jsonKeyMember(column: string, as: 'json' | 'text'): string {
    return as === 'json' ? `(${column} -> ?)` : `(${column} ->> ?)`;
  }

  memberKey(key: string): string {
    return `$.${JSON.stringify(key)}`;
  }

  jsonParam(param: string): string {
    return `json(${param})`;
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
}
