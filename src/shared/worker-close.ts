// Ending a worker thread of ours (the WAL checkpointer, the read worker), which close their
// connection on the message 'close' and then exit.
import type { Worker } from 'node:worker_threads';

/**
 * Asks `worker` to close and waits for its exit. It is referenced meanwhile: unreferenced, a
 * worker let the process end before it had closed its connection.
 */
export function closeWorker(worker: Worker): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.ref();
  worker.postMessage('close');
  return exited;
}
