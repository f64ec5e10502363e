// Reads beside the serving thread on SQLite (docs/database.md#raw-sql): better-sqlite3 answers on
// the thread that asks, so a request's statements ran one after the other on the serving thread,
// even those that need nothing of each other. A worker thread with a read-only connection of its
// own (started at the first read) runs the reads sent to it while the serving thread goes on with
// the request's others. It reads what is committed, never the serving connection's open
// transaction: only for reads that need none (the trace list's score figures).
import { Worker } from 'node:worker_threads';
import { closeWorker } from './worker-close.js';

export interface ReadWorker {
  /** The rows of `sql`, its parameters bound as better-sqlite3 binds them (sqlParam). */
  all<Row>(sql: string, params: readonly unknown[]): Promise<Row[]>;
  /** Ends the worker (after the reads sent before). */
  close(): Promise<void>;
}

export function readWorker(path: string): ReadWorker {
  let worker: Worker | undefined;
  let next = 0;
  const pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (error: Error) => void }>();
  const failAll = (error: Error) => {
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
    worker = undefined;
  };
  const started = () => {
    if (worker) return worker;
    const made = new Worker(new URL('./read-worker.mjs', import.meta.url), { workerData: { path } });
    // Only a read in flight keeps the process alive.
    made.unref();
    made.on('message', (message: { id: number; rows?: unknown[]; error?: string }) => {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (pending.size === 0) made.unref();
      if (message.error !== undefined) waiting.reject(new Error(message.error));
      else waiting.resolve(message.rows!);
    });
    made.on('error', failAll);
    made.on('exit', () => {
      if (worker === made) failAll(new Error('the read worker stopped'));
    });
    return (worker = made);
  };
  return {
    all<Row>(sql: string, params: readonly unknown[]) {
      const running = started();
      const id = next++;
      running.ref();
      return new Promise<Row[]>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
        running.postMessage({ id, sql, params });
      });
    },
    async close() {
      const running = worker;
      if (!running) return;
      worker = undefined;
      await closeWorker(running);
    },
  };
}
