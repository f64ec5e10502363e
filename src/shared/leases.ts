// Durable background jobs kept in their own rows (docs/evaluations.md#durability): a worker takes a
// row by writing a lease (owner + expiry) on it and renews the lease while it works; a row whose
// lease expired (its process died) belongs to nobody and is taken again by the next scan, here or
// after a restart. The claim is a conditional UPDATE, so two workers never take the same row.
//
// Works on any Prisma model with `id`, `leaseOwner` and `leaseExpiresAt` columns: pass its
// delegate (`db.evaluation`, `db.humanEvaluation`) and the filter of the rows that still need work.

/** The part of a Prisma model delegate leases use. */
export interface LeaseDelegate {
  // Prisma's delegate methods are generic over their arguments; `any` lets any model's fit.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Prisma's generic delegate signatures accept no narrower parameter type
  findMany(args: any): PromiseLike<{ id: string }[]>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Prisma's generic delegate signatures accept no narrower parameter type
  updateMany(args: any): PromiseLike<{ count: number }>;
}

export interface LeaseOptions {
  /** This worker's id (one per process and runner). */
  owner: string;
  leaseMs: number;
  /** The `where` of rows that still need work (e.g. `{status: {in: […]}}`). */
  runnable: Record<string, unknown>;
}

export class Leases {
  constructor(
    private readonly table: LeaseDelegate,
    private readonly options: LeaseOptions,
  ) {}

  get owner(): string {
    return this.options.owner;
  }

  private expiry(): Date {
    return new Date(Date.now() + this.options.leaseMs);
  }

  private free() {
    return { OR: [{ leaseExpiresAt: null }, { leaseExpiresAt: { lt: new Date() } }] };
  }

  /** Ids of runnable rows nobody holds, oldest first, leaving out `busy` (rows this worker runs). */
  async claimable(take: number, busy: readonly string[] = []): Promise<string[]> {
    if (take <= 0) return [];
    const rows = await this.table.findMany({
      where: { ...this.options.runnable, id: { notIn: [...busy] }, ...this.free() },
      orderBy: { id: 'asc' },
      take,
      select: { id: true },
    });
    return rows.map((row) => row.id);
  }

  /** Takes the row if it is still runnable and free; true when this worker now holds it. */
  async claim(id: string): Promise<boolean> {
    const { count } = await this.table.updateMany({
      where: { id, ...this.options.runnable, ...this.free() },
      data: { leaseOwner: this.options.owner, leaseExpiresAt: this.expiry() },
    });
    return count === 1;
  }

  /** Extends the lease; false when this worker lost it or the row no longer matches `still`. */
  async renew(id: string, still: Record<string, unknown> = this.options.runnable): Promise<boolean> {
    const { count } = await this.table.updateMany({
      where: { id, leaseOwner: this.options.owner, ...still },
      data: { leaseExpiresAt: this.expiry() },
    });
    return count === 1;
  }

  /** Gives the row up (its work is done, or stopped to be resumed later). */
  async release(id: string): Promise<void> {
    await this.table.updateMany({ where: { id, leaseOwner: this.options.owner }, data: { leaseOwner: null, leaseExpiresAt: null } });
  }

  /**
   * Renews the lease every third of its length while the work runs; aborts `controller` when the
   * lease is lost or the row stops matching `still` (cancelled, deleted). Returns the stopper.
   */
  keep(id: string, controller: AbortController, still: Record<string, unknown> = this.options.runnable): () => void {
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
