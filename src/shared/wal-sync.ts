// Acknowledged writes reach the disk through fsyncs shared by many commits (group commit), run on
// libuv's thread pool. The connection runs `synchronous = NORMAL` (db.ts): a COMMIT writes the
// WAL without waiting for the disk, so the serving thread never blocks on an fsync. Whatever
// acknowledges a write (a 2xx for spans, a REST or GraphQL mutation) first awaits `sync()`, an
// fdatasync of the WAL file that began after its commit; one fsync covers every commit made before
// it began. fsync acts on the file, not on the descriptor, so this one covers the connection's
// writes. Unacknowledged writes (an evaluation's scenarios) need none: a power cut can only roll
// back their last batches, which a resumed run stores again.
import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Database as SqliteConnection, Statement } from 'better-sqlite3';

export class WalSync {
  private wal: FileHandle | null = null;
  /** The fsync under way, and the one that follows it for callers that came during it. */
  private running: Promise<void> | null = null;
  private following: Promise<void> | null = null;
  /** The committed change count when the fsync under way began, and when the last done one did. */
  private runningFrom: number | null = null;
  private syncedFrom: number | null = null;
  private closed = false;
  /** fsyncs done so far. */
  completed = 0;

  private readonly totalChanges: Statement;

  /** `connection` is the one whose commits are acknowledged (Prisma's). */
  constructor(
    private readonly databasePath: string,
    private readonly connection: SqliteConnection,
  ) {
    this.totalChanges = connection.prepare('SELECT total_changes()').pluck();
  }

  /**
   * The rows the connection changed so far, or null while a transaction is open: its changes are
   * counted before they are committed, so an fsync begun then cannot be known to cover them.
   */
  private committedChanges(): number | null {
    return this.connection.inTransaction ? null : Number(this.totalChanges.get());
  }

  /** Resolves once every commit made before this call is on disk; rejects when the disk refused it. */
  sync(): Promise<void> {
    const changes = this.committedChanges();
    if (this.running) {
      if (changes !== null && changes === this.runningFrom) return this.running;
      // The fsync under way began before the caller's commit: the caller needs the next one.
      this.following ??= this.running.then(
        () => this.startFollowing(),
        () => this.startFollowing(),
      );
      return this.following;
    }
    // Nothing written since the last fsync began (a read sent as a POST, say): nothing to wait for.
    if (changes !== null && changes === this.syncedFrom) return Promise.resolve();
    return this.start(changes);
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.running) await this.running.catch(() => undefined);
    await this.wal?.close();
    this.wal = null;
  }

  private startFollowing(): Promise<void> {
    this.following = null;
    return this.start(this.committedChanges());
  }

  private start(changes: number | null): Promise<void> {
    this.runningFrom = changes;
    const run = this.flush()
      .then(() => {
        this.syncedFrom = changes;
      })
      .finally(() => {
        if (this.running === run) this.running = null;
      });
    this.running = run;
    return run;
  }

  private async flush(): Promise<void> {
    if (this.closed) return;
    if (!this.wal) {
      const wal = await openIfExists(`${this.databasePath}-wal`);
      // No WAL yet: nothing was committed since the database was last checkpointed and closed.
      if (!wal) return;
      // The WAL's directory entry must survive too (SQLite syncs it at its first checkpoint only).
      const directory = await open(dirname(this.databasePath), 'r');
      await directory.sync().finally(() => directory.close());
      this.wal = wal;
    }
    await this.wal.datasync();
    this.completed++;
  }
}

async function openIfExists(path: string): Promise<FileHandle | null> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
