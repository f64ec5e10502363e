// Durable background jobs kept in their own rows (docs/evaluations.md#durability): a worker takes a
// row by writing a lease (owner + expiry) on it and renews the lease while it works; a row whose
// lease expired (its process died) belongs to nobody and is taken again by the next scan, here, in
// another instance or after a restart. The claim is one UPDATE of the free rows: on PostgreSQL they
// are chosen `FOR UPDATE SKIP LOCKED`, so instances scanning at once take different rows and never
// wait on each other; SQLite has a single writer. Every write a worker makes for its job is fenced
// by its lease (`fence`), so a worker that lost it (a long pause) writes nothing more.
// (docs/operations.md#several-instances)
//
// Works on any Prisma model with `id`, `status`, `leaseOwner` and `leaseExpiresAt` columns: pass
// its delegate (`db.evaluation`, `db.humanEvaluation`), its table name and the statuses of rows
// that still need work.
import { type BulkSql, sqlDate, type Tx } from '../shared/sql.js';

/** The part of a Prisma model delegate leases use. */
export interface LeaseDelegate {
  // Prisma's delegate methods are generic over their arguments; `any` lets any model's fit.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Prisma's generic delegate signatures accept no narrower parameter type
  updateMany(args: any): PromiseLike<{ count: number }>;
}

export interface LeaseOptions {
  /** This worker's id (one per process and runner). */
  owner: string;
  leaseMs: number;
  /** The model's table, e.g. "Evaluation". */
  table: string;
  /** The statuses of rows that still need work. */
  statuses: readonly string[];
  /** A DateTime column before which a row is not taken (a delay, a retry's backoff); absent: any time. */
  due?: string;
  /** Column values a row must have to be taken at all (evaluations' `origin`: external runs are never run). */
  only?: Readonly<Record<string, string>>;
  /** A status the claim writes on the rows it takes (online evaluation marks them started in the same statement). */
  claimedStatus?: string;
}

/** Thrown by `fence` when another worker holds the row now: the work stops, and what it was writing is rolled back. */
export class LeaseLost extends Error {
  constructor(id: string) {
    super(`the lease on ${id} was lost to another worker`);
  }
}

export class Leases {
  /** The `where` of rows that still need work. */
  readonly runnable: Record<string, unknown>;
  private readonly claimSql: string;

  constructor(
    private readonly delegate: LeaseDelegate,
    private readonly db: Tx,
    private readonly sql: BulkSql,
    private readonly options: LeaseOptions,
  ) {
    this.runnable = { status: { in: [...options.statuses] }, ...options.only };
    const table = `"${options.table}"`;
    // Statuses are constants of the code, written as literals: PostgreSQL types them as the enum.
    const statuses = options.statuses.map((status) => `'${status.replace(/'/g, "''")}'`).join(', ');
    const claimed = options.claimedStatus ? `, "status" = '${options.claimedStatus.replace(/'/g, "''")}'` : '';
    this.claimSql =
      `UPDATE ${table} SET "leaseOwner" = ?, "leaseExpiresAt" = ${sql.timestamp('?')}${claimed} WHERE "id" IN (` +
      `SELECT "id" FROM ${table} WHERE "status" IN (${statuses}) ` +
      `AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < ${sql.timestamp('?')}) AND "id" NOT IN (${sql.jsonValues('?')}) ` +
      (options.due ? `AND "${options.due}" <= ${sql.timestamp('?')} ` : '') +
      // Constants of the code too, as literals.
      Object.entries(options.only ?? {})
        .map(([column, value]) => `AND "${column}" = '${value.replace(/'/g, "''")}' `)
        .join('') +
      `ORDER BY "id" LIMIT ?${sql.skipLocked}) RETURNING "id"`;
  }

  get owner(): string {
    return this.options.owner;
  }

  private expiry(): Date {
    return new Date(Date.now() + this.options.leaseMs);
  }

  /**
   * Takes up to `take` runnable rows nobody holds (oldest first, leaving out `busy`: rows this
   * worker runs already) in one statement; answers the ids this worker now holds.
   */
  async claim(take: number, busy: readonly string[] = []): Promise<string[]> {
    if (take <= 0) return [];
    const rows = await this.sql.query<{ id: string }>(this.db, this.claimSql, [
      this.options.owner,
      sqlDate(this.expiry()),
      sqlDate(new Date()),
      JSON.stringify(busy),
      ...(this.options.due ? [sqlDate(new Date())] : []),
      take,
    ]);
    return rows.map((row) => row.id).sort();
  }

  /**
   * Inside a transaction that writes the job's results: renews the lease if this worker still
   * holds it, else throws LeaseLost, rolling the transaction back. On PostgreSQL it also locks the
   * row until the transaction ends, so no other worker can take it in between.
   */
  async fence(tx: { updateMany: LeaseDelegate['updateMany'] }, id: string): Promise<void> {
    const { count } = await tx.updateMany({ where: { id, leaseOwner: this.options.owner }, data: { leaseExpiresAt: this.expiry() } });
    if (count !== 1) throw new LeaseLost(id);
  }

  /** Extends the lease; false when this worker lost it or the row no longer matches `still`. */
  async renew(id: string, still: Record<string, unknown> = this.runnable): Promise<boolean> {
    const { count } = await this.delegate.updateMany({
      where: { id, leaseOwner: this.options.owner, ...still },
      data: { leaseExpiresAt: this.expiry() },
    });
    return count === 1;
  }

  /** Gives the row up (its work is done, or stopped to be resumed later). */
  async release(id: string): Promise<void> {
    await this.delegate.updateMany({ where: { id, leaseOwner: this.options.owner }, data: { leaseOwner: null, leaseExpiresAt: null } });
  }

  /**
   * Renews the lease every third of its length while the work runs; aborts `controller` when the
   * lease is lost or the row stops matching `still` (cancelled, deleted). Returns the stopper.
   */
  keep(id: string, controller: AbortController, still: Record<string, unknown> = this.runnable): () => void {
    const timer = setInterval(() => {
      this.renew(id, still)
        .then((held) => {
          if (!held) controller.abort();
        })
        .catch(() => controller.abort());
    }, this.options.leaseMs / 3);
    return () => clearInterval(timer);
  }
}
