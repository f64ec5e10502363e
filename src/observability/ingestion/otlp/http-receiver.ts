// OTLP/HTTP: POST /v1/traces, /otlp/v1/traces, Langfuse's /api/public/otel/v1/traces (and /api/…) take an
// ExportTraceServiceRequest as application/x-protobuf or application/json, optionally gzip (or
// deflate) encoded, and answer an ExportTraceServiceResponse in the request's encoding, with
// partial_success naming rejected spans; `/v1/logs` beside each takes an ExportLogsServiceRequest
// alike (docs/observability.md#otlp-logs). Failures answer a google.rpc.Status in the same encoding
// with the status codes OTLP exporters act on: 400 (unreadable body: dropped), 401/403 (no key, or
// one without the ingest scope: docs/access.md), 413 (too large), 415 (not protobuf or JSON),
// 429 + Retry-After (the key's rate limit) and 503 + Retry-After (write queue full): retried.
// This is its own Fastify scope: the REST scope reads every body as JSON.
import { promisify } from 'node:util';
import { gunzip, inflate } from 'node:zlib';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AssayError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../../shared/errors.js';
import { described } from '../../../shared/http/openapi.js';
import { OtlpBadRequest } from './decoded-span.js';
import type { OtlpDecoder } from './decoding-thread.js';
import { ingestOtlp, ingestOtlpLogs, type OtlpIngestResult } from './export.js';
import { ExportLogsServiceResponse, ExportTraceServiceResponse, RpcStatus } from './messages.js';
import type { OtlpSignal } from './prepare-spans.js';

// /public/otel/v1/traces is Langfuse's path (served as /api/public/otel/v1/traces, like every route
// under /api), so an app set up for Langfuse can point at Assay unchanged. Each has its /v1/logs.
export const otlpHttpPaths = ['/v1/traces', '/otlp/v1/traces', '/public/otel/v1/traces'] as const;

const protobufTypes = ['application/x-protobuf', 'application/protobuf'];
const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

type Format = 'protobuf' | 'json';

/** The encoding of answers: protobuf for a protobuf request, else JSON. */
function formatOf(request: FastifyRequest): Format {
  const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return protobufTypes.includes(type) ? 'protobuf' : 'json';
}

async function decompress(request: FastifyRequest, body: Buffer, maxBytes: number): Promise<Buffer> {
  const encoding = String(request.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (encoding === 'identity' || encoding === '') return body;
  if (encoding !== 'gzip' && encoding !== 'deflate') {
    throw new UnsupportedMediaTypeError(`Content-Encoding ${encoding} is not supported (use gzip or none)`);
  }
  try {
    return await (encoding === 'gzip' ? gunzipAsync : inflateAsync)(body, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw new PayloadTooLargeError(`The decompressed body exceeds ${maxBytes} bytes`);
    }
    throw new OtlpBadRequest(`The body is not valid ${encoding} data`);
  }
}

/** gRPC status codes carried in the google.rpc.Status of error answers. */
function rpcCode(status: number): number {
  if (status === 400 || status === 415 || status === 422) return 3; // INVALID_ARGUMENT
  if (status === 413 || status === 429) return 8; // RESOURCE_EXHAUSTED
  if (status === 503) return 14; // UNAVAILABLE
  if (status === 404) return 5; // NOT_FOUND
  if (status === 401) return 16; // UNAUTHENTICATED
  if (status === 403) return 7; // PERMISSION_DENIED
  return 13; // INTERNAL
}

function sendStatus(reply: FastifyReply, format: Format, status: number, message: string, headers: Record<string, string> = {}) {
  reply.code(status).headers(headers);
  if (format === 'protobuf') {
    const body = RpcStatus.encode(RpcStatus.create({ code: rpcCode(status), message })).finish();
    return reply.type('application/x-protobuf').send(Buffer.from(body));
  }
  return reply.type('application/json; charset=utf-8').send({ code: rpcCode(status), message });
}

/** The Export answer of `signal`: ExportTraceServiceResponse (`rejectedSpans`) or ExportLogsServiceResponse (`rejectedLogRecords`). */
function sendResult(reply: FastifyReply, format: Format, result: OtlpIngestResult, signal: OtlpSignal) {
  const [type, count] = signal === 'logs' ? [ExportLogsServiceResponse, 'rejectedLogRecords'] : [ExportTraceServiceResponse, 'rejectedSpans'];
  const partial = result.rejected > 0 ? { [count]: result.rejected, errorMessage: result.errorMessage } : null;
  if (format === 'protobuf') {
    const message = type.create(partial ? { partialSuccess: partial } : {});
    return reply.type('application/x-protobuf').send(Buffer.from(type.encode(message).finish()));
  }
  return reply
    .type('application/json; charset=utf-8')
    .send(partial ? { partialSuccess: { [count]: String(result.rejected), errorMessage: result.errorMessage } } : {});
}

// The API reference's view of these paths: bodies and answers in both encodings.
const binary = { type: 'string', format: 'binary' } as const;
const rpcStatus = z
  .object({ code: z.int().describe('gRPC status code'), message: z.string() })
  .meta({ id: 'RpcStatus', description: 'google.rpc.Status (protobuf for a protobuf request)' });
const failure = (description: string) => ({
  description,
  content: { 'application/json': { schema: rpcStatus }, 'application/x-protobuf': { schema: binary } },
});
const otlpDoc = (signal: OtlpSignal) => {
  const [request, response, items, rejected, what] =
    signal === 'logs'
      ? ['ExportLogsServiceRequest', 'ExportLogsServiceResponse', 'resourceLogs', 'rejectedLogRecords', 'log records']
      : ['ExportTraceServiceRequest', 'ExportTraceServiceResponse', 'resourceSpans', 'rejectedSpans', 'spans'];
  return described({
    tag: 'otlp',
    scope: 'ingest',
    summary: `OTLP/HTTP ${signal === 'logs' ? 'log' : 'trace'} export (${request})`,
    description:
      signal === 'logs'
        ? 'Point any OTLP log exporter here. Log records that name a span are kept with it: GenAI events become its conversation, the others its events (docs/observability.md#otlp-logs); records naming no span are rejected in `partialSuccess`.'
        : 'Point any OTLP exporter here. The body may be gzip or deflate encoded (`Content-Encoding`). Rejected spans are named in `partialSuccess`; the rest is stored.',
    operation: {
      requestParams: { header: z.object({ 'content-encoding': z.enum(['gzip', 'deflate', 'identity']).optional() }) },
      requestBody: {
        required: true,
        content: {
          'application/x-protobuf': { schema: binary },
          'application/json': { schema: z.looseObject({ [items]: z.array(z.record(z.string(), z.unknown())) }) },
        },
      },
      responses: {
        200: {
          description: `${response}, in the encoding of the request; sent once the ${what} are committed`,
          content: {
            'application/x-protobuf': { schema: binary },
            'application/json': {
              schema: z.object({ partialSuccess: z.object({ [rejected]: z.string(), errorMessage: z.string() }).optional() }),
            },
          },
        },
        400: failure('An unreadable body (not retried by exporters)'),
        413: failure('The body, before or after decompression, is larger than MAX_BODY_BYTES'),
        415: failure('Neither application/x-protobuf nor application/json'),
        429: failure("Over the API key's rate limit: retry after Retry-After seconds"),
        503: failure('The write queue is full: retry after Retry-After seconds'),
      },
    },
  });
};

export function otlpHttpRoutes(app: FastifyInstance, maxBodyBytes: number, decoder: OtlpDecoder): void {
  app.removeAllContentTypeParsers();
  // Bodies stay bytes here: protobuf and JSON alike are read on the decoding thread.
  app.addContentTypeParser(
    [...protobufTypes, 'application/json'],
    { parseAs: 'buffer', bodyLimit: maxBodyBytes },
    async (request: FastifyRequest, body: Buffer) => decompress(request, body, maxBodyBytes),
  );

  app.setErrorHandler((error: FastifyError | AssayError | OtlpBadRequest, request, reply) => {
    const format = formatOf(request);
    if (error instanceof OtlpBadRequest) return sendStatus(reply, format, 400, error.message);
    if (error instanceof AssayError) return sendStatus(reply, format, error.status, error.message, error.headers());
    const status = error.statusCode;
    if (status === 415) {
      return sendStatus(reply, 'json', 415, 'Send OTLP as application/x-protobuf or application/json');
    }
    if (status && status >= 400 && status < 500) return sendStatus(reply, format, status, error.message);
    request.log.error({ err: error }, 'unhandled error in OTLP ingestion');
    return sendStatus(reply, format, 500, 'Internal Server Error');
  });

  const body = (request: FastifyRequest) => (request.body as Buffer | undefined) ?? Buffer.alloc(0);
  const traces = async (request: FastifyRequest, reply: FastifyReply) => {
    const format = formatOf(request);
    const prepared = await decoder.prepare(format, body(request));
    return sendResult(reply, format, await ingestOtlp(request.ctx, 'otlp_http', prepared), 'traces');
  };
  const logs = async (request: FastifyRequest, reply: FastifyReply) => {
    const format = formatOf(request);
    const prepared = await decoder.prepareLogs(format, body(request));
    return sendResult(reply, format, await ingestOtlpLogs(request.ctx, prepared), 'logs');
  };
  for (const path of otlpHttpPaths) {
    app.post(path, otlpDoc('traces'), traces);
    app.post(path.replace(/traces$/, 'logs'), otlpDoc('logs'), logs);
  }
}
