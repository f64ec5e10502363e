// WAL checkpoints off the serving thread. By default SQLite copies the WAL into the database file
// inside the COMMIT that grows the WAL past `wal_autocheckpoint` pages, on the thread that commits:
// with span ingestion that copying (and its fsyncs) was a third of the time of every write, with
// the event loop blocked. Here a worker thread with its own connection checkpoints (PASSIVE: never
// blocking readers or writers) once the WAL is `pages` frames long or stopped growing, and the
// serving connection keeps a far higher automatic threshold only as a bound, which takes over
// should the worker stop.
import { Worker } from 'node:worker_threads';
import type { Database as SqliteConnection } from 'better-sqlite3';
import { closeWorker } from './worker-close.js';

export interface CheckpointerOptions {
  /** Milliseconds between the worker's looks at the WAL's length. */
  intervalMs?: number;
  /**
   * The WAL's length in frames (pages) that sets off checkpoints while it still grows; well below
   * `fallbackPages`, so that the serving connection never checkpoints by itself.
   */
  pages?: number;
  /** Milliseconds without a commit after which what is left is copied however little. */
  idleMs?: number;
  /** WAL pages after which a commit checkpoints by itself (SQLite's default is 1,000). */
  fallbackPages?: number;
  /** Told when the worker fails; checkpoints are then SQLite's own again. */
  onError?: (message: string) => void;
}

const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;

export interface Checkpointer {
  /** Stops the worker after the serving connection closed: its connection, the last, ends the WAL. */
  close(): Promise<void>;
}

export function startCheckpointer(path: string, connection: SqliteConnection, options: CheckpointerOptions = {}): Checkpointer {
  const worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), {
    workerData: { path, intervalMs: options.intervalMs ?? 50, pages: options.pages ?? 4000, idleMs: options.idleMs ?? 1000 },
  });
  worker.unref();
  connection.pragma(`wal_autocheckpoint = ${options.fallbackPages ?? 10_000}`);
  let running = true;
  const fallBack = (message: string) => {
    if (!running) return;
    running = false;
    if (connection.open) connection.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
    options.onError?.(message);
  };
  worker.on('message', (message: { error?: string }) => {
    if (message.error) options.onError?.(`WAL checkpoint failed: ${message.error}`);
  });
  worker.on('error', (error: Error) => fallBack(`the WAL checkpoint worker failed: ${error.message}`));
  worker.on('exit', () => fallBack('the WAL checkpoint worker stopped'));
  return {
    close: async () => {
      if (!running) return;
      running = false;
      await closeWorker(worker);
    },
  };
}
