// The worker thread of read-worker.ts, plain JavaScript so it runs as it is under tsx, vitest and
// the compiled build alike. Its own read-only connection to the database answers the reads it is
// sent, one at a time, beside the serving thread's connection.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
const statements = new Map();
const KEPT_STATEMENTS = 200;

parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  const { id, sql, params } = message;
  try {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
      // The filters' shapes make the texts: kept up to a bound, the oldest compiled going first.
      if (statements.size > KEPT_STATEMENTS) statements.delete(statements.keys().next().value);
    }
    parentPort.postMessage({ id, rows: statement.all(...params) });
  } catch (error) {
    parentPort.postMessage({ id, error: error.message });
  }
});
