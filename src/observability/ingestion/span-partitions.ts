// The day partitions of "Span" on PostgreSQL (docs/database.md#span-partitions). The service
// creates them: a few days ahead at start and on every retention sweep, and on demand for a span
// that starts on a day none covers (an old import, a skewed clock), so ingestion never fails for
// want of one. There is no DEFAULT partition: a row in it would make creating the partition its
// day belongs to fail, and it forbids detaching partitions concurrently.
//
// A partition is made as a table of its own and then attached, which locks "Span" in SHARE UPDATE
// EXCLUSIVE mode, a lock inserts and reads do not wait for (`CREATE TABLE … PARTITION OF` would
// take ACCESS EXCLUSIVE); it is dropped after `DETACH PARTITION … CONCURRENTLY`, for the same
// reason. On SQLite every method does nothing.
import type { Db } from '../../shared/db.js';
import type { BulkSql, Tx } from '../../shared/sql.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** One partition: spans starting in [from, to). */
export interface SpanPartition {
  name: string;
  from: Date;
  to: Date;
  /** A `DETACH … CONCURRENTLY` was interrupted: it is finished before the drop. */
  detachPending: boolean;
}

/** The partition of the UTC day `day` (YYYY-MM-DD): its table name and bounds. */
export function dayPartition(day: string): { name: string; from: string; to: string } {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new Error(`no span partition for the day ${JSON.stringify(day)}`);
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
  return { name: `Span_p${day.replaceAll('-', '')}`, from: day, to: next };
}

/** The UTC day (YYYY-MM-DD) of a time, or of a DateTime column's SQL text. */
export function dayOf(time: Date | string): string {
  return (typeof time === 'string' ? time : time.toISOString()).slice(0, 10);
}

export class SpanPartitions {
  /**
   * The days known to have a partition: checked before every span batch, so it costs no query.
   * Only from yesterday on: an older partition may be dropped by another instance's retention
   * sweep, so a span of an older day has its partition checked (and made again) each time.
   */
  private readonly known = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly sql: BulkSql,
  ) {}

  get enabled(): boolean {
    return this.sql.provider === 'postgresql';
  }

  /**
   * Makes sure a partition exists for each of these start times (DateTime SQL text), inside the
   * caller's transaction `tx` (a batch of spans about to be inserted there). On the batch's own
   * connection: a second one per batch could exhaust the pool under many concurrent batches. A
   * partition made here commits with the batch; until then other batches of its day wait.
   */
  async ensureFor(tx: Tx, startTimes: Iterable<string>): Promise<void> {
    if (!this.enabled) return;
    let missing: Set<string> | null = null;
    for (const time of startTimes) {
      const day = dayOf(time);
      if (!this.known.has(day)) (missing ??= new Set()).add(day);
    }
    if (!missing) return;
    const unknown = [];
    for (const day of missing) {
      // Seen committed: remembered (made here, it is not yet, and might roll back).
      if (await this.exists(tx, day)) this.remember(day);
      else unknown.push(day);
    }
    if (unknown.length > 0) await this.create(tx, unknown);
  }

  /** Makes sure partitions exist for the day of `now` and the `days` after it. */
  async ensureAhead(now: Date, days: number): Promise<void> {
    if (!this.enabled) return;
    const wanted = Array.from({ length: days + 1 }, (_, i) => dayOf(new Date(now.getTime() + i * DAY_MS))).filter((day) => !this.known.has(day));
    if (wanted.length === 0) return;
    await this.sql.transaction((tx) => this.create(tx, wanted));
    for (const day of wanted) this.remember(day);
  }

  /** Every partition, oldest first. */
  async list(): Promise<SpanPartition[]> {
    if (!this.enabled) return [];
    const rows = await this.sql.query<{ name: string; detachPending: boolean }>(
      this.db,
      `SELECT c.relname AS "name", i.inhdetachpending AS "detachPending" FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid
       WHERE i.inhparent = '"Span"'::regclass`,
      [],
    );
    return rows
      .filter((row) => /^Span_p\d{8}$/.test(row.name))
      .map((row) => {
        const digits = row.name.slice('Span_p'.length);
        const bounds = dayPartition(`${digits.slice(0, 4)}-${digits.slice(4, 6)}-${digits.slice(6)}`);
        return { name: row.name, from: new Date(`${bounds.from}T00:00:00Z`), to: new Date(`${bounds.to}T00:00:00Z`), detachPending: row.detachPending };
      })
      .sort((a, b) => a.from.getTime() - b.from.getTime());
  }

  private async exists(tx: Tx, day: string): Promise<boolean> {
    const [row] = await this.sql.query<{ found: string | null }>(tx, 'SELECT to_regclass(?)::text AS "found"', [`"${dayPartition(day).name}"`]);
    return Boolean(row?.found);
  }

  private remember(day: string): void {
    if (day >= dayOf(new Date(Date.now() - DAY_MS))) this.known.add(day);
  }

  /** Makes the partitions of `days` that do not exist, in `tx`, one maker at a time. */
  private async create(tx: Tx, days: string[]): Promise<void> {
    // One maker at a time, across batches and instances: SHARE UPDATE EXCLUSIVE conflicts with
    // itself (and is what ATTACH takes anyway) but not with inserts and reads. A lock on a
    // relation, unlike an advisory lock, also makes this transaction take in the catalog changes
    // committed meanwhile, so the check below sees a partition another maker just committed
    // (after an advisory lock it could still miss it and fail on "already exists").
    await tx.$executeRawUnsafe('LOCK TABLE "Span" IN SHARE UPDATE EXCLUSIVE MODE');
    for (const day of days) {
      // Again under the lock: another maker may have committed it meanwhile.
      if (await this.exists(tx, day)) continue;
      const { name, from, to } = dayPartition(day);
      await tx.$executeRawUnsafe(`CREATE TABLE "${name}" (LIKE "Span" INCLUDING DEFAULTS)`);
      await tx.$executeRawUnsafe(`ALTER TABLE "Span" ATTACH PARTITION "${name}" FOR VALUES FROM ('${from}') TO ('${to}')`);
    }
  }

  /**
   * Detaches and drops a partition, its spans with it. Another instance may be dropping it too:
   * what it finished already is not done again.
   */
  async drop(partition: SpanPartition): Promise<void> {
    if (!this.enabled) return;
    // Outside a transaction, as CONCURRENTLY requires: it waits for the queries that use the
    // partition to end, and blocks none.
    const mode = partition.detachPending ? 'FINALIZE' : 'CONCURRENTLY';
    await this.db.$executeRawUnsafe(`ALTER TABLE "Span" DETACH PARTITION "${partition.name}" ${mode}`).catch(async (error: unknown) => {
      if ((await this.list()).some((p) => p.name === partition.name)) throw error;
    });
    await this.db.$executeRawUnsafe(`DROP TABLE IF EXISTS "${partition.name}"`);
    this.known.delete(dayOf(partition.from));
  }
}

declare module '../../shared/context.js' {
  interface Services {
    /** The day partitions of "Span" on PostgreSQL (created by server.ts). */
    spanPartitions: SpanPartitions;
  }
}
