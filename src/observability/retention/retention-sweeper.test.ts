// Retention (docs/observability.md#retention) on the run's database: a sweep deletes the traces
// past their project's retention, a bounded batch at a time, and nothing else; ingestion goes on
// during a sweep. On PostgreSQL also the day partitions of "Span" (docs/database.md#span-partitions):
// made ahead and on demand, dropped once every project with spans in them is past them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, startServer, type TestServer } from '../../../test/helpers/server.js';
import { requestContext } from '../../shared/context.js';
import { NotFoundError } from '../../shared/errors.js';
import type { SpanRecord } from '../ingestion/span-record.js';
import { dayOf, dayPartition } from '../ingestion/span-partitions.js';
import type { SpanLogRow } from '../ingestion/log-join.js';
import { writeLogRecords } from '../ingestion/log-writer.js';
import { writeSpans } from '../ingestion/span-writer.js';
import { getTrace, listTraceSpans } from '../traces/trace-reads.js';
import { RetentionSweeper } from './retention-sweeper.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.now();

/** A span of `traceId` from `start` to `end` (ms since the epoch). */
function span(traceId: string, spanId: string, start: number, end = start + 1000, parentSpanId: string | null = null): SpanRecord {
  return {
    traceId,
    spanId,
    parentSpanId,
    name: spanId,
    spanKind: 'CHAIN',
    statusCode: 'OK',
    startTimeUnixNano: BigInt(start) * 1_000_000n,
    endTimeUnixNano: BigInt(end) * 1_000_000n,
    attributes: {},
  };
}

/** A project (as `POST /projects` makes it) keeping its traces `retentionDays` (REST and GraphQL set it: src/auth/project-settings.test.ts). */
async function newProject(server: TestServer, name: string, retentionDays: number | null = null): Promise<string> {
  const created = await server.request('POST', '/projects', { name });
  expect(created.status, created.text).toBe(200);
  await setRetention(server, created.body.id, retentionDays);
  return created.body.id as string;
}

function setRetention(server: TestServer, id: string, retentionDays: number | null) {
  return server.assay.db.project.update({ where: { id }, data: { retentionDays } });
}

function write(server: TestServer, projectId: string, spans: SpanRecord[]) {
  return writeSpans(requestContext(server.assay.services, projectId), spans);
}

/** The project's traces (ids, sorted) and its number of spans. */
async function stored(server: TestServer, projectId: string) {
  const { db } = server.assay;
  const traces = await db.trace.findMany({ where: { projectId }, select: { traceId: true }, orderBy: { traceId: 'asc' } });
  return { traces: traces.map((trace) => trace.traceId), spans: await db.span.count({ where: { projectId } }) };
}

function sweeper(server: TestServer, settings: { defaultDays?: number | null; batchSize?: number } = {}) {
  return new RetentionSweeper(server.assay.services, { defaultDays: null, batchSize: 500, partitionsAhead: 3, ...settings }, server.assay.server.log);
}

/** The partitions of "Span" (PostgreSQL). */
async function partitions(server: TestServer): Promise<string[]> {
  const rows = await server.assay.db.$queryRawUnsafe<{ name: string }[]>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '"Span"'::regclass ORDER BY 1`,
  );
  return rows.map((row) => row.name);
}

describe('retention', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it("deletes the traces whose latest span ended before the project's retention, in bounded batches; the rest stays", async () => {
    const weekly = await newProject(server, 'weekly', 7);
    const forever = await newProject(server, 'forever');
    const monthly = await newProject(server, 'monthly', 30);
    const old = NOW - 10 * DAY;
    await write(server, weekly, [
      ...['o1', 'o2', 'o3', 'o4', 'o5'].flatMap((t, i) => [span(t, 'root', old + i, old + 5000), span(t, 'child', old + 100, old + 200, 'root')]),
      span('new', 'root', NOW - 60_000),
      // Started ten days ago, still receiving spans: its latest activity is recent.
      span('running', 'root', old, old + 1000),
      span('running', 'late', NOW - 60_000, NOW - 59_000, 'root'),
    ]);
    // On the same days, so on PostgreSQL the old partition stays and rows are what goes.
    await write(server, forever, [span('kept', 'root', old)]);
    await write(server, monthly, [span('kept', 'root', old)]);

    const result = await sweeper(server, { batchSize: 2 }).sweep(new Date(NOW));
    expect(result.traces).toBe(5);
    // Five traces, two a batch: at least three transactions.
    expect(result.batches).toBeGreaterThanOrEqual(3);
    expect(result.partitionsDropped).toEqual([]);
    expect(await stored(server, weekly)).toEqual({ traces: ['new', 'running'], spans: 3 });
    expect(await stored(server, forever)).toEqual({ traces: ['kept'], spans: 1 });
    expect(await stored(server, monthly)).toEqual({ traces: ['kept'], spans: 1 });
    // An evaluation or a link holding one of those ids reads it as deleted: 404.
    await expect(getTrace(requestContext(server.assay.services, weekly), 'o1')).rejects.toThrow(NotFoundError);

    // A second sweep finds nothing more.
    expect((await sweeper(server, { batchSize: 2 }).sweep(new Date(NOW))).traces).toBe(0);

    // ASSAY_RETENTION_DAYS applies to projects without their own setting, not to the others.
    const byDefault = await sweeper(server, { defaultDays: 5 }).sweep(new Date(NOW));
    expect(byDefault.traces).toBeGreaterThanOrEqual(1);
    expect(await stored(server, forever)).toEqual({ traces: [], spans: 0 });
    expect(await stored(server, monthly)).toEqual({ traces: ['kept'], spans: 1 });
  });

  it('lets spans be written while it sweeps', async () => {
    const busy = await newProject(server, 'busy', 1);
    const old = NOW - 3 * DAY;
    await write(
      server,
      busy,
      Array.from({ length: 40 }, (_, i) => span(`old-${i}`, 'root', old + i)),
    );
    const sweep = sweeper(server, { batchSize: 3 }).sweep(new Date(NOW));
    const writes = Array.from({ length: 10 }, (_, i) => write(server, busy, [span(`fresh-${i}`, 'root', NOW - 1000 + i)]));
    const [result, ...written] = await Promise.all([sweep, ...writes]);
    expect(result.traces).toBe(40);
    expect(written.every((summary) => summary.spans === 1)).toBe(true);
    expect((await stored(server, busy)).traces).toHaveLength(10);
  });

  it.runIf(onPostgres)('stores a span whatever its day: partitions are made ahead and on demand (PostgreSQL)', async () => {
    await server.assay.retention.sweep(new Date(NOW));
    const names = await partitions(server);
    for (let day = 0; day <= 3; day++) expect(names).toContain(dayPartition(dayOf(new Date(NOW + day * DAY))).name);

    const project = await newProject(server, 'skewed');
    const past = Date.UTC(2001, 0, 2, 3, 4, 5);
    const future = Date.UTC(2040, 5, 6, 7, 8, 9);
    await write(server, project, [span('past', 'root', past), span('future', 'root', future), span('future', 'child', past, past + 1, 'root')]);
    expect(await partitions(server)).toEqual(expect.arrayContaining(['Span_p20010102', 'Span_p20400606']));
    expect(await stored(server, project)).toEqual({ traces: ['future', 'past'], spans: 3 });
    expect(await listTraceSpans(requestContext(server.assay.services, project), 'future')).toHaveLength(2);

    // Sent again with another start time, a span moves: it is stored once.
    await write(server, project, [span('future', 'child', future + 5, future + 6, 'root')]);
    expect(await stored(server, project)).toEqual({ traces: ['future', 'past'], spans: 3 });
    const summary = await server.assay.db.trace.findUnique({ where: { projectId_traceId: { projectId: project, traceId: 'future' } } });
    expect(summary?.startTime.getTime()).toBe(future);

    // Another instance's sweep dropped an old day's partition: a late span of that day makes it again.
    await server.assay.db.$executeRawUnsafe('DROP TABLE "Span_p20010102"');
    await write(server, project, [span('late', 'root', past)]);
    expect(await partitions(server)).toContain('Span_p20010102');
    expect(await stored(server, project)).toEqual({ traces: ['future', 'late', 'past'], spans: 3 });
  });

  it('deletes log records with their trace, and those whose trace never came once older than the retention', async () => {
    const project = await newProject(server, 'logs', 7);
    const ctx = requestContext(server.assay.services, project);
    const record = (traceId: string, spanId: string): SpanLogRow => ({
      traceId,
      spanId,
      recordId: `${traceId}-${spanId}`,
      timeUnixNano: BigInt(NOW) * 1_000_000n,
      observedTimeUnixNano: BigInt(NOW) * 1_000_000n,
      position: 0,
      eventName: 'gen_ai.user.message',
      severityNumber: 9,
      severityText: null,
      body: '{"content":"Hello?"}',
      attributes: '{}',
      resource: null,
      scope: null,
    });
    const [old, recent, never] = ['d1', 'd2', 'd3'].map((id) => id.repeat(16));
    await write(server, project, [span(old, 'a1', NOW - 10 * DAY), span(recent, 'b1', NOW - 1000)]);
    // Joined with an old trace's span; waiting for a span of a recent trace; of a trace that never came.
    await writeLogRecords(ctx, [record(old, 'a1'), record(recent, 'b2'), record(never, 'c1')]);
    const left = async () =>
      (await server.assay.db.spanLogRecord.findMany({ where: { projectId: project }, orderBy: { traceId: 'asc' } })).map((row) => row.traceId);

    expect(await sweeper(server).sweep(new Date(NOW))).toMatchObject({ traces: 1, logRecords: 0 });
    expect(await left()).toEqual([recent, never]);
    // Eight days on: the recent trace is past the retention with its waiting record, and so is the record of no trace.
    // (The other tests' projects are swept too: only this one's rows are looked at.)
    expect(await sweeper(server).sweep(new Date(NOW + 8 * DAY))).toMatchObject({ logRecords: 1 });
    expect(await stored(server, project)).toEqual({ traces: [], spans: 0 });
    expect(await left()).toEqual([]);
  });
});

describe.runIf(onPostgres)('span partitions past retention (PostgreSQL)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('drops a partition once every project with spans in it is past it; a project keeping its spans keeps it', async () => {
    const daily = await newProject(server, 'daily', 1);
    const keeper = await newProject(server, 'keeper');
    const fiveDaysAgo = NOW - 5 * DAY;
    const threeDaysAgo = NOW - 3 * DAY;
    await write(server, daily, [
      span('old', 'root', fiveDaysAgo),
      // Started five days ago, and its last span today: it goes whole with the partition it started in.
      span('long', 'root', fiveDaysAgo, NOW - 1000),
      span('long', 'late', NOW - 2000, NOW - 1000, 'root'),
      span('new', 'root', NOW - 1000),
    ]);
    await write(server, keeper, [span('kept', 'root', threeDaysAgo)]);
    const oldPartition = dayPartition(dayOf(new Date(fiveDaysAgo))).name;
    const keptPartition = dayPartition(dayOf(new Date(threeDaysAgo))).name;
    expect(await partitions(server)).toEqual(expect.arrayContaining([oldPartition, keptPartition]));

    const result = await sweeper(server, { batchSize: 1 }).sweep(new Date(NOW));
    expect(result.partitionsDropped).toEqual([oldPartition]);
    expect(result.traces).toBe(2);
    const names = await partitions(server);
    expect(names).not.toContain(oldPartition);
    expect(names).toContain(keptPartition);
    expect(await server.assay.db.$queryRawUnsafe(`SELECT to_regclass('"${oldPartition}"')::text AS t`)).toEqual([{ t: null }]);
    expect(await stored(server, daily)).toEqual({ traces: ['new'], spans: 1 });
    expect(await stored(server, keeper)).toEqual({ traces: ['kept'], spans: 1 });

    // Once the keeper keeps a day only, its partition goes too.
    await setRetention(server, keeper, 1);
    const again = await sweeper(server).sweep(new Date(NOW));
    expect(again.partitionsDropped).toContain(keptPartition);
    expect(await stored(server, keeper)).toEqual({ traces: [], spans: 0 });
    expect(await stored(server, daily)).toEqual({ traces: ['new'], spans: 1 });
  });
});
