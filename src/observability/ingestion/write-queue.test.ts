// The span write queue (write-queue.ts) and its backpressure: batches, writers, a failing
// request alone, and a full queue answering 503 + Retry-After, which the real exporters retry
// until stored.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';
import { testTracer } from '../../../test/helpers/otel.js';
import { requestContext } from '../../shared/context.js';
import { ExportTraceServiceRequest } from './otlp/messages.js';
import type { SpanRecord } from './span-record.js';
import { SpanWriteQueue } from './write-queue.js';

const server = useTestServer();

describe('write queue', () => {
  const record = (trace: string, span: number): SpanRecord => ({
    traceId: trace,
    spanId: `s${span}`,
    parentSpanId: null,
    name: 'q',
    spanKind: 'UNKNOWN',
    statusCode: 'UNSET',
    startTimeUnixNano: 1n,
    endTimeUnixNano: 2n,
    attributes: {},
  });

  it('batches waiting requests into one write, refuses when full, answers each after its commit', async () => {
    const writes: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const queue = new SpanWriteQueue({ maxQueuedSpans: 5, maxBatchSpans: 100, retryAfterSeconds: 2 }, async (_ctx, records) => {
      await gate;
      writes.push(records.length);
      return { spans: records.length, traceIds: [] };
    });
    const ctx = requestContext(server.assay.services, 'p');
    const first = queue.submit(ctx, [record('a', 1), record('a', 2), record('a', 3)]); // taken at once by the writer
    const second = queue.submit(ctx, [record('b', 1), record('b', 2), record('b', 2)]); // waits
    const third = queue.submit(ctx, [record('c', 1)]); // waits: 4 queued
    const refused = queue.submit(ctx, [record('d', 1), record('d', 2)]); // 6 > 5
    await expect(refused).rejects.toMatchObject({ status: 503, retryAfterSeconds: 2 });
    let settled = false;
    void first.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false); // nothing answered before its write finished
    release();
    expect(await first).toEqual({ spans: 3, traceIds: [] });
    expect(await second).toEqual({ spans: 2, traceIds: ['b'] }); // the duplicate counted once
    expect(await third).toEqual({ spans: 1, traceIds: ['c'] });
    expect(writes).toEqual([3, 4]); // the two waiting requests went in one transaction
    await queue.close();
    await expect(queue.submit(ctx, [record('e', 1)])).rejects.toMatchObject({ status: 503 });
  });

  it('writes as many batches at once as it has writers (PostgreSQL two), each request answered after its own write', async () => {
    const releases: (() => void)[] = [];
    let writing = 0;
    let most = 0;
    const queue = new SpanWriteQueue({ writers: 2 }, async (_ctx, records) => {
      most = Math.max(most, ++writing);
      await new Promise<void>((resolve) => releases.push(resolve));
      writing--;
      return { spans: records.length, traceIds: [] };
    });
    const ctx = requestContext(server.assay.services, 'p');
    const answered: string[] = [];
    const submit = (trace: string) => queue.submit(ctx, [record(trace, 1)]).then(() => answered.push(trace));
    const all = [submit('a'), submit('b'), submit('c')];
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(most).toBe(2); // a and b written at once; c waits for a writer
    expect(releases).toHaveLength(2);
    releases[1]();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toEqual(['b']); // b's commit answers b alone
    expect(releases).toHaveLength(3); // and its writer took c
    releases[0]();
    releases[2]();
    await Promise.all(all);
    expect(answered.sort()).toEqual(['a', 'b', 'c']);
    await queue.close();
  });

  it('fails only the request whose spans cannot be written when a combined batch fails', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const queue = new SpanWriteQueue({}, async (_ctx, records) => {
      await gate;
      if (records.some((r) => r.traceId === 'bad')) throw new Error('constraint');
      return { spans: records.length, traceIds: [] };
    });
    const ctx = requestContext(server.assay.services, 'p');
    const head = queue.submit(ctx, [record('x', 1)]);
    const good = queue.submit(ctx, [record('ok', 1)]);
    const bad = queue.submit(ctx, [record('bad', 1)]);
    release();
    await head;
    await expect(good).resolves.toMatchObject({ spans: 1 });
    await expect(bad).rejects.toThrow('constraint');
  });

  it('answers 503 with Retry-After over HTTP when full, and the real exporter retries until all is stored', async () => {
    const queue = server.assay.services.spanQueue;
    queue.limits = { ...queue.limits, maxQueuedSpans: 1 };
    try {
      const body = (i: number) =>
        Buffer.from(
          ExportTraceServiceRequest.encode(
            ExportTraceServiceRequest.fromObject({
              resourceSpans: [
                {
                  scopeSpans: [
                    {
                      spans: Array.from({ length: 200 }, (_, j) => ({
                        traceId: Buffer.from((i + 1).toString(16).padStart(32, 'a'), 'hex'),
                        spanId: Buffer.from((j + 1).toString(16).padStart(16, '0'), 'hex'),
                        name: 'load',
                        startTimeUnixNano: '1714564800000000000',
                        endTimeUnixNano: '1714564800000000001',
                      })),
                    },
                  ],
                },
              ],
            }),
          ).finish(),
        );
      // Writes held: the first request waits in the queue, the next find it full.
      queue.pause();
      const send = (i: number) =>
        fetch(`${server.baseUrl}/v1/traces`, { method: 'POST', body: body(i), headers: { 'content-type': 'application/x-protobuf' } });
      const waiting = send(0);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const refused = await send(1);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      let answered = false;
      void waiting.then(() => (answered = true));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(answered).toBe(false); // no answer before the spans are committed
      queue.resume();
      expect((await waiting).status).toBe(200);
      expect(await server.assay.db.span.count({ where: { traceId: (1).toString(16).padStart(32, 'a') } })).toBe(200);
      expect(await server.assay.db.span.count({ where: { traceId: (2).toString(16).padStart(32, 'a') } })).toBe(0);

      // The SDK exporter retries 503s (honouring Retry-After) until every span is stored.
      queue.pause();
      setTimeout(() => queue.resume(), 1500);
      const otel = testTracer('proto', `${server.baseUrl}/v1/traces`);
      const flushes = Array.from({ length: 4 }, () => {
        for (let i = 0; i < 100; i++) otel.tracer.startSpan('retried').end();
        return otel.flush();
      });
      await Promise.all(flushes);
      await otel.shutdown();
      const total = await server.assay.db.span.count({ where: { name: 'retried' } });
      expect(total).toBe(400);
    } finally {
      queue.resume();
      queue.limits = { ...queue.limits, maxQueuedSpans: 100_000 };
    }
  }, 30_000);
});
