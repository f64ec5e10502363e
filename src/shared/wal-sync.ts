// Acknowledged writes reach the disk through fsyncs shared by many commits (group commit), run on
// libuv's thread pool. The connection runs `synchronous = NORMAL` (db.ts): a COMMIT writes the
// WAL without waiting for the disk, so the serving thread never blocks on an fsync. Whatever
// acknowledges a write (a 2xx for spans, a REST or GraphQL mutation) first awaits `sync()`, an
// fdatasync of the WAL file that began after its commit; one fsync covers every commit made before
// it began. fsync acts on the file, not on the descriptor, so this one covers the connection's
// writes. Unacknowledged writes (an evaluation's scenarios) need none: a power cut can only roll
// back their last batches, which a resumed run stores again.
import { type FileHandle, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Database as SqliteConnection, Statement } from 'better-sqlite3';

/** What acknowledging a write awaits (shared/http/durable.ts): every commit made before is on disk. */
export interface CommitSync {
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * PostgreSQL's: its COMMIT answers once the commit is on disk (synchronous_commit on, db.ts), so
 * there is nothing left to wait for (docs/database.md#durability).
 */
export const committedOnReturn: CommitSync = {
  sync: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

export class WalSync implements CommitSync {
  private wal: FileHandle | null = null;
  /** The fsync under way, and the one that follows it for callers that came during it. */
  private running: Promise<void> | null = null;
  private following: Promise<void> | null = null;
  /** What was committed when the fsync under way began, and when the last done one did. */
  private runningFrom: Committed | null = null;
  private syncedFrom: Committed | null = null;
  private totalChanges: { connection: SqliteConnection; statement: Statement } | null = null;
  private closed = false;
  /** fsyncs done so far. */
  completed = 0;

  /** `connection` answers the connection whose commits are acknowledged (Prisma's). */
  constructor(
    private readonly databasePath: string,
    private readonly connection: () => SqliteConnection,
  ) {}

  /**
   * The rows the connection changed so far, or null while a transaction is open: its changes are
   * counted before they are committed, so an fsync begun then cannot be known to cover them.
   */
  private committed(): Committed | null {
    const connection = this.connection();
    if (connection.inTransaction) return null;
    if (this.totalChanges?.connection !== connection) {
      this.totalChanges = { connection, statement: connection.prepare('SELECT total_changes()').pluck() };
    }
    return { connection, changes: Number(this.totalChanges.statement.get()) };
  }

  /** Resolves once every commit made before this call is on disk; rejects when the disk refused it. */
  sync(): Promise<void> {
    const committed = this.committed();
    if (this.running) {
      if (sameCommitted(committed, this.runningFrom)) return this.running;
      // The fsync under way began before the caller's commit: the caller needs the next one.
      this.following ??= this.running.then(
        () => this.startFollowing(),
        () => this.startFollowing(),
      );
      return this.following;
    }
    // Nothing written since the last fsync began (a read sent as a POST, say): nothing to wait for.
    if (sameCommitted(committed, this.syncedFrom)) return Promise.resolve();
    return this.start(committed);
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.running) await this.running.catch(() => undefined);
    await this.wal?.close();
    this.wal = null;
  }

  private startFollowing(): Promise<void> {
    this.following = null;
    return this.start(this.committed());
  }

  private start(committed: Committed | null): Promise<void> {
    this.runningFrom = committed;
    const run = this.flush()
      .then(() => {
        this.syncedFrom = committed;
      })
      .finally(() => {
        if (this.running === run) this.running = null;
      });
    this.running = run;
    return run;
  }

  private async flush(): Promise<void> {
    if (this.closed) return;
    const path = `${this.databasePath}-wal`;
    // SQLite deletes the WAL when its last connection closes and makes a new one at the next
    // write: a handle to the old file would sync nothing that matters.
    if (this.wal && (await this.wal.stat()).ino !== (await unlessMissing(stat(path)))?.ino) {
      await this.wal.close();
      this.wal = null;
    }
    if (!this.wal) {
      const wal = await unlessMissing(open(path, 'r'));
      // No WAL: nothing was committed since the database was last checkpointed and closed.
      if (!wal) return;
      await syncDirectory(dirname(this.databasePath));
      this.wal = wal;
    }
    await this.wal.datasync();
    this.completed++;
  }
}

/** A connection's count of changed rows, all committed; a new connection counts from 0 again. */
interface Committed {
  connection: SqliteConnection;
  changes: number;
}

/** Nothing was committed between `a` and `b` (unknown when either is null). */
function sameCommitted(a: Committed | null, b: Committed | null): boolean {
  return a !== null && b !== null && a.connection === b.connection && a.changes === b.changes;
}

/** The WAL's directory entry must survive a power cut too (SQLite syncs it at its first checkpoint only). */
async function syncDirectory(path: string): Promise<void> {
  let directory: FileHandle;
  try {
    directory = await open(path, 'r');
  } catch (error) {
    // Windows cannot open a directory as a file, nor needs to: its directory entries are journaled.
    if (['EISDIR', 'EPERM', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? '')) return;
    throw error;
  }
  await directory.sync().finally(() => directory.close());
}

/** What `pending` answers, or null when the file it reads does not exist. */
async function unlessMissing<T>(pending: Promise<T>): Promise<T | null> {
  try {
    return await pending;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
