// bench/search: the trace list over 1,000,000 spans and 200,000 scores. A database (a SQLite file,
// or a PostgreSQL database on TEST_DATABASE_URL's server) is filled with 100,000 traces of 1 to 19
// spans (10 on average) spread over 30 days, in three projects: half the traces go through the service's own
// ingest (OTLP/protobuf over HTTP into the default project, so the rows and the Trace roll-ups are
// what ingestion stores), and the other half are those rows again under two other projects,
// copied by SQL. Names, models, users, environments, statuses, latencies and costs vary as an
// LLM application's do. Then 200,000 scores (twice the traces; `--scores=N`) by SQL, as the Score
// rows the service writes: quality and hallucination (numbers), thumbs (booleans), topic
// (categories), on traces and some on their spans, and 1% on traces that never arrive (feedback
// sent before its trace). The filled database is kept (data/bench-search.db, or the database
// assay_bench_search) and reused by the next run; `--refill` fills it again, and a kept database
// of another size (`--traces=N`) is filled again too.
// Then, against the service as `npm start` runs it, each query below is asked ITERATIONS times:
//   - list: `GET /observability/traces` (first page of 50, or the second through its cursor);
//   - ui: the trace list page's GraphQL query (web/src/observability/TraceList.tsx: the `traces` page,
//     `traceMetrics` and a 40-bucket `traceSeries` over the same filter), with what the list's
//     score columns and figures add: each row's `scoreValues`, `scoreSummary` of the score names,
//     and the chart's mean of one score;
//   - raw: the list's SQL written by hand, run on a connection of its own (better-sqlite3 or
//     node-postgres), rows to JSON: the floor the list's ratio is measured against.
// Times are relative to the newest trace, so a kept database measures the same.
// `--dist=DIR` measures another build of the service (a copy of dist/ beside it, e.g. dist-baseline/
// made before a change) against the kept database, for a before and after at the same load.
// Run: npx tsx bench/search.ts [iterations] [--refill] [--traces=N] [--scores=N] [--dist=DIR]   (on PostgreSQL: TEST_DATABASE_URL=postgresql://…)
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ExportTraceServiceRequest } from '../src/observability/ingestion/otlp/messages.js';
import { sqlitePath } from '../src/shared/db.js';
import { numberedPlaceholders, sqlDate } from '../src/shared/sql.js';
import { postgresServerUrl } from '../test/helpers/server.js';
import { onPostgres, percentile, seconds, startService, timed } from './support/measure.js';

// Dates node-postgres reads from and writes to `timestamp` columns are local time: UTC here, as stored.
process.env.TZ = 'UTC';
const args = process.argv.slice(2);
const ITERATIONS = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 30);
const REFILL = args.includes('--refill');
const option = (name: string) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
/** `--traces=N`: the size (100,000 traces, about 1,000,000 spans, by default); a kept database of another size is filled again. */
const TRACES = Number(option('traces') ?? 100_000);
/** `--scores=N`: the scores over all three projects, twice the traces by default. */
const SCORES = Number(option('scores') ?? TRACES * 2);
/** `--dist=DIR`: the build measured (filling always uses dist/). */
const DIST = option('dist');
const DAYS = 30;
const PAGE = 50;
const root = fileURLToPath(new URL('..', import.meta.url));

// ---------------------------------------------------------------------------------------------
// The data: deterministic, so every fill is the same.

// mulberry32: a small generator with no visible pattern between successive draws.
let seed = 42;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
}
const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
/** Skewed towards the first items, as users and names are in practice. */
const skewed = <T>(items: readonly T[]) => items[Math.floor(random() ** 2 * items.length)];
const verbs = ['answer', 'summarize', 'classify', 'translate', 'extract', 'retrieve', 'rerank', 'draft', 'review', 'plan', 'route', 'moderate'];
const nouns = ['question', 'ticket', 'invoice', 'contract', 'email', 'document', 'order', 'refund', 'report', 'meeting', 'query', 'lead', 'claim'];
const rootNames = verbs.flatMap((verb) => nouns.map((noun) => `${verb}_${noun}`));
const models = ['gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o', 'gpt-4o', 'claude-3-5-sonnet', 'gpt-4.1-mini', 'claude-3-5-haiku'];
const users = Array.from({ length: 5_000 }, (_, i) => `user-${i}`);
const environments = ['production', 'production', 'production', 'production', 'production', 'production', 'production', 'staging', 'staging', 'development'];
const filler = 'lorem ipsum dolor sit amet '.repeat(6);
const hex = (n: number, bytes: number) => Buffer.from(n.toString(16).padStart(bytes * 2, '0'), 'hex');
type Attribute = [string, { stringValue: string } | { intValue: number } | { doubleValue: number }];

/** The spans of trace `t` (0-based), ending before `newestMs`. */
function traceSpans(t: number, newestMs: number) {
  const count = 1 + Math.floor(random() * 19); // 10 on average
  const startMs = newestMs - random() * DAYS * 86_400_000;
  const name = skewed(rootNames);
  const user = skewed(users);
  const environment = pick(environments);
  const failing = random() < 0.04 ? 1 + Math.floor(random() * count) : -1;
  // Latencies log-normal-ish: most traces take a second or two, some a minute.
  const rootMs = Math.exp(random() * 3 + random() * 3) * 150;
  const spans = [];
  for (let i = 0; i < count; i++) {
    const isRoot = i === 0;
    const kind = isRoot ? 'AGENT' : pick(['LLM', 'LLM', 'LLM', 'TOOL', 'RETRIEVER', 'CHAIN']);
    const offset = isRoot ? 0 : random() * rootMs * 0.8;
    const duration = isRoot ? rootMs : random() * (rootMs - offset);
    const start = BigInt(Math.round((startMs + offset) * 1e3)) * 1000n;
    const end = start + BigInt(Math.round(duration * 1e6));
    const attributes: Attribute[] = [
      ['openinference.span.kind', { stringValue: kind }],
      ['input.value', { stringValue: `{"question":"${name} ${t}.${i} ${filler}"}` }],
      ['output.value', { stringValue: `answer ${t}.${i} ${filler}` }],
    ];
    if (isRoot) attributes.push(['user.id', { stringValue: user }], ['session.id', { stringValue: `session-${Math.floor(t / 7)}` }]);
    if (kind === 'LLM') {
      attributes.push(
        ['llm.model_name', { stringValue: pick(models) }],
        ['llm.token_count.prompt', { intValue: 200 + Math.floor(random() * 3_000) }],
        ['llm.token_count.completion', { intValue: 20 + Math.floor(random() * 600) }],
      );
    }
    spans.push({
      traceId: hex(t + 1, 16),
      spanId: hex(t * 32 + i + 1, 8),
      parentSpanId: isRoot ? undefined : hex(t * 32 + 1, 8),
      name: isRoot
        ? name
        : kind === 'LLM'
          ? 'ChatCompletion'
          : kind === 'TOOL'
            ? pick(['search_web', 'lookup_order', 'send_email'])
            : `${kind.toLowerCase()}_step`,
      kind: 1,
      startTimeUnixNano: start.toString(),
      endTimeUnixNano: end.toString(),
      status: i === failing ? { code: 2, message: 'upstream timeout' } : { code: 1 },
      attributes: attributes.map(([key, value]) => ({ key, value })),
      environment,
    });
  }
  return spans;
}

/** One OTLP/protobuf request of whole traces, about 1,000 spans, each trace's environment as its resource's. */
function otlpBody(first: number, last: number, newestMs: number): { body: Buffer; spans: number } {
  const byEnvironment = new Map<string, ReturnType<typeof traceSpans>>();
  for (let t = first; t < last; t++) {
    const spans = traceSpans(t, newestMs);
    const list = byEnvironment.get(spans[0].environment) ?? [];
    list.push(...spans);
    byEnvironment.set(spans[0].environment, list);
  }
  const resourceSpans = [...byEnvironment].map(([environment, spans]) => ({
    resource: {
      attributes: [
        { key: 'service.name', value: { stringValue: 'bench-search' } },
        { key: 'deployment.environment', value: { stringValue: environment } },
      ],
    },
    scopeSpans: [{ scope: { name: 'bench' }, spans: spans.map(({ environment: _, ...span }) => span) }],
  }));
  const message = ExportTraceServiceRequest.fromObject({ resourceSpans });
  return { body: Buffer.from(ExportTraceServiceRequest.encode(message).finish()), spans: resourceSpans.reduce((n, r) => n + r.scopeSpans[0].spans.length, 0) };
}

// ---------------------------------------------------------------------------------------------
// The kept database, and raw connections to it.

interface Raw {
  all<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

const sqliteFile = join(root, 'data', 'bench-search.db');
const pgName = 'assay_bench_search';
const pgUrl = () => {
  const url = new URL(postgresServerUrl!);
  url.pathname = `/${pgName}`;
  return url.href;
};
const databaseUrl = onPostgres ? pgUrl() : `file:${sqliteFile}`;
// Required on PostgreSQL; the bench stores no provider key for it to seal.
const secretKey: Record<string, string> = onPostgres ? { ASSAY_SECRET_KEY: 'be4c'.repeat(16) } : {};

async function rawConnection(url: string): Promise<Raw> {
  if (url.startsWith('postgresql:')) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return {
      all: async <Row>(sql: string, params: unknown[] = []) => (await client.query(numberedPlaceholders(sql), params)).rows as Row[],
      exec: async (sql) => void (await client.query(sql)),
      close: () => client.end(),
    };
  }
  const db = new Database(sqlitePath(url));
  const statements = new Map<string, Database.Statement>();
  return {
    all: <Row>(sql: string, params: unknown[] = []) => {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      return Promise.resolve((statement.reader ? statement.all(...params) : [statement.run(...params)]) as Row[]);
    },
    exec: (sql) => Promise.resolve(void db.exec(sql)),
    close: () => Promise.resolve(void db.close()),
  };
}

/** The filled marker: the trace count, kept beside the SQLite file or as the PostgreSQL database's comment. */
async function filled(): Promise<boolean> {
  if (!onPostgres) return existsSync(`${sqliteFile}.filled`) && existsSync(sqliteFile) && readFileSync(`${sqliteFile}.filled`, 'utf8') === String(TRACES);
  const admin = await rawConnection(postgresServerUrl!);
  try {
    const [row] = await admin.all<{ note: string | null }>(`SELECT shobj_description(oid, 'pg_database') AS note FROM pg_database WHERE datname = ?`, [pgName]);
    return row?.note === `filled ${TRACES}`;
  } finally {
    await admin.close();
  }
}

async function emptyDatabase(): Promise<void> {
  if (!onPostgres) {
    mkdirSync(join(root, 'data'), { recursive: true });
    for (const suffix of ['', '-wal', '-shm', '.filled']) rmSync(`${sqliteFile}${suffix}`, { force: true });
    return;
  }
  const admin = await rawConnection(postgresServerUrl!);
  await admin.exec(`DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`);
  await admin.exec(`CREATE DATABASE ${pgName}`);
  await admin.close();
}

async function fill(): Promise<void> {
  const started = process.hrtime.bigint();
  await emptyDatabase();
  const service = await startService({ OTLP_GRPC_PORT: '0', DATABASE_URL: databaseUrl, ...secretKey });
  const newestMs = Date.now();
  const half = TRACES / 2;
  let next = 0;
  let spans = 0;
  const perRequest = 100;
  const worker = async () => {
    while (next < half) {
      const first = next;
      next = Math.min(half, next + perRequest);
      const { body, spans: sent } = otlpBody(first, next, newestMs);
      for (;;) {
        const response = await fetch(`${service.baseUrl}/v1/traces`, {
          method: 'POST',
          body: new Uint8Array(body),
          headers: { 'content-type': 'application/x-protobuf' },
        });
        await response.arrayBuffer();
        if (response.status === 200) break;
        if (response.status !== 503) throw new Error(`ingest answered ${response.status}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      spans += sent;
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  await service.stop();
  const ingested = seconds(started);

  // The other half: the same rows under two other projects, split by trace id.
  const db = await rawConnection(databaseUrl);
  const [{ id: defaultProject }] = await db.all<{ id: string }>(`SELECT "id" FROM "Project" WHERE "name" = 'default'`);
  const columnsOf = async (table: string) =>
    (onPostgres
      ? await db.all<{ name: string }>(`SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?`, [
          table,
        ])
      : await db.all<{ name: string }>(`SELECT name FROM pragma_table_info(?)`, [table])
    ).map((row) => row.name);
  for (const [project, digits] of [
    ['bench-b', "'0', '1', '2', '3', '4', '5', '6', '7'"],
    ['bench-c', "'8', '9', 'a', 'b', 'c', 'd', 'e', 'f'"],
  ] as const) {
    await db.all(`INSERT INTO "Project" ("id", "name", "updatedAt") VALUES (?, ?, ?)`, [project, project, new Date().toISOString()]);
    for (const table of ['Span', 'Trace', 'TraceModel']) {
      const columns = await columnsOf(table);
      const list = columns.map((column) => `"${column}"`).join(', ');
      const values = columns.map((column) => (column === 'projectId' ? '?' : `"${column}"`)).join(', ');
      await db.all(`INSERT INTO "${table}" (${list}) SELECT ${values} FROM "${table}" WHERE "projectId" = ? AND substr("traceId", 32, 1) IN (${digits})`, [
        project,
        defaultProject,
      ]);
    }
  }
  // Statistics, as a database that has lived a while has them (autovacuum; SQLite's `PRAGMA optimize`).
  await db.exec(onPostgres ? 'VACUUM ANALYZE' : 'ANALYZE');
  const [{ spans: total }] = await db.all<{ spans: number }>(`SELECT COUNT(*) AS "spans" FROM "Span"`);
  await db.close();
  if (onPostgres) {
    const admin = await rawConnection(postgresServerUrl!);
    await admin.exec(`COMMENT ON DATABASE ${pgName} IS 'filled ${TRACES}'`);
    await admin.close();
  } else writeFileSync(`${sqliteFile}.filled`, String(TRACES));
  console.log(
    `  filled: ${spans} spans through OTLP ingest in ${ingested.toFixed(0)} s (${Math.round(spans / ingested)} spans/s), ${total} spans in all after the copies, ${seconds(started).toFixed(0)} s`,
  );
}

// ---------------------------------------------------------------------------------------------
// The scores: written by SQL into a kept database whenever it does not hold SCORES of them.

const topics = ['billing', 'shipping', 'returns', 'account', 'other'];

/** The scores of one trace (or of a trace that never arrives): about two, of four names. */
function traceScores(draw: () => number): { name: string; dataType: string; value: number | null; stringValue: string | null; span: boolean }[] {
  const scores = [];
  if (draw() < 0.75) scores.push({ name: 'quality', dataType: 'NUMERIC', value: Math.round(draw() * 100) / 100, stringValue: null, span: false });
  if (draw() < 0.45) {
    const up = draw() < 0.8;
    scores.push({ name: 'thumbs', dataType: 'BOOLEAN', value: up ? 1 : 0, stringValue: up ? 'True' : 'False', span: false });
  }
  if (draw() < 0.5) {
    const topic = Math.floor(draw() ** 2 * topics.length);
    scores.push({ name: 'topic', dataType: 'CATEGORICAL', value: topic, stringValue: topics[topic], span: false });
  }
  if (draw() < 0.35) scores.push({ name: 'hallucination', dataType: 'NUMERIC', value: Math.round(draw() * 1000) / 1000, stringValue: null, span: true });
  return scores;
}

async function ensureScores(db: Raw): Promise<void> {
  const [{ count }] = await db.all<{ count: number | string }>(`SELECT COUNT(*) AS "count" FROM "Score"`);
  if (Number(count) === SCORES) return;
  const started = process.hrtime.bigint();
  await db.exec(`DELETE FROM "Score"`);
  seed = 7;
  const traces = await db.all<{ projectId: string; traceId: string; rootSpanId: string; startTime: string | Date }>(
    `SELECT "projectId", "traceId", "rootSpanId", "startTime" FROM "Trace" ORDER BY "projectId", "traceId"`,
  );
  const columns = [
    'id',
    'projectId',
    'target',
    'traceId',
    'spanId',
    'name',
    'dataType',
    'value',
    'stringValue',
    'source',
    'authorType',
    'createdAt',
    'updatedAt',
  ];
  const rows: unknown[][] = [];
  for (let i = 0; rows.length < SCORES; i++) {
    const trace = traces[i % traces.length];
    // One in a hundred names a trace that never arrives.
    const traceId = random() < 0.01 ? `pending-${i}` : trace.traceId;
    const at = new Date(new Date(trace.startTime).getTime() + 60_000);
    for (const score of traceScores(random)) {
      if (rows.length === SCORES) break;
      const onSpan = score.span && traceId === trace.traceId;
      rows.push([
        `score-${rows.length}`,
        trace.projectId,
        onSpan ? 'span' : 'trace',
        traceId,
        onSpan ? trace.rootSpanId : null,
        score.name,
        score.dataType,
        score.value,
        score.stringValue,
        'api',
        'api_key',
        onPostgres ? at : sqlDate(at),
        onPostgres ? at : sqlDate(at),
      ]);
    }
  }
  // Each statement its own transaction, as the service's requests (at most 1,000 scores) are: on
  // PostgreSQL a statement's new scores hold their traces' locks until it commits (docs/scores.md#in-the-trace-list),
  // and 200,000 of them in one transaction outgrow the server's lock table.
  const perStatement = 500;
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const values = chunk.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
    await db.exec('BEGIN');
    await db.all(`INSERT INTO "Score" (${columns.map((column) => `"${column}"`).join(', ')}) VALUES ${values}`, chunk.flat());
    await db.exec('COMMIT');
  }
  await db.exec(onPostgres ? 'VACUUM ANALYZE "Score"' : 'ANALYZE');
  console.log(`  scores: ${rows.length} written by SQL in ${seconds(started).toFixed(0)} s`);
}

// ---------------------------------------------------------------------------------------------
// The queries.

interface Query {
  name: string;
  /** REST query string of `GET /observability/traces`. */
  rest: Record<string, string>;
  /** The raw SQL's WHERE (after the project and the evaluation environment) and ORDER BY, `?` params. */
  where: string;
  order: string;
  params: unknown[];
  /** GraphQL variables of the UI's query. */
  ui: Record<string, unknown>;
  /** The second page: after the cursor of the first page's last row. */
  second?: boolean;
}

function queries(newest: Date, user: string, projectId: string): Query[] {
  // As each database's DateTime text compares (SQLite's is the service's sqlDate).
  const ago = (days: number) => new Date(newest.getTime() - days * 86_400_000);
  const [day, week] = [ago(1).toISOString(), ago(7).toISOString()];
  const [sqlDay, sqlWeek] = [sqlDate(ago(1)), sqlDate(ago(7))];
  const byTime = `t."startTime" DESC, t."traceId" DESC`;
  const like = onPostgres ? 'ILIKE' : 'LIKE';
  const list: Query[] = [
    { name: 'all, newest first', rest: {}, where: '', order: byTime, params: [], ui: {} },
    { name: 'last 24 h', rest: { started_after: day }, where: 't."startTime" >= ?', order: byTime, params: [sqlDay], ui: { startedAfter: day } },
    { name: 'last 7 d', rest: { started_after: week }, where: 't."startTime" >= ?', order: byTime, params: [sqlWeek], ui: { startedAfter: week } },
    { name: 'one user', rest: { user_id: user }, where: 't."userId" = ?', order: byTime, params: [user], ui: { userId: user } },
    {
      name: 'staging, last 7 d',
      rest: { environment: 'staging', started_after: week },
      where: 't."environment" = ? AND t."startTime" >= ?',
      order: byTime,
      params: ['staging', sqlWeek],
      ui: { environment: 'staging', startedAfter: week },
    },
    { name: 'status ERROR', rest: { status: 'ERROR' }, where: `t."statusCode" = 'ERROR'`, order: byTime, params: [], ui: { status: ['ERROR'] } },
    {
      name: 'ERROR, last 24 h',
      rest: { status: 'ERROR', started_after: day },
      where: `t."statusCode" = 'ERROR' AND t."startTime" >= ?`,
      order: byTime,
      params: [sqlDay],
      ui: { status: ['ERROR'], startedAfter: day },
    },
    {
      name: 'name contains "refund"',
      rest: { name_contains: 'refund' },
      where: `t."name" ${like} ?`,
      order: byTime,
      params: ['%refund%'],
      ui: { nameContains: 'refund' },
    },
    {
      name: 'model claude-3-5-haiku',
      rest: { model: 'claude-3-5-haiku' },
      where: `t."traceId" IN (SELECT m."traceId" FROM "TraceModel" AS m WHERE m."projectId" = ? AND m."model" = ?)`,
      order: byTime,
      params: [projectId, 'claude-3-5-haiku'],
      ui: { model: 'claude-3-5-haiku' },
    },
    { name: 'latency > 30 s', rest: { min_latency: '30' }, where: 't."latency" >= ?', order: byTime, params: [30], ui: { minLatency: 30 } },
    {
      name: 'slowest first',
      rest: { sort_by: 'latency' },
      where: '',
      order: `t."latency" DESC, t."traceId" DESC`,
      params: [],
      ui: { sortBy: 'LATENCY' },
    },
    {
      name: 'costliest first, last 7 d',
      rest: { sort_by: 'cost', started_after: week },
      where: 't."startTime" >= ?',
      order: `COALESCE(t."cost", -1) DESC, t."traceId" DESC`,
      params: [sqlWeek],
      ui: { sortBy: 'COST', startedAfter: week },
    },
  ];
  // The score filters, and the raw SQL's condition as the service writes it: on the Score table, or
  // for a name's presence on the trace's names (Trace.scoreNames, docs/observability.md#roll-ups).
  const scored = (name: string, filter: Record<string, unknown>, condition = '', params: unknown[] = []): Query => ({
    name,
    rest: { scores: JSON.stringify([filter]) },
    where: `t."traceId" IN (SELECT s."traceId" FROM "Score" AS s WHERE s."projectId" = ? AND s."name" = ?${condition} AND s."traceId" IS NOT NULL)`,
    order: byTime,
    params: [projectId, filter.name, ...params],
    ui: { scores: [Object.fromEntries(Object.entries(filter).map(([key, value]) => [key === 'any_of' ? 'anyOf' : key, value]))] },
  });
  const present = (name: string, scoreName: string, yes: boolean): Query => {
    const found = `COALESCE(${onPostgres ? 'strpos' : 'instr'}(t."scoreNames", ?), 0) > 0`;
    return {
      ...scored(name, { name: scoreName, present: yes }),
      where: yes ? found : `NOT (${found})`,
      params: [`|${scoreName}|`],
    };
  };
  list.push(
    scored('score quality >= 0.9', { name: 'quality', min: 0.9 }, ` AND s."value" >= ?`, [0.9]),
    scored('score thumbs false', { name: 'thumbs', value: false }, ` AND s."value" = ? AND s."dataType" = 'BOOLEAN'`, [0]),
    scored('topic returns or account', { name: 'topic', any_of: ['returns', 'account'] }, ` AND s."stringValue" IN (?, ?) AND s."dataType" = 'CATEGORICAL'`, [
      'returns',
      'account',
    ]),
    present('has a hallucination score', 'hallucination', true),
    present('no quality score', 'quality', false),
  );
  return [...list, { ...list[0], name: 'all, page 2', second: true }, { ...list[10], name: 'slowest first, page 2', second: true }];
}

const uiQuery = `query TraceList($first: Int, $after: String, $sortBy: TraceSortField, $startedAfter: DateTime, $nameContains: String,
  $status: [SpanStatusCode!], $userId: String, $environment: String, $model: String, $minLatency: Float, $scores: [ScoreFilter!]) {
  traces(first: $first, after: $after, sortBy: $sortBy, startedAfter: $startedAfter, nameContains: $nameContains, status: $status,
    userId: $userId, environment: $environment, model: $model, minLatency: $minLatency, scores: $scores) {
    edges { node { id traceId name startTime latency spanCount errorCount cost status userId environment spanKind tokens { totalTokens }
      scoreValues(names: ["quality", "thumbs", "topic"]) { name mean value stringValue } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
  traceMetrics(startedAfter: $startedAfter, nameContains: $nameContains, status: $status, userId: $userId, environment: $environment,
    model: $model, minLatency: $minLatency, scores: $scores) {
    count errorRate cost totalTokens latency { p50 p95 p99 }
  }
  scoreSummary(names: ["quality", "thumbs", "topic"], startedAfter: $startedAfter, nameContains: $nameContains, status: $status, userId: $userId,
    environment: $environment, model: $model, minLatency: $minLatency, scores: $scores) {
    name count mean interval { low high } labels { label share }
  }
  traceSeries(buckets: 40, scoreNames: ["quality"], startedAfter: $startedAfter, nameContains: $nameContains, status: $status, userId: $userId,
    environment: $environment, model: $model, minLatency: $minLatency, scores: $scores) {
    start end count errorCount scores { name mean }
  }
}`;

// ---------------------------------------------------------------------------------------------

console.log(
  `bench/search on ${onPostgres ? 'PostgreSQL' : 'SQLite'}: ${ITERATIONS} runs of each query after 3 warm-up runs, one at a time${DIST ? `, the build in ${DIST}` : ''}`,
);
if (REFILL || !(await filled())) await fill();
else console.log(`  reusing the filled database (${onPostgres ? pgName : sqliteFile}; --refill fills it again)`);

const service = await startService({ OTLP_GRPC_PORT: '0', DATABASE_URL: databaseUrl, ...secretKey }, DIST && join(root, DIST));
const db = await rawConnection(databaseUrl);
try {
  // After the service started: it has migrated a kept database to the Score table.
  await ensureScores(db);
  const [{ id: projectId }] = await db.all<{ id: string }>(`SELECT "id" FROM "Project" WHERE "name" = 'default'`);
  const [{ newest, spans, traces }] = await db.all<{ newest: string; spans: number; traces: number }>(
    `SELECT (SELECT ${onPostgres ? `MAX("startTime")::text || 'Z'` : 'MAX("startTime")'} FROM "Trace") AS "newest", (SELECT COUNT(*) FROM "Span") AS "spans", (SELECT COUNT(*) FROM "Trace") AS "traces"`,
  );
  const newestDate = new Date(newest.replace(' ', 'T'));
  // A user with a few dozen traces: the list of one user's traces.
  const [{ userId }] = await db.all<{ userId: string }>(
    `SELECT "userId" FROM "Trace" WHERE "projectId" = ? GROUP BY "userId" ORDER BY COUNT(*) DESC LIMIT 1 OFFSET 500`,
    [projectId],
  );
  const [{ scores }] = await db.all<{ scores: number }>(`SELECT COUNT(*) AS "scores" FROM "Score" WHERE "projectId" = ?`, [projectId]);
  console.log(
    `  ${spans} spans in ${traces} traces, ${SCORES} scores, 3 projects; the queries ask the default project's (${Number(traces) / 2} traces, ${scores} scores)`,
  );

  const rows: string[] = [];
  const all = { list: [] as number[], raw: [] as number[], ui: [] as number[] };
  for (const query of queries(newestDate, userId, projectId)) {
    const restUrl = (cursor?: string) => {
      const params = new URLSearchParams({ ...query.rest, limit: String(PAGE), ...(cursor ? { cursor } : {}) });
      return `${service.baseUrl}/observability/traces?${params}`;
    };
    const firstPage = (await (await fetch(restUrl())).json()) as { traces: { trace_id: string }[]; next_cursor: string | null };
    const cursor = query.second ? firstPage.next_cursor! : undefined;
    const list = async () => {
      const response = await fetch(restUrl(cursor));
      const body = (await response.json()) as { traces: unknown[] };
      if (response.status !== 200) throw new Error(`${query.name}: ${response.status}`);
      return body.traces.length;
    };
    // The raw list: the same rows, keyset-continued on the second page from the first page's last row.
    const last = firstPage.traces.at(-1) as unknown as { trace_id: string };
    const keyRow = query.second
      ? (
          await db.all<Record<string, unknown>>(
            `SELECT t."startTime", t."latency", t."traceId" FROM "Trace" AS t WHERE t."projectId" = ? AND t."traceId" = ?`,
            [projectId, last.trace_id],
          )
        )[0]
      : undefined;
    const sortColumn = query.order.startsWith('t."latency"') ? 't."latency"' : 't."startTime"';
    const keyset = keyRow ? `(${sortColumn} < ? OR (${sortColumn} = ? AND t."traceId" < ?))` : '';
    const keyValue = keyRow ? (sortColumn === 't."latency"' ? keyRow.latency : keyRow.startTime) : undefined;
    const rawSql = `SELECT t.* FROM "Trace" AS t WHERE t."projectId" = ? AND t."environment" ${onPostgres ? 'IS DISTINCT FROM' : 'IS NOT'} 'assay-evaluation'
      ${query.where ? `AND ${query.where}` : ''} ${keyset ? `AND ${keyset}` : ''} ORDER BY ${query.order} LIMIT ${PAGE + 1}`;
    const rawParams = [projectId, ...query.params, ...(keyRow ? [keyValue, keyValue, keyRow.traceId] : [])];
    const raw = async () => JSON.stringify(await db.all(rawSql, rawParams)).length;
    const ui = async () => {
      const response = await fetch(`${service.baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: uiQuery, variables: { first: PAGE, after: cursor, ...query.ui } }),
      });
      const body = (await response.json()) as { errors?: unknown[]; data: { traces: { edges: unknown[] } } };
      if (body.errors) throw new Error(`${query.name}: ${JSON.stringify(body.errors)}`);
      return body.data.traces.edges.length;
    };
    // Checks, outside the timings: the three see the same page.
    const [listed, rawRows, uiRows] = [await list(), Math.min(PAGE, (await db.all(rawSql, rawParams)).length), await ui()];
    if (listed !== rawRows || listed !== uiRows) throw new Error(`${query.name}: list ${listed}, raw ${rawRows}, ui ${uiRows} rows`);

    const times = { list: [] as number[], raw: [] as number[], ui: [] as number[] };
    for (const [kind, once] of [
      ['list', list],
      ['raw', raw],
      ['ui', ui],
    ] as const) {
      await timed(3, once);
      times[kind] = await timed(ITERATIONS, once);
      all[kind].push(...times[kind]);
    }
    const f = (value: number) => value.toFixed(1).padStart(6);
    if (process.env.BENCH_PROGRESS)
      console.log(`  … ${query.name}: list ${percentile(times.list, 0.5).toFixed(1)}, ui ${percentile(times.ui, 0.5).toFixed(1)} ms`);
    const [l50, l95, r50, r95, u50, u95] = [times.list, times.raw, times.ui].flatMap((t) => [percentile(t, 0.5), percentile(t, 0.95)]);
    rows.push(
      `  ${query.name.padEnd(28)} ${String(listed).padStart(4)} ${f(l50)} ${f(l95)}   ${f(r50)} ${f(r95)}  ${(l50 / r50).toFixed(1).padStart(5)}   ${f(u50)} ${f(u95)}`,
    );
  }
  for (const times of Object.values(all)) times.sort((a, b) => a - b);
  console.log(`  query (ms)                   rows   list p50/p95      raw p50/p95  ratio      ui p50/p95`);
  for (const row of rows) console.log(row);
  const f = (value: number) => value.toFixed(1).padStart(6);
  console.log(
    `  ${'all queries'.padEnd(28)}      ${f(percentile(all.list, 0.5))} ${f(percentile(all.list, 0.95))}   ${f(percentile(all.raw, 0.5))} ${f(percentile(all.raw, 0.95))}  ${(percentile(all.list, 0.5) / percentile(all.raw, 0.5)).toFixed(1).padStart(5)}   ${f(percentile(all.ui, 0.5))} ${f(percentile(all.ui, 0.95))}`,
  );
  console.log(`  (aim: list p95 < 100 ms; ratio: list p50 / raw p50)`);
} finally {
  await db.close();
  await service.stop();
}
