// The limits a request meets while it is received (docs/limits.md): receive timeouts (408), a body
// still arriving after its early answer (read and dropped, so the connection goes on), ids of any
// length or encoding (404), and the `{"detail"}` shape of every such answer.
import { describe, expect, it } from 'vitest';
import { createGate, startEndpoint, type FakeEndpoint } from '../../../test/helpers/endpoints.js';
import { startEndpointEvaluation } from '../../../test/helpers/evaluations.js';
import { RawConnection } from '../../../test/helpers/raw-http.js';
import { useTestServer } from '../../../test/helpers/server.js';
import { globalId } from '../graphql/ids.js';

const MAX_BODY_BYTES = 6 * 1024 * 1024;
const BIG = 4 * 1024 * 1024;

const server = useTestServer({ REQUEST_TIMEOUT_SECONDS: '2', HEADERS_TIMEOUT_SECONDS: '1', MAX_BODY_BYTES: String(MAX_BODY_BYTES) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const next = 'GET /testsets HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

/** Writes `text` one byte every `everyMs` until the connection closes or the text ends. */
async function dribble(connection: RawConnection, text: string, everyMs: number): Promise<void> {
  for (const byte of text) {
    if (connection.closed || !(await connection.write(byte))) return;
    await sleep(everyMs);
  }
}

describe('receive timeouts', () => {
  it('answers 408 {detail} to headers sent one byte at a time, after HEADERS_TIMEOUT_SECONDS', async () => {
    const connection = await RawConnection.open(server.baseUrl);
    const started = Date.now();
    void dribble(connection, `GET /apps HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'s'.repeat(200)}\r\n\r\n`, 100);
    const response = await connection.response(6_000);
    const elapsed = Date.now() - started;
    expect(response).toMatchObject({ status: 408, headers: { connection: 'close' } });
    expect(JSON.parse(response!.body)).toEqual({ detail: 'The request was not received in time' });
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(4_000);
    await connection.response(2_000); // the close
    expect(connection.closed).toBe(true);
  });

  it('answers 408 {detail} to a body sent one byte at a time, after REQUEST_TIMEOUT_SECONDS', async () => {
    const connection = await RawConnection.open(server.baseUrl);
    const body = JSON.stringify({ app_name: 'slow'.repeat(20) });
    const started = Date.now();
    await connection.write(`POST /apps HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    void dribble(connection, body, 100);
    const response = await connection.response(6_000);
    const elapsed = Date.now() - started;
    expect(response?.status).toBe(408);
    expect(JSON.parse(response!.body)).toEqual({ detail: 'The request was not received in time' });
    expect(elapsed).toBeGreaterThanOrEqual(1_900);
    expect(elapsed).toBeLessThan(5_000);
    // Nothing of the slow request was stored.
    const apps = await server.request('GET', '/apps');
    expect(apps.body.map((app: { app_name: string }) => app.app_name)).not.toContain('slow'.repeat(20));
  });

  it('does not cut an answer that lasts longer than the timeouts: an SSE subscription', async () => {
    const gate = createGate();
    const endpoint: FakeEndpoint = await startEndpoint(async () => {
      await gate.wait();
      return { body: { message: 'Paris' } };
    });
    try {
      const { evaluation } = await startEndpointEvaluation(server, endpoint.url, [{ country: 'France', correct_answer: 'Paris' }]);
      const response = await fetch(`${server.baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({
          query: `subscription($id: ID!) { evaluationProgress(id: $id) { status } }`,
          variables: { id: globalId('Evaluation', evaluation.id) },
        }),
      });
      expect(response.status).toBe(200);
      // The stream stays open past REQUEST_TIMEOUT_SECONDS, then ends with the evaluation.
      setTimeout(() => gate.open(), 3_000);
      const text = await response.text();
      expect(text).toContain('EVALUATION_FINISHED');
      expect(text).toMatch(/event: complete/);
    } finally {
      gate.open();
      await endpoint.close();
    }
  }, 15_000);
});

describe('a body still arriving when its answer is given', () => {
  /**
   * Sends `head` (request line, headers and the start of the body), takes the early answer, sends
   * the rest of the body, then a second request on the same connection.
   */
  async function answeredEarly(head: string, rest: Buffer) {
    const connection = await RawConnection.open(server.baseUrl);
    try {
      await connection.write(head);
      const first = await connection.response();
      let sent = true;
      for (let at = 0; at < rest.length && sent; at += 256 * 1024) sent = await connection.write(rest.subarray(at, at + 256 * 1024));
      if (sent) sent = await connection.write(next);
      const second = sent ? await connection.response() : null;
      return { first, second, closedByServer: await connection.closedWithin(second ? 0 : 2_000) };
    } finally {
      connection.close();
    }
  }

  it('reads the rest of a multipart body without a boundary (422), then serves the next request', async () => {
    const body = Buffer.alloc(BIG, 'a');
    const { first, second } = await answeredEarly(
      `POST /testsets/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data\r\nContent-Length: ${BIG}\r\n\r\n${body.subarray(0, 65536).toString()}`,
      body.subarray(65536),
    );
    expect(first?.status).toBe(422);
    expect(JSON.parse(first!.body).detail[0].loc).toEqual(['body']);
    expect(second?.status).toBe(200);
  });

  it('reads the rest of a body whose second file part is refused (413), then serves the next request', async () => {
    const boundary = 'b0undary';
    const start =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="one.csv"\r\n\r\na,b\n1,2\n\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="two.csv"\r\n\r\n`;
    const end = `\r\n--${boundary}--\r\n`;
    const filler = Buffer.alloc(BIG, 'x');
    const { first, second } = await answeredEarly(
      `POST /testsets/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${start.length + BIG + end.length}\r\n\r\n${start}${filler.subarray(0, 65536).toString()}`,
      Buffer.concat([filler.subarray(65536), Buffer.from(end)]),
    );
    expect(first?.status).toBe(413);
    expect(JSON.parse(first!.body)).toEqual({ detail: expect.any(String) });
    expect(second?.status).toBe(200);
  });

  it('closes the connection once the unread rest passes MAX_BODY_BYTES, after answering', async () => {
    const size = 2 * MAX_BODY_BYTES;
    const body = Buffer.alloc(size, 'a');
    const { first, second, closedByServer } = await answeredEarly(
      `POST /testsets/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data\r\nContent-Length: ${size}\r\n\r\n${body.subarray(0, 65536).toString()}`,
      body.subarray(65536),
    );
    expect(first?.status).toBe(422);
    expect(second).toBeNull();
    expect(closedByServer).toBe(true);
  });
});

describe('ids and paths the router cannot read', () => {
  it('answers 404 "<Kind> with id … not found" to an id of any length or encoding', async () => {
    const long = 'a'.repeat(600);
    for (const [path, detail] of [
      [`/apps/${long}`, `App with id ${long} not found`],
      [`/api/observability/traces/${long}`, `Trace with id ${long} not found`],
      ['/apps/%E0%A4%A', 'App with id %E0%A4%A not found'],
      ['/apps/%', 'App with id % not found'],
      ['/apps/%E0%A4%A/variants', 'App with id %E0%A4%A not found'],
      ['/apps/%ZZ?x=%E0', 'App with id %ZZ not found'],
      [`/apps/${encodeURIComponent('é'.repeat(300))}`, `App with id ${'é'.repeat(300)} not found`],
    ]) {
      const response = await server.request('GET', path);
      expect([path, response.status, response.body]).toEqual([path, 404, { detail }]);
    }
  });

  it('answers 404 {"detail":"Not Found"} where no route can match', async () => {
    for (const path of ['/%E0%A4%A', `/${'%'.repeat(700)}`, '/apps/x/y/z']) {
      const response = await server.request('GET', path);
      expect([path, response.status, response.body]).toEqual([path, 404, { detail: 'Not Found' }]);
    }
    for (const method of ['OPTIONS', 'PUT', 'PATCH']) {
      const response = await server.request(method, '/apps');
      expect([method, response.status, response.body]).toEqual([method, 404, { detail: 'Not Found' }]);
    }
  });

  it("answers 431 {detail} to a request line over Node's header limit, and 400 {detail} to what is not HTTP", async () => {
    const huge = await RawConnection.open(server.baseUrl);
    await huge.write(`GET /apps/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const tooLarge = await huge.response();
    expect(tooLarge?.status).toBe(431);
    expect(JSON.parse(tooLarge!.body)).toEqual({ detail: 'The request line and headers are too large' });
    huge.close();

    const garbage = await RawConnection.open(server.baseUrl);
    await garbage.write('NOT HTTP AT ALL\r\n\r\n');
    const bad = await garbage.response();
    expect(bad?.status).toBe(400);
    expect(JSON.parse(bad!.body)).toEqual({ detail: 'The request is not valid HTTP/1.1' });
    garbage.close();
  });
});
