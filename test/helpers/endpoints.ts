// Small local HTTP servers that play the user's variant endpoints and an OpenAI-compatible model
// provider in end-to-end tests. Each records what it was sent (and when), counts the requests in
// flight, and can hold requests back until a test releases them.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. "/v1/chat/completions". */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, or its text when it is not JSON. */
  body: any;
  /** Date.now() when the request arrived. */
  at: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as text/plain (unless headers say otherwise). */
  body?: unknown;
}

/** What a handler does with one request: a reply, or nothing when it wrote `res` itself. */
export type Handler = (request: RecordedRequest, res: ServerResponse, index: number) => Reply | void | Promise<Reply | void>;

export interface FakeEndpoint {
  /** `http://127.0.0.1:<port>` + `path` (default "/"). */
  url: string;
  base: string;
  requests: RecordedRequest[];
  /** The most requests that were being handled at the same time. */
  maxConcurrent: number;
  /** Requests being handled now. */
  active: number;
  /** Resolves once `count` requests have arrived (rejects after `timeoutMs`). */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, reply: Reply): void {
  const headers = { ...(reply.headers ?? {}) };
  let payload = '';
  if (typeof reply.body === 'string') {
    payload = reply.body;
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'text/plain; charset=utf-8';
  } else if (reply.body !== undefined) {
    payload = JSON.stringify(reply.body);
    headers['content-type'] ??= 'application/json';
  }
  res.writeHead(reply.status ?? 200, headers);
  res.end(payload);
}

/** Starts an HTTP server on 127.0.0.1 (random port) answering every request with `handler`. */
export async function startEndpoint(handler: Handler, path = '/'): Promise<FakeEndpoint> {
  const requests: RecordedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    const text = await readBody(req);
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: Date.now() };
    const index = requests.push(recorded) - 1;
    for (const waiter of [...waiters]) {
      if (requests.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
    endpoint.active += 1;
    endpoint.maxConcurrent = Math.max(endpoint.maxConcurrent, endpoint.active);
    try {
      const reply = await handler(recorded, res, index);
      if (reply && !res.headersSent && !res.destroyed) send(res, reply);
    } catch (error) {
      if (!res.headersSent && !res.destroyed) send(res, { status: 599, body: `handler failed: ${(error as Error).message}` });
    } finally {
      endpoint.active -= 1;
    }
  };
  const server = createServer((req, res) => void respond(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const endpoint: FakeEndpoint = {
    url: base + path,
    base,
    requests,
    maxConcurrent: 0,
    active: 0,
    waitForRequests(count, timeoutMs = 5_000) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${count} requests, got ${requests.length} in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return endpoint;
}

/** Endpoints a test file starts as it goes (`endpoint`), all closed by `closeAll` in its afterAll. */
export function endpointsOfFile(): { endpoint: (handler: Handler) => Promise<FakeEndpoint>; closeAll: () => Promise<void> } {
  const started: FakeEndpoint[] = [];
  return {
    endpoint: async (handler) => {
      const one = await startEndpoint(handler);
      started.push(one);
      return one;
    },
    closeAll: async () => {
      for (const one of started) await one.close();
    },
  };
}

/** `endpointsOfFile().endpoint`, its endpoints closed after the file's tests. */
export function useEndpoints(): (handler: Handler) => Promise<FakeEndpoint> {
  const { endpoint, closeAll } = endpointsOfFile();
  afterAll(closeAll);
  return endpoint;
}

/** A latch: `wait()` resolves once `open()` was called (immediately after). */
export interface Gate {
  wait(): Promise<void>;
  open(): void;
  readonly isOpen: boolean;
}

export function createGate(): Gate {
  let open!: () => void;
  let isOpen = false;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    wait: () => opened,
    open: () => {
      isOpen = true;
      open();
    },
    get isOpen() {
      return isOpen;
    },
  };
}

/** A port on 127.0.0.1 free now (a server was started there and closed), e.g. for OTLP/gRPC. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A URL on 127.0.0.1 where nothing listens. */
export async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}/`;
}

export interface ChatCompletionReply {
  content: string;
  model?: string;
  usage?: Record<string, unknown>;
  status?: number;
  headers?: Record<string, string>;
  /** When the request asks for a stream: the pieces sent, one event each (the content's words by default). */
  chunks?: string[];
  /** When streaming: awaited after the first piece is sent, so a test can see it arrive alone. */
  afterFirstChunk?: Promise<void>;
  /** When streaming: an error event sent after the first piece, instead of the rest. */
  failMidway?: string;
}

/** Streams a chat completion as OpenAI does (`stream: true`): a chunk per piece, the usage last when asked, then `[DONE]`. */
async function streamCompletion(res: ServerResponse, body: any, answer: ChatCompletionReply): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...answer.headers });
  const model = answer.model ?? body.model;
  const chunk = (fields: Record<string, unknown>) =>
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, ...fields })}\n\n`,
    );
  const pieces = answer.chunks ?? answer.content.split(/(?<= )/);
  for (const [index, piece] of pieces.entries()) {
    chunk({ choices: [{ index: 0, delta: index === 0 ? { role: 'assistant', content: piece } : { content: piece }, finish_reason: null }] });
    if (index === 0 && answer.afterFirstChunk) await answer.afterFirstChunk;
    if (index === 0 && answer.failMidway) {
      res.end(`data: ${JSON.stringify({ error: { message: answer.failMidway } })}\n\n`);
      return;
    }
  }
  chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  if (answer.usage && body.stream_options?.include_usage) chunk({ choices: [], usage: answer.usage });
  res.end('data: [DONE]\n\n');
}

export interface EmbeddingsReply {
  /** One vector per input text. */
  vectors?: number[][];
  model?: string;
  usage?: Record<string, unknown>;
  status?: number;
  /** Sent as the error message when `status` >= 400. */
  message?: string;
  headers?: Record<string, string>;
  /** Sent as is instead of an embeddings object (a malformed reply). */
  raw?: unknown;
}

/**
 * An OpenAI-compatible Chat Completions API at `<base>/v1/chat/completions`. `reply` decides the
 * answer from the request body; the base URL to configure is `url` (".../v1"). With `embed`, it
 * also serves `<base>/v1/embeddings` (404 otherwise). A chat reply's `headers` are sent along
 * (e.g. `Retry-After` with a 429). A request with `stream: true` is answered as an event stream.
 */
export async function startFakeOpenAI(
  reply: (body: any, request: RecordedRequest) => ChatCompletionReply | Promise<ChatCompletionReply>,
  embed?: (body: any, request: RecordedRequest) => EmbeddingsReply | Promise<EmbeddingsReply>,
): Promise<FakeEndpoint> {
  const endpoint = await startEndpoint(async (request, res) => {
    if (embed && request.method === 'POST' && request.path === '/v1/embeddings') {
      const answer = await embed(request.body, request);
      if (answer.status && answer.status >= 400) {
        return { status: answer.status, headers: answer.headers, body: { error: { message: answer.message ?? 'error' } } };
      }
      if (answer.raw !== undefined) return { headers: answer.headers, body: answer.raw };
      return {
        headers: answer.headers,
        body: {
          object: 'list',
          model: answer.model ?? request.body.model,
          data: (answer.vectors ?? []).map((embedding, index) => ({ object: 'embedding', index, embedding })),
          ...(answer.usage ? { usage: answer.usage } : {}),
        },
      };
    }
    if (request.method !== 'POST' || request.path !== '/v1/chat/completions') {
      return { status: 404, body: { error: { message: `no route ${request.method} ${request.path}` } } };
    }
    const answer = await reply(request.body, request);
    if (answer.status && answer.status >= 400) {
      return { status: answer.status, headers: answer.headers, body: { error: { message: answer.content } } };
    }
    if (request.body.stream === true) return streamCompletion(res, request.body, answer);
    return {
      headers: answer.headers,
      body: {
        id: 'chatcmpl-test',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: answer.model ?? request.body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: 'stop' }],
        ...(answer.usage ? { usage: answer.usage } : {}),
      },
    };
  }, '/v1');
  return endpoint;
}
