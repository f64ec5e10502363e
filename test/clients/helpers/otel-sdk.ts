// The OpenTelemetry 2.x Node SDK the client libraries run on, set up as docs/instrumentation.md
// tells users to: a NodeTracerProvider exporting OTLP/protobuf to Assay. An in-memory exporter
// beside it tells the test which spans the library made (their trace and span ids).
import { createRequire } from 'node:module';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { FakeEndpoint } from '../../helpers/endpoints.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { startOpenAICompatible } from './openai-compatible.js';

// This workspace holds two copies of the OpenTelemetry API: 1.9 beside the 2.x SDK here, 1.10 at the
// root, where `ai` and `@langfuse/*` find theirs. An app has one (npm dedupes it). Registering
// through the newer one, as `provider.register()` would through the app's, lets both copies find
// the provider and the context manager (an API accepts a global of its own or a newer version).
const api = createRequire(new URL('../../../package.json', import.meta.url))('@opentelemetry/api') as typeof import('@opentelemetry/api');

export interface ClientSdk {
  provider: NodeTracerProvider;
  /** The spans the library ended so far. */
  spans(): ReadableSpan[];
  /** Exports every ended span to Assay and waits for its answers. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * The SDK, registered globally (each test file runs in a process of its own), exporting to
 * `url`; `processors` are added before the exporter's (Langfuse's span processor is one).
 */
export function clientSdk(url: string, options: { serviceName: string; processors?: SpanProcessor[]; exportToAssay?: boolean }): ClientSdk {
  const memory = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [
      ...(options.processors ?? []),
      ...(options.exportToAssay === false ? [] : [new SimpleSpanProcessor(new OTLPTraceExporter({ url }))]),
      new SimpleSpanProcessor(memory),
    ],
  });
  api.trace.setGlobalTracerProvider(provider);
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  return {
    provider,
    spans: () => memory.getFinishedSpans(),
    flush: () => provider.forceFlush(),
    async shutdown() {
      await provider.shutdown();
      api.trace.disable();
      api.context.disable();
    },
  };
}

/** The trace ids of the spans whose name matches, in the order they ended. */
export function traceIdsOf(spans: ReadableSpan[], name: RegExp): string[] {
  return [...new Set(spans.filter((span) => name.test(span.name)).map((span) => span.spanContext().traceId))];
}

/** What each client test runs: Assay, the OpenAI-compatible API, and the SDK exporting to Assay. */
export interface ClientTestBed {
  server: TestServer;
  api: FakeEndpoint;
  sdk: ClientSdk;
  close(): Promise<void>;
}

/** The test bed; `sdkOptions` given Assay's address (OTLP path or base URL). */
export async function startClientTest(sdkOptions: (baseUrl: string) => { url: string } & Parameters<typeof clientSdk>[1]): Promise<ClientTestBed> {
  const server = await startServer({ OTLP_GRPC_PORT: '0' });
  const api = await startOpenAICompatible();
  const { url, ...options } = sdkOptions(server.baseUrl);
  const sdk = clientSdk(url, options);
  return {
    server,
    api,
    sdk,
    async close() {
      await sdk.shutdown();
      await api.close();
      await server.close();
    },
  };
}
