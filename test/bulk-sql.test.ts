// Bulk writes run on Prisma's own connection inside Prisma's transactions: they commit and roll
// back with Prisma's writes, refuse to run outside a transaction, and write values that Prisma
// reads back as it writes them. This also guards the adapter internals db.ts relies on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let projectId: string;
beforeAll(async () => {
  server = await startServer();
  projectId = (await server.assay.db.project.findFirstOrThrow()).id;
});
afterAll(() => server.close());

const appColumns = ['id', 'projectId', 'name', 'createdAt', 'updatedAt'];

describe('BulkSql', () => {
  it('refuses to write outside a transaction', () => {
    expect(() => server.assay.services.sql.insertRows('App', appColumns, [[uuidv7(), projectId, 'outside', new Date(), new Date()]])).toThrow(
      'bulk SQL must run inside db.$transaction',
    );
  });

  it('writes rows that Prisma reads back as it writes them', async () => {
    const { db, sql } = server.assay.services;
    const at = new Date('2026-03-04T05:06:07.089Z');
    const id = uuidv7();
    await db.$transaction(() => {
      return Promise.resolve(expect(sql.insertRows('App', appColumns, [[id, projectId, 'bulk-written', at, at]])).toBe(1));
    });
    const viaPrisma = await db.app.create({ data: { projectId, name: 'prisma-written' } });
    const bulk = await db.app.findUniqueOrThrow({ where: { id } });
    expect(bulk).toEqual({ id, projectId, name: 'bulk-written', createdAt: at, updatedAt: at });
    // The same column text as Prisma's own writes, so both sort and compare alike in SQL.
    const texts = await db.$queryRaw<{ text: string }[]>`SELECT "createdAt" || '' AS "text" FROM "App" WHERE "id" IN (${id}, ${viaPrisma.id})`;
    expect(texts).toHaveLength(2);
    for (const { text } of texts) expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
  });

  it('commits and rolls back with the Prisma transaction it runs in', async () => {
    const { db, sql } = server.assay.services;
    const bulkId = uuidv7();
    await expect(
      db.$transaction(async (tx) => {
        await tx.app.create({ data: { projectId, name: 'rolled-back-prisma' } });
        sql.insertRows('App', appColumns, [[bulkId, projectId, 'rolled-back-bulk', new Date(), new Date()]]);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await db.app.count({ where: { name: { startsWith: 'rolled-back' } } })).toBe(0);
  });
});
