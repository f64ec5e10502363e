// A GraphQL subscription over SSE (/graphql/stream) read one payload at a time, for tests that
// follow a live stream while they act on the server.

export interface Subscription {
  /** The next payload (`{data}` or `{errors}`); null once the server completed the stream. */
  next(): Promise<any>;
  /** Reads payloads until one satisfies `done`, within `timeoutMs`; answers it. */
  until(done: (payload: any) => boolean, timeoutMs?: number): Promise<any>;
  close(): void;
}

export async function subscribe(baseUrl: string, query: string, variables: Record<string, unknown> = {}): Promise<Subscription> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/graphql/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query, variables }),
    signal: controller.signal,
  });
  if (response.status !== 200) throw new Error(`subscription refused: ${response.status} ${await response.text()}`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const next = async (): Promise<any> => {
    for (;;) {
      const end = text.indexOf('\n\n');
      if (end >= 0) {
        const message = text.slice(0, end);
        text = text.slice(end + 2);
        if (/^event: complete/m.test(message)) return null;
        const data = /^data: (.*)$/m.exec(message);
        if (data) return JSON.parse(data[1]);
        continue;
      }
      const { value, done } = await reader.read();
      if (done) return null;
      text += decoder.decode(value, { stream: true });
    }
  };
  const until = async (done: (payload: any) => boolean, timeoutMs = 30_000): Promise<any> => {
    const seen: unknown[] = [];
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      for (;;) {
        const payload = await next();
        if (payload === null) throw new Error(`the stream ended first; seen: ${JSON.stringify(seen.slice(-3))}`);
        seen.push(payload);
        if (done(payload)) return payload;
      }
    } catch (error) {
      if (controller.signal.aborted) throw new Error(`not seen within ${timeoutMs} ms; last: ${JSON.stringify(seen.slice(-3))}`, { cause: error });
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
  return { next, until, close: () => controller.abort() };
}
