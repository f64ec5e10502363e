// The service's log (docs/logging.md): JSON lines, or pino-pretty's human-readable lines on a
// terminal; one line per request; never a header or a body.
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { destination as pinoDestination } from 'pino';
import pinoPretty from 'pino-pretty';
import type { Config } from '../config.js';

type Level = 'info' | 'warn' | 'error';
const rank: Record<Level, number> = { info: 0, warn: 1, error: 2 };

/** What a handler adds to its request's line: fields, and a level the line must reach at least. */
export interface RequestLogNote {
  level: Level;
  fields: Record<string, unknown>;
}

declare module 'fastify' {
  interface FastifyRequest {
    logNote?: RequestLogNote;
  }
}

/** Adds `fields` to the request's one line, raising its level to `level` if that is higher. */
export function noteForLog(request: FastifyRequest, level: Level, fields: Record<string, unknown>): void {
  const note = request.logNote;
  request.logNote = note ? { level: rank[level] > rank[note.level] ? level : note.level, fields: { ...note.fields, ...fields } } : { level, fields };
}

/** A reply's level: a server fault is an error, a client's mistake a warning, the rest info. */
export function levelOfStatus(status: number): Level {
  return status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
}

/**
 * Fastify logs "incoming request" and "request completed" (and "Route … not found"): this logs one
 * line when the reply has been sent, from fields chosen here, so no header or body can slip in.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override routeNotFound(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const note = request.logNote;
    let level = levelOfStatus(status);
    if (note && rank[note.level] > rank[level]) level = note.level;
    if (error) level = 'error';
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    const url = request.originalUrl;
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? null,
      url,
      status,
      ms,
      ...note?.fields,
      ...(error ? { err: error } : {}),
    };
    reply.log[level](line, `${request.method} ${url} ${status} ${ms} ms`);
  }
}

/** `LOG_FORMAT`, or pretty when stdout is a terminal and JSON otherwise. */
export function logFormat(config: Pick<Config, 'LOG_FORMAT'>, isTTY = process.stdout.isTTY === true): 'json' | 'pretty' {
  return config.LOG_FORMAT ?? (isTTY ? 'pretty' : 'json');
}

// Belt and braces: nothing here logs headers or bodies, but an error object from a library might
// carry the request it made.
const redact = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  '*.lm_providers_keys',
  'lm_providers_keys',
];

/** The Fastify options of the log; `destination` receives the lines (stdout unless given). */
export function loggingOptions(
  config: Pick<Config, 'LOG_LEVEL' | 'LOG_FORMAT'>,
  destination?: NodeJS.WritableStream,
): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  const pretty = logFormat(config) === 'pretty';
  const stream = pretty
    ? pinoPretty({
        // Synchronous, so the last lines ("stopped") are written before the process exits.
        sync: true,
        singleLine: true,
        translateTime: 'SYS:HH:MM:ss.l',
        // The request line's message already says method, url, status and time.
        ignore: 'pid,hostname,method,url,status,ms,route',
        ...(destination ? { destination, colorize: false } : {}),
      })
    : // Synchronous too: pino's default buffers, and lines written just before an exit were lost.
      (destination ?? pinoDestination({ dest: 1, sync: true }));
  return {
    logger: {
      level: config.LOG_LEVEL,
      redact,
      // Readable by people as well as machines: "level":"warn", "time":"2026-…Z".
      formatters: { level: (label) => ({ level: label }) },
      timestamp: () => `,"time":"${new Date().toISOString()}"`,
      stream,
    },
    logController: new OneLinePerRequest(),
  };
}

export interface ServedRoutes {
  origin: string;
  routes: { url: string }[];
  /** `host:port` of OTLP/gRPC, or null when it is off. */
  grpc: string | null;
}

// What an operator may want to open or point an app at, by kind; listed only when served.
const entryPoints: [string, string[]][] = [
  ['GraphQL and GraphiQL', ['/graphql']],
  ['GraphQL over SSE (graphql-sse)', ['/graphql/stream']],
  ['API docs', ['/docs', '/openapi.json']],
  ['health', ['/healthz', '/readyz']],
  ['metrics', ['/metrics']],
  ['OTLP/HTTP', ['/v1/traces', '/api/public/otel/v1/traces']],
];

/** The start line: every address served, starting with Fastify's own words ("Server listening at"). */
export function startLine({ origin, routes, grpc }: ServedRoutes): string {
  const served = new Set(routes.map((route) => (route.url.length > 1 ? route.url.replace(/\/$/, '') : route.url)));
  const parts = [`Server listening at ${origin} (REST, also under /api)`];
  for (const [name, paths] of entryPoints) {
    // /api/… paths are served through the /api alias of their unprefixed route.
    const present = paths.filter((path) => served.has(path.replace(/^\/api(?=\/)/, '')));
    if (present.length > 0) parts.push(`${name} ${present.map((path) => origin + path).join(' ')}`);
  }
  parts.push(`OTLP/gRPC ${grpc ?? 'off'}`);
  return parts.join(' · ');
}
