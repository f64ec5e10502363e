// Bulk writes run inside Prisma's transactions or BulkSql's own, on either database: they commit
// and roll back with Prisma's writes and write values that Prisma reads back as it writes them. On
// SQLite they run on Prisma's own connection, refuse to run outside a transaction, write the column
// text Prisma writes, and BulkSql's transactions take turns with Prisma's; this also guards the
// adapter internals db.ts relies on.
import { beforeAll, describe, expect, it } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { useTestServer, onPostgres } from '../../test/helpers/server.js';

const server = useTestServer();
let projectId: string;
beforeAll(async () => {
  projectId = (await server.assay.db.project.findFirstOrThrow()).id;
});

const appColumns = ['id', 'projectId', 'name', 'createdAt', 'updatedAt'];

describe('BulkSql', () => {
  it.skipIf(onPostgres)('refuses to write outside a transaction (SQLite only: there it writes on the connection Prisma holds)', async () => {
    const { db, sql } = server.assay.services;
    await expect(sql.insertRows(db, 'App', appColumns, [[uuidv7(), projectId, 'outside', new Date(), new Date()]])).rejects.toThrow(
      'bulk SQL must run inside db.$transaction',
    );
  });

  it('writes rows that Prisma reads back as it writes them', async () => {
    const { db, sql } = server.assay.services;
    const at = new Date('2026-03-04T05:06:07.089Z');
    const ids = [uuidv7(), uuidv7()];
    const written = await db.$transaction((tx) =>
      sql.insertRows(
        tx,
        'App',
        appColumns,
        ids.map((id, i) => [id, projectId, `bulk-written-${i}`, at, at]),
      ),
    );
    expect(written).toBe(2);
    const viaPrisma = await db.app.create({ data: { projectId, name: 'prisma-written' } });
    const bulk = await db.app.findUniqueOrThrow({ where: { id: ids[1] } });
    expect(bulk).toEqual({ id: ids[1], projectId, name: 'bulk-written-1', createdAt: at, updatedAt: at });
    if (!onPostgres) {
      // The same column text as Prisma's own writes, so both sort and compare alike in SQL.
      const texts = await db.$queryRaw<{ text: string }[]>`SELECT "createdAt" || '' AS "text" FROM "App" WHERE "id" IN (${ids[0]}, ${viaPrisma.id})`;
      expect(texts).toHaveLength(2);
      for (const { text } of texts) expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
    }
  });

  it('updates rows by key, each its own values, that Prisma reads back as it writes them', async () => {
    const { db, sql } = server.assay.services;
    const before = new Date('2026-01-01T00:00:00.000Z');
    const ids = [uuidv7(), uuidv7(), uuidv7()];
    await db.app.createMany({ data: ids.map((id, i) => ({ id, projectId, name: `to-update-${i}`, createdAt: before, updatedAt: before })) });
    const at = [new Date('2026-03-04T05:06:07.089Z'), new Date('2026-03-04T05:06:08.001Z')];
    const changed = await db.$transaction((tx) =>
      sql.updateRows(
        tx,
        'App',
        'id',
        ['name', 'updatedAt'],
        [
          [ids[0], 'updated-0', at[0]],
          [ids[1], 'updated-1', at[1]],
          [uuidv7(), 'no such row', at[1]],
        ],
      ),
    );
    expect(changed).toBe(2);
    const rows = await db.app.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' } });
    expect(rows.map(({ name, createdAt, updatedAt }) => ({ name, createdAt, updatedAt }))).toEqual([
      { name: 'updated-0', createdAt: before, updatedAt: at[0] },
      { name: 'updated-1', createdAt: before, updatedAt: at[1] },
      { name: 'to-update-2', createdAt: before, updatedAt: before },
    ]);
  });

  it('commits and rolls back with the Prisma transaction it runs in', async () => {
    const { db, sql } = server.assay.services;
    const bulkId = uuidv7();
    await expect(
      db.$transaction(async (tx) => {
        await tx.app.create({ data: { projectId, name: 'rolled-back-prisma' } });
        await sql.insertRows(tx, 'App', appColumns, [[bulkId, projectId, 'rolled-back-bulk', new Date(), new Date()]]);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await db.app.count({ where: { name: { startsWith: 'rolled-back' } } })).toBe(0);
  });

  it.skipIf(onPostgres)("runs its own transactions in turn with Prisma's on the one connection (SQLite only)", async () => {
    const { db, sql } = server.assay.services;
    const order: string[] = [];
    let prismaBegun!: () => void;
    const begun = new Promise<void>((resolve) => (prismaBegun = resolve));
    let letPrismaEnd!: () => void;
    const prismaMayEnd = new Promise<void>((resolve) => (letPrismaEnd = resolve));
    // Prisma's transaction holds the connection across an await; the raw one asked meanwhile
    // must not BEGIN inside it (SQLite would refuse a nested BEGIN) but wait for its COMMIT.
    const prisma = db.$transaction(async (tx) => {
      await tx.app.create({ data: { projectId, name: 'turns-prisma' } });
      prismaBegun();
      await prismaMayEnd;
      order.push('prisma');
    });
    await begun;
    const raw = sql.transaction(async (tx) => {
      order.push('raw');
      await sql.insertRows(tx, 'App', appColumns, [[uuidv7(), projectId, 'turns-raw', new Date(), new Date()]]);
    });
    // …and Prisma's next one waits for the raw one.
    const prismaAfter = db.$transaction(async (tx) => {
      order.push('prisma after');
      await tx.app.create({ data: { projectId, name: 'turns-prisma-after' } });
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(order).toEqual([]);
    letPrismaEnd();
    await Promise.all([prisma, raw, prismaAfter]);
    expect(order).toEqual(['prisma', 'raw', 'prisma after']);
    expect(await db.app.count({ where: { name: { startsWith: 'turns-' } } })).toBe(3);
  });

  it('rolls back its own transaction when the work throws, and the connection serves the next', async () => {
    const { db, sql } = server.assay.services;
    await expect(
      sql.transaction(async (tx) => {
        await sql.insertRows(tx, 'App', appColumns, [[uuidv7(), projectId, 'own-rolled-back', new Date(), new Date()]]);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await db.app.count({ where: { name: 'own-rolled-back' } })).toBe(0);
    await sql.transaction((tx) => sql.insertRows(tx, 'App', appColumns, [[uuidv7(), projectId, 'own-committed', new Date(), new Date()]]));
    expect(await db.app.count({ where: { name: 'own-committed' } })).toBe(1);
  });

  it('refuses a column the table lacks, writing nothing', async () => {
    const { db, sql } = server.assay.services;
    await expect(
      db.$transaction((tx) => sql.insertRows(tx, 'App', [...appColumns, 'color'], [[uuidv7(), projectId, 'colored', new Date(), new Date(), 'red']])),
    ).rejects.toThrow(/color/);
    expect(await db.app.count({ where: { name: 'colored' } })).toBe(0);
  });
});
