import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startCheckpointer } from './checkpointer.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-checkpointer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function openWal(name: string): { path: string; db: Database.Database } {
  const path = join(dir, name);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  return { path, db };
}

/** ~2 MB (~500 pages) in one transaction: far below the serving connection's own threshold of 10,000 pages. */
function write(db: Database.Database): void {
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 500; i++) insert.run('x'.repeat(4000));
  })();
}

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('WAL checkpointer', () => {
  it('copies committed pages into the database file from its own thread, and ends the WAL when closed last', async () => {
    const { path, db } = openWal('worked.db');
    const checkpointer = startCheckpointer(path, db, { intervalMs: 20 });
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
    const before = statSync(path).size;
    write(db);
    // Only a checkpoint grows the database file; this connection's threshold is far away.
    await until(() => statSync(path).size > before + 1_000_000);
    db.close();
    await checkpointer.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reread = new Database(path, { readonly: true });
    expect(reread.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 500 });
    reread.close();
  });

  it('checkpoints once enough of the WAL waits, or once it stops growing, not on every tick', async () => {
    // ~500 pages a write. Neither trigger met: nothing is copied, however many ticks pass.
    const waiting = openWal('waiting.db');
    const idle = startCheckpointer(waiting.path, waiting.db, { intervalMs: 20, pages: 2_000, idleMs: 60_000 });
    const empty = statSync(waiting.path).size;
    write(waiting.db);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(statSync(waiting.path).size).toBe(empty);
    // The WAL past `pages` frames: copied while the idle time is still far away.
    write(waiting.db);
    write(waiting.db);
    write(waiting.db);
    write(waiting.db);
    await until(() => statSync(waiting.path).size > empty + 8_000_000);
    waiting.db.close();
    await idle.close();

    // Below `pages`, but no commit for `idleMs`: copied all the same.
    const quiet = openWal('quiet.db');
    const checkpointer = startCheckpointer(quiet.path, quiet.db, { intervalMs: 20, pages: 5_000, idleMs: 200 });
    const before = statSync(quiet.path).size;
    write(quiet.db);
    await until(() => statSync(quiet.path).size > before + 1_000_000);
    quiet.db.close();
    await checkpointer.close();
  });

  it('hands checkpoints back to SQLite and says so when its worker fails', async () => {
    const { path, db } = openWal('failing.db');
    const errors: string[] = [];
    // The worker opens the database with fileMustExist, so a wrong path makes it fail at once.
    startCheckpointer(`${path}.missing`, db, { onError: (message) => errors.push(message) });
    await until(() => errors.length > 0);
    expect(errors[0]).toMatch(/WAL checkpoint worker failed/);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    db.close();
  });
});
