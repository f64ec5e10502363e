// OTLP/gRPC (docs/observability.md#otlp-ingestion):
// `opentelemetry.proto.collector.trace.v1.TraceService/Export` and `…logs.v1.LogsService/Export`
// on OTLP_GRPC_PORT, with the same decoder, mapping, write paths and limits as OTLP/HTTP. Messages are decoded by our protobufjs
// descriptor (no proto-loader): the service is declared with pass-through serialisers and the
// handler decodes the bytes itself. grpc-js decompresses gzip messages and refuses messages over
// MAX_BODY_BYTES (RESOURCE_EXHAUSTED).
import * as grpc from '@grpc/grpc-js';
import type { FastifyBaseLogger } from 'fastify';
import type { RequestContext } from '../../../shared/context.js';
import { AssayError, ForbiddenError, OverloadedError, TooManyRequestsError, UnauthorizedError } from '../../../shared/errors.js';
import { OtlpBadRequest } from './decoded-span.js';
import type { OtlpDecoder } from './decoding-thread.js';
import { ingestOtlp, ingestOtlpLogs, type OtlpIngestResult } from './export.js';
import { ExportLogsServiceResponse, ExportTraceServiceResponse, RetryInfo, RpcStatus } from './messages.js';

const identity = (value: Buffer) => value;

/** An OTLP collector service whose one method is Export (`service`: trace.v1.TraceService, logs.v1.LogsService). */
const exportService = (service: string): grpc.ServiceDefinition => ({
  Export: {
    path: `/opentelemetry.proto.collector.${service}/Export`,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
});

export const traceServiceDefinition = exportService('trace.v1.TraceService');
export const logsServiceDefinition = exportService('logs.v1.LogsService');

function grpcError(code: grpc.status, details: string, metadata?: grpc.Metadata): Partial<grpc.StatusObject> {
  return { code, details, ...(metadata ? { metadata } : {}) };
}

/**
 * RESOURCE_EXHAUSTED is retried by OTLP exporters only when the status carries a RetryInfo (the
 * OTLP specification's "Failures" of OTLP/gRPC): sent in `grpc-status-details-bin` as a
 * google.rpc.Status with the delay, and as `retry-after` for people reading the trailers.
 */
function retryLater(details: string, seconds: number): Partial<grpc.StatusObject> {
  const retryInfo = RetryInfo.encode(RetryInfo.create({ retry_delay: { seconds, nanos: 0 } })).finish();
  const status = RpcStatus.encode(
    RpcStatus.create({
      code: grpc.status.RESOURCE_EXHAUSTED,
      message: details,
      details: [{ type_url: 'type.googleapis.com/google.rpc.RetryInfo', value: retryInfo }],
    }),
  ).finish();
  const metadata = new grpc.Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from(status));
  metadata.set('retry-after', String(seconds));
  return grpcError(grpc.status.RESOURCE_EXHAUSTED, details, metadata);
}

export interface OtlpGrpcServer {
  port: number;
  close(): Promise<void>;
}

// grpc-js writes its own errors to stderr; ours reach the service's log instead.
grpc.setLogVerbosity(grpc.logVerbosity.NONE);

export async function startOtlpGrpc(options: {
  host: string;
  port: number;
  maxMessageBytes: number;
  /** The request's context from its `authorization` metadata; throws as HTTP would refuse (401, 403). */
  context: (authorization: string | undefined) => Promise<RequestContext>;
  decoder: OtlpDecoder;
  log: FastifyBaseLogger;
}): Promise<OtlpGrpcServer> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': options.maxMessageBytes,
    'grpc.max_send_message_length': 1024 * 1024,
  });
  /** Export of one signal: the message decoded and stored as `ingest` does, answered as `encode` says. */
  const exporter =
    (ingest: (ctx: RequestContext, message: Buffer) => Promise<OtlpIngestResult>, encode: (result: OtlpIngestResult) => Uint8Array) =>
    (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      const authorization = call.metadata.get('authorization')[0];
      Promise.resolve(typeof authorization === 'string' ? authorization : undefined)
        .then((credential) => options.context(credential))
        .then(async (ctx) => ({ ctx, result: await ingest(ctx, call.request) }))
        .then(async ({ ctx, result }) => {
          // Answered once on disk, as HTTP replies are (shared/http/durable.ts).
          await ctx.walSync.sync();
          return result;
        })
        .then(
          (result) => callback(null, Buffer.from(encode(result))),
          (error: unknown) => {
            if (error instanceof OverloadedError) {
              // UNAVAILABLE is what OTLP/gRPC exporters retry, with backoff.
              const metadata = new grpc.Metadata();
              metadata.set('retry-after', String(error.retryAfterSeconds));
              return callback(grpcError(grpc.status.UNAVAILABLE, error.message, metadata));
            }
            if (error instanceof UnauthorizedError) return callback(grpcError(grpc.status.UNAUTHENTICATED, error.message));
            if (error instanceof ForbiddenError) return callback(grpcError(grpc.status.PERMISSION_DENIED, error.message));
            if (error instanceof TooManyRequestsError) return callback(retryLater(error.message, error.retryAfterSeconds));
            if (error instanceof OtlpBadRequest || error instanceof AssayError) return callback(grpcError(grpc.status.INVALID_ARGUMENT, error.message));
            options.log.error({ err: error }, 'OTLP/gRPC ingestion failed');
            callback(grpcError(grpc.status.INTERNAL, 'Internal error'));
          },
        );
    };
  server.addService(traceServiceDefinition, {
    Export: exporter(
      async (ctx, message) => ingestOtlp(ctx, 'otlp_grpc', await options.decoder.prepare('protobuf', message)),
      (result) =>
        ExportTraceServiceResponse.encode(
          ExportTraceServiceResponse.create(
            result.rejected > 0 ? { partialSuccess: { rejectedSpans: result.rejected, errorMessage: result.errorMessage } } : {},
          ),
        ).finish(),
    ),
  });
  server.addService(logsServiceDefinition, {
    Export: exporter(
      async (ctx, message) => ingestOtlpLogs(ctx, await options.decoder.prepareLogs('protobuf', message)),
      (result) =>
        ExportLogsServiceResponse.encode(
          ExportLogsServiceResponse.create(
            result.rejected > 0 ? { partialSuccess: { rejectedLogRecords: result.rejected, errorMessage: result.errorMessage } } : {},
          ),
        ).finish(),
    ),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${options.host}:${options.port}`, grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), 5_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
