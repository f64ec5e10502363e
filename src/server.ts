// Assembles the service: database, REST routes of every domain (also under /api), GraphQL.
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { appRoutes } from './apps/routes.js';
import { evaluationRoutes } from './evaluations/routes.js';
import { EvaluationJobs } from './evaluations/runner.js';
import { EvaluationEngine } from './evaluation-engine/engine.js';
import { BackfillJobs } from './online-evaluation/backfill-runner.js';
import { JobPlanner } from './online-evaluation/planner.js';
import { externalTraceFollower } from './evaluations/external-traces.js';
import { followRuleScores } from './annotation-queues/rules.js';
import { evaluationRuleRoutes } from './online-evaluation/routes.js';
import { OnlineEvaluationRunner } from './online-evaluation/runner.js';
import { evaluatorRoutes } from './evaluators/routes.js';
import { setPythonPoolSize } from './evaluators/sandbox/python.js';
import { ingestionRoutes } from './observability/ingestion/routes.js';
import { registerOtlp } from './observability/ingestion/otlp/receivers.js';
import { deletionRoutes } from './observability/retention/routes.js';
import { searchRoutes } from './observability/search/routes.js';
import { sessionRoutes } from './observability/sessions/routes.js';
import { traceRoutes } from './observability/traces/routes.js';
import { pricingRoutes } from './pricing/routes.js';
import { scoreRoutes } from './scores/routes.js';
import { annotationQueueRoutes } from './annotation-queues/routes.js';
import { testsetRoutes } from './testsets/routes.js';
import { Authenticator, authEnabled, PROJECT_HEADER } from './auth/access.js';
import { authRoutes } from './auth/routes.js';
import { Sessions } from './auth/users/sessions.js';
import { graphqlRoutes } from './graphql/yoga.js';
import { humanEvaluationRoutes } from './human-evaluations/routes.js';
import { registerLangfuse } from './langfuse/routes.js';
import { HumanEvaluationJobs } from './human-evaluations/runner.js';
import { ensureDefaultProject } from './projects/operations.js';
import { followPriceChanges } from './pricing/operations.js';
import type { Config } from './shared/config.js';
import { type Principal, type RequestContext, type Services, requestContext, requireScope, systemActor } from './shared/context.js';
import { createAssayEvents, PostgresEventTarget } from './shared/events.js';
import { type Database, type Db, openDatabase, secretKeyPath, sqlitePath } from './shared/db.js';
import { startCheckpointer } from './shared/checkpointer.js';
import { committedOnReturn, WalSync } from './shared/wal-sync.js';
import { SecretBox } from './shared/secrets.js';
import { acknowledgeDurably } from './shared/http/durable.js';
import { acceptJsonBodies } from './shared/http/body.js';
import { answerClientError, answerFrameworkError, registerErrorHandling } from './shared/http/errors.js';
import { registerOperations } from './shared/http/health.js';
import { drainUnreadBodies, MAX_URL_BYTES, receiveTimeouts } from './shared/http/limits.js';
import { escapeUndecodableSegments } from './shared/http/url.js';
import { Metrics } from './shared/metrics.js';
import { RateLimits } from './shared/rate-limits.js';
import { routeAccess, routeNeedsProject } from './shared/http/access.js';
import { registerBrowserGuards } from './shared/http/browser.js';
import { OutboundPolicy, outboundDispatcher } from './shared/http/outbound.js';
import { SpanWriteQueue } from './observability/ingestion/write-queue.js';
import { SpanPartitions } from './observability/ingestion/span-partitions.js';
import { defaultRetentionSettings, RetentionSweeper } from './observability/retention/retention-sweeper.js';
import { loggingOptions } from './shared/http/logging.js';
import { registerApiDocs } from './shared/http/openapi.js';
import { pageFallback, registerWebUi } from './shared/http/web-ui.js';

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
}

export interface Assay {
  server: FastifyInstance;
  db: Db;
  services: Services;
  /** The database opened, with its SQLite connection or PostgreSQL pool (db.ts). */
  database: Database;
  /** Migrations applied while opening the database. */
  migrationsApplied: string[];
  /** Every route served, as registered (the /api aliases are not listed). */
  routes: { method: string; url: string }[];
  /** Whether requests need credentials (docs/access.md#modes). */
  authEnabled: boolean;
  /** Deletes traces past their project's retention (observability/retention/retention-sweeper.ts); tests call `sweep()`. */
  retention: RetentionSweeper;
  /** The bound OTLP/gRPC port, or null when gRPC is off. */
  grpcPort: number | null;
  close(): Promise<void>;
}

export interface AssayOptions {
  /** Called with every SQL statement (tests count them). */
  onQuery?: (sql: string) => void;
}

/** Every REST route is also served under /api (docs/contract.md#conventions). */
function stripApiPrefix(url = '/'): string {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?') ? url.slice(4) || '/' : url;
}

/** Fastify's types take no number of proxies; proxy-addr's function form says the same. */
function trustHops(hops: number) {
  return (_address: string, hop: number) => hop < hops;
}

export async function createAssay(config: Config, options: AssayOptions = {}): Promise<Assay> {
  setPythonPoolSize(config.PYTHON_SANDBOX_PROCESSES);
  const database = await openDatabase({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, onQuery: options.onQuery });
  const { db, applied, sql } = database;
  const projectId = await ensureDefaultProject(db);
  const secrets = SecretBox.load(config.ASSAY_SECRET_KEY, secretKeyPath(config.DATABASE_URL));
  // Errors of the background "last use" writes; the server's log exists only below.
  let logError: (error: unknown) => void = () => {};
  const onError = (error: unknown) => logError(error);
  let logEventError: (error: unknown, message: string) => void = () => {};
  // On PostgreSQL, events reach the other instances (docs/operations.md#several-instances).
  const transport =
    database.provider === 'postgresql' ? new PostgresEventTarget(config.DATABASE_URL, database.pool, (...args) => logEventError(...args)) : undefined;
  await transport?.start();
  const events = createAssayEvents(transport);
  // Rate limits and login throttles count in a table every instance shares on PostgreSQL.
  const limiterStore = database.provider === 'postgresql' ? database.pool : null;
  const authenticator = new Authenticator(
    db,
    sql,
    secrets,
    authEnabled(config),
    projectId,
    onError,
    new Sessions(db, sql, secrets, config, onError, limiterStore),
    events,
  );
  try {
    await authenticator.prepare(config);
  } catch (error) {
    await transport?.close();
    await database.close();
    throw error;
  }
  // The WAL's fsync and checkpoints are SQLite's; PostgreSQL's COMMIT is durable by itself.
  const walSync = database.provider === 'sqlite' ? new WalSync(sqlitePath(config.DATABASE_URL), database.connection) : committedOnReturn;
  const outboundPolicy = new OutboundPolicy({ authEnabled: authenticator.enabled, allow: config.ASSAY_OUTBOUND_ALLOW });
  const services: Services = {
    db,
    sql,
    events,
    walSync,
    secrets,
    providerEnv: config.providerEnv,
    metrics: new Metrics(),
    priceLists: new Map(),
    rateLimits: new RateLimits(config.ASSAY_RATE_LIMIT_PER_MINUTE, limiterStore),
    outbound: outboundDispatcher(outboundPolicy),
    outboundPolicy,
    spanQueue: new SpanWriteQueue({ writers: database.provider === 'postgresql' ? 2 : 1 }),
    spanPartitions: new SpanPartitions(db, sql),
    tracesStoredHooks: [],
    onlineEvaluation: { timeoutMs: config.ONLINE_EVALUATION_TIMEOUT_SECONDS * 1000 },
    authenticator,
  };
  services.metrics.watchWriteQueue(services.spanQueue);
  followPriceChanges(services);

  const server = Fastify({
    ...loggingOptions(config),
    bodyLimit: config.MAX_BODY_BYTES,
    // Behind a proxy: X-Forwarded-For and -Proto give req.ip and req.protocol (docs/access.md#sessions).
    trustProxy: typeof config.ASSAY_TRUST_PROXY === 'number' ? trustHops(config.ASSAY_TRUST_PROXY) : config.ASSAY_TRUST_PROXY,
    // Ids of any length are still ids (unknown: 404); Node bounds the whole request line (431).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_URL_BYTES },
    rewriteUrl: (req) => escapeUndecodableSegments(stripApiPrefix(req.url)),
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    ...receiveTimeouts(config.REQUEST_TIMEOUT_SECONDS, config.HEADERS_TIMEOUT_SECONDS),
  });
  const checkpointer =
    database.provider === 'sqlite'
      ? startCheckpointer(sqlitePath(config.DATABASE_URL), database.connection(), { onError: (message) => server.log.warn(message) })
      : null;
  const routes: Assay['routes'] = [];
  server.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url });
  });
  server.decorateRequest('ctx', null as unknown as RequestContext);
  // Public routes (health, the API description) read no project's data: no scope at all.
  const publicPrincipal: Principal = { projectId, scopes: [], actor: systemActor };
  logError = (error) => server.log.error({ err: error }, "noting an API key's or a session's last use failed");
  logEventError = (error, message) => server.log.warn({ err: error }, message);
  // Every request's principal, from its credentials, checked against what its route requires
  // (docs/access.md). A refusal is answered by the route's own error handler (REST, GraphQL and
  // OTLP each answer in their shape). Ingest routes count their spans against the rate limit
  // themselves; every other request counts one.
  registerBrowserGuards(server, { authEnabled: authenticator.enabled, corsOrigins: config.ASSAY_CORS_ORIGINS, allowedHosts: config.ASSAY_ALLOWED_HOSTS });
  server.addHook('onRequest', async (req) => {
    const access = routeAccess(req);
    const origin = { ip: req.ip, userAgent: req.headers['user-agent'] ?? null, url: `${req.protocol}://${req.host}` };
    if (access === 'public') {
      req.ctx = requestContext(services, projectId, publicPrincipal, origin);
      return;
    }
    const project = req.headers[PROJECT_HEADER];
    const principal = await authenticator.principal({
      authorization: req.headers.authorization,
      cookie: req.headers.cookie,
      project: typeof project === 'string' ? project : undefined,
      projectOptional: !routeNeedsProject(req),
    });
    if (access !== 'authenticated') requireScope(principal, access);
    if (access !== 'ingest') await services.rateLimits.consume(principal.actor);
    req.ctx = requestContext(services, principal.projectId, principal, origin);
  });
  registerErrorHandling(server, pageFallback);
  drainUnreadBodies(server, config.MAX_BODY_BYTES);
  registerApiDocs(server);
  await registerWebUi(server);
  acknowledgeDurably(server, walSync);
  registerOperations(server, services);
  await server.register((scope, _options, done) => {
    graphqlRoutes(scope);
    done();
  });
  await server.register(async (rest) => {
    acceptJsonBodies(rest);
    await rest.register(multipart, { limits: { fileSize: config.MAX_BODY_BYTES, files: 1 } });
    appRoutes(rest);
    testsetRoutes(rest);
    evaluatorRoutes(rest);
    pricingRoutes(rest);
    scoreRoutes(rest);
    annotationQueueRoutes(rest);
    searchRoutes(rest);
    ingestionRoutes(rest);
    traceRoutes(rest);
    sessionRoutes(rest);
    deletionRoutes(rest);
    evaluationRoutes(rest);
    humanEvaluationRoutes(rest);
    evaluationRuleRoutes(rest);
    authRoutes(rest);
  });
  await registerLangfuse(server);
  const otlp = await registerOtlp(server, config, services, (credentials) => authenticator.principal(credentials));
  const timeoutMs = config.VARIANT_TIMEOUT_SECONDS * 1000;
  const leaseMs = config.EVALUATION_LEASE_SECONDS * 1000;
  const planning = { maxPendingJobs: config.ONLINE_EVALUATION_MAX_PENDING_JOBS };
  const engines = [
    new EvaluationEngine(
      services,
      new EvaluationJobs(services, { timeoutMs }),
      { leaseMs, concurrency: 4 },
      server.log.child({ component: 'evaluation-runner' }),
    ),
    new EvaluationEngine(
      services,
      new HumanEvaluationJobs(services, { timeoutMs, batchSize: 10, retries: 2, retryDelayMs: 1000 }),
      { leaseMs, concurrency: 2 },
      server.log.child({ component: 'human-evaluation-runner' }),
    ),
    // Online evaluation runs its jobs in batches of its own (docs/online-evaluation.md#jobs), on the engine's leases.
    new OnlineEvaluationRunner(
      services,
      {
        backoffMs: config.ONLINE_EVALUATION_BACKOFF_SECONDS * 1000,
        timeoutMs: config.ONLINE_EVALUATION_TIMEOUT_SECONDS * 1000,
        retryDeadlineMs: config.ONLINE_EVALUATION_RETRY_DEADLINE_SECONDS * 1000,
        maxAttempts: config.ONLINE_EVALUATION_MAX_ATTEMPTS,
      },
      { leaseMs, concurrency: config.ONLINE_EVALUATION_CONCURRENCY },
      server.log.child({ component: 'online-evaluation-runner' }),
    ),
    new EvaluationEngine(
      services,
      new BackfillJobs(services, planning),
      { leaseMs, concurrency: 1 },
      server.log.child({ component: 'online-evaluation-backfill' }),
    ),
  ];
  const planner = new JobPlanner(services, planning, server.log.child({ component: 'online-evaluation-planner' }));
  services.tracesStoredHooks.push(planner.notify);
  // Runs recorded from code read their cases' traces as they arrive (docs/experiments.md#traces).
  const follower = externalTraceFollower(services, server.log.child({ component: 'external-runs' }));
  services.tracesStoredHooks.push(follower.notify);
  // Queues fed by online rules take the targets those score (docs/annotation-queues.md#online-rules).
  const stopRuleScores = followRuleScores(services, server.log.child({ component: 'annotation-queues' }));
  const retention = new RetentionSweeper(
    services,
    { ...defaultRetentionSettings, defaultDays: config.ASSAY_RETENTION_DAYS ?? null },
    server.log.child({ component: 'retention' }),
  );
  server.addHook('onClose', async () => {
    await otlp.close();
    await planner.stop();
    await follower.stop();
    stopRuleScores();
    for (const engine of engines) await engine.stop();
    await retention.stop();
    await transport?.close();
    await walSync.close();
    await database.close();
    await checkpointer?.close();
    await services.outbound.close();
  });

  await server.ready();
  for (const engine of engines) engine.start();
  planner.start();
  await retention.start(config.ASSAY_RETENTION_INTERVAL_SECONDS * 1000);
  return {
    server,
    db,
    services,
    database,
    migrationsApplied: applied,
    routes,
    authEnabled: authenticator.enabled,
    retention,
    grpcPort: otlp.grpcPort,
    close: () => server.close(),
  };
}
