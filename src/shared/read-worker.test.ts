// The read worker of SqliteSql.allAside (read-worker.ts, docs/database.md#raw-sql): its own
// connection reads what is committed while the serving connection goes on, binds values as the
// serving connection does, and answers a failing read, or a worker that could not start, as a rejection.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { readWorker } from './read-worker.js';
import { SqliteSql } from './sqlite-sql.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-read-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function open(name: string): { path: string; db: Database.Database } {
  const path = join(dir, name);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, at TEXT NOT NULL, flag INTEGER NOT NULL)');
  return { path, db };
}

describe('read worker', () => {
  it('answers reads from its own connection: what is committed, not what an open transaction holds', async () => {
    const { path, db } = open('reads.db');
    const worker = readWorker(path);
    const sql = new SqliteSql(() => db, undefined, undefined, worker);
    const at = new Date('2026-11-28T10:00:00.000Z');
    db.prepare('INSERT INTO t (at, flag) VALUES (?, ?)').run('2026-11-28T10:00:00.000+00:00', 1);
    // Dates and booleans are bound as on the serving connection (sqlParam).
    const query = 'SELECT COUNT(*) AS n FROM t WHERE at = ? AND flag = ?';
    expect(await sql.allAside(query, [at, true])).toEqual([{ n: 1 }]);
    expect(await sql.allAside(query, [at, true])).toEqual(await sql.all(query, [at, true]));
    db.exec('BEGIN');
    db.prepare('INSERT INTO t (at, flag) VALUES (?, ?)').run('2026-11-28T10:00:00.000+00:00', 1);
    expect(await sql.all(query, [at, true])).toEqual([{ n: 2 }]);
    expect(await sql.allAside(query, [at, true])).toEqual([{ n: 1 }]);
    db.exec('COMMIT');
    expect(await sql.allAside(query, [at, true])).toEqual([{ n: 2 }]);
    // Several in flight at once come back each to its asker.
    const counts = await Promise.all([0, 1, 2].map((flag) => sql.allAside<{ n: number }>('SELECT COUNT(*) + ? AS n FROM t', [flag])));
    expect(counts.map(([row]) => row.n)).toEqual([2, 3, 4]);
    // More texts than it keeps compiled: the oldest are dropped and compiled again when asked.
    const texts = Array.from({ length: 250 }, (_, i) => `SELECT COUNT(*) + ${i} AS n FROM t`);
    for (const text of [...texts, ...texts.slice(0, 5)]) await worker.all(text, []);
    expect(await worker.all(texts[0], [])).toEqual([{ n: 2 }]);
    await worker.close();
    db.close();
  });

  it('rejects a failing read, and every read when the worker cannot open the database', async () => {
    const { path, db } = open('failing.db');
    const worker = readWorker(path);
    await expect(worker.all('SELECT * FROM missing', [])).rejects.toThrow(/no such table/);
    // A read-only connection: a write is refused.
    await expect(worker.all('DELETE FROM t RETURNING id', [])).rejects.toThrow(/readonly/);
    expect(await worker.all('SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
    await worker.close();
    const missing = readWorker(`${path}.missing`);
    await expect(missing.all('SELECT 1', [])).rejects.toThrow();
    await missing.close();
    db.close();
  });
});
