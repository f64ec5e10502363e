// Durability of OTLP ingestion across crashes (docs/durability.md: nothing accepted with a 2xx is
// lost). The real service runs as a child process; OTLP/HTTP protobuf requests go to it eight at a
// time, and the moment the Nth 2xx answer arrives the process is SIGKILLed (no shutdown work at
// all), other requests still in flight. It restarts on the same database, and then every span of
// every request answered 2xx must be stored, and each request not answered is stored whole or not
// at all. Several rounds, killed at different moments, on one database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hexId, otlpProtobufBody, T0_NS, type SyntheticSpan } from '../../../../test/helpers/otlp-trace.js';
import { startAssayProcess, type AssayProcess } from '../../../../test/helpers/process.js';
import { createTestDatabase, type TestDatabase } from '../../../../test/helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-durability-'));
let database: TestDatabase;
let env: Record<string, string>;
let running: AssayProcess | undefined;

beforeAll(async () => {
  database = await createTestDatabase(dir);
  env = { ...database.env, OTLP_GRPC_PORT: '0' };
});

afterAll(async () => {
  await running?.kill();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Each request: its own trace (a root and 199 children, children first), and 50 spans under the root of one trace all requests share. */
const OWN = 200;
const SHARED = 50;
const SHARED_TRACE = hexId(0x5a5a, 16);
const SHARED_ROOT = hexId(1, 8);
const IN_FLIGHT = 8;
const PER_ROUND = 40;
/** The 2xx answer after which each round's process is killed. */
const KILL_AFTER = [1, 4, 9, 17];

interface SentRequest {
  number: number;
  ownTrace: string;
  spanIds: { own: string[]; shared: string[] };
  body: Uint8Array<ArrayBuffer>;
  started?: boolean;
  answered?: number;
}

function request(number: number): SentRequest {
  const ownTrace = hexId(0x7000_0000 + number, 16);
  const span = (traceId: string, spanId: string, parentSpanId: string | null, offsetMs: number, name: string): SyntheticSpan => {
    const startNs = T0_NS + BigInt(number) * 1_000_000_000n + BigInt(offsetMs) * 1_000_000n;
    return { traceId, spanId, parentSpanId, name, kind: parentSpanId === null ? 'CHAIN' : 'LLM', startNs, endNs: startNs + 500_000n };
  };
  const ownRoot = hexId(1, 8);
  const own = Array.from({ length: OWN - 1 }, (_, i) => span(ownTrace, hexId(2 + i, 8), ownRoot, 1 + i, `request ${number} call ${i}`));
  own.push(span(ownTrace, ownRoot, null, 0, `request ${number}`));
  // The shared root is in every request (re-sent, so overwritten); the spans under it are this request's own.
  const shared = Array.from({ length: SHARED }, (_, i) =>
    span(SHARED_TRACE, hexId(0x10_0000 * number + i + 1, 8), SHARED_ROOT, 1 + i, `shared ${number}.${i}`),
  );
  const sharedRoot = { ...span(SHARED_TRACE, SHARED_ROOT, null, 0, 'shared root'), startNs: T0_NS, endNs: T0_NS + 1n };
  return {
    number,
    ownTrace,
    spanIds: { own: own.map((s) => s.spanId), shared: shared.map((s) => s.spanId) },
    body: otlpProtobufBody([...own, ...shared, sharedRoot]),
  };
}

/** Span ids in a REST tree answer (iteratively). */
function treeIds(tree: { id: string; children: unknown[] }): string[] {
  const ids: string[] = [];
  const stack = [tree];
  while (stack.length > 0) {
    const node = stack.pop()!;
    ids.push(node.id);
    stack.push(...(node.children as (typeof tree)[]));
  }
  return ids;
}

/** Sends requests `IN_FLIGHT` at a time until the `killAfter`th 2xx answer, then SIGKILLs the service at once. */
async function sendUntilKilled(service: AssayProcess, requests: SentRequest[], killAfter: number): Promise<void> {
  let next = 0;
  let answered2xx = 0;
  let killed = false;
  const worker = async () => {
    while (!killed && next < requests.length) {
      const sent = requests[next++];
      sent.started = true;
      try {
        const response = await fetch(`${service.url}/v1/traces`, { method: 'POST', body: sent.body, headers: { 'content-type': 'application/x-protobuf' } });
        // An answer that arrives after the signal was still sent before the death: it counts too.
        sent.answered = response.status;
        if (response.status >= 200 && response.status < 300 && ++answered2xx === killAfter) {
          killed = true;
          service.child.kill('SIGKILL');
        }
      } catch {
        // The connection died with the process: no answer.
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  await service.kill();
  expect(answered2xx).toBeGreaterThanOrEqual(killAfter);
}

it('keeps every span of every 2xx answer, and no request half-stored, across SIGKILLs at different moments', { timeout: 120_000 }, async () => {
  const sent: SentRequest[] = [];
  const stats = { rounds: [] as string[], unansweredWhole: 0, unansweredNone: 0 };

  /** Checks, through the restarted service, everything sent so far. */
  const check = async (service: AssayProcess) => {
    const shared = await service.request('GET', `/observability/traces/${SHARED_TRACE}`);
    expect(shared.status).toBe(200);
    const sharedIds = new Set(treeIds(shared.body));
    const { data } = await service.graphql(`query ($id: String!) { trace(traceId: $id) { spanCount } }`, { id: SHARED_TRACE });
    expect(data.trace.spanCount).toBe(sharedIds.size); // the roll-up committed with its spans
    let storedShared = 1; // the shared root
    const halfStored: string[] = [];
    const lost: number[] = [];
    const neverSentStored: number[] = [];
    let unansweredWhole = 0;
    let unansweredNone = 0;
    for (const request of sent) {
      const own = await service.request('GET', `/observability/traces/${request.ownTrace}`);
      expect([200, 404]).toContain(own.status);
      const ownIds = new Set(own.status === 200 ? treeIds(own.body) : []);
      const ownStored = request.spanIds.own.filter((id) => ownIds.has(id)).length;
      const sharedStored = request.spanIds.shared.filter((id) => sharedIds.has(id)).length;
      expect(ownIds.size).toBe(ownStored); // nothing else in the request's trace
      const stored = ownStored + sharedStored;
      const whole = OWN + SHARED;
      if (stored !== 0 && stored !== whole) halfStored.push(`request ${request.number}: ${ownStored}/${OWN} own, ${sharedStored}/${SHARED} shared`);
      const ok = request.answered !== undefined && request.answered >= 200 && request.answered < 300;
      if (ok && stored !== whole) lost.push(request.number);
      if (!request.started && stored !== 0) neverSentStored.push(request.number);
      if (request.started && !ok && stored === whole) unansweredWhole++;
      if (request.started && !ok && stored === 0) unansweredNone++;
      storedShared += sharedStored;
    }
    expect(halfStored).toEqual([]);
    expect(lost).toEqual([]);
    expect(neverSentStored).toEqual([]);
    expect(sharedIds.size).toBe(storedShared);
    return { unansweredWhole, unansweredNone };
  };

  for (const [round, killAfter] of KILL_AFTER.entries()) {
    running = await startAssayProcess(dir, env);
    if (round > 0) await check(running);
    const requests = Array.from({ length: PER_ROUND }, (_, i) => request(round * PER_ROUND + i + 1));
    sent.push(...requests);
    await sendUntilKilled(running, requests, killAfter);
    const started = requests.filter((r) => r.started).length;
    const answered = requests.filter((r) => r.answered !== undefined).length;
    stats.rounds.push(`killed after 2xx #${killAfter} (${started} sent, ${started - answered} unanswered)`);
  }
  running = await startAssayProcess(dir, env);
  Object.assign(stats, await check(running));
  // The restarted service still takes writes.
  const after = request(10_000);
  const response = await fetch(`${running.url}/v1/traces`, { method: 'POST', body: after.body, headers: { 'content-type': 'application/x-protobuf' } });
  expect(response.status).toBe(200);
  const own = await running.request('GET', `/observability/traces/${after.ownTrace}`);
  expect(treeIds(own.body).sort()).toEqual([...after.spanIds.own].sort());
  await running.stop();
  running = undefined;
  console.log(
    `durability: ${sent.length} requests sent; ${stats.rounds.join('; ')}; requests sent but unanswered found whole ${stats.unansweredWhole}, absent ${stats.unansweredNone}`,
  );
});
