// The worker thread of checkpointer.ts, plain JavaScript so it runs as it is under tsx, vitest
// and the compiled build alike. It opens its own connection to the database and, every
// `intervalMs`, copies what the WAL holds into the database file with a PASSIVE checkpoint, which
// never waits for, nor blocks, the serving thread's readers and writers.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.path, { fileMustExist: true });
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ error: error.message });
  }
}, workerData.intervalMs);

parentPort.on('message', (message) => {
  if (message !== 'close') return;
  clearInterval(timer);
  // The last connection to close checkpoints the rest and removes the WAL file.
  db.close();
  parentPort.close();
});
