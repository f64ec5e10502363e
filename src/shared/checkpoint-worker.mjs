// The worker thread of checkpointer.ts, plain JavaScript so it runs as it is under tsx, vitest
// and the compiled build alike. It opens its own connection to the database and copies what the
// WAL holds into the database file with PASSIVE checkpoints, which never wait for, nor block, the
// serving thread's readers and writers. Every `intervalMs` it reads the WAL's length, and
// checkpoints once it reaches `pages` frames (and then at every look until the WAL has been copied
// whole, so that the next commit starts it again from the beginning), or once the WAL stopped
// growing for `idleMs`: a page that several commits rewrote (an index leaf) is copied once rather
// than once per commit, and the WAL that readers search stays about `pages` long
// (docs/durability.md#checkpoints).
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.path, { fileMustExist: true });

// The WAL-index header at the start of the -shm file (https://sqlite.org/walformat.html): the
// header's version, then `mxFrame` (the WAL's last valid frame) at byte 16, and in the checkpoint
// information after the header's two copies, `nBackfill` (frames copied so far) at byte 96; native
// byte order. Read without SQLite's locks: a torn read only moves one checkpoint by one interval.
const WAL_INDEX_VERSION = 3007000;
const header = Buffer.alloc(100);
let shm = null;

/** WAL frames not yet in the database file, and the WAL's length; null when the header cannot be read. */
function walFrames() {
  try {
    shm ??= openSync(`${workerData.path}-shm`, 'r');
    if (readSync(shm, header, 0, header.length, 0) < header.length) return null;
  } catch {
    return null;
  }
  const version = header.readUInt32LE(0);
  if (version !== WAL_INDEX_VERSION) return null;
  const last = header.readUInt32LE(16);
  return { pending: last - header.readUInt32LE(96), last };
}

let lastSeen = -1;
let grewAt = 0;
const timer = setInterval(() => {
  const frames = walFrames();
  // Unreadable (no -shm yet, another byte order): checkpoint by the clock alone, as before.
  if (frames) {
    const now = Date.now();
    if (frames.last !== lastSeen) grewAt = now;
    lastSeen = frames.last;
    if (frames.pending <= 0 || (frames.last < workerData.pages && now - grewAt < workerData.idleMs)) return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ error: error.message });
  }
}, workerData.intervalMs);

parentPort.on('message', (message) => {
  if (message !== 'close') return;
  clearInterval(timer);
  if (shm !== null) closeSync(shm);
  // The last connection to close checkpoints the rest and removes the WAL file.
  db.close();
  parentPort.close();
});
