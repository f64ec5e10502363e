// Group commit: fsyncs shared by the callers that wait at once, never one begun before a caller's
// commit; and the service answers a write only after an fsync, a read without one.
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestServer, onPostgres, sqliteOnly } from '../../test/helpers/server.js';
import { WalSync } from './wal-sync.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-wal-sync-'));
const server = useTestServer();
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The files this process holds open (Linux). */
function openFiles(): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return [];
    }
  });
}

/** A SQLite file in WAL mode with a table to write. */
function walDatabase(name: string): Database.Database {
  const db = new Database(join(dir, name));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (x)');
  return db;
}

describe('WalSync', () => {
  it('has nothing to sync before the database has a WAL', async () => {
    const db = new Database(join(dir, 'none.db'));
    const sync = new WalSync(join(dir, 'none.db'), () => db);
    await sync.sync();
    expect(sync.completed).toBe(0);
    await sync.close();
    db.close();
  });

  it('serves the callers that come during an fsync with one following fsync', async () => {
    const db = walDatabase('during.db');
    db.prepare('INSERT INTO t VALUES (0)').run();
    const sync = new WalSync(join(dir, 'during.db'), () => db);

    const first = sync.sync();
    // Nothing committed since it began: covered by the fsync under way.
    const covered = sync.sync();
    // Committed after it began: these need the next fsync, and share it.
    db.prepare('INSERT INTO t VALUES (1)').run();
    const during = Array.from({ length: 50 }, () => sync.sync());
    await first;
    await covered;
    expect(sync.completed).toBe(1);
    await Promise.all(during);
    expect(sync.completed).toBe(2);

    // Nothing under way and nothing new: nothing to wait for; a new commit starts its own fsync.
    await sync.sync();
    expect(sync.completed).toBe(2);
    db.prepare('INSERT INTO t VALUES (2)').run();
    await sync.sync();
    expect(sync.completed).toBe(3);
    await sync.close();
    db.close();
  });

  it('follows the WAL when SQLite deletes it and makes a new one', async () => {
    const path = join(dir, 'renewed.db');
    let db = walDatabase('renewed.db');
    const sync = new WalSync(path, () => db);
    db.prepare('INSERT INTO t VALUES (0)').run();
    await sync.sync();
    expect(openFiles()).toContain(`${path}-wal`);
    // The last connection's close checkpoints and deletes the WAL; the next write makes another.
    db.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    db = new Database(path);
    db.prepare('INSERT INTO t VALUES (1)').run();
    await sync.sync();
    expect(sync.completed).toBe(2);
    const files = openFiles();
    expect(files).toContain(`${path}-wal`);
    expect(files).not.toContain(`${path}-wal (deleted)`);
    await sync.close();
    db.close();
  });

  it('never lets a commit ride on an fsync begun while its transaction was open', async () => {
    const db = walDatabase('open.db');
    const sync = new WalSync(join(dir, 'open.db'), () => db);
    db.prepare('INSERT INTO t VALUES (0)').run();
    db.exec('BEGIN');
    db.prepare('INSERT INTO t VALUES (1)').run();
    const begunInTransaction = sync.sync();
    db.exec('COMMIT');
    // total_changes() counted the row before its COMMIT: the count alone would call it covered.
    const afterCommit = sync.sync();
    await begunInTransaction;
    expect(sync.completed).toBe(1);
    await afterCommit;
    expect(sync.completed).toBe(2);
    await sync.close();
    db.close();
  });
});

// On PostgreSQL the COMMIT itself waits for the disk (test/postgres.test.ts checks its setting).
describe.skipIf(onPostgres)(`acknowledged writes (${sqliteOnly})`, () => {
  const fsyncs = () => (server.assay.services.walSync as WalSync).completed;

  it('answers a REST write, a GraphQL request and an OTLP export after an fsync', async () => {
    let before = fsyncs();
    expect((await server.request('POST', '/apps', { app_name: 'durable' })).status).toBe(200);
    expect(fsyncs()).toBeGreaterThan(before);

    before = fsyncs();
    const created = await server.graphql('mutation { createApp(input: { appName: "durable-graphql" }) { name } }');
    expect(created.data).toEqual({ createApp: { name: 'durable-graphql' } });
    expect(fsyncs()).toBeGreaterThan(before);

    before = fsyncs();
    const span = {
      traceId: 'ab'.repeat(16),
      spanId: 'cd'.repeat(8),
      name: 'durable',
      startTimeUnixNano: '1714564800000000000',
      endTimeUnixNano: '1714564801000000000',
    };
    const exported = await server.request('POST', '/v1/traces', { resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] });
    expect(exported.status).toBe(200);
    expect(fsyncs()).toBeGreaterThan(before);
  });

  it('answers reads (also a GraphQL query over POST) and a refused write without one', async () => {
    const before = fsyncs();
    expect((await server.request('GET', '/apps')).status).toBe(200);
    expect((await server.graphql('{ __typename }')).data).toEqual({ __typename: 'Query' });
    expect((await server.request('POST', '/apps', {})).status).toBe(422);
    expect(fsyncs()).toBe(before);
  });
});
