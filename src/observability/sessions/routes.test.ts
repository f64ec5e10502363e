// Sessions over REST (GET /sessions, GET /sessions/{session_id}): every field, each filter, paging
// with cursors, the turns of one session, faults (422 naming the parameter, 404), and a session that
// goes when its traces are deleted. Seven traces a minute apart in three sessions, one without.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../test/helpers/server.js';
import { at, legacySpan } from '../../../test/helpers/spans.js';

let server: TestServer;

// t0 … t6 start a minute apart; t7 has no session. session-0: t0, t3, t6 (user-a, production; t3
// failed); session-1: t1, t4 (user-b, production); session-2: t2, t5 (user-a, staging).
const sessionOf = (i: number) => (i === 7 ? undefined : `session-${i % 3}`);

async function ingest(i: number) {
  const session = sessionOf(i);
  const response = await server.request('POST', '/observability/trace', {
    trace: `t${i}`,
    spans: [
      legacySpan(`t${i}-root`, null, i * 60, i * 60 + 2, {
        name: 'chat turn',
        spankind: 'workflow',
        status: i === 3 ? 'error' : 'ok',
        environment: i % 3 === 2 ? 'staging' : 'production',
        user: i % 3 === 1 ? 'user-b' : 'user-a',
        ...(session ? { session_id: session } : {}),
        inputs: { question: i === 4 ? 'Where is the Eiffel Tower?' : `question ${i}` },
        outputs: { answer: `answer ${i}` },
      }),
      legacySpan(`t${i}-llm`, `t${i}-root`, i * 60, i * 60 + 1, {
        name: 'chat',
        spankind: 'llm',
        config: { model: 'gpt-4o-mini-2024-07-18' },
        tokens: { prompt_tokens: 1000, completion_tokens: 100 },
      }),
    ],
  });
  expect(response.status, response.text).toBe(200);
}

beforeAll(async () => {
  server = await startServer();
  for (let i = 0; i < 8; i++) await ingest(i);
});

afterAll(async () => {
  await server.close();
});

const list = async (query = '') => {
  const response = await server.request('GET', `/sessions${query}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
};
const ids = async (query = '') => (await list(query)).sessions.map((session: { session_id: string }) => session.session_id);

describe('GET /sessions', () => {
  it('lists the sessions whose latest trace started last first, with their figures over all their traces', async () => {
    const body = await list();
    expect(body.sessions.map((session: { session_id: string }) => session.session_id)).toEqual(['session-0', 'session-2', 'session-1']);
    expect(body.next_cursor).toBeNull();
    expect(body.sessions[0]).toEqual({
      session_id: 'session-0',
      first_seen: at(0),
      last_seen: at(360),
      trace_count: 3,
      error_count: 1,
      failed_trace_count: 1,
      usage: { prompt_tokens: 3000, completion_tokens: 300, total_tokens: 3300 },
      // gpt-4o-mini at ingestion: 1000 × 0.15/M + 100 × 0.6/M a trace, three traces
      cost: 0.00063,
      user_id: 'user-a',
      environment: 'production',
      first_trace_id: 't0',
      last_trace_id: 't6',
      first_input: { question: 'question 0' },
      last_output: { answer: 'answer 6' },
      scores: [],
    });
  });

  it("shows each session's own scores, not its traces'", async () => {
    const sent = await server.request('POST', '/scores', [
      { id: 'resolved-1', session_id: 'session-1', name: 'resolved', value: true, comment: 'solved in two turns' },
      { id: 'turn-1', trace_id: 't1', name: 'helpful', value: 0.5 },
    ]);
    expect(sent.status, sent.text).toBe(200);
    const body = await list('?user_id=user-b');
    expect(body.sessions[0].scores).toEqual([
      expect.objectContaining({ id: 'resolved-1', target: 'session', session_id: 'session-1', name: 'resolved', value: 1, comment: 'solved in two turns' }),
    ]);
    expect((await server.request('GET', '/sessions/session-1')).body.scores.map((score: { id: string }) => score.id)).toEqual(['resolved-1']);
    expect((await list('?user_id=user-a')).sessions.map((session: { scores: unknown[] }) => session.scores)).toEqual([[], []]);
  });

  it('filters: a session matches when one of its traces does', async () => {
    expect(await ids('?user_id=user-b')).toEqual(['session-1']);
    expect(await ids('?environment=staging')).toEqual(['session-2']);
    expect(await ids(`?started_after=${encodeURIComponent(at(200))}&started_before=${encodeURIComponent(at(250))}`)).toEqual(['session-1']);
    // Only t0 started before 30 s, but its session's figures are still over all three traces.
    const early = await list(`?started_before=${encodeURIComponent(at(30))}`);
    expect(early.sessions.map((session: { session_id: string; trace_count: number }) => [session.session_id, session.trace_count])).toEqual([['session-0', 3]]);
    expect(await ids('?search=SION-2')).toEqual(['session-2']);
    expect(await ids('?search=%25')).toEqual([]);
    expect(await ids('?text=eiffel')).toEqual(['session-1']);
    expect(await ids('?user_id=user-a&environment=production')).toEqual(['session-0']);
    expect(await ids('?user_id=nobody')).toEqual([]);
  });

  it('finds a filtered page by walking the newest traces, or by grouping the matches when the walk finds too few', async () => {
    const grouped = () => server.queries.some((query) => query.includes('GROUP BY g."sessionId"'));
    server.resetQueries();
    expect(await ids('?limit=1&user_id=user-a')).toEqual(['session-0']);
    expect(grouped()).toBe(false);
    server.resetQueries();
    expect(await ids('?user_id=user-a')).toEqual(['session-0', 'session-2']);
    expect(grouped()).toBe(true);
  });

  it('pages with cursors, each session once', async () => {
    const first = await list('?limit=2');
    expect(first.sessions.map((session: { session_id: string }) => session.session_id)).toEqual(['session-0', 'session-2']);
    const second = await list(`?limit=2&cursor=${first.next_cursor}`);
    expect(second.sessions.map((session: { session_id: string }) => session.session_id)).toEqual(['session-1']);
    expect(second.next_cursor).toBeNull();
    expect(await ids(`?limit=1&user_id=user-a&cursor=${(await list('?limit=1&user_id=user-a')).next_cursor}`)).toEqual(['session-2']);
  });

  it('refuses bad parameters with a 422 naming them', async () => {
    const response = await server.request('GET', '/sessions?limit=0&started_after=yesterday&cursor=nonsense');
    expect(response.status).toBe(422);
    expect(response.body.detail.map((issue: { loc: string[] }) => issue.loc)).toEqual([
      ['query', 'started_after'],
      ['query', 'limit'],
    ]);
    const cursor = await server.request('GET', '/sessions?cursor=nonsense');
    expect(cursor.status).toBe(422);
    expect(cursor.body.detail[0]).toMatchObject({ loc: ['query', 'after'], msg: 'Invalid cursor' });
  });
});

describe('GET /sessions/{session_id}', () => {
  it('answers the session and its traces in start order as turns, each with its input and output', async () => {
    const response = await server.request('GET', '/sessions/session-0');
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ session_id: 'session-0', trace_count: 3, next_cursor: null });
    expect(response.body.turns.map((turn: any) => [turn.trace_id, turn.status, turn.input, turn.output])).toEqual([
      ['t0', 'OK', { question: 'question 0' }, { answer: 'answer 0' }],
      ['t3', 'ERROR', { question: 'question 3' }, { answer: 'answer 3' }],
      ['t6', 'OK', { question: 'question 6' }, { answer: 'answer 6' }],
    ]);
    expect(response.body.turns[0]).toMatchObject({ root_span_id: 't0-root', start_time: at(0), span_count: 2, session_id: 'session-0' });
  });

  it('pages the turns with cursors', async () => {
    const first = await server.request('GET', '/sessions/session-0?limit=2');
    expect(first.body.turns.map((turn: { trace_id: string }) => turn.trace_id)).toEqual(['t0', 't3']);
    const rest = await server.request('GET', `/sessions/session-0?limit=2&cursor=${first.body.next_cursor}`);
    expect(rest.body.turns.map((turn: { trace_id: string }) => turn.trace_id)).toEqual(['t6']);
    expect(rest.body.next_cursor).toBeNull();
  });

  it('answers 404 for a session no trace has, 422 for a bad limit', async () => {
    const missing = await server.request('GET', '/sessions/session-9');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Session with id session-9 not found' });
    const bad = await server.request('GET', '/sessions/session-0?limit=abc');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'limit']);
  });

  it('is derived from its traces: a session goes when they are deleted, and its figures follow them', async () => {
    await ingest(8); // a third trace of session-2, deleted again below
    expect((await server.request('GET', '/sessions/session-2')).body.trace_count).toBe(3);
    expect((await server.request('DELETE', '/observability/traces/t8')).status).toBe(204);
    expect((await server.request('GET', '/sessions/session-2')).body).toMatchObject({
      trace_count: 2,
      last_trace_id: 't5',
      last_output: { answer: 'answer 5' },
    });
    for (const trace of ['t2', 't5']) expect((await server.request('DELETE', `/observability/traces/${trace}`)).status).toBe(204);
    expect((await server.request('GET', '/sessions/session-2')).status).toBe(404);
    expect(await ids()).toEqual(['session-0', 'session-1']);
  });

  it('lists a session once when two of its traces start at the same moment', async () => {
    for (const trace of ['tie-a', 'tie-b']) {
      const response = await server.request('POST', '/observability/trace', {
        trace,
        spans: [legacySpan(`${trace}-root`, null, 600, 601, { session_id: 'tied' })],
      });
      expect(response.status).toBe(200);
    }
    expect(await ids()).toEqual(['tied', 'session-0', 'session-1']);
    expect((await list('?limit=1')).sessions[0]).toMatchObject({ session_id: 'tied', trace_count: 2, first_trace_id: 'tie-a', last_trace_id: 'tie-b' });
    expect(await ids(`?cursor=${(await list('?limit=1')).next_cursor}`)).toEqual(['session-0', 'session-1']);
  });
});
