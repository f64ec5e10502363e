// bench/trace-read: GET /observability/traces/{id} for traces of 1,000 and 10,000 spans, against
// the service in its own process as `npm start` runs it. The traces are built through the
// service's own ingest (OTLP/HTTP protobuf, 1,000 spans a request, children before parents), then
// each is read READS times over HTTP (the client takes the whole body, unparsed).
// Baseline, measured in the same run on the same database (the SQLite file opened read-only, or
// the PostgreSQL database through its own node-postgres connection when TEST_DATABASE_URL is set):
// a select of the same rows and columns, JSON.parse of the four JSON columns (SQLite; node-postgres
// parses jsonb itself), the rows nested into a tree by parent (children in the select's start
// order) and JSON.stringify of the root. It does not rename fields into the contract's shape nor
// convert dates: that, HTTP, routing and logging are what the ratio charges the service for. A
// second, minimal baseline: the same select (times as text) and JSON.stringify of the flat row
// list, the JSON columns left as text: the floor of "select + stringify".
// Run: npx tsx bench/trace-read.ts [reads]   (BENCH_SERVICE_NODE_ARGS passes Node flags to the service)
import Database from 'better-sqlite3';
import pg from 'pg';
import { sqlitePath } from '../src/shared/db.js';
import { numberedPlaceholders } from '../src/shared/sql.js';
import { agentTrace, chunks, endOrder, hexId, otlpProtobufBody, postOtlpBodies, type AgentTraceShape } from '../test/helpers/otlp-trace.js';
import { onPostgres, percentile, startService, timed } from './support/measure.js';

const READS = Number(process.argv[2] ?? 50);
const WARMUP = 5;
const sizes: { spans: number; shape: AgentTraceShape }[] = [
  { spans: 1_000, shape: { agents: 10, steps: 4, calls: 20, tools: 4 } }, // 1,011 cut to 1,000
  { spans: 10_000, shape: { agents: 20, steps: 19, calls: 20, tools: 6 } }, // 10,281 cut to 10,000
];

const service = await startService({ OTLP_GRPC_PORT: '0' });

type Row = Record<string, unknown> & { spanId: string; parentSpanId: string | null; children: Row[] };

/** Reads of the service's database beside it: `?` placeholders on both; `bigints`: integers as BigInt on SQLite. */
interface RawReader {
  all(sql: string, params: unknown[], bigints?: boolean): Promise<Row[]>;
  close(): Promise<void>;
}

async function rawReader(): Promise<RawReader> {
  if (onPostgres) {
    const client = new pg.Client({ connectionString: service.databaseUrl });
    await client.connect();
    return {
      all: async (sql, params) => (await client.query(numberedPlaceholders(sql), params)).rows as Row[],
      close: () => client.end(),
    };
  }
  const db = new Database(sqlitePath(service.databaseUrl), { readonly: true, fileMustExist: true });
  const statements = new Map<string, Database.Statement>();
  return {
    all: (sql, params, bigints = false) => {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      return Promise.resolve(statement.safeIntegers(bigints).all(...params) as Row[]);
    },
    close: () => {
      db.close();
      return Promise.resolve();
    },
  };
}

try {
  // Build the traces through the service's own ingest.
  const traces = sizes.map(({ spans, shape }, i) => {
    const traceId = hexId(0xbe4c0000 + i + 1, 16);
    return { spans, traceId, body: endOrder(agentTrace(traceId, shape, spans)) };
  });
  for (const trace of traces) {
    const statuses = await postOtlpBodies(
      `${service.baseUrl}/v1/traces`,
      chunks(trace.body, 1_000).map((batch) => otlpProtobufBody(batch, 'bench')),
      2,
    );
    if (statuses.some((status) => status !== 200)) throw new Error(`ingest answered ${statuses.join(',')}`);
  }

  const db = await rawReader();
  const select = `SELECT "projectId", "traceId", "spanId", "parentSpanId", "name", "spanKind", "statusCode", "startTimeUnixNano",
    "startTime", "endTime", "latency", "inputs", "outputs", "internals", "config", "environment", "userId", "variantId", "variantName",
    "variantRevision", "promptTokens", "completionTokens", "totalTokens", "cost"
    FROM "Span" WHERE "projectId" = ? AND "traceId" = ? ORDER BY "startTimeUnixNano", "spanId"`;
  const text = (column: string) => `CAST("${column}" AS TEXT) AS "${column}"`;
  const selectFlat = `SELECT "projectId", "traceId", "spanId", "parentSpanId", "name", "spanKind", "statusCode",
    ${text('startTimeUnixNano')}, "startTime", "endTime", "latency", ${['inputs', 'outputs', 'internals', 'config'].map(text).join(', ')},
    "environment", "userId", "variantId", "variantName", "variantRevision", "promptTokens", "completionTokens", "totalTokens", "cost"
    FROM "Span" WHERE "projectId" = ? AND "traceId" = ? ORDER BY "startTimeUnixNano", "spanId"`;
  const minimalRead = async (projectId: string, traceId: string): Promise<string> => JSON.stringify(await db.all(selectFlat, [projectId, traceId]));
  const projectOf = async (traceId: string) => (await db.all(`SELECT "projectId" FROM "Trace" WHERE "traceId" = ?`, [traceId]))[0].projectId as string;

  const baselineRead = async (projectId: string, traceId: string): Promise<string> => {
    // Nanosecond times exceed 2^53, as the service reads them (node-postgres gives int8 as text).
    const rows = await db.all(select, [projectId, traceId], true);
    const byId = new Map<string, Row>();
    for (const row of rows) {
      for (const column of ['inputs', 'outputs', 'internals', 'config']) {
        if (typeof row[column] === 'string') row[column] = JSON.parse(row[column]);
      }
      for (const column of ['startTimeUnixNano', 'variantRevision', 'promptTokens', 'completionTokens', 'totalTokens']) {
        if (typeof row[column] === 'bigint') row[column] = column === 'startTimeUnixNano' ? String(row[column]) : Number(row[column]);
      }
      row.children = [];
      byId.set(row.spanId, row);
    }
    let root: Row | undefined;
    for (const row of rows) {
      const parent = row.parentSpanId === null ? undefined : byId.get(row.parentSpanId);
      if (parent && parent !== row) parent.children.push(row);
      else root ??= row;
    }
    return JSON.stringify(root);
  };

  const results: string[] = [];
  for (const trace of traces) {
    const url = `${service.baseUrl}/observability/traces/${trace.traceId}`;
    const read = async () => {
      const response = await fetch(url);
      const body = await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`GET answered ${response.status}`);
      return body.byteLength;
    };
    // Checks, outside the timings: both sides see every span.
    const answer = JSON.parse(Buffer.from(await (await fetch(url)).arrayBuffer()).toString('utf8')) as { children: unknown[] };
    let count = 0;
    for (const stack = [answer]; stack.length > 0; count++) stack.push(...(stack.pop() as { children: { children: unknown[] }[] }).children);
    const projectId = await projectOf(trace.traceId);
    const baselineText = await baselineRead(projectId, trace.traceId);
    if (count !== trace.spans || (await db.all(select, [projectId, trace.traceId])).length !== trace.spans) throw new Error(`the tree has ${count} spans`);

    const bytes = await read();
    await timed(WARMUP, read);
    const served = await timed(READS, read);
    await timed(WARMUP, () => baselineRead(projectId, trace.traceId));
    const baseline = await timed(READS, () => baselineRead(projectId, trace.traceId));
    await timed(WARMUP, () => minimalRead(projectId, trace.traceId));
    const minimal = await timed(READS, () => minimalRead(projectId, trace.traceId));

    const [p50, p99, b50, b99, m50, m99] = [served, baseline, minimal].flatMap<number>((times) => [percentile(times, 0.5), percentile(times, 0.99)]);
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    results.push(
      `  ${trace.spans} spans (${(bytes / 1e6).toFixed(1)} MB): service p50 ${ms(p50)}, p99 ${ms(p99)}\n` +
        `    baseline (select, parse JSON columns, nest, stringify; ${(baselineText.length / 1e6).toFixed(1)} MB): p50 ${ms(b50)}, p99 ${ms(b99)}; ` +
        `ratio p50 ${(p50 / b50).toFixed(2)}, p99 ${(p99 / b99).toFixed(2)}\n` +
        `    minimal baseline (select, stringify the flat rows; ${((await minimalRead(projectId, trace.traceId)).length / 1e6).toFixed(1)} MB): p50 ${ms(m50)}, p99 ${ms(m99)}; ` +
        `ratio p50 ${(p50 / m50).toFixed(2)}, p99 ${(p99 / m99).toFixed(2)}`,
    );
  }
  await db.close();
  console.log(
    `bench/trace-read on ${onPostgres ? 'PostgreSQL' : 'SQLite'}: GET /observability/traces/{id}, ${READS} reads per size after ${WARMUP} warm-up reads, one at a time`,
  );
  for (const line of results) console.log(line);
  console.log(`  service peak RSS: ${service.peakRssMb().toFixed(0)} MB`);
} finally {
  await service.stop();
}
