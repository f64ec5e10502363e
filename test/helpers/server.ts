// One real Assay per test file: its own SQLite file in a temp dir, listening on loopback.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../../src/shared/config.js';
import { createAssay, type Assay } from '../../src/server.js';

export interface TestServer {
  assay: Assay;
  baseUrl: string;
  dir: string;
  /** SQL statements sent since the last `resetQueries()`. */
  queries: string[];
  resetQueries(): void;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  /** The GraphQL response body ({data, errors}), untyped for brevity in tests. */
  graphql(query: string, variables?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function startServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'assay-test-'));
  // OTLP/gRPC stays off unless a test asks for it: parallel test servers would fight over 4317.
  const config: Config = loadConfig({ DATABASE_URL: `file:${join(dir, 'assay.db')}`, LOG_LEVEL: 'silent', PORT: '0', OTLP_GRPC_PORT: '0', ...env });
  const queries: string[] = [];
  const assay = await createAssay(config, { onQuery: (sql) => queries.push(sql) });
  await assay.server.listen({ port: 0, host: '127.0.0.1' });
  const { port } = assay.server.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  const request = requester(baseUrl);

  return {
    assay,
    baseUrl,
    dir,
    queries,
    resetQueries: () => {
      queries.length = 0;
    },
    request,
    graphql: async (query, variables) => (await request('POST', '/graphql', { query, variables })).body,
    close: async () => {
      await assay.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** HTTP calls to a server at `baseUrl`: a body that is a string or FormData is sent as is, others as JSON. */
export function requester(baseUrl: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' || body instanceof FormData ? body : JSON.stringify(body);
      if (!(body instanceof FormData) && !headers['content-type']) {
        (init.headers as Record<string, string>)['content-type'] = 'application/json';
      }
    }
    const response = await fetch(baseUrl + path, init);
    const text = await response.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
}
